package kernel

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/projection"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// run is one Send: it appends events, keeps the kernel's state, and hands
// every envelope to the caller.
type run struct {
	k     *Kernel
	yield func(contract.Envelope, error) bool
	id    string
	turn  int
	// stopped is set once the caller stops reading; events are still
	// appended so the log stays complete.
	stopped bool
	// err is the runtime failure that ended the run, if any.
	err error

	// The text or reasoning block being streamed, coalesced into one
	// durable event when the block ends.
	block     strings.Builder
	blockType string
	cause     string
	// shown cuts the secrets out of the block's deltas before they are
	// published; what it holds back is published when the block ends.
	shown eventlog.StreamRedactor
	// intents are the tool calls being streamed, by the index of their
	// deltas, as published so far.
	intents map[int]*intentView
	// outputs are the invocations whose output is being streamed (see
	// Delta), by invocation id.
	outputs map[string]*outputView

	// cancel stops the run's work once the caller stops reading.
	cancel context.CancelFunc
	// proposed maps the intents of the current turn to the events that
	// recorded them.
	proposed map[string]string
	// tally counts the run's tool calls by tool, and the failed ones, for
	// the summary of a run that hits its turn limit.
	tally map[string]int
	// continues counts the times Stop hooks made the run go on.
	continues int
	failed    int
	// lastID is the id of the last durable event appended.
	lastID string
	// brk counts the run's compactions that did not do their job; halt,
	// once set, is why the run stops for its context.
	brk  breaker
	halt *halt
	// resuming is set in a resume: settle leaves the calls that resume
	// to rerun.
	resuming bool
	// nothing says the context policy found nothing to compact in this
	// run already: it is recorded once.
	nothing bool
}

// emit appends e and yields its envelope. Its error is the run's runtime
// failure (r.err, the log failed), now or from an earlier append: once it
// is set nothing more is appended, and the run must end.
func (r *run) emit(e contract.Event, cause string) (contract.Envelope, error) {
	if r.err != nil {
		return contract.Envelope{}, r.err
	}
	k := r.k
	env, err := k.append(contract.Envelope{
		ID: id.New("evt"), Time: k.opts.Now().UTC(), Session: k.session,
		Run: r.id, Turn: r.turn, Cause: cause, Data: e,
	})
	if err != nil {
		r.err = fmt.Errorf("kernel: append %s: %w", e.EventType(), err)
		return env, r.err
	}
	if env.Durable() {
		r.lastID = env.ID
	}
	if !r.stopped && !r.yield(env, nil) {
		r.stopped = true
		if r.cancel != nil {
			r.cancel()
		}
	}
	return env, nil
}

// Emit appends e for the tool runtime (tool.Sink).
func (r *run) Emit(e contract.Event, cause string) (string, error) {
	env, err := r.Record(e, cause)
	return env.ID, err
}

// Record appends e for the tool runtime, as Emit does, and returns its
// envelope (tool.Recorder); a delta a tool reports (a task's child's
// task.event, already cut as the child's own log stored it) is only
// published.
func (r *run) Record(e contract.Event, cause string) (contract.Envelope, error) {
	if c, ok := e.(*contract.InvocationCompleted); ok {
		// What the output's stream held back comes before the end.
		if err := r.endOutput(c.InvocationID); err != nil {
			return contract.Envelope{}, err
		}
	}
	env, err := r.emit(e, cause)
	if err != nil {
		return contract.Envelope{}, err
	}
	if s, ok := e.(*contract.InvocationStarted); ok {
		if r.outputs == nil {
			r.outputs = map[string]*outputView{}
		}
		r.outputs[s.InvocationID] = &outputView{intent: s.IntentID, cause: env.ID, cut: r.k.redactor.Stream()}
	}
	if o, isObs := e.(*contract.ToolObservation); isObs {
		r.tally[o.ToolName]++
		if !o.OK {
			r.failed++
		}
	}
	return env, nil
}

