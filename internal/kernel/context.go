package kernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/catalog"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/projection"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// The context engine's side in the kernel. The projection decides what a
// request holds and when the conversation needs compacting (it is pure);
// the kernel makes the compaction's model calls, records them, and stops a
// run with the numbers, rather than loop, when nothing can make the
// request fit.

const (
	// maxFruitless is how many automatic compactions in a row may leave
	// the request over compact_at before the run stops.
	maxFruitless = 2
	// maxFailed is how many compactions in a row may fail (the summary
	// call failed or came back empty) before no more are tried in the run.
	maxFailed = 2
)

// breaker counts what went wrong with a run's compactions, so that they
// are never retried without end.
type breaker struct {
	// fruitless counts the automatic compactions in a row after which the
	// request was still over compact_at.
	fruitless int
	// failed counts the compactions in a row that changed nothing.
	failed int
}

// halt is why a run stops for its context, not for a provider's error.
type halt struct {
	outcome contract.Outcome
	reason  string
}

// info returns what is known of m's window, output and prices: Info, else
// what its capabilities say, else nil (no context policy).
func (m *Model) info() *contract.ModelInfo {
	if m.Info != nil {
		return m.Info
	}
	if m.Capabilities.ContextWindow <= 0 {
		return nil
	}
	return &contract.ModelInfo{ContextWindow: m.Capabilities.ContextWindow, MaxOutput: m.Capabilities.MaxOutput, Source: contract.InfoCatalog}
}

// cost returns what usage u cost on m; nil when its prices are unknown.
func (m *Model) cost(u *contract.ModelUsage) *float64 {
	info := m.info()
	if info == nil {
		return nil
	}
	return catalog.Cost(u, info.Prices)
}

// system returns the system prompt of the session: the one its log
// recorded, else the kernel's.
func (r *run) system(st *state.State) string {
	if st.System != "" {
		return st.System
	}
	return r.k.opts.System
}

// options returns the projection options of m's next request.
func (r *run) options(st *state.State, m *Model) *projection.Options {
	k := r.k
	popts := &projection.Options{
		Model: m.Model, System: r.system(st), SessionDir: k.opts.SessionDir,
		Budget: projection.NewBudget(m.info(), k.opts.Context.CompactAt),
	}
	if k.opts.Tools != nil {
		popts.Hidden = k.opts.Tools.Hidden
	}
	if !m.Capabilities.Tools {
		// A model that cannot call tools is offered none: vendors reject
		// tools for such models, and the record says what was offered.
		popts.Hidden = func(registry.Tool) bool { return true }
	}
	return popts
}

// effort returns the reasoning level to ask of m: the configured one when
// m takes it, else none (the vendor's default).
func (r *run) effort(m *Model) string {
	e := r.k.opts.Context.ReasoningEffort
	if e == "" || !slices.Contains(m.Capabilities.ReasoningLevels, e) {
		return ""
	}
	return e
}

// prepare projects m's next request under the context policy, compacting
// first when the policy asks for it and the breaker allows: at most once
// before a request is sent, so that a compaction that cannot help is
// never tried twice in a row (a context_length refusal of the request may
// get one more: see makeRoom). A request over the threshold that no compaction could
// bring under is sent while it fits the input budget; one that does not
// fit stops the run, with the numbers. It returns the projection and the
// id of the last event appended; a nil projection means the run stops
// here (r.halt says why) or failed (r.err).
func (r *run) prepare(ctx context.Context, m *Model, cause string) (*projection.Projection, string) {
	tried := false
	for {
		st := r.state()
		popts := r.options(&st, m)
		proj := projection.Project(&st, r.k.opts.Registry, popts)
		b := popts.Budget
		switch {
		case proj.TooBig:
			return nil, r.withhold(proj, cause, tooBig(m, proj.MustStay, b, st.Summary != ""))
		case !proj.Compact:
			r.brk.fruitless = 0
			return proj, cause
		case tried || r.brk.open():
			if proj.Tokens <= b.Input() {
				return proj, cause
			}
			return nil, r.withhold(proj, cause, r.broken(m, proj.Tokens, b))
		}
		tried = true
		var ok bool
		cause, ok = r.compact(ctx, m, contract.CompactAuto, "", cause)
		if r.err != nil || ctx.Err() != nil || r.stopped {
			if r.err == nil {
				r.halt = &halt{contract.OutcomeCancelled, "cancelled while the context was compacted"}
			}
			return nil, cause
		}
		if over, why := r.overBudget(); over {
			// The summary calls cost too, and count towards max_cost.
			r.halt = &halt{contract.OutcomeBudget, why}
			return nil, cause
		}
		if ok {
			cause = r.checkFruitless(m, cause)
		}
	}
}

