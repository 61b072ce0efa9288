package tool

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

func newID(prefix string) string { return id.New(prefix) }

// done is the end of one invocation, handed from the goroutine that ran it
// to the one that emits events.
type done struct {
	i         int // the job's place in its batch
	completed contract.InvocationCompleted
	obs       contract.Observation
	// denied is what the OS sandbox refused the invocation, redacted,
	// when it ran in one; "" otherwise (see registry.Result.SandboxDenied).
	denied string
}

// runBatch runs the jobs of one batch together (a batch of one for an
// exclusive tool; at most Parallel), and emits their events: every start
// first, in order, then each end in the order proposed, whatever order the
// tools finish in, so that the log and the conversation do not depend on
// timing. Events are emitted only from this goroutine, and no goroutine
// outlives the call. Every job of the batch gets ledger; runBatch returns
// it with the files of the observations it emitted recorded. A job the
// sandbox refused something to may be run again outside it before its
// observation, from this goroutine too (see [Runtime.outside]), while the
// rest of the batch goes on. Meanwhile, when sink is [Live], what the
// tools that stream print is passed to it from this goroutine too, each
// invocation's last delta before its end.
func (rt *Runtime) runBatch(ctx context.Context, batch []job, ledger state.Ledger, sink Sink) (state.Ledger, error) {
	invocations := make([]string, len(batch))
	starts := make([]string, len(batch))
	// The workspace as it is before any call of the batch that may change
	// it: prev is the snapshot each one's changes are found against. Not
	// under ctx: a Ctrl-C at this instant must not record a failed
	// checkpoint, which would keep every later rewind of the files from
	// going past it.
	var prev string
	if i := slices.IndexFunc(batch, rt.changes); i >= 0 {
		var err error
		if prev, batch[i].cause, err = rt.checkpoint(context.WithoutCancel(ctx), batch[i].Intent.ID, contract.CheckpointBefore, batch[i].cause, sink); err != nil {
			return ledger, err
		}
	}
	for i, j := range batch {
		invocations[i] = rt.ids("inv")
		timeout := rt.opts.DefaultTimeout
		if j.tool.Timeout != nil {
			if d := j.tool.Timeout(j.Intent.Input); d > 0 {
				timeout = d
			}
		}
		batch[i].timeout = timeout
		id, err := sink.Emit(rt.started(batch[i], invocations[i]), j.cause)
		if err != nil {
			return ledger, err
		}
		starts[i] = id
	}
	// Durable point: every decision of the turn and these starts are on
	// disk before anything runs, so a crash leaves a record of what was
	// under way.
	if err := sink.Sync(); err != nil {
		return ledger, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan done, len(batch))
	reports := make(chan report)
	lives := make([]*liveOutput, len(batch))
	for i, j := range batch {
		lives[i] = liveFor(sink, j, invocations[i])
		go func() {
			results <- rt.invoke(ctx, i, j, invocations[i], ledger, lives[i], reportTo(reports, starts[i]))
		}()
	}
	receive := watch(lives, reports, sink)
	defer receive(nil)
	ended := make([]*done, len(batch))
	next := 0
	for range batch {
		d := receive(results)
		ended[d.i] = &d
		for ; next < len(batch) && ended[next] != nil; next++ {
			lives[next].pass(sink, true)
			if err := rt.end(ctx, batch[next], ended[next], starts[next], ledger, &prev, sink); err != nil {
				// The log failed: stop the others and wait for them,
				// refusing what they still report.
				cancel()
				for range len(batch) - countEnded(ended) {
					drain(results, reports, err)
				}
				return ledger, err
			}
		}
	}
	// Recorded once the whole batch ran, in the order of the log: the
	// jobs of one batch all started with the same ledger.
	for _, d := range ended {
		ledger = ledger.With(d.obs.Files...)
	}
	return ledger, nil
}

// started is the tool.invocation.started of job j's invocation.
func (rt *Runtime) started(j job, invocation string) *contract.InvocationStarted {
	e := &contract.InvocationStarted{
		IntentID: j.Intent.ID, InvocationID: invocation, ToolName: j.tool.Name,
		Input: j.Intent.Input, Cwd: rt.Policy().Workspace().Root(), TimeoutMS: j.timeout.Milliseconds(),
	}
	switch {
	case j.tool.Sandbox == nil:
	case j.unsandboxed:
		e.Sandbox = &contract.SandboxSpec{Mode: sandboxOff}
	default:
		e.Sandbox = j.tool.Sandbox(j.Intent.Input)
	}
	return e
}