// Sync makes the log durable for the tool runtime (tool.Sink).
func (r *run) Sync() error {
	if err := r.k.log.Sync(); err != nil {
		r.err = fmt.Errorf("kernel: sync: %w", err)
		return r.err
	}
	return nil
}

// outputView is the output of one invocation as the run streams it.
type outputView struct {
	// intent is the intent the invocation carries out; cause is its
	// tool.invocation.started.
	intent, cause string
	// cut cuts the secrets out of the deltas, a secret split across two
	// included.
	cut eventlog.StreamRedactor
}

// Delta yields a running tool's output for the tool runtime (tool.Live):
// a *contract.ToolOutputDelta of an invocation this run started, its
// secrets cut out as a stream (what may start a secret is held back until
// the next delta, or the invocation's end). Deltas are bus events: the log
// stores none. A failure to publish is the run's runtime failure, which
// the next Emit returns.
func (r *run) Delta(e contract.Event) {
	d, ok := e.(*contract.ToolOutputDelta)
	if !ok || r.err != nil {
		return
	}
	v := r.outputs[d.InvocationID]
	if v == nil {
		return
	}
	if text := v.cut.Write(d.Text); text != "" {
		// A failure is r.err.
		_, _ = r.emit(&contract.ToolOutputDelta{IntentID: d.IntentID, InvocationID: d.InvocationID, Text: text}, v.cause)
	}
}

// endOutput yields what the stream of invocation's output still holds,
// and forgets it. Its error is the run's runtime failure.
func (r *run) endOutput(invocation string) error {
	v := r.outputs[invocation]
	if v == nil {
		return nil
	}
	delete(r.outputs, invocation)
	if tail := v.cut.Flush(); tail != "" {
		_, err := r.emit(&contract.ToolOutputDelta{IntentID: v.intent, InvocationID: invocation, Text: tail}, v.cause)
		return err
	}
	return nil
}

func (r *run) state() state.State { return r.k.State() }

func (r *run) send(ctx context.Context, in Input) {
	if r.begin() != nil {
		return
	}
	if r.sessionStart(ctx, "startup") != nil {
		return
	}
	r.start(ctx, in)
}

// begin readies the log for what a person starts (a message, a command
// of their own, a compaction): session.started when it holds no session yet, then the
// last run's id and turn taken, so that settling what it left open is
// recorded in it. Its error is the run's runtime failure.
func (r *run) begin() error {
	st := r.state()
	if st.Session == "" {
		if _, err := r.emit(r.k.started(), ""); err != nil {
			return err
		}
	}
	r.id, r.turn = st.Run, st.Turn
	return r.settle()
}

// start begins a new run with in: the user's message, run.started, and the
// loop.
func (r *run) start(ctx context.Context, in Input) {
	k := r.k
	r.turn = r.state().Turn
	r.id = id.New("run")
	if blocked, err := r.promptSubmit(ctx, in.Text); blocked || err != nil {
		return
	}
	msg := &contract.UserMessage{Text: in.Text}
	if in.Display != in.Text {
		msg.Display = in.Display
	}
	um, err := r.emit(msg, "")
	if err != nil {
		return
	}
	started, err := r.emit(&contract.RunStarted{Goal: in.Text}, um.ID)
	if err != nil {
		return
	}
	// Durable point: what the user asked is on disk before the model is
	// asked, so a crash during a long model call loses nothing they typed.
	if err := k.log.Sync(); err != nil {
		r.err = fmt.Errorf("kernel: sync: %w", err)
		return
	}
	k.prune()
	r.loop(ctx, started.ID)
}

