package provider

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