// open reports whether the breaker stops the run's compactions: after
// maxFailed compactions in a row whose summary failed (retried first as
// a turn's call is; only a compaction that works resets the count, and
// finding nothing to compact does not count), or maxFruitless in a row
// that did not bring the request under the threshold (a request under it
// resets that count).
func (b *breaker) open() bool { return b.failed >= maxFailed || b.fruitless >= maxFruitless }

// withhold records the ledger of a request the run stops without sending,
// marked so, and the reason the run stops. It returns the id of the last
// event appended.
func (r *run) withhold(proj *projection.Projection, cause, reason string) string {
	r.halt = &halt{contract.OutcomeFailed, reason}
	ledger := *proj.Ledger
	ledger.Turn, ledger.Withheld = r.turn, reason
	env, err := r.emit(&ledger, cause)
	if err != nil {
		return cause
	}
	return env.ID
}

// checkFruitless counts a compaction that left the request over
// compact_at, and records it as a failure: it did not do its job.
func (r *run) checkFruitless(m *Model, cause string) string {
	st := r.state()
	popts := r.options(&st, m)
	proj := projection.Project(&st, r.k.opts.Registry, popts)
	if !proj.Compact {
		return cause
	}
	r.brk.fruitless++
	b := popts.Budget
	env, err := r.emit(&contract.CompactionFailed{Turn: r.turn, Attempt: r.brk.fruitless, By: contract.CompactAuto, Reason: fmt.Sprintf(
		"the compaction left the request at about %d tokens, over the threshold of %d (compact_at of an input budget of %d)",
		proj.Tokens, b.Threshold(), b.Input())}, cause)
	if err != nil {
		return cause
	}
	return env.ID
}

// elides reports whether m's next request would elide what the last one
// sent: after a context_length error the corrected estimate may find room
// where a compaction found nothing to take.
func (r *run) elides(m *Model) bool {
	st := r.state()
	proj := projection.Project(&st, r.k.opts.Registry, r.options(&st, m))
	return len(proj.Ledger.Elided) > 0 || proj.TooBig
}

// compact summarises the conversation with m and records it; by says what
// asked for it, focus what the summary must keep. It returns the id of the
// last event appended and whether the conversation was compacted: a
// failure is recorded as context.compaction_failed and changes nothing.
func (r *run) compact(ctx context.Context, m *Model, by, focus, cause string) (string, bool) {
	cause, ok, tooLong := r.compactOnce(ctx, m, by, focus, cause, false)
	if tooLong && r.err == nil && ctx.Err() == nil && !r.stopped {
		// A summary request the provider found too long: the estimate
		// was wrong. Planned anew for half the window, the chunks are
		// half as big.
		cause, ok, _ = r.compactOnce(ctx, m, by, focus, cause, true)
	}
	return cause, ok
}