// loop asks the model and runs the tools it calls, turn after turn, until
// the run ends; cause is the event the first model call follows from.
func (r *run) loop(ctx context.Context, cause string) {
	k := r.k
	if r.stopped || ctx.Err() != nil {
		// Nobody is listening any more, or the run was cancelled: do not
		// pay for a model call. The run ends here either way: a failed
		// append is r.err, which do reports.
		r.finish(contract.OutcomeCancelled, "cancelled before the model was asked", cause)
		return
	}
	ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	r.tally = map[string]int{}
	var outcome contract.Outcome
	var reason string
	for turns := 1; ; turns++ {
		r.turn++
		r.proposed = map[string]string{}
		cause = r.endedJobs(cause) // the request tells the model of a job that ended
		cause, outcome, reason = r.modelCall(ctx, cause)
		if r.err != nil {
			return
		}
		// A Stop hook may make a run go on, but not past its budget: a
		// run over it completes as the model ended it.
		if over, _ := r.overBudget(); outcome == contract.OutcomeCompleted && !over && r.stopHooks(ctx, cause, turns) {
			if r.err != nil {
				return
			}
			cause = r.lastID
			continue
		}
		if outcome != "" {
			break
		}
		if over, why := r.overBudget(); over {
			outcome, reason = contract.OutcomeBudget, why
			cause = r.unrun(cause, "the run's cost reached its budget (max_cost) before it could run")
			break
		}
		if k.opts.Tools == nil {
			// The model proposed intents and nothing can run them: the
			// run waits (Send syncs the log on the way out).
			return
		}
		cause = r.runTools(ctx, cause)
		if r.err == nil {
			// The end of a turn is a durable point: what the tools did is
			// on disk before the model is asked again.
			r.Sync()
		}
		if r.err != nil {
			return
		}
		if ctx.Err() != nil {
			outcome, reason = contract.OutcomeCancelled, "cancelled while tools ran"
			break
		}
		if over, why := r.overBudget(); over {
			// The tools spent it (a task's child): no model call after.
			outcome, reason = contract.OutcomeBudget, why
			break
		}
		if turns >= k.opts.MaxTurns {
			outcome, reason = contract.OutcomeMaxTurns, r.summary(turns)
			break
		}
	}
	// The run's last event: a failed append is r.err, which do reports.
	r.finish(outcome, reason, cause)
}

// finish appends the run's run.finished, with the run's tokens and cost.
func (r *run) finish(outcome contract.Outcome, reason, cause string) (contract.Envelope, error) {
	usage := r.state().RunUsage
	return r.emit(&contract.RunFinished{Outcome: outcome, Reason: reason, Usage: &usage}, cause)
}

// runTools hands the turn's pending intents to the tool runtime and
// returns the id of the last event appended.
func (r *run) runTools(ctx context.Context, cause string) string {
	st := r.state()
	turn := make([]tool.Proposal, 0, len(st.Pending))
	for _, in := range st.Pending {
		turn = append(turn, tool.Proposal{Intent: in, EventID: r.proposed[in.ID]})
	}
	if err := r.k.opts.Tools.Run(ctx, &st, turn, r); err != nil && r.err == nil {
		r.err = fmt.Errorf("kernel: tools: %w", err)
	}
	if r.lastID != "" {
		return r.lastID
	}
	return cause
}

// summary says what a run that reached its turn limit did.
func (r *run) summary(turns int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "stopped after %d model turns, the limit of a run (raise it with --max-turns)", turns)
	if len(r.tally) > 0 {
		names := slices.Sorted(maps.Keys(r.tally))
		parts := make([]string, len(names))
		total := 0
		for i, n := range names {
			parts[i] = fmt.Sprintf("%s %d", n, r.tally[n])
			total += r.tally[n]
		}
		fmt.Fprintf(&b, "; %d tool calls (%s), %d of them failed or refused", total, strings.Join(parts, ", "), r.failed)
	}
	st := r.state()
	for i := len(st.Messages) - 1; i >= 0; i-- {
		if m := st.Messages[i]; m.Role == contract.RoleAssistant && m.Text != "" {
			text := excerpt.Prefix(m.Text, 300)
			if len(text) < len(m.Text) {
				text += "..." // as run.finished has always said it
			}
			b.WriteString("; the model last said: " + text)
			break
		}
	}
	return b.String()
}

