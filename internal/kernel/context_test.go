package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state/statetest"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/workspace"
)

// windowed is a model with a small context window that counts a request's
// tokens as a real one would (not as rein estimates them: 3.3 bytes a
// token over the request's JSON), refuses a request over its window with
// context_length, answers a summary request (one offered no tools) with a
// summary, and otherwise calls the emit tool until it has made calls tool
// calls, then answers.
type windowed struct {
	window, calls int
	// failSummaries is how many summary requests fail before one works;
	// -1 means all of them.
	failSummaries int
	// limit, when set, is a window lower than the advertised one: what
	// the estimate does not know.
	limit int
	// small, when set, makes the emit tool's outputs 2 to 8 KB.
	small bool
	// bloat, when set, makes every summary about this many bytes long.
	bloat int
	// summaryLimit, when set, is the most a summary request may hold
	// before it is refused as too long.
	summaryLimit int
	// talk, when set, is how many bytes of text the model writes with
	// each call.
	talk int

	made, summaries, refused, biggest int
	requests                          []*contract.ModelRequest
}

// tokens counts req as a tokenizer would: its text (not its JSON, whose
// escapes a tokenizer never sees) at 3.3 bytes a token, and a few tokens
// of framing per message and tool.
func (w *windowed) tokens(req *contract.ModelRequest) int {
	n := len(req.System)
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema) + 16
	}
	for _, m := range req.Messages {
		n += len(m.Text) + len(m.Reasoning) + 16
		for _, c := range m.ToolCalls {
			n += len(c.ProviderCallID) + len(c.ToolName) + len(c.Input) + 16
		}
		if m.Result != nil {
			n += len(m.Result.ProviderCallID) + len(m.Result.Text) + 16
		}
	}
	return n * 10 / 33
}

func (w *windowed) Stream(_ context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		w.requests = append(w.requests, req)
		n := w.tokens(req)
		w.biggest = max(w.biggest, n)
		limit := w.window
		if w.limit > 0 {
			limit = w.limit
		}
		if n > limit {
			w.refused++
			yield(nil, &contract.ProviderError{Kind: contract.KindContextLength, Message: fmt.Sprintf("%d tokens is more than %d", n, limit)})
			return
		}
		if !yield(&contract.ModelStarted{Provider: "fake"}, nil) {
			return
		}
		if len(req.Tools) == 0 && w.summaryLimit > 0 && n > w.summaryLimit {
			w.refused++
			yield(nil, &contract.ProviderError{Kind: contract.KindContextLength, Message: fmt.Sprintf("%d tokens is more than %d", n, w.summaryLimit)})
			return
		}
		if len(req.Tools) == 0 {
			w.summaries++
			if w.failSummaries < 0 || w.summaries <= w.failSummaries {
				yield(nil, &contract.ProviderError{Kind: contract.KindServer, Retryable: true, Message: "the summary failed"})
				return
			}
			text := fmt.Sprintf("## Goals\nemit things\n## Where things stand\n%d calls made so far", w.made)
			for len(text) < w.bloat {
				text += "\nand every detail of every call, at length"
			}
			_ = yield(&contract.TextDelta{Text: text}, nil) &&
				yield(&contract.ModelUsage{InputTokens: int64(n), OutputTokens: 40}, nil) &&
				yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
			return
		}
		if w.made >= w.calls {
			_ = yield(&contract.TextDelta{Text: "All done."}, nil) &&
				yield(&contract.ModelUsage{InputTokens: int64(n), OutputTokens: 5}, nil) &&
				yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
			return
		}
		w.made++
		if w.talk > 0 && !yield(&contract.TextDelta{Text: strings.Repeat(fmt.Sprintf("Thinking about call %d. ", w.made), w.talk/24)}, nil) {
			return
		}
		input := fmt.Sprintf(`{"n":%d}`, w.made)
		if w.small {
			input = fmt.Sprintf(`{"n":%d,"max":8000}`, w.made)
		}
		_ = yield(&contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ProviderCallID: fmt.Sprintf("call_%d", w.made), ToolName: "emit", Input: json.RawMessage(input), RawInput: input,
		}}, nil) &&
			yield(&contract.ModelUsage{InputTokens: int64(n), OutputTokens: 20}, nil) &&
			yield(&contract.ModelFinished{Reason: contract.FinishToolUse}, nil)
	}
}