// compactOnce is one attempt at a compaction (see compact), planned for
// half the window when halve is set; tooLong reports that a summary call
// failed with context_length.
func (r *run) compactOnce(ctx context.Context, m *Model, by, focus, cause string, halve bool) (_ string, ok, tooLong bool) {
	st := r.state()
	plan, popts, nothing := r.plan(&st, m, by, halve)
	if plan == nil {
		// It cost nothing, and counts against no breaker: it is recorded,
		// with why (attempt 0: none was made), once a run when the
		// context policy asked (each retry of a call would find the
		// same), and the request goes as it is when it fits.
		if by == contract.CompactAuto && r.nothing {
			return cause, false, false
		}
		r.nothing = r.nothing || by == contract.CompactAuto
		env, err := r.emit(&contract.CompactionFailed{Turn: r.turn, By: by, Reason: nothing.Error()}, cause)
		if err != nil {
			return cause, false, false
		}
		return env.ID, false, false
	}
	summary, cause, why, tooLong := r.summarise(ctx, m, &st, plan, popts, focus, cause)
	if r.err != nil {
		return cause, false, false
	}
	if why != "" {
		cause, _ = r.compactionFailed(by, why, cause)
		return cause, false, tooLong
	}
	e := &contract.ContextCompacted{
		Turn: r.turn, Summary: summary, Replaced: plan.Replaced, FromSeq: plan.FromSeq, ToSeq: plan.ToSeq,
		By: by, Focus: focus, Calls: len(plan.Chunks),
		// The request as it would go without the compaction, under the
		// policy's own budget (the plan's may be narrowed).
		TokensBefore: projection.Project(&st, r.k.opts.Registry, r.options(&st, m)).Tokens,
	}
	// What the next request will weigh: the same projection over the
	// state the compaction leaves (Apply copies what it changes).
	after := state.Apply(st, contract.Envelope{Seq: st.LastSeq + 1, Session: st.Session, Data: e})
	next := projection.Project(&after, r.k.opts.Registry, r.options(&after, m))
	e.TokensAfter = next.Tokens
	if next.TooBig || (e.TokensAfter >= e.TokensBefore && by != contract.CompactUser) {
		// A summary that makes the request no smaller is worse than none,
		// unless a person asked for it: they get what they asked for,
		// and its closing line says the tokens before and after.
		cause, _ = r.compactionFailed(by, fmt.Sprintf("the summary (%d bytes) would leave the request at about %d tokens, no smaller than the %d before",
			len(summary), e.TokensAfter, e.TokensBefore), cause)
		return cause, false, false
	}
	env, err := r.emit(e, cause)
	if err != nil {
		return cause, false, false
	}
	r.brk.failed = 0
	return env.ID, true, false
}

// plan plans a compaction of st for m, by what asks for it, for half the
// window when halve is set; nil, and why, when there is nothing to
// compact. It returns the options the summary requests are made with.
func (r *run) plan(st *state.State, m *Model, by string, halve bool) (*projection.Plan, *projection.Options, error) {
	popts := r.options(st, m)
	if halve {
		if popts.Budget.Window == 0 {
			popts.Budget.Window = 32_000 // what the planner assumes of an unknown window
		}
		popts.Budget.Window /= 2
	}
	if by != contract.CompactAuto {
		// A person's compaction, and one after the provider refused a
		// request the estimate thought would fit, keep only the latest
		// turn verbatim; a person's takes whatever comes before it.
		popts.Budget.Tail = 1
		popts.Asked = by == contract.CompactUser
	}
	plan, err := projection.PlanCompaction(st, r.k.opts.Registry, popts)
	if err != nil && popts.Budget.Tail != 1 {
		// The protected tail leaves too little to be worth a summary:
		// keep only the latest turn instead.
		popts.Budget.Tail = 1
		plan, err = projection.PlanCompaction(st, r.k.opts.Registry, popts)
	}
	if err != nil {
		return nil, popts, err
	}
	return plan, popts, nil
}