// attempt makes one model call to m and records it: the projection of
// the request under the context policy (context.projected), then the
// request (model.requested) and the stream. It returns the id of the last
// event it appended and, when the call failed, the error, already
// recorded as provider.error (with the call's partial output discarded).
// When the context policy stops the run, r.halt says why.
func (r *run) attempt(ctx context.Context, m *Model, cause string) (last string, perr *contract.ProviderError) {
	proj, cause := r.prepare(ctx, m, cause)
	if proj == nil {
		return cause, nil
	}
	req := proj.Request
	req.ParallelToolCalls = m.Capabilities.ParallelTools && len(req.Tools) > 1
	req.CacheKey = r.k.session
	req.ReasoningEffort = r.effort(m)
	ledger := *proj.Ledger
	ledger.Turn = r.turn
	projected, err := r.emit(&ledger, cause)
	if err != nil {
		return "", nil
	}
	requested, err := r.emit(&contract.ModelRequested{
		Provider: m.Name, Model: m.Model, MessageCount: len(req.Messages), ToolNames: projection.ToolNames(req),
		EstimatedInputTokens: proj.Tokens, InputBytes: proj.Bytes, ReasoningEffort: req.ReasoningEffort,
	}, projected.ID)
	if err != nil {
		return "", nil
	}
	r.cause = requested.ID
	res := r.stream(ctx, m, req, requested.ID)
	if r.err != nil {
		return "", nil
	}
	return r.conclude(ctx, m, res, requested.ID)
}

// overBudget reports whether the run's cost has reached its budget, and
// says so.
func (r *run) overBudget() (bool, string) {
	budget := r.k.opts.Context.MaxCost
	if budget <= 0 {
		return false, ""
	}
	u := r.state().RunUsage
	spent, others := u.CostUSD, ""
	if r.k.opts.Context.Spent != nil {
		more := r.k.opts.Context.Spent()
		spent += more
		if more > 0 {
			others = fmt.Sprintf(" (with $%.4f its parent's other tasks spent)", more)
		}
	}
	if spent < budget {
		return false, ""
	}
	return true, fmt.Sprintf("the run cost $%.4f%s, which reached its budget of $%.4f (max_cost, --max-cost); "+
		"raise it to go on (rein resume)", spent, others, budget)
}

// unrun records, for each intent still pending, that it was not run and
// why; it returns the id of the last event appended.
func (r *run) unrun(cause, why string) string {
	for _, in := range r.state().Pending {
		env, err := r.emit(&contract.ToolObservation{Observation: contract.Observation{
			IntentID: in.ID, ToolName: in.ToolName, Phase: contract.PhaseKernel, Code: contract.CodeNotExecuted,
			Text: "rein did not run this tool call: " + why + ".",
		}}, cause)
		if err != nil {
			return cause
		}
		cause = env.ID
	}
	return cause
}

