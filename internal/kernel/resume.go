package kernel

import (
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
)

// What the model is told about intents a stopped session left open.
const (
	// notExecuted: the intent never started.
	notExecuted = "rein did not run this tool call: the session stopped before it could " +
		"(no tool runtime, or the process ended), so it was recorded and never run."
	// interrupted: the tool started and the process ended before it
	// finished.
	interrupted = "rein stopped while this tool call was running (the rein process ended before it " +
		"finished), so its result is unknown: it may have done part or all of its work. It was not " +
		"run again. Check the current state (read the file, list the directory, look at what the " +
		"command changes) before deciding whether to run it again."
	// lost: the tool ran to its end, and the process ended before its
	// output was recorded.
	lost = "This tool call ran to its end (%s), but rein stopped before it recorded the output, so the output " +
		"is lost. It was not run again. Check its effects (read the file, list the directory) before deciding " +
		"whether to run it again."
	// abandoned is the reason of run.finished for a run that a resume with
	// a new prompt closes instead of continuing.
	abandoned = "the rein process ended (killed or crashed) before this run finished; " +
		"the session was resumed with a new prompt instead"
	// answered is the reason of run.finished for a run whose final answer
	// was recorded before the process ended.
	answered = "the final answer was recorded before the rein process ended; " +
		"run.finished was added when the session was resumed"
)

// Resume is how a stopped session continues.
type Resume struct {
	// Gates are the results of the resume gate's checks, by name, for the
	// record (session.resumed).
	Gates map[string]string
	// Text, when not empty, starts the next run with this message; empty
	// means finish the run the log shows unfinished, if any.
	Text string
}

// Resume reopens a stopped session and yields what it appends, like Send.
// It records session.resumed, then permission.mode_changed (by "resume")
// when the mode the log last recorded is not the one the kernel runs in
// now, then settles what the log left open: the
// partial output of a model call that was streaming is discarded, an
// invocation that started and never completed is recorded as interrupted
// (never run again) and the model is told so, and an intent that never
// started is observed as not executed. Then, with res.Text, the last run
// (if unfinished) is closed and a new one starts; without, an unfinished
// run goes on where it stopped: a run whose final answer was recorded only
// gets its missing run.finished, any other one asks the model again. The
// log is synced before the model is asked.
func (k *Kernel) Resume(ctx context.Context, res Resume) iter.Seq2[contract.Envelope, error] {
	return k.do(func(r *run) { r.resume(ctx, res) })
}

func (r *run) resume(ctx context.Context, res Resume) {
	k := r.k
	r.resuming = true
	st := r.state()
	if st.Session == "" {
		r.err = fmt.Errorf("kernel: resume: the log holds no session")
		return
	}
	r.id, r.turn = st.Run, st.Turn
	resumed := &contract.SessionResumed{FromSeq: st.LastSeq, Gates: res.Gates, Version: k.opts.Version}
	if st.System == "" {
		// A log from before the system prompt was recorded: the one
		// built today is recorded, and stays, from here on.
		resumed.System = k.opts.System
	}
	if info := k.models[k.current].Info; info != nil && !sameInfo(info, st.ModelInfo) {
		resumed.ModelInfo = info
	}
	if _, err := r.emit(resumed, ""); err != nil {
		return
	}
	if mode := k.Mode(); st.Mode != "" && st.Mode != mode {
		// The mode is the configuration's again (a resumed session does
		// not inherit yolo from its log): the log says so, so that what
		// the next change records follows from it.
		if _, err := r.emit(&contract.ModeChanged{From: st.Mode, To: mode, By: byResume}, r.lastID); err != nil {
			return
		}
	}
	if r.settle() != nil {
		return
	}
	if r.sessionStart(ctx, "resume") != nil {
		return
	}
	if r.rerun(ctx) != nil {
		return
	}
	st = r.state()
	if st.Unfinished() {
		outcome, reason := contract.OutcomeFailed, abandoned
		if answeredRun(&st) {
			outcome, reason = contract.OutcomeCompleted, answered
		}
		if res.Text == "" && outcome != contract.OutcomeCompleted {
			if err := k.log.Sync(); err != nil {
				r.err = fmt.Errorf("kernel: sync: %w", err)
				return
			}
			r.loop(ctx, r.lastID)
			return
		}
		if _, err := r.finish(outcome, reason, r.lastID); err != nil {
			return
		}
	}
	if res.Text != "" {
		r.start(ctx, Input{Text: res.Text})
	}
}