// summarise makes plan's summary, chunk after chunk. It returns the
// summary and the id of the last event appended, or why there is none
// (and whether a summary call was refused as too long).
func (r *run) summarise(ctx context.Context, m *Model, st *state.State, plan *projection.Plan, popts *projection.Options,
	focus, cause string) (summary, last, why string, tooLong bool) {
	for i := range plan.Chunks {
		req := projection.SummaryRequest(plan, i, summary, focus, popts)
		req.Model = m.Model
		text, last, perr := r.summaryCall(ctx, m, req, cause)
		cause = last
		switch {
		case r.err != nil:
			return "", cause, "", false
		case perr != nil:
			return "", cause, "the summary call failed: " + perr.Error(), perr.Kind == contract.KindContextLength
		case strings.TrimSpace(text) == "":
			return "", cause, "the summary came back empty", false
		case req.MaxOutputTokens > 0 && st.Calib.Tokens(len(text)) > req.MaxOutputTokens+req.MaxOutputTokens/4:
			// A model that ignored its output limit: carried into the next
			// chunk's request, or into the conversation, it would not fit
			// where it was planned to.
			return "", cause, fmt.Sprintf("the summary ran past its output limit: about %d tokens of %d",
				st.Calib.Tokens(len(text)), req.MaxOutputTokens), false
		}
		summary = strings.TrimSpace(text)
	}
	return summary, cause, "", false
}

// compactionFailed records a compaction that changed nothing.
func (r *run) compactionFailed(by, reason, cause string) (string, bool) {
	r.brk.failed++
	env, err := r.emit(&contract.CompactionFailed{Turn: r.turn, Attempt: r.brk.failed, By: by, Reason: reason}, cause)
	if err != nil {
		return cause, false
	}
	return env.ID, false
}

// summaryCall makes one model call of a compaction. It is recorded like
// any call (model.requested, with purpose compaction, then what the
// provider yields), but its text is not part of the conversation: it is
// returned, for context.compacted, and never streamed to the caller. It
// returns the text, the id of the last event appended and the call's
// error, already recorded.
func (r *run) summaryCall(ctx context.Context, m *Model, req *contract.ModelRequest, cause string) (string, string, *contract.ProviderError) {
	text, last, perr := r.summaryAttempt(ctx, m, req, cause)
	if r.err != nil || perr == nil {
		return text, last, nil
	}
	return r.summaryFailed(ctx, m, req, perr, last)
}

// summaryFailed records the error that ended a summary call, and tries
// the call again as the retry policy would a turn's (a rate limit, an
// overloaded server), up to its attempts. It returns what summaryCall
// returns.
func (r *run) summaryFailed(ctx context.Context, m *Model, req *contract.ModelRequest, perr *contract.ProviderError, last string) (string, string, *contract.ProviderError) {
	policy := r.k.opts.Retry
	for tries := 1; ; tries++ {
		last = r.recordSummaryError(m, perr, last)
		if r.err != nil || !perr.Retryable || tries >= policy.Attempts {
			return "", last, perr
		}
		delay, ok := policy.backoff(tries, perr)
		if !ok {
			return "", last, perr
		}
		env, err := r.emit(&contract.RetryScheduled{Attempt: tries + 1, MaxAttempts: policy.Attempts,
			DelayMS: delay.Milliseconds(), Kind: perr.Kind}, last)
		if err != nil {
			return "", last, perr
		}
		if policy.Sleep(ctx, delay) != nil {
			return "", env.ID, &contract.ProviderError{Kind: contract.KindAborted, Message: "cancelled while waiting to retry the summary call"}
		}
		var text string
		text, last, perr = r.summaryAttempt(ctx, m, req, env.ID)
		if r.err != nil || perr == nil {
			return text, last, nil
		}
	}
}

// summaryAttempt is one more attempt at a summary call, recorded like the
// first.
func (r *run) summaryAttempt(ctx context.Context, m *Model, req *contract.ModelRequest, cause string) (string, string, *contract.ProviderError) {
	st := r.state()
	requested, err := r.emit(&contract.ModelRequested{
		Provider: m.Name, Model: m.Model, MessageCount: len(req.Messages), ToolNames: []string{},
		EstimatedInputTokens: projection.EstimateWith(&st.Calib, req), InputBytes: projection.Size(req), Purpose: contract.PurposeCompaction,
	}, cause)
	if err != nil {
		return "", cause, nil
	}
	return r.summaryStream(ctx, m, req, requested.ID)
}

