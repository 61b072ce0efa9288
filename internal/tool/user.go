package tool

import (
	"context"
	"fmt"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/state"
)

// userAllowed is the reason of the tool.permission that allows a person's
// own call.
const userAllowed = "The user ran it themselves."

// RunUser takes p, an intent a person proposed themselves (Origin
// [contract.OriginUser]: a command typed as !cmd), through the pipeline
// as [Runtime.Run] takes a model's, with two differences: the tool need
// not be one the model may see (plan mode hides bash from the model, not
// from the person), and nobody is asked: the person decided, and the
// decision is recorded as tool.permission allow by "user". It is still
// validated against the tool's schema and preconditions, runs under the
// same limits and OS sandbox as the model's calls (and when the sandbox
// refuses it something, the person is asked whether to run it again
// outside, as for any call), and ends with one tool.observation, also
// when ctx is cancelled. st is the session's state, whose ledger the tool
// sees. The error is non-nil when sink fails, or when p is not a person's
// intent (then nothing is emitted).
func (rt *Runtime) RunUser(ctx context.Context, st *state.State, p Proposal, sink Sink) error {
	in := p.Intent
	if in.Origin != contract.OriginUser {
		return fmt.Errorf("tool: RunUser: the intent %s was not proposed by the user", in.ID)
	}
	val := rt.validate(st, in, admitted{}, true)
	vid, err := sink.Emit(&contract.ToolValidation{IntentID: in.ID, OK: val.code == "", Code: val.code, Errors: val.errors}, p.EventID)
	if err != nil {
		return err
	}
	if val.code != "" {
		obs := observation(in, contract.PhaseValidation, val.code, val.text(in.ToolName, rt.reg))
		_, err := sink.Emit(&contract.ToolObservation{Observation: obs}, vid)
		return err
	}
	if ctx.Err() != nil {
		return rt.notRun(sink, in, vid, "it was cancelled before it ran")
	}
	pid, err := sink.Emit(&contract.ToolPermission{IntentID: in.ID, Decision: contract.Allow, By: permission.ByUser, Reason: userAllowed}, vid)
	if err != nil {
		return err
	}
	_, err = rt.runBatch(ctx, []job{{Proposal: p, tool: val.tool, cause: pid, by: permission.ByUser}}, st.Ledger, sink)
	return err
}