// sameInfo reports whether a and b say the same of a model.
func sameInfo(a, b *contract.ModelInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	pa, pb := a.Prices, b.Prices
	samePrices := pa == pb || pa != nil && pb != nil && *pa == *pb
	return a.ContextWindow == b.ContextWindow && a.MaxOutput == b.MaxOutput && a.Source == b.Source && samePrices
}

// answeredRun reports whether the last run's conversation ends with the
// model's final answer: an assistant message that calls no tool.
func answeredRun(st *state.State) bool {
	if len(st.Messages) == 0 || len(st.Pending) > 0 {
		return false
	}
	m := st.Messages[len(st.Messages)-1]
	return m.Role == contract.RoleAssistant && len(m.ToolCalls) == 0
}

// resumable reports whether in, a call that was running when rein
// stopped, is one the resume runs again rather than recording it
// interrupted: its tool says it picks up where it stopped
// (registry.Tool.Resumable, a task), and there is a runtime to run it.
// Only a resume (r.resuming) runs such calls; one that never started is
// not executed, as any other.
func (r *run) resumable(in contract.ToolIntent) bool {
	k := r.k
	if !r.resuming || k.opts.Tools == nil || k.opts.Registry == nil {
		return false
	}
	t, ok := k.opts.Registry.Lookup(in.ToolName)
	return ok && t.Resumable
}

// rerun runs again the calls settle left pending because they resume
// (see resumable): the tool runtime validates, decides and runs them as
// it would have. Its error is the run's runtime failure.
func (r *run) rerun(ctx context.Context) error {
	if len(r.state().Pending) == 0 || !r.resuming {
		return nil
	}
	r.proposed = map[string]string{}
	for _, in := range r.state().Pending {
		r.proposed[in.ID] = r.lastID
	}
	r.tally = map[string]int{}
	r.runTools(ctx, r.lastID)
	if r.err == nil {
		r.Sync()
	}
	return r.err
}

// settle records the end of what a stopped session left open: a partial
// model call, invocations that never completed, intents that never ran,
// background jobs that ended with the process that ran them. Its
// error is the run's runtime failure: the run cannot go on.
func (r *run) settle() error {
	st := r.state()
	if st.Draft.Role != "" {
		if _, err := r.emit(&contract.ModelDiscarded{Reason: "rein stopped during this model call; " +
			"its partial output is not part of the conversation"}, r.lastID); err != nil {
			return err
		}
		st = r.state()
	}
	for _, inv := range st.InFlight {
		if _, err := r.emit(&contract.InvocationCompleted{
			IntentID: inv.IntentID, InvocationID: inv.InvocationID, Exit: contract.ExitInterrupted, ExitCode: -1,
		}, r.lastID); err != nil {
			return err
		}
	}
	ran := func(list []state.Invocation, id string) (state.Invocation, bool) {
		i := slices.IndexFunc(list, func(inv state.Invocation) bool { return inv.IntentID == id })
		if i < 0 {
			return state.Invocation{}, false
		}
		return list[i], true
	}
	for _, in := range st.Pending {
		_, running := ran(st.InFlight, in.ID)
		if inv, ok := ran(st.Ended, in.ID); ok && inv.Exit == contract.ExitInterrupted {
			running = true // an earlier resume recorded it interrupted
		}
		if running && r.resumable(in) {
			// Run again by rerun, which records its end.
			continue
		}
		obs := contract.Observation{IntentID: in.ID, ToolName: in.ToolName, Phase: contract.PhaseKernel, Code: contract.CodeNotExecuted, Text: notExecuted}
		if _, ok := ran(st.InFlight, in.ID); ok {
			obs.Phase, obs.Code, obs.Text = contract.PhaseExecution, contract.CodeInterrupted, interrupted
		} else if inv, ok := ran(st.Ended, in.ID); ok && inv.Exit == contract.ExitInterrupted {
			// An earlier resume recorded it interrupted and stopped before
			// telling the model.
			obs.Phase, obs.Code, obs.Text = contract.PhaseExecution, contract.CodeInterrupted, interrupted
		} else if ok {
			obs.Phase, obs.Code = contract.PhaseExecution, contract.CodeOutputLost
			obs.Text = fmt.Sprintf(lost, fmt.Sprintf("exit %s, exit code %d", inv.Exit, inv.ExitCode))
		}
		if obs.Phase == contract.PhaseExecution {
			// It ran, so it may have changed files: what rein's snapshot
			// before it and the workspace now say it did.
			files, err := r.changedSince(in.ID)
			if err != nil {
				return err
			}
			obs.Files = files
		}
		if _, err := r.emit(&contract.ToolObservation{Observation: obs}, r.lastID); err != nil {
			return err
		}
	}
	return r.restartJobs()
}
