package projection

import (
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// Projection is the request for the next model call and what the context
// policy decided about it.
type Projection struct {
	// Request is the request to send. Its message slice is its own, but
	// the messages' contents (tool calls, results, provider state) are
	// shared with the state: neither the caller nor a provider may modify
	// them. MaxOutputTokens is Budget.Reserved when the window is known.
	Request *contract.ModelRequest
	// Ledger is the decision ledger to record as context.projected, its
	// Turn left 0 for the kernel to set.
	Ledger *contract.ContextProjected
	// Tokens is the estimate of the request's input; Bytes what the
	// estimate counted (model.requested's input_bytes).
	Tokens int
	Bytes  int
	// MustStay is the estimate of what no policy can take out: the system
	// prompt, the tools, the summary, the latest user message and the
	// latest assistant message with the tool results that follow it.
	MustStay int
	// Compact reports that the request is over Budget.Threshold even
	// after elision: the kernel should compact the conversation.
	Compact bool
	// TooBig reports that MustStay alone is over Budget.Input: nothing
	// can make the request fit.
	TooBig bool
}

// Project builds the request for the next model call from s under the
// context policy of opts.Budget, and its ledger. It is pure: the same
// state and options give the same request, byte for byte.
//
// A request is the system prompt, the tools (from reg filtered by
// [registry.Registry.Visible] and Options.Hidden; none for a nil reg),
// then, after a compaction, the summary as the first user message, then
// the messages kept (with the latest user message, verbatim, after the
// summary if the compaction replaced it); Request.Summarised says how many
// model turns the summary stands for. The results of s.Elided are
// replaced by stubs. When the window is known and the request is over the
// threshold, one elision step elides every result older than the
// protected tail that is not elided yet, then, while the request is over
// the low water (LowWater of the budget), the older results of the tail
// too, oldest first, but never those of the latest turn (Ledger.Elided
// lists them all); if it is still over the threshold, Compact is set.
func Project(s *state.State, reg *registry.Registry, opts *Options) *Projection {
	if opts == nil {
		opts = &Options{}
	}
	b := opts.Budget
	v := newView(s, opts)
	req := &contract.ModelRequest{
		Model: opts.Model, System: opts.System, Tools: tools(s, reg, opts),
		MaxOutputTokens: opts.MaxOutputTokens, Summarised: s.Summarised,
	}
	if b.Known() && (req.MaxOutputTokens <= 0 || req.MaxOutputTokens > b.Reserved) {
		req.MaxOutputTokens = b.Reserved
	}
	p := &Projection{Request: req, Ledger: &contract.ContextProjected{}}
	fixed := len(req.System) + toolsSize(req.Tools)
	p.Bytes = fixed + v.bytes()
	p.Tokens = s.Calib.Estimate(p.Bytes, true)
	if b.Known() {
		p.Ledger.Window, p.Ledger.Reserved, p.Ledger.Budget = b.Window, b.Reserved, b.Input()
		if p.Tokens > b.Threshold() {
			v.before = p.Tokens
			if elideStep(v, &s.Calib, b, fixed) > 0 {
				p.Bytes = fixed + v.bytes()
				p.Tokens = s.Calib.Estimate(p.Bytes, false)
			}
			p.Compact = p.Tokens > b.Threshold()
		}
		p.MustStay = s.Calib.Tokens(fixed + v.mustStay())
		p.TooBig = p.MustStay > b.Input()
	}
	req.Messages = v.messages()
	uniqueCallIDs(req.Messages)
	p.Ledger.EstimatedTokens = p.Tokens
	p.Ledger.Elided = v.newly
	p.Ledger.Sources = v.sources(&s.Calib, req, b)
	return p
}

// elideStep makes the elision step of a request over the threshold of b,
// fixed the bytes of its system prompt and tools, and returns how many
// results it elided: every result older than the protected tail, then
// the tail's own results, oldest first, until the request is at or below
// the low water or only the latest turn is left. Going down to the low
// water, not just under the threshold, is what makes the steps rare.
func elideStep(v *view, c *state.Calib, b Budget, fixed int) int {
	n := v.elide(v.protectedFrom(c, b.tail()), nil)
	low := b.lowWater()
	atLow := func() bool { return c.Tokens(fixed+v.bytes()) <= low }
	if !atLow() {
		n += v.elide(v.lastAssistant(), atLow)
	}
	return n
}
