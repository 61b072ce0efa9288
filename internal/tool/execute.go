package tool

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/registry"
)

func newID(prefix string) string { return id.New(prefix) }

// done is the end of one invocation, handed from the goroutine that ran it
// to the one that emits events.
type done struct {
	i         int // the job's place in its batch
	completed contract.InvocationCompleted
	obs       contract.Observation
}

// runBatch runs the jobs of one batch together (a batch of one for an
// exclusive tool), at most Parallel at a time, and emits their events:
// every start first, in order, then each end as it comes. Events are
// emitted only from this goroutine.
func (rt *Runtime) runBatch(ctx context.Context, batch []job, sink Sink) error {
	invocations := make([]string, len(batch))
	starts := make([]string, len(batch))
	for i, j := range batch {
		invocations[i] = rt.ids("inv")
		timeout := rt.opts.DefaultTimeout
		if j.tool.Timeout != nil {
			if d := j.tool.Timeout(j.Intent.Input); d > 0 {
				timeout = d
			}
		}
		batch[i].timeout = timeout
		id, err := sink.Emit(&contract.InvocationStarted{
			IntentID: j.Intent.ID, InvocationID: invocations[i], ToolName: j.tool.Name,
			Input: j.Intent.Input, Cwd: rt.Policy().Workspace().Root(), TimeoutMS: timeout.Milliseconds(),
		}, j.cause)
		if err != nil {
			return err
		}
		starts[i] = id
	}
	// The starts are durable before the tools run: a crash during a run
	// leaves an invocation that resume can mark interrupted.
	if err := sink.Sync(); err != nil {
		return err
	}
	results := make(chan done, len(batch))
	slots := make(chan struct{}, rt.opts.Parallel)
	for i, j := range batch {
		go func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			results <- rt.invoke(ctx, i, j, invocations[i])
		}()
	}
	for n := range batch {
		d := <-results
		cid, err := sink.Emit(&d.completed, starts[d.i])
		if err == nil {
			_, err = sink.Emit(&contract.ToolObservation{Observation: d.obs}, cid)
		}
		if err != nil {
			// Let the others finish (they are cancelled with the run
			// soon enough), so no goroutine outlives Run.
			for range len(batch) - n - 1 {
				<-results
			}
			return err
		}
	}
	return nil
}

// invoke runs one job and returns how it ended. It never panics: a tool's
// panic is its failure.
func (rt *Runtime) invoke(ctx context.Context, i int, j job, invocation string) (d done) {
	start := rt.opts.Now()
	capt := newCapture(rt.opts.Limits, rt.opts.ArtifactDir, invocation+".txt", rt.opts.Secrets)
	tctx, cancel := context.WithTimeout(ctx, j.timeout)
	defer cancel()
	res, err := func() (res registry.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				rt.opts.Logger.Error("tool: a tool panicked", "tool", j.tool.Name, "panic", p, "stack", string(debug.Stack()))
				err = fmt.Errorf("the tool %s failed inside rein (a bug: %v)", j.tool.Name, p)
			}
		}()
		return j.tool.Execute(tctx, &registry.Call{IntentID: j.Intent.ID, InvocationID: invocation, Input: j.Intent.Input, Output: capt, Timeout: j.timeout})
	}()
	exit := contract.ExitOK
	code := ""
	var note string
	switch {
	case ctx.Err() != nil:
		exit, code, note = contract.ExitCancelled, CodeCancelled, "The user cancelled the run, and this tool call was stopped."
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		exit, code, note = contract.ExitTimeout, CodeTimeout, fmt.Sprintf("Stopped after its timeout of %s.", j.timeout)
	case err != nil:
		exit, code = contract.ExitError, CodeToolError
		note = err.Error()
	case res.ExitCode != 0:
		exit, code = contract.ExitError, CodeToolError
	}
	if exit != contract.ExitOK && res.ExitCode == 0 {
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
		text += note
	}
	if text == "" {
		text = "(no output)"
	}
	d.i = i
	d.completed = contract.InvocationCompleted{
		IntentID: j.Intent.ID, InvocationID: invocation, Exit: exit, ExitCode: res.ExitCode,
		DurationMS: rt.opts.Now().Sub(start).Milliseconds(), OutputBytes: out.Bytes,
	}
	d.obs = contract.Observation{
		IntentID: j.Intent.ID, ToolName: j.tool.Name, OK: exit == contract.ExitOK, Phase: PhaseExecution, Code: code,
		Text: text, Truncated: out.Truncated, OmittedBytes: out.OmittedBytes, ArtifactRef: out.ArtifactRef,
		Untrusted: true,
	}
	return d
}
