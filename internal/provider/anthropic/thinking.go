package anthropic

import (
	"strconv"
	"strings"
)

// thinking is the request's "thinking": {"type": "adaptive"}, or
// {"type": "enabled", "budget_tokens": N}.
type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

// outputConfig carries the effort of adaptive thinking.
type outputConfig struct {
	Effort string `json:"effort,omitempty"`
}

// The bounds of a thinking budget. The API refuses a budget under 1,024
// tokens or one that is not below max_tokens; thinking and the answer
// share max_tokens, so a budget leaves answerReserve tokens for the
// answer.
const (
	minBudget     = 1024
	answerReserve = 4096
)

// fallbackOutputLimit is the output limit assumed for a model that thinks
// by budget when Capabilities does not know its own: the least of the
// Claude models that do (Opus 4 and 4.1 write at most 32,000 tokens, the
// others 64,000), so that a raised max_tokens is never refused.
const fallbackOutputLimit = 32000

// budgets are the thinking budgets of the reasoning levels, for models
// that think by budget. The levels past "high" double it, as far as the
// model's output allows.
var budgets = map[string]int{
	"minimal": minBudget,
	"low":     4096,
	"medium":  8192,
	"high":    16384,
	"xhigh":   32768,
	"max":     65536,
}

// thinkingFor returns the thinking and output settings of a request for
// model at the reasoning level effort, and its max_tokens, maxTokens or
// more when a budget needs room.
//
// An empty effort sends nothing: the API's default, no thinking. "none"
// sends nothing either. A model with adaptive thinking (see
// adaptiveThinking) gets {"type": "adaptive"} and output_config.effort,
// "minimal" becoming the API's lowest level, "low". Any other model gets
// a budget from the level, kept below max_tokens and within the model's
// output limit (fallbackOutputLimit: the adapter keeps no table of the
// models' limits, the catalogue does); max_tokens
// is raised when it would not leave answerReserve tokens after the
// budget.
func thinkingFor(model, effort string, maxTokens int) (*thinking, *outputConfig, int) {
	effort = strings.ToLower(strings.TrimSpace(effort))
	if effort == "" || effort == "none" {
		return nil, nil, maxTokens
	}
	if adaptiveThinking(model) {
		if effort == "minimal" {
			effort = "low"
		}
		return &thinking{Type: "adaptive"}, &outputConfig{Effort: effort}, maxTokens
	}
	budget, maxTokens := thinkingBudget(effort, maxTokens, fallbackOutputLimit)
	return &thinking{Type: "enabled", BudgetTokens: budget}, nil, maxTokens
}

// thinkingBudget returns the budget of level and the max_tokens that
// leaves room for it, given the request's maxTokens and the model's output
// limit (zero when unknown). A level it does not know gets the budget of
// "medium".
func thinkingBudget(level string, maxTokens, limit int) (budget, newMax int) {
	budget, ok := budgets[level]
	if !ok {
		budget = budgets["medium"]
	}
	if limit > 0 {
		budget = min(budget, limit-answerReserve)
	}
	budget = max(budget, minBudget)
	if maxTokens < budget+answerReserve {
		maxTokens = budget + answerReserve
		if limit > budget {
			maxTokens = min(maxTokens, limit)
		}
	}
	return budget, maxTokens
}

// adaptiveThinking reports whether model takes adaptive thinking with an
// effort: Claude Opus and Sonnet 4.6 and later, every family from version
// 5 on, and the Mythos and Fable models. Anthropic deprecates budgets on
// the 4.6 models and refuses them from Opus 4.7 on; the older models
// (Sonnet 4.5, Opus 4.5, Haiku 4.5 and before) take only a budget. Names
// are read as claudeName reads them.
func adaptiveThinking(model string) bool {
	rest, version, ok := claudeName(model)
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "mythos") || strings.HasPrefix(rest, "fable") {
		return true
	}
	major, minor := claudeVersion(version)
	return major > 4 || major == 4 && minor >= 6
}

// claudeVersion reads "4-6", "4-6-20260101", "4-20250514", "4.6" or
// "4-6@2026..." as a major and a minor version; a date or nothing after
// the major is minor 0, and a name with no number is 0.0.
func claudeVersion(s string) (major, minor int) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '.' || r == '@' || r == ':' })
	if len(fields) == 0 {
		return 0, 0
	}
	major, err := strconv.Atoi(fields[0])
	if err != nil || major > 99 {
		return 0, 0
	}
	if len(fields) > 1 && len(fields[1]) <= 2 {
		minor, _ = strconv.Atoi(fields[1]) // "v1" and the like are minor 0
	}
	return major, minor
}
