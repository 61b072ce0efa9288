package tool

import (
	"context"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/state"
)

// sandboxOff is the sandbox mode tool.invocation.started records for a
// run outside the sandbox (sandbox.ModeOff).
const sandboxOff = "off"

// The words added to the observation of a call the sandbox refused
// something to, when it is not run again outside the sandbox.
const (
	// askAgain ends the question's Reason.
	askAgain = "Run it again outside the sandbox?"
	// declined follows the output when the person said no.
	declined = "The user was asked whether to run it again outside the sandbox and said no; " +
		"do not try to get around the sandbox: change your approach or ask the user."
	// ranOutside follows the output of the run outside the sandbox, and
	// precedes what the sandbox refused the first run.
	ranOutside = "This is the output of a second run with no sandbox, which the user allowed after the sandbox refused the first: "
	// cannotAsk begins the line that follows the output when nobody can
	// be asked; headlessHint ends it.
	cannotAsk = "This run cannot ask to run the command outside the sandbox; to allow such commands, pass --sandbox off"
)

// outside settles an invocation of job j that the OS sandbox refused
// something to (d.denied), whose tool.invocation.completed is cause.
//
// With a person to ask, and the run still going, it asks whether to run
// the call again with no sandbox. On yes it records that decision
// (tool.permission, allow by user), runs the call again outside the
// sandbox with ledger, as a new invocation with its own started and
// completed events, and replaces d with the re-run's end: the first run's
// observation is never emitted, so the model sees one result per intent.
// On no, d's observation says so; when nobody could answer, it says how
// to allow such commands, as it does in a run that cannot ask.
//
// It returns the id of the event the observation follows; an error is the
// sink's.
func (rt *Runtime) outside(ctx context.Context, j job, d *done, cause string, ledger state.Ledger, sink Sink) (string, error) {
	if ctx.Err() != nil {
		return cause, nil
	}
	if rt.opts.Approver == nil {
		d.obs.Text = withLine(d.obs.Text, headlessHint(d.denied))
		return cause, nil
	}
	q := Question{
		Kind: AskOutsideSandbox, IntentID: j.Intent.ID, Tool: j.tool.Name, Subject: subject(j.Intent.Input),
		Input: j.Intent.Input, Reason: d.denied + "\n" + askAgain,
	}
	reply, err := rt.opts.Approver.Approve(ctx, q)
	switch {
	case ctx.Err() != nil:
		return cause, nil
	case err != nil:
		// No one can answer (the input ended): as in a run that cannot ask.
		d.obs.Text = withLine(d.obs.Text, headlessHint(d.denied))
		return cause, nil
	case reply.Answer != Yes && reply.Answer != Always:
		d.obs.Text = withSaid(withLine(d.obs.Text, declined), saidOf(reply))
		return cause, nil
	}
	pid, err := sink.Emit(&contract.ToolPermission{
		IntentID: j.Intent.ID, Decision: contract.Allow, By: permission.ByUser,
		Reason: "run again outside the sandbox: " + strings.ReplaceAll(d.denied, "\n", "; "),
	}, cause)
	if err != nil {
		return "", err
	}
	again := j
	again.unsandboxed, again.cause, again.by = true, pid, permission.ByUser
	invocation := rt.ids("inv")
	sid, err := sink.Emit(rt.started(again, invocation), pid)
	if err != nil {
		return "", err
	}
	// Durable point, as for any start: the decision and the start are on
	// disk before the command runs again.
	if err := sink.Sync(); err != nil {
		return "", err
	}
	refused := d.denied
	live := liveFor(sink, again, invocation)
	*d = rt.invokeWatched(ctx, d.i, again, invocation, sid, ledger, live, sink)
	live.pass(sink, true)
	d.obs.Text = withLine(d.obs.Text, ranOutside+strings.ReplaceAll(refused, "\n", "; "))
	return sink.Emit(&d.completed, sid)
}

// invokeWatched runs job j as [Runtime.invoke] does, from this goroutine's
// point of view: it returns when the job ends, serving what it reports
// (its start being start) and passing what live receives to sink
// meanwhile (see [watch]).
func (rt *Runtime) invokeWatched(ctx context.Context, i int, j job, invocation, start string, ledger state.Ledger, live *liveOutput, sink Sink) done {
	results := make(chan done, 1)
	reports := make(chan report)
	go func() { results <- rt.invoke(ctx, i, j, invocation, ledger, live, reportTo(reports, start)) }()
	receive := watch([]*liveOutput{live}, reports, sink)
	defer receive(nil)
	return receive(results)
}

// headlessHint is the line that says how to allow commands like one the
// sandbox refused what denied says, in a run that cannot ask: --sandbox
// off, or the setting that widens the sandbox for what it refused. It
// reads the sentences of sandbox.Explain; a refusal no setting widens (a
// protected path, a file under /proc, sudo) names only --sandbox off, one it does not know
// every setting.
func headlessHint(denied string) string {
	var widen []string
	add := func(s string) {
		if !slices.Contains(widen, s) {
			widen = append(widen, s)
		}
	}
	for line := range strings.Lines(denied) {
		switch {
		case strings.Contains(line, "network connection"):
			add("--network, or network = true in the [sandbox] table of your config.toml")
		case strings.Contains(line, "the sandbox is read-only"):
			add("--sandbox workspace-write")
		case strings.Contains(line, "outside the writable roots"):
			add("writable_roots in the [sandbox] table of your config.toml, or --add-dir")
		case strings.Contains(line, "refused a read of"):
			add("deny_read in the [sandbox] table of your config.toml")
		case strings.Contains(line, "read-only inside the sandbox"), strings.Contains(line, "refused sudo"),
			strings.Contains(line, "the kernel's files"), strings.Contains(line, "more like these"):
			// Protected paths, the kernel's files and privileges stay so
			// in any sandbox.
		default:
			add("writable_roots or network = true in the [sandbox] table of your config.toml, --add-dir, --network")
		}
	}
	if len(widen) == 0 {
		return cannotAsk + "."
	}
	return cannotAsk + " (or widen it: " + strings.Join(widen, "; ") + ")."
}

// withLine returns text with line added as a line of its own.
func withLine(text, line string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line
}