// conclude records how an attempt whose stream left res failed, if it did:
// a stream that neither failed nor finished was stopped or cut short. It
// returns the id of the last event appended and the error recorded as
// provider.error, nil when the attempt stands; cause is the attempt's
// model.requested.
func (r *run) conclude(ctx context.Context, m *Model, res streamed, cause string) (last string, perr *contract.ProviderError) {
	perr = res.perr
	switch {
	case perr != nil, res.finished:
		// A finished call stands, even if the caller stopped reading or
		// cancelled just after: its output is in the log.
	case r.stopped:
		perr = &contract.ProviderError{Kind: contract.KindAborted, Message: "the caller stopped reading the run"}
	case ctx.Err() != nil:
		perr = &contract.ProviderError{Kind: contract.KindAborted, Message: ctx.Err().Error()}
	default:
		perr = &contract.ProviderError{Kind: contract.KindStreamInterrupted, Retryable: true,
			Message: "the provider's stream ended without finishing the model call"}
	}
	if perr == nil {
		return res.last, nil
	}
	k := r.k
	copied := *perr // the provider's value is not ours to change
	perr = &copied
	perr.Message = k.redactor.String(perr.Message)
	if perr.Provider == "" {
		perr.Provider = m.Name
	}
	if perr.Model == "" {
		perr.Model = m.Model
	}
	env, err := r.emit(perr, cause)
	if err != nil {
		return "", nil
	}
	if res.produced {
		why := "the model call failed (" + string(perr.Kind) + ")"
		if perr.Kind == contract.KindAborted {
			why = "the model call was stopped"
		}
		if _, err := r.emit(&contract.ModelDiscarded{Reason: why + "; its partial output is not part of the conversation"}, env.ID); err != nil {
			return "", nil
		}
	}
	return env.ID, perr
}

// streamed is what one provider stream left.
type streamed struct {
	// perr is the error that ended the stream; nil when it ended without
	// one (finished, stopped, or cut short).
	perr *contract.ProviderError
	// finished reports that model.finished was appended.
	finished bool
	// produced reports that the call added something to the conversation
	// (text, reasoning, an intent), to be discarded if the call fails.
	produced bool
	// last is the id of the last event appended, the stream's cause when
	// none was.
	last string
}

// stream runs the provider's stream for req and appends what it yields.
func (r *run) stream(ctx context.Context, m *Model, req *contract.ModelRequest, cause string) streamed {
	res := streamed{last: cause}
	r.intents = nil
	streamCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for ev, err := range m.Provider.Stream(streamCtx, req) {
		if err != nil {
			res.perr = asProviderError(err)
			break
		}
		if ev == nil {
			continue
		}
		err = r.record(m, ev, cause, &res)
		if r.blockType != "" {
			res.produced = true
		}
		if err != nil || r.stopped {
			break
		}
	}
	// A failed append is r.err, which the attempt checks next.
	r.flush()
	return res
}

// record appends one event of the stream, keeping res up to date. Its
// error is the run's runtime failure.
func (r *run) record(m *Model, ev contract.ModelEvent, cause string, res *streamed) error {
	switch e := ev.(type) {
	case *contract.TextDelta:
		return r.delta(contract.TypeModelText, e, e.Text, cause)
	case *contract.ReasoningDelta:
		return r.delta(contract.TypeModelReasoning, e, e.Text, cause)
	}
	if err := r.flush(); err != nil {
		return err
	}
	var keep contract.Event = ev
	switch e := ev.(type) {
	case *contract.IntentDelta:
		keep = r.intentDelta(e)
	case *contract.IntentProposed:
		intent := e.ToolIntent
		intent.ID = id.New("int")
		intent.Origin = "" // the model's, whatever the provider says
		keep = &contract.IntentProposed{ToolIntent: intent}
	case *contract.ProviderError:
		// Not the end of the stream (a malformed call, say), but
		// recorded like any provider error.
		copied := *e
		copied.Message = r.k.redactor.String(copied.Message)
		keep = &copied
	case *contract.ModelUsage:
		// The cost is the kernel's to work out, from the model's prices.
		copied := *e
		copied.CostUSD = m.cost(&copied)
		keep = &copied
	}
	env, err := r.emit(keep, cause)
	if err != nil {
		return err
	}
	switch e := keep.(type) {
	case *contract.IntentProposed:
		res.last, res.produced = env.ID, true
		r.proposed[e.ID] = env.ID
	case *contract.ModelFinished:
		res.last, res.finished = env.ID, true
	case *contract.ProviderError:
		res.last = env.ID
	}
	return nil
}