// recordSummaryError appends perr, a summary call's error, as
// provider.error, and returns its id.
func (r *run) recordSummaryError(m *Model, perr *contract.ProviderError, last string) string {
	copied := *perr
	copied.Message = r.k.redactor.String(copied.Message)
	copied.Provider, copied.Model = cmp.Or(copied.Provider, m.Name), cmp.Or(copied.Model, m.Model)
	env, err := r.emit(&copied, last)
	if err != nil {
		return last
	}
	return env.ID
}

// summaryStream streams a summary call whose model.requested is cause,
// appending its start, usage and finish, and returns its text, the id of
// the last event appended and the error that ended it (not yet recorded).
func (r *run) summaryStream(ctx context.Context, m *Model, req *contract.ModelRequest, cause string) (string, string, *contract.ProviderError) {
	last := cause
	var text strings.Builder
	finished, cut := false, false
	for ev, err := range m.Provider.Stream(ctx, req) {
		if err != nil {
			return "", last, asProviderError(err)
		}
		var keep contract.Event
		switch e := ev.(type) {
		case *contract.TextDelta:
			text.WriteString(e.Text)
		case *contract.ModelUsage:
			copied := *e
			copied.CostUSD = m.cost(&copied)
			keep = &copied
		case *contract.ModelStarted:
			keep = e
		case *contract.ModelFinished:
			keep, finished, cut = e, true, e.Reason == contract.FinishLength
		}
		// Reasoning, tool calls (a summary is offered no tool) and a
		// provider's mid-stream complaint are not the summary.
		if keep == nil {
			continue
		}
		env, err := r.emit(keep, cause)
		if err != nil {
			return "", last, nil
		}
		last = env.ID
		if r.stopped {
			break
		}
	}
	switch {
	case cut:
		return "", last, &contract.ProviderError{Kind: contract.KindBadRequest, Message: "the summary was cut off at its output limit"}
	case finished:
		return text.String(), last, nil
	case ctx.Err() != nil || r.stopped:
		return "", last, &contract.ProviderError{Kind: contract.KindAborted, Message: "the summary call was stopped"}
	}
	return "", last, &contract.ProviderError{Kind: contract.KindStreamInterrupted, Message: "the summary call ended without finishing"}
}

// tooBig is why a run stops when what must stay does not fit; summarised
// says the conversation holds a summary, which rein compact can make
// anew.
func tooBig(m *Model, mustStay int, b projection.Budget, summarised bool) string {
	fix := "use a model with a larger window (--model), or start a new session"
	if summarised {
		fix += ", or summarise the session again with rein compact ID"
	}
	return fmt.Sprintf("the request cannot fit: what must stay in it (the system prompt, the tools, the summary, "+
		"the latest user message and the latest tool results) needs about %d tokens, and %s leaves %d for input "+
		"(a window of %d, less %d reserved for the reply and a margin of %d); %s",
		mustStay, modelName(m), b.Input(), b.Window, b.Reserved, b.Margin, fix)
}

// broken is why a run stops when its compactions could not make the
// request fit.
func (r *run) broken(m *Model, tokens int, b projection.Budget) string {
	what := "the compactions did not bring it under the threshold"
	if r.brk.failed >= maxFailed {
		what = fmt.Sprintf("%d compactions in a row failed (see context.compaction_failed)", r.brk.failed)
	}
	return fmt.Sprintf("the conversation needs about %d tokens, over the threshold of %d of the %d that %s leaves for input (a window of %d); %s; "+
		"start a new session, or use a model with a larger window (--model)", tokens, b.Threshold(), b.Input(), modelName(m), b.Window, what)
}

// modelName names m in a message.
func modelName(m *Model) string {
	if m.Model == "" {
		return m.Name
	}
	return m.Model
}

// compactNow is a compaction a person asked for (rein compact, /compact).
func (r *run) compactNow(ctx context.Context, focus string) {
	if r.state().Session == "" {
		r.err = errors.New("kernel: compact: the log holds no session")
		return
	}
	if r.begin() != nil {
		return
	}
	m := &r.k.models[r.k.current]
	r.compact(ctx, m, contract.CompactUser, strings.TrimSpace(focus), r.lastID)
}
