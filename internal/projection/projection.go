// Package projection turns a session's state into the request for the next
// model call: the conversation as the model should see it, and only the
// tools it may see. The event log is what happened, the state is where the
// session stands, and the projection is what the model sees this turn.
package projection

import (
	"slices"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// Options shape a projection. The zero value projects with no system
// prompt, the provider's default model and no output cap.
type Options struct {
	// Model is passed to the provider as given; empty means its default.
	Model string
	// System is the system prompt.
	System string
	// MaxOutputTokens caps the reply; zero means the provider's default.
	MaxOutputTokens int
	// Hidden reports the tools the model must not see whatever their own
	// visibility says (the permission mode's: plan mode hides every tool
	// that changes something); nil hides none.
	Hidden func(registry.Tool) bool
}

// Request builds the request for the next model call from s. Tools come
// from reg filtered by [registry.Registry.Visible] and Options.Hidden; a
// nil reg offers none.
// The message slice is the request's own, but the messages' contents
// (tool calls, results, provider state) are shared with s: neither the
// caller nor a provider may modify them.
func Request(s *state.State, reg *registry.Registry, opts *Options) *contract.ModelRequest {
	if opts == nil {
		opts = &Options{}
	}
	req := &contract.ModelRequest{
		Model:           opts.Model,
		System:          opts.System,
		Messages:        slices.Clone(s.Messages),
		MaxOutputTokens: opts.MaxOutputTokens,
	}
	if reg != nil {
		req.Tools = reg.Visible(s)
		if opts.Hidden != nil {
			req.Tools = slices.DeleteFunc(req.Tools, func(spec contract.ToolSpec) bool {
				t, ok := reg.Lookup(spec.Name)
				return ok && opts.Hidden(t)
			})
		}
	}
	uniqueCallIDs(req.Messages)
	return req
}

// uniqueCallIDs gives every tool call of the conversation a provider call
// id of its own. Ids repeat when a vendor makes them per response (Gemini's
// calls come without ids, and the adapter numbers them from call_0 in
// every turn): after a switch to a vendor that wants unique ids, the repeats
// would be rejected. A repeated id is replaced, in the call and in its
// result, by the intent's id, which is unique. Messages are copied before
// they change, so the state is never touched.
func uniqueCallIDs(msgs []contract.ModelMessage) {
	owner := map[string]string{}   // provider call id -> the intent that has it
	renamed := map[string]string{} // intent id -> its new provider call id
	for i := range msgs {
		m := &msgs[i]
		var calls []contract.ToolCall
		for j, c := range m.ToolCalls {
			if c.ProviderCallID == "" {
				continue
			}
			if o, taken := owner[c.ProviderCallID]; taken && o != c.IntentID {
				if calls == nil {
					calls = slices.Clone(m.ToolCalls)
				}
				calls[j].ProviderCallID = c.IntentID
				renamed[c.IntentID] = c.IntentID
				continue
			}
			owner[c.ProviderCallID] = c.IntentID
		}
		if calls != nil {
			m.ToolCalls = calls
		}
		if m.Result != nil {
			if id, ok := renamed[m.Result.IntentID]; ok {
				r := *m.Result
				r.ProviderCallID = id
				m.Result = &r
			}
		}
	}
}

// EstimateTokens is a rough count of the input tokens of req (about four
// bytes a token), good enough for budgets and the model.requested record.
func EstimateTokens(req *contract.ModelRequest) int {
	n := len(req.System)
	for i := range req.Messages {
		m := &req.Messages[i]
		n += len(m.Text) + len(m.Reasoning) + 4
		for _, c := range m.ToolCalls {
			n += len(c.ToolName) + len(c.Input)
		}
		if m.Result != nil {
			n += len(m.Result.Text)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return (n + 3) / 4
}

// ToolNames returns the names of req's tools, in order.
func ToolNames(req *contract.ModelRequest) []string {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	return names
}