// end emits how job j's invocation ended, d, after start, its
// tool.invocation.started: its tool.invocation.completed, then its
// tool.observation. When the sandbox refused the invocation something,
// what comes between is [Runtime.outside]'s: d may then be the end of a
// run outside the sandbox, whose observation is the intent's only one.
//
// For a call that may change the workspace, a checkpoint comes before the
// observation, which names the files that changed since *prev, the
// snapshot before it; *prev becomes this one.
func (rt *Runtime) end(ctx context.Context, j job, d *done, start string, ledger state.Ledger, prev *string, sink Sink) error {
	// A copy: a run outside the sandbox replaces d, and the sink may
	// keep what it was handed.
	completed := d.completed
	cause, err := sink.Emit(&completed, start)
	if err != nil {
		return err
	}
	if d.denied != "" {
		if cause, err = rt.outside(ctx, j, d, cause, ledger, sink); err != nil {
			return err
		}
	}
	if rt.changes(j) {
		// Not ctx: the call may have been cancelled, and what it did is
		// recorded all the same.
		var after string
		if after, cause, err = rt.checkpoint(context.WithoutCancel(ctx), j.Intent.ID, contract.CheckpointAfter, cause, sink); err != nil {
			return err
		}
		d.obs.Files = append(d.obs.Files, rt.changedFiles(*prev, after, d.obs.Files)...)
		*prev = after
	}
	if err := rt.postToolUse(ctx, j, d, cause, sink); err != nil {
		return err
	}
	_, err = sink.Emit(&contract.ToolObservation{Observation: d.obs}, cause)
	return err
}

// postToolUse runs the person's PostToolUse hooks on how job j ended, d,
// and emits their events (a context they add is what the state tells the
// model) before the observation they saw, caused by cause.
func (rt *Runtime) postToolUse(ctx context.Context, j job, d *done, cause string, sink Sink) error {
	if !rt.opts.Hooks.Has(contract.HookPostToolUse) {
		return nil
	}
	o := rt.opts.Hooks.PostToolUse(ctx, hook.ToolCall{IntentID: j.Intent.ID, Tool: j.tool.Name, Input: j.Intent.Input},
		hook.ToolResponse{OK: d.obs.OK, Text: d.obs.Text, ExitCode: d.completed.ExitCode})
	for i := range o.Ran {
		if _, err := sink.Emit(&o.Ran[i], cause); err != nil {
			return err
		}
	}
	return nil
}

// report is an event a running tool hands the runtime to record or show
// (registry.Call.Report), with the id of the event it follows from (the
// invocation's start) and where the answer goes.
type report struct {
	event contract.Event
	cause string
	reply chan reported
}

// reported is the answer to a report: the seq the event was stored at
// (0 for a delta, or when the sink does not say), or the log's error.
type reported struct {
	seq uint64
	err error
}

// Recorder is a [Sink] that says where it stored an event: the envelope
// it appended. The kernel's is one; a tool's report is then answered with
// its seq (see registry.Call.Report).
type Recorder interface {
	Sink
	Record(e contract.Event, cause string) (contract.Envelope, error)
}

// reportTo returns the registry.Call.Report of an invocation whose
// tool.invocation.started is cause: it hands each event to the goroutine
// that emits, over reports, and waits for its answer.
func reportTo(reports chan<- report, cause string) func(contract.Event) (uint64, error) {
	return func(e contract.Event) (uint64, error) {
		r := report{event: e, cause: cause, reply: make(chan reported, 1)}
		reports <- r
		got := <-r.reply
		return got.seq, got.err
	}
}

// serve records or shows what a tool reported, from the goroutine that
// emits: a delta goes to the sink's bus (through Record when the sink is
// a [Recorder], which says when it could not publish it; to Delta when it
// is only [Live]; nowhere otherwise), any other event is appended, caused
// by the invocation's start, and synced: what a tool reports is on disk
// before it goes on (a task's child starts only once its task.started
// is, so that a resume finds it).
func (r report) serve(sink Sink) {
	rec, recorder := sink.(Recorder)
	if contract.IsDelta(r.event.EventType()) {
		var err error
		if recorder {
			_, err = rec.Record(r.event, r.cause)
		} else if live, ok := sink.(Live); ok {
			live.Delta(r.event)
		}
		r.reply <- reported{err: err}
		return
	}
	var got reported
	if recorder {
		env, err := rec.Record(r.event, r.cause)
		got = reported{seq: env.Seq, err: err}
	} else {
		_, got.err = sink.Emit(r.event, r.cause)
	}
	if got.err == nil {
		got.err = sink.Sync()
	}
	r.reply <- got
}

