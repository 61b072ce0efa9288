package anthropic

import (
	"encoding/json"
	"testing"
)

func TestAdaptiveThinking(t *testing.T) {
	for model, want := range map[string]bool{
		"claude-opus-4-6":                   true,
		"claude-sonnet-4-6":                 true,
		"claude-opus-4-7":                   true,
		"claude-opus-4-6-20260205":          true,
		"anthropic.claude-opus-4-6-v1":      true,
		"claude-opus-4-6@20260205":          true,
		"anthropic/claude-sonnet-4.6":       true,
		"claude-sonnet-5":                   true,
		"claude-haiku-5-5":                  true,
		"claude-mythos-preview":             true,
		"claude-fable-5":                    true,
		"claude-sonnet-4-5":                 false,
		"claude-sonnet-4-5-20250929":        false,
		"claude-opus-4-5-20251101":          false,
		"claude-haiku-4-5":                  false,
		"claude-sonnet-4-20250514":          false,
		"claude-opus-4-1":                   false,
		"claude-3-7-sonnet-latest":          false,
		"claude-opus-20250514":              false,
		"qwen3-coder":                       false,
		"anthropic.claude-3-5-sonnet-v2:0":  false,
		"claude-sonnet-4-5@20250929":        false,
		"us.anthropic.claude-sonnet-4-6-v1": true,
	} {
		if got := adaptiveThinking(model); got != want {
			t.Errorf("adaptiveThinking(%q) = %v, want %v", model, got, want)
		}
	}
}

func TestThinkingFor(t *testing.T) {
	for _, tc := range []struct {
		name, model, effort string
		maxTokens           int
		thinking, output    string // JSON, "null" for none
		wantMax             int
	}{
		{"no effort: nothing", "claude-sonnet-4-5", "", 16384, "null", "null", 16384},
		{"none: nothing", "claude-opus-4-6", "none", 16384, "null", "null", 16384},
		{"adaptive", "claude-opus-4-6", "high", 32000, `{"type":"adaptive"}`, `{"effort":"high"}`, 32000},
		{"adaptive minimal is low", "claude-sonnet-4-6", "minimal", 8000, `{"type":"adaptive"}`, `{"effort":"low"}`, 8000},
		{"adaptive max", "claude-opus-4-7", "max", 64000, `{"type":"adaptive"}`, `{"effort":"max"}`, 64000},
		{"budget fits", "claude-sonnet-4-5", "low", 16384, `{"type":"enabled","budget_tokens":4096}`, "null", 16384},
		{"budget raises max_tokens", "claude-sonnet-4-5", "high", 8192, `{"type":"enabled","budget_tokens":16384}`, "null", 20480},
		{"minimal is the API's minimum", "claude-3-7-sonnet-latest", "minimal", 1024, `{"type":"enabled","budget_tokens":1024}`, "null", 5120},
		{"unknown level is medium", "claude-opus-4-1", "extreme", 32000, `{"type":"enabled","budget_tokens":8192}`, "null", 32000},
		{"an unknown output limit is the least of the thinking models'", "claude-opus-4-1", "max", 16384, `{"type":"enabled","budget_tokens":27904}`, "null", 32000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th, out, gotMax := thinkingFor(tc.model, tc.effort, tc.maxTokens)
			gotThinking, _ := json.Marshal(th) // plain structs always marshal
			gotOutput, _ := json.Marshal(out)
			if string(gotThinking) != tc.thinking || string(gotOutput) != tc.output || gotMax != tc.wantMax {
				t.Errorf("thinkingFor(%q, %q, %d) = %s, %s, %d; want %s, %s, %d",
					tc.model, tc.effort, tc.maxTokens, gotThinking, gotOutput, gotMax, tc.thinking, tc.output, tc.wantMax)
			}
			if th != nil && th.BudgetTokens >= gotMax {
				t.Errorf("budget %d is not below max_tokens %d", th.BudgetTokens, gotMax)
			}
		})
	}
}

// TestThinkingBudget checks the bounds against a model's output limit:
// the budget stays below max_tokens and, where it can, within the limit
// with room for the answer.
func TestThinkingBudget(t *testing.T) {
	for _, tc := range []struct {
		level                  string
		maxTokens, limit       int
		wantBudget, wantTokens int
	}{
		{"max", 64000, 64000, 59904, 64000},
		{"max", 8192, 32000, 27904, 32000},
		{"xhigh", 4096, 0, 32768, 36864},
		{"high", 100000, 0, 16384, 100000},
		{"high", 2000, 4096, 1024, 4096},
	} {
		budget, tokens := thinkingBudget(tc.level, tc.maxTokens, tc.limit)
		if budget != tc.wantBudget || tokens != tc.wantTokens {
			t.Errorf("thinkingBudget(%q, %d, %d) = %d, %d; want %d, %d", tc.level, tc.maxTokens, tc.limit, budget, tokens, tc.wantBudget, tc.wantTokens)
		}
		if budget >= tokens || budget < minBudget {
			t.Errorf("thinkingBudget(%q, %d, %d): budget %d out of bounds for max_tokens %d", tc.level, tc.maxTokens, tc.limit, budget, tokens)
		}
	}
}
