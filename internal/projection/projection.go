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
// prompt, the provider's default model, no output cap and no context
// policy.
type Options struct {
	// Model is passed to the provider as given; empty means its default.
	Model string
	// System is the system prompt.
	System string
	// MaxOutputTokens caps the reply; zero means the provider's default,
	// or Budget.Reserved when the window is known (a larger cap is
	// lowered to it: the reply must fit what was reserved).
	MaxOutputTokens int
	// Hidden reports the tools the model must not see whatever their own
	// visibility says (the permission mode's: plan mode hides every tool
	// that changes something); nil hides none.
	Hidden func(registry.Tool) bool
	// Budget is the model's budget; its zero value applies no policy.
	Budget Budget
	// SessionDir is the session's directory: the artifacts a tool result
	// names are relative to it, and an elided result's stub gives their
	// absolute path. Empty leaves the references as recorded.
	SessionDir string
	// Asked says a person asked for the compaction [PlanCompaction]
	// plans (/compact, rein compact): whatever comes before the latest
	// turn is summarised, however little. False plans only a compaction
	// worth its summary.
	Asked bool
}

// tools returns the tools of reg the model may see in s: those
// [registry.Registry.Visible] offers that Options.Hidden does not hide;
// none for a nil reg.
func tools(s *state.State, reg *registry.Registry, opts *Options) []contract.ToolSpec {
	if reg == nil {
		return nil
	}
	specs := reg.Visible(s)
	if opts.Hidden != nil {
		specs = slices.DeleteFunc(specs, func(spec contract.ToolSpec) bool {
			t, ok := reg.Lookup(spec.Name)
			return ok && opts.Hidden(t)
		})
	}
	return specs
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

// EstimateWith estimates the input tokens of req at the bytes-per-token
// ratio calibrated in c, from the bytes alone (no earlier exact count
// applies to a request that is not the conversation's).
func EstimateWith(c *state.Calib, req *contract.ModelRequest) int {
	return c.Tokens(Size(req))
}

// Size returns the bytes the estimators count in req: the text of the
// system prompt, the tools, and the messages with their tool calls and
// results. It is what model.requested records as input_bytes.
func Size(req *contract.ModelRequest) int {
	n := len(req.System) + toolsSize(req.Tools)
	for i := range req.Messages {
		n += messageSize(&req.Messages[i])
	}
	return n
}

// messageSize is the bytes Size counts for m: a few for its framing.
func messageSize(m *contract.ModelMessage) int {
	n := len(m.Text) + len(m.Reasoning) + 4
	for _, c := range m.ToolCalls {
		n += len(c.ToolName) + len(c.Input)
	}
	if m.Result != nil {
		n += len(m.Result.Text)
	}
	return n
}

// toolsSize is the bytes Size counts for the tools offered.
func toolsSize(specs []contract.ToolSpec) int {
	n := 0
	for _, t := range specs {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return n
}

// ToolNames returns the names of req's tools, in order.
func ToolNames(req *contract.ModelRequest) []string {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	return names
}