// drain waits for the next end from results, answering what the tools
// report meanwhile with err.
func drain(results <-chan done, reports <-chan report, err error) {
	for {
		select {
		case <-results:
			return
		case r := <-reports:
			r.reply <- reported{err: err}
		}
	}
}

// watch returns the function that receives the next end of an
// invocation from results and, until it comes, serves what the tools
// report and passes what lives hold to sink every liveEvery; a call with
// nil results stops its clock.
func watch(lives []*liveOutput, reports <-chan report, sink Sink) func(results <-chan done) done {
	var tick <-chan time.Time
	var t *time.Ticker
	if slices.ContainsFunc(lives, func(l *liveOutput) bool { return l != nil }) {
		t = time.NewTicker(liveEvery)
		tick = t.C
	}
	return func(results <-chan done) done {
		if results == nil {
			if t != nil {
				t.Stop()
			}
			return done{}
		}
		for {
			select {
			case d := <-results:
				return d
			case r := <-reports:
				r.serve(sink)
			case <-tick:
				for _, l := range lives {
					l.pass(sink, false)
				}
			}
		}
	}
}

func countEnded(ended []*done) int {
	n := 0
	for _, d := range ended {
		if d != nil {
			n++
		}
	}
	return n
}

// invoke runs one job with ledger and returns how it ended. It never
// panics: a tool's panic is its failure.
// What it records goes to live too (nil: nowhere).
// Report is the invocation's registry.Call.Report.
func (rt *Runtime) invoke(ctx context.Context, i int, j job, invocation string, ledger state.Ledger, live *liveOutput,
	report func(contract.Event) (uint64, error)) (d done) {
	start := rt.opts.Now()
	capt := newCapture(rt.opts.Limits, rt.opts.ArtifactDir, invocation+".txt", rt.opts.Secrets, rt.artifacts)
	capt.live = live
	tctx, cancel := context.WithTimeout(ctx, j.timeout)
	defer cancel()
	res, err := func() (res registry.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				rt.opts.Logger.Error("tool: a tool panicked", "tool", j.tool.Name, "panic", p, "stack", string(debug.Stack()))
				err = fmt.Errorf("the tool %s failed inside rein (a bug: %v)", j.tool.Name, p)
			}
		}()
		return j.tool.Execute(tctx, &registry.Call{IntentID: j.Intent.ID, InvocationID: invocation, Input: j.Intent.Input, Output: capt,
			Timeout: j.timeout, Ledger: ledger, Unsandboxed: j.unsandboxed, Report: report})
	}()
	exit := contract.ExitOK
	var code contract.Code
	var note string
	// A tool that returned without an error did its work, even if the
	// run was cancelled just then: the record says what happened.
	switch {
	case err != nil && ctx.Err() != nil:
		exit, code, note = contract.ExitCancelled, contract.CodeCancelled, "The user cancelled the run, and this tool call was stopped."
	case err != nil && errors.Is(tctx.Err(), context.DeadlineExceeded):
		exit, code, note = contract.ExitTimeout, contract.CodeTimeout, fmt.Sprintf("Stopped after its timeout of %s.", j.timeout)
	case err != nil:
		exit, code, note = contract.ExitError, contract.CodeToolError, err.Error()
		if ce, ok := errors.AsType[*registry.CheckError](err); ok && ce.Code != "" {
			code = ce.Code // stale_file found at execution
		}
	case res.ExitCode != 0:
		exit, code = contract.ExitError, contract.CodeToolError
	}
	if err != nil && res.ExitCode == 0 {
		res.ExitCode = 1
	}
	out, aerr := capt.finish()
	if aerr != nil {
		rt.opts.Logger.Warn("tool: the artifact could not be written", "invocation", invocation, "err", aerr)
	}
	text := out.Text
	if note != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += redactString(note, rt.opts.Secrets)
	}
	if text == "" {
		text = "(no output)"
	}
	d.i = i
	if j.tool.Sandbox != nil && !j.unsandboxed {
		d.denied = redactString(res.SandboxDenied, rt.opts.Secrets)
	}
	d.completed = contract.InvocationCompleted{
		IntentID: j.Intent.ID, InvocationID: invocation, Exit: exit, ExitCode: res.ExitCode,
		DurationMS: rt.opts.Now().Sub(start).Milliseconds(), OutputBytes: out.Bytes,
	}
	d.obs = contract.Observation{
		IntentID: j.Intent.ID, ToolName: j.tool.Name, OK: exit == contract.ExitOK, Phase: contract.PhaseExecution, Code: code,
		Text: text, Truncated: out.Truncated, OmittedBytes: out.OmittedBytes, ArtifactRef: out.ArtifactRef,
		Untrusted: true, Files: res.Files,
	}
	return d
}