// delta adds the text of a delta e to the block of blockType, and emits
// what of it may be shown: e itself, or, when the stream redactor cut a
// secret out or holds back a tail that may start one, a delta of what it
// lets through (none when it lets nothing through).
func (r *run) delta(blockType string, e contract.Event, text, cause string) error {
	if err := r.extend(blockType, text); err != nil {
		return err
	}
	shown := r.shown.Write(text)
	switch {
	case shown == text:
	case shown == "":
		return nil
	default:
		e = deltaOf(blockType, shown)
	}
	_, err := r.emit(e, cause)
	return err
}

// deltaOf returns a delta of the block type blockType carrying text.
func deltaOf(blockType, text string) contract.Event {
	if blockType == contract.TypeModelText {
		return &contract.TextDelta{Text: text}
	}
	return &contract.ReasoningDelta{Text: text}
}

// extend adds delta text to the current block, ending the previous block
// first when it is of another type.
func (r *run) extend(blockType, text string) error {
	if r.blockType != blockType {
		if err := r.flush(); err != nil {
			return err
		}
		r.blockType = blockType
	}
	r.block.WriteString(text)
	return nil
}

// flush ends the block being streamed, if any: it emits the delta the
// stream redactor held back, then the block as one durable event. Its
// error is the run's runtime failure.
func (r *run) flush() error {
	if r.blockType == "" {
		return nil
	}
	text := r.block.String()
	typ := r.blockType
	r.block.Reset()
	r.blockType = ""
	if tail := r.shown.Flush(); tail != "" {
		if _, err := r.emit(deltaOf(typ, tail), r.cause); err != nil {
			return err
		}
	}
	if text == "" {
		return nil
	}
	var e contract.Event = &contract.ModelReasoning{Text: text}
	if typ == contract.TypeModelText {
		e = &contract.ModelText{Text: text}
	}
	_, err := r.emit(e, r.cause)
	return err
}

// intentView is what the deltas of one streamed tool call have shown.
type intentView struct {
	// raw is the argument text received so far; cut streams it.
	raw string
	cut eventlog.StreamRedactor
	// shown is what was shown of raw, once a secret was cut out of it;
	// until then what was shown is raw without the tail cut holds back.
	shown strings.Builder
}

// intentDelta returns the tool_intent.delta to publish for e, whose
// RawInput is the call's whole argument text so far: e itself, or a copy
// whose argument text has its secrets cut out and no tail that may start
// one (the tool_intent.proposed that ends the call carries the whole text,
// redacted as the log stores it).
func (r *run) intentDelta(e *contract.IntentDelta) *contract.IntentDelta {
	v := r.intents[e.Index]
	if v == nil || !strings.HasPrefix(e.RawInput, v.raw) {
		v = &intentView{cut: r.k.redactor.Stream()}
		if r.intents == nil {
			r.intents = map[int]*intentView{}
		}
		r.intents[e.Index] = v
	}
	prev, held, wasCut := v.raw, v.cut.Held(), v.cut.Cut()
	out := v.cut.Write(e.RawInput[len(prev):])
	v.raw = e.RawInput
	shown := v.raw[:len(v.raw)-v.cut.Held()]
	if v.cut.Cut() {
		if !wasCut {
			v.shown.WriteString(prev[:len(prev)-held])
		}
		v.shown.WriteString(out)
		shown = v.shown.String()
	}
	name, call := r.k.redactor.String(e.ToolName), r.k.redactor.String(e.ProviderCallID)
	if shown == e.RawInput && name == e.ToolName && call == e.ProviderCallID {
		return e
	}
	return &contract.IntentDelta{Index: e.Index, ProviderCallID: call, ToolName: name, RawInput: shown}
}

// asProviderError returns err as a provider error, wrapping a foreign error
// (a provider breaking its contract) as kind unknown.
func asProviderError(err error) *contract.ProviderError {
	if pe, ok := errors.AsType[*contract.ProviderError](err); ok {
		return pe
	}
	return &contract.ProviderError{Kind: contract.KindUnknown, Message: err.Error(), Err: err}
}
