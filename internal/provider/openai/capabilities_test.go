package openai

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/provider"
)

func TestCapabilities(t *testing.T) {
	plain := provider.Capabilities{Streaming: true, Tools: true}
	par := provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true}
	thinks := provider.Capabilities{Streaming: true, Tools: true, Reasoning: true}
	for _, tc := range []struct {
		model string
		want  provider.Capabilities
	}{
		{"gpt-4.1", par},
		{"gpt-5.6-sol", par},
		{"gpt-4.1-mini-2025-04-14", par},
		{"openai/gpt-4o", par},
		{"o3-mini", plain},
		{"o1-mini", provider.Capabilities{Streaming: true}},
		{"chatgpt-4o-latest", provider.Capabilities{Streaming: true}},
		{"deepseek-reasoner", thinks},
		{"deepseek-chat", plain},
		{"qwen3:8b", thinks},
		{"mistral-large-latest", par},
		{"magistral-medium", provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, Reasoning: true}},
		{"GPT-OSS-120B", thinks},
		{"grok-3-mini", thinks},
		{"grok-4", par},
		{"my-finetune", plain},
		{"", plain},
	} {
		t.Run(tc.model, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Capabilities(tc.model)); d != "" {
				t.Errorf("Capabilities(%q) mismatch (-want +got):\n%s", tc.model, d)
			}
		})
	}
}

func TestRejectsParallelSwitch(t *testing.T) {
	for model, want := range map[string]bool{
		"o1": true, "o3": true, "o3-mini": true, "o4-mini-2025-04-16": true, "openai/o3": true,
		"gpt-4.1": false, "gpt-5": false, "o-llama": false, "qwen3:8b": false,
	} {
		if got := rejectsParallelSwitch(model); got != want {
			t.Errorf("rejectsParallelSwitch(%q) = %v, want %v", model, got, want)
		}
		// The capability and the request agree: a model without the
		// switch does not claim parallel tools.
		if rejectsParallelSwitch(model) && Capabilities(model).ParallelTools {
			t.Errorf("%s claims parallel tools but rejects the switch", model)
		}
	}
}
