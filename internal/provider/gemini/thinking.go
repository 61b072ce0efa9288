package gemini

import (
	"strconv"
	"strings"
)

// thinkingFor returns the thinkingConfig of a request for model at the
// reasoning level effort. includeThoughts is asked of the models known to
// think (reasoning), as before there were levels. An empty effort leaves
// the model's default. Otherwise Gemini 3 and later take a thinkingLevel
// and the others (2.5, and names this package cannot place, since every
// thinking model reads a budget) a thinkingBudget.
func thinkingFor(model, effort string, reasoning bool) *thinkingConfig {
	c := &thinkingConfig{IncludeThoughts: reasoning}
	effort = strings.ToLower(strings.TrimSpace(effort))
	if effort == "" {
		return c
	}
	m := strings.TrimPrefix(strings.ToLower(model), "models/")
	pro := strings.Contains(m, "-pro")
	if geminiMajor(m) >= 3 {
		c.ThinkingLevel = thinkingLevel(effort, pro)
		return c
	}
	budget := thinkingBudget(effort, pro)
	c.ThinkingBudget = &budget
	return c
}

// thinkingLevel maps a reasoning level onto Gemini 3's: minimal, low,
// medium and high pass through; the levels above high are high; none is
// the least a model thinks, minimal, or low for the Pro models, which
// cannot go lower (and do not turn thinking off).
func thinkingLevel(effort string, pro bool) string {
	switch effort {
	case "none", "minimal":
		if pro {
			return "low"
		}
		return "minimal"
	case "xhigh", "max":
		return "high"
	}
	return effort
}

// thinkingBudget maps a reasoning level onto a Gemini 2.5 thinking budget,
// within the documented ranges: 0 to 24,576 tokens for Flash (0 turns
// thinking off), 128 to 32,768 for Pro (which cannot turn it off). A
// level it does not know is -1, the model's dynamic budget.
func thinkingBudget(effort string, pro bool) int {
	switch effort {
	case "none":
		if pro {
			return 128
		}
		return 0
	case "minimal":
		return 512
	case "low":
		return 1024
	case "medium":
		return 8192
	case "high":
		return 24576
	case "xhigh", "max":
		if pro {
			return 32768
		}
		return 24576
	}
	return -1
}

// geminiMajor returns the major version of a "gemini-N..." model name,
// or 0 for any other name (an alias such as gemini-flash-latest, a Gemma
// model).
func geminiMajor(model string) int {
	rest, ok := strings.CutPrefix(model, "gemini-")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end]) // no digits is 0
	return n
}
