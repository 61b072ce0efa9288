package provider

import "strings"

// Capabilities are what a model can do, normalised across vendors. The
// kernel and the projection consult them: parallel tool calls are
// requested only where supported, and the context window bounds what a
// request may carry. The zero value claims nothing.
type Capabilities struct {
	// Streaming: the model streams its reply.
	Streaming bool `json:"streaming"`
	// Tools: the model can propose tool calls.
	Tools bool `json:"tools"`
	// ParallelTools: the model can propose several calls in one turn, and
	// the vendor has a switch for it.
	ParallelTools bool `json:"parallel_tools"`
	// Reasoning: the model streams reasoning (thinking) of its own.
	Reasoning bool `json:"reasoning"`
	// ContextWindow is the model's context, in tokens; zero means unknown.
	ContextWindow int `json:"context_window"`
	// MaxOutput is the output the model may produce in one reply, in
	// tokens: what a request reserves; zero means unknown.
	MaxOutput int `json:"max_output,omitempty"`
	// ReasoningLevels are the reasoning efforts the model takes, from
	// the catalogue ("low", "medium", "high"...), and DefaultEffort its
	// default among them; empty when it does not reason or nobody knows.
	ReasoningLevels []string `json:"reasoning_levels,omitempty"`
	DefaultEffort   string   `json:"default_effort,omitempty"`
}

// ModelName returns model as the adapters match it against their model
// families: lower-cased, without a router's vendor prefix ("openai/gpt-4.1",
// OpenRouter's) or a local server's tag ("qwen3:8b", Ollama's).
func ModelName(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return name
}

// HasAnyPrefix reports whether name starts with one of prefixes.
func HasAnyPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
