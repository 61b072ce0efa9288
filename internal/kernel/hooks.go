package kernel

import (
	"context"
	"fmt"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/hook"
)

// The person's hooks of the session's own events (internal/hook): each
// run of one is a hook.ran in the log, and what a hook adds for the model
// is a note the state makes of it.

// hookRuns records the hook.ran events of o, the first caused by cause.
func (r *run) hookRuns(o hook.Outcome, cause string) error {
	for i := range o.Ran {
		if _, err := r.emit(&o.Ran[i], cause); err != nil {
			return err
		}
		cause = r.lastID
	}
	return nil
}

// sessionStart runs the SessionStart hooks once for this kernel, source
// saying why ("startup" or "resume"). Its error is the run's failure.
func (r *run) sessionStart(ctx context.Context, source string) error {
	k := r.k
	if k.hooked || k.opts.Parent != nil || !k.opts.Hooks.Has(contract.HookSessionStart) {
		// A child is no session a person started (Claude Code runs no
		// SessionStart hook for a subagent either).
		return nil
	}
	k.hooked = true
	return r.hookRuns(k.opts.Hooks.SessionStart(ctx, source), r.lastID)
}

// promptSubmit runs the UserPromptSubmit hooks on text, before it is
// recorded. blocked says a hook blocked it: its hook.ran is all the log
// holds of it, synced, and no run starts.
func (r *run) promptSubmit(ctx context.Context, text string) (blocked bool, err error) {
	k := r.k
	if k.opts.Parent != nil || !k.opts.Hooks.Has(contract.HookUserPromptSubmit) {
		// A child's brief is the parent model's, not a person's prompt.
		return false, nil
	}
	o := k.opts.Hooks.UserPromptSubmit(ctx, text)
	if err := r.hookRuns(o, ""); err != nil {
		return false, err
	}
	if o.Decision != contract.HookBlock {
		return false, nil
	}
	if err := k.log.Sync(); err != nil {
		r.err = fmt.Errorf("kernel: sync: %w", err)
		return true, r.err
	}
	return true, nil
}

// stopHooks runs the Stop hooks (a child's SubagentStop hooks) of a run
// that would complete after turns model turns, cause its last event, and
// reports whether the run goes on: a hook blocked, the run has turns
// left, and it has gone on fewer times than the runner allows. A block
// past that is recorded with no decision.
func (r *run) stopHooks(ctx context.Context, cause string, turns int) bool {
	k := r.k
	event, fire := contract.HookStop, k.opts.Hooks.Stop
	if k.opts.Parent != nil {
		event, fire = contract.HookSubagentStop, k.opts.Hooks.SubagentStop
	}
	if !k.opts.Hooks.Has(event) {
		return false
	}
	active := r.continues > 0
	o := fire(ctx, active, r.lastAssistant())
	if o.Decision == contract.HookBlock {
		switch {
		case r.continues >= k.opts.Hooks.StopLimit():
			o.Ignore(fmt.Sprintf("rein let Stop hooks make this run go on %d times, the limit (max_stop_continues), so the run ends", r.continues))
		case turns >= k.opts.MaxTurns:
			o.Ignore("the run has used its model turns (max_turns), so it ends")
		}
	}
	if err := r.hookRuns(o, cause); err != nil {
		return false
	}
	if o.Decision != contract.HookBlock {
		return false
	}
	r.continues++
	return true
}

// lastAssistant is the text of the model's last message, "" for none.
func (r *run) lastAssistant() string {
	st := r.state()
	for i := len(st.Messages) - 1; i >= 0; i-- {
		if m := st.Messages[i]; m.Role == contract.RoleAssistant && m.Text != "" {
			return m.Text
		}
	}
	return ""
}