// emit writes between 5 and 50 KB of numbered lines for call n (up to max
// bytes, when given).
func emit() registry.Tool {
	return registry.Tool{
		Name: "emit", Description: "emit output", Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Safe,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"max":{"type":"integer"}},"required":["n"]}`),
		Execute: func(_ context.Context, c *registry.Call) (registry.Result, error) {
			var in struct{ N, Max int }
			json.Unmarshal(c.Input, &in)
			size := 5_000 + in.N*7919%45_000
			if in.Max > 0 {
				size = 2_000 + in.N*7919%(in.Max-2_000)
			}
			var b strings.Builder
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "call %d line %d: some output of the command\n", in.N, i)
			}
			c.Output.Write([]byte(b.String()))
			return registry.Result{}, nil
		},
	}
}

// windowKernel is a kernel over model m with the emit tool, a tool runtime
// keeping artifacts, and what rein knows of m: its window and output.
func windowKernel(t *testing.T, m *windowed, system string, opts ContextOptions) (*Kernel, *eventlog.Log) {
	t.Helper()
	reg, err := registry.New(emit())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Default, permission.Rules{}, ws)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rt, err := tool.New(reg, policy, &tool.Options{ArtifactDir: dir + "/artifacts"})
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(m, log, &Options{
		ProviderName: "fake", Model: "small", Registry: reg, Tools: rt, MaxTurns: m.calls + 10, System: system,
		SessionDir: dir, Capabilities: provider.Capabilities{Streaming: true, Tools: true},
		Info:    &contract.ModelInfo{ContextWindow: m.window, MaxOutput: 2000, Source: contract.InfoConfig},
		Context: opts, Retry: RetryPolicy{Attempts: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

// count returns how many of envs are of type typ.
func count(envs []contract.Envelope, typ string) int {
	n := 0
	for _, e := range envs {
		if e.Type() == typ {
			n++
		}
	}
	return n
}

func TestALongSessionNeverOutgrowsTheWindow(t *testing.T) {
	m := &windowed{window: 16_000, calls: 300}
	k, log := windowKernel(t, m, "You are a test.", ContextOptions{})
	out := collect(t, k.Send(t.Context(), Input{Text: "emit 300 times"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCompleted {
		t.Fatalf("run finished %+v, want completed", f)
	}
	if m.made != 300 {
		t.Errorf("the model made %d calls, want 300", m.made)
	}
	if m.refused > 0 || count(out, contract.TypeProviderError) > 0 {
		t.Errorf("%d requests were refused as too long (%d provider errors)", m.refused, count(out, contract.TypeProviderError))
	}
	if m.biggest > m.window {
		t.Errorf("the biggest request had %d tokens, over the window of %d", m.biggest, m.window)
	}
	elided := 0
	for _, e := range out {
		if p, ok := e.Data.(*contract.ContextProjected); ok {
			elided += len(p.Elided)
		}
	}
	compactions := count(out, contract.TypeContextCompacted)
	if elided == 0 || compactions == 0 {
		t.Errorf("%d observations elided, %d compactions: want both", elided, compactions)
	}
	if n, want := count(out, contract.TypeContextProjected), count(out, contract.TypeModelRequested)-m.summaries; n != want {
		t.Errorf("%d context.projected for %d conversation requests, want one each", n, want)
	}
	t.Logf("300 calls: %d requests, %d summaries, %d compactions, %d elided, biggest request %d tokens",
		len(m.requests), m.summaries, compactions, elided, m.biggest)
	// The live state is the fold of the log, compactions included.
	st, folded := k.State(), statetest.Reduce(durable(t, log))
	if len(folded.Messages) != len(st.Messages) || folded.Summary != st.Summary || folded.Compactions != st.Compactions {
		t.Errorf("fold: %d messages, %d compactions; live: %d, %d", len(folded.Messages), folded.Compactions, len(st.Messages), st.Compactions)
	}
}

func TestSmallOutputsInASmallWindowComplete(t *testing.T) {
	// Outputs of 2 to 8 KB: what elision leaves is mostly the protected
	// tail, and a compaction must still find something to take.
	for _, calls := range []int{60, 200} {
		m := &windowed{window: 16_000, calls: calls, small: true}
		k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
		out := collect(t, k.Send(t.Context(), Input{Text: "emit"}))
		if f := finished(t, out); f.Outcome != contract.OutcomeCompleted || m.refused > 0 || m.biggest > m.window {
			t.Errorf("%d calls: run %+v, %d refused, biggest %d tokens", calls, f, m.refused, m.biggest)
		}
		t.Logf("%d calls: %d requests, %d compactions, %d failed", calls, len(m.requests),
			count(out, contract.TypeContextCompacted), count(out, contract.TypeCompactionFailed))
	}
}

func TestASummaryCallIsRetriedLikeATurn(t *testing.T) {
	m := &windowed{window: 200_000, calls: 6, failSummaries: 1}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	k.opts.Retry = RetryPolicy{Attempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}.withDefaults()
	collect(t, k.Send(t.Context(), Input{Text: "emit 6 times"}))
	out := collect(t, k.Compact(t.Context(), ""))
	if count(out, contract.TypeRetryScheduled) != 1 || count(out, contract.TypeContextCompacted) != 1 || count(out, contract.TypeCompactionFailed) != 0 {
		t.Errorf("a summary call that failed once: %v", types(out))
	}
}

func TestFailingSummariesTripTheBreaker(t *testing.T) {
	m := &windowed{window: 16_000, calls: 300, failSummaries: -1}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	out := collect(t, k.Send(t.Context(), Input{Text: "emit 300 times"}))
	f := finished(t, out)
	if f.Outcome != contract.OutcomeFailed || !strings.Contains(f.Reason, "compactions in a row failed") {
		t.Fatalf("run finished %+v, want failed by the breaker", f)
	}
	if n := count(out, contract.TypeCompactionFailed); n != maxFailed {
		t.Errorf("%d context.compaction_failed, want %d", n, maxFailed)
	}
	if m.summaries != maxFailed {
		t.Errorf("%d summary calls, want %d: no more after the breaker", m.summaries, maxFailed)
	}
	if m.refused > 0 || m.biggest > m.window {
		t.Errorf("%d refused, biggest %d tokens: nothing over the window is ever sent", m.refused, m.biggest)
	}
}

func TestASummaryThatDoesNotHelpChangesNothing(t *testing.T) {
	// Summaries longer than what they replace: no compaction is
	// committed, each is recorded as failed, and after two the run
	// compacts no more, sending what still fits.
	m := &windowed{window: 16_000, calls: 100, small: true, bloat: 60_000}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	out := collect(t, k.Send(t.Context(), Input{Text: "emit 100 times"}))
	f := finished(t, out)
	if n := count(out, contract.TypeContextCompacted); n != 0 {
		t.Errorf("%d compactions committed, want none", n)
	}
	if n := count(out, contract.TypeCompactionFailed); n != maxFailed || m.summaries != maxFailed {
		t.Errorf("%d context.compaction_failed after %d summary calls, want %d of each", n, m.summaries, maxFailed)
	}
	for _, e := range out {
		if c, ok := e.Data.(*contract.CompactionFailed); ok && !strings.Contains(c.Reason, "no smaller") && !strings.Contains(c.Reason, "past its output limit") {
			t.Errorf("compaction failed: %s", c.Reason)
		}
	}
	if m.refused > 0 || m.biggest > m.window {
		t.Errorf("%d refused, biggest %d tokens: nothing over the window is ever sent", m.refused, m.biggest)
	}
	t.Logf("run %s after %d requests: %s", f.Outcome, len(m.requests), f.Reason)
}

func TestASummaryRequestTooLongIsPlannedAgainSmaller(t *testing.T) {
	// The provider takes less in a summary request than the estimate
	// says: a refused plan is made anew, after the ratio's correction,
	// with smaller chunks.
	m := &windowed{window: 40_000, calls: 60, talk: 8_000, summaryLimit: 20_000}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	out := collect(t, k.Send(t.Context(), Input{Text: "emit 60 times"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCompleted || m.refused == 0 || count(out, contract.TypeContextCompacted) == 0 {
		t.Fatalf("run %+v, %d refused, %d compactions", f, m.refused, count(out, contract.TypeContextCompacted))
	}
	var last int
	for i, req := range m.requests {
		if len(req.Tools) != 0 {
			continue
		}
		if n := m.tokens(req); last > m.summaryLimit && n >= last {
			t.Errorf("summary request %d: %d tokens after one of %d was refused", i, n, last)
		}
		last = m.tokens(req)
	}
	t.Logf("%d summary requests refused, %d answered", m.refused, m.summaries)
}

func TestASystemPromptBiggerThanTheWindowStopsAtOnce(t *testing.T) {
	m := &windowed{window: 16_000, calls: 3}
	k, _ := windowKernel(t, m, strings.Repeat("You must follow this rule. ", 4000), ContextOptions{})
	out := collect(t, k.Send(t.Context(), Input{Text: "hello"}))
	f := finished(t, out)
	if f.Outcome != contract.OutcomeFailed || !strings.Contains(f.Reason, "cannot fit") || !strings.Contains(f.Reason, "16000") {
		t.Fatalf("run finished %+v, want failed with the numbers", f)
	}
	if len(m.requests) != 0 || count(out, contract.TypeContextCompacted)+count(out, contract.TypeCompactionFailed) != 0 {
		t.Errorf("%d requests sent, compactions tried: want none", len(m.requests))
	}
}

func TestAContextLengthErrorCompactsAndRetriesOnce(t *testing.T) {
	// The server's real window is smaller than advertised: the estimate
	// cannot know, the error tells.
	m := &windowed{window: 16_000, limit: 9_000, small: true, calls: 60}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	out := collect(t, k.Send(t.Context(), Input{Text: "emit 60 times"}))
	if f := finished(t, out); f.Outcome != contract.OutcomeCompleted || m.refused == 0 {
		t.Fatalf("run finished %+v after %d refusals, want completed after at least one", f, m.refused)
	}
	var by []string
	for _, e := range out {
		if c, ok := e.Data.(*contract.ContextCompacted); ok {
			by = append(by, c.By)
		}
	}
	if !strings.Contains(strings.Join(by, " "), contract.CompactContextLength) {
		t.Errorf("compactions by %v, want one by context_length", by)
	}
	if n := count(out, contract.TypeRetryScheduled); n != 0 {
		t.Errorf("%d retries scheduled: a context_length error is not retried by the retry policy", n)
	}
	t.Logf("outcome %s; %d refused; compactions %v", finished(t, out).Outcome, m.refused, by)
}

func TestManualCompactionKeepsTheFocus(t *testing.T) {
	m := &windowed{window: 200_000, calls: 6}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	collect(t, k.Send(t.Context(), Input{Text: "emit 6 times"}))
	out := collect(t, k.Compact(t.Context(), "the emitted line counts"))
	var got *contract.ContextCompacted
	for _, e := range out {
		if c, ok := e.Data.(*contract.ContextCompacted); ok {
			got = c
		}
	}
	if got == nil {
		t.Fatalf("no context.compacted in %v", types(out))
	}
	if got.By != contract.CompactUser || got.Focus != "the emitted line counts" || got.Summary == "" || got.Replaced == 0 {
		t.Errorf("compacted %+v", got)
	}
	sum := m.requests[len(m.requests)-1]
	if b, _ := json.Marshal(sum); !strings.Contains(string(b), "the emitted line counts") {
		t.Errorf("the summary request does not carry the focus")
	}
	// The next request starts with the summary.
	collect(t, k.Send(t.Context(), Input{Text: "and now?"}))
	next := m.requests[len(m.requests)-1]
	if len(next.Messages) == 0 || !strings.Contains(next.Messages[0].Text, "calls made so far") {
		t.Errorf("the request after a compaction does not start with its summary: %+v", next.Messages[:1])
	}
	if last := next.Messages[len(next.Messages)-1]; last.Role != contract.RoleUser || last.Text != "and now?" {
		t.Errorf("the latest user message is not last and verbatim: %+v", last)
	}
}

func TestMaxCostEndsTheRunAfterTheCallThatCrossesIt(t *testing.T) {
	m := &windowed{window: 200_000, calls: 50}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{MaxCost: 0.05})
	k.models[0].Info.Prices = &contract.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	out := collect(t, k.Send(t.Context(), Input{Text: "emit"}))
	f := finished(t, out)
	if f.Outcome != contract.OutcomeBudget {
		t.Fatalf("run finished %+v, want budget", f)
	}
	st := k.State()
	if st.RunUsage.CostUSD < 0.05 || len(st.Pending) != 0 {
		t.Errorf("run cost %v, %d pending: want past the budget, nothing left pending", st.RunUsage.CostUSD, len(st.Pending))
	}
	for _, e := range out {
		if u, ok := e.Data.(*contract.ModelUsage); ok && u.CostUSD == nil {
			t.Fatalf("a model.usage without its cost: %+v", u)
		}
	}
	if f.Usage == nil || f.Usage.CostUSD != st.RunUsage.CostUSD {
		t.Errorf("run.finished usage %+v, want the run's totals", f.Usage)
	}
}

// A person's compaction takes whatever comes before the latest turn,
// however little, even when the summary is no smaller; with nothing
// before it, it records why, and nothing changes.
func TestManualCompactionOfAShortSession(t *testing.T) {
	m := &windowed{window: 200_000, calls: 0, bloat: 3000}
	k, _ := windowKernel(t, m, "You are a test.", ContextOptions{})
	collect(t, k.Send(t.Context(), Input{Text: "hello"}))
	out := collect(t, k.Compact(t.Context(), ""))
	var failed *contract.CompactionFailed
	for _, e := range out {
		if c, ok := e.Data.(*contract.CompactionFailed); ok {
			failed = c
		}
	}
	if failed == nil || failed.Attempt != 0 || failed.Reason != "nothing to compact: the conversation is only its latest turn, which is kept verbatim" {
		t.Fatalf("one turn: compaction failed %+v, want nothing to compact, attempt 0, in %v", failed, types(out))
	}
	collect(t, k.Send(t.Context(), Input{Text: "and again"}))
	out = collect(t, k.Compact(t.Context(), ""))
	var got *contract.ContextCompacted
	for _, e := range out {
		switch c := e.Data.(type) {
		case *contract.ContextCompacted:
			got = c
		case *contract.CompactionFailed:
			t.Errorf("two short turns: %s", c.Reason)
		}
	}
	if got == nil || got.Replaced == 0 {
		t.Fatalf("two short turns: compacted %+v in %v", got, types(out))
	}
	if got.TokensAfter < got.TokensBefore {
		t.Errorf("the summary of %d bytes made the request smaller (%d -> %d tokens): the test no longer shows a summary that is not", m.bloat, got.TokensBefore, got.TokensAfter)
	}
	if st := k.State(); st.Summary == "" {
		t.Errorf("the state holds no summary after the compaction")
	}
}
