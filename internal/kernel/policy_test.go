package kernel

import (
	"context"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/state"
)

// flaky fails its first calls with errs, one per call, each after
// streaming some text, then answers "ok".
type flaky struct {
	mu    sync.Mutex
	errs  []*contract.ProviderError
	calls int
	reqs  []*contract.ModelRequest
}

func (f *flaky) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		f.mu.Lock()
		n := f.calls
		f.calls++
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		if !yield(&contract.ModelStarted{}, nil) {
			return
		}
		if n < len(f.errs) {
			if !yield(&contract.TextDelta{Text: "half an answ"}, nil) {
				return
			}
			yield(nil, f.errs[n])
			return
		}
		if yield(&contract.TextDelta{Text: "ok"}, nil) {
			yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
		}
	}
}

// sleeps records the delays the policy waits, without waiting.
type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func policyKernel(t *testing.T, opts Options, p provider.Provider) (*Kernel, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	opts.Retry.Sleep = sl.sleep
	if opts.ProviderName == "" {
		opts.ProviderName = "primary"
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(p, log, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return k, sl
}

func pe(kind contract.ErrorKind, retryAfterMS int64) *contract.ProviderError {
	return &contract.ProviderError{Kind: kind, Retryable: kind.Retryable(), Message: string(kind) + " happened", RetryAfterMS: retryAfterMS}
}

func eventsOf[T contract.Event](envs []contract.Envelope) []T {
	var out []T
	for _, env := range envs {
		if e, ok := env.Data.(T); ok {
			out = append(out, e)
		}
	}
	return out
}

func TestRetriesThenSucceeds(t *testing.T) {
	f := &flaky{errs: []*contract.ProviderError{pe(contract.KindRateLimit, 7000), pe(contract.KindOverloaded, 0), pe(contract.KindServer, 0), pe(contract.KindStreamInterrupted, 0)}}
	k, sl := policyKernel(t, Options{Retry: RetryPolicy{Attempts: 5, BaseDelay: time.Second, MaxDelay: 4 * time.Second}}, f)
	out := collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	if st := k.State(); st.Status != state.Completed || st.Messages[len(st.Messages)-1].Text != "ok" {
		t.Fatalf("state %q, messages %+v", st.Status, st.Messages)
	}
	retries := eventsOf[*contract.RetryScheduled](out)
	if len(retries) != 4 || len(eventsOf[*contract.ModelDiscarded](out)) != 4 || len(eventsOf[*contract.ModelRequested](out)) != 5 {
		t.Fatalf("events: %v", types(out))
	}
	for i, r := range retries {
		if r.Attempt != i+2 || r.MaxAttempts != 5 || r.Kind != f.errs[i].Kind {
			t.Errorf("retry %d = %+v", i, r)
		}
	}
	// The 429's retry-after (7 s) wins over the 1 s backoff; the others
	// back off exponentially with jitter, capped at 4 s.
	if sl.got[0] != 7*time.Second {
		t.Errorf("first delay %v, want the server's 7s", sl.got[0])
	}
	for i, want := range []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second} {
		if d := sl.got[i+1]; d < want/2 || d > want {
			t.Errorf("delay %d = %v, want within [%v, %v]", i+1, d, want/2, want)
		}
	}
	// No half message reaches the next request.
	for _, req := range f.reqs {
		for _, m := range req.Messages {
			if strings.Contains(m.Text, "half") {
				t.Errorf("a request carries the partial output of a failed attempt: %+v", req.Messages)
			}
		}
	}
}

func TestStopsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		kind contract.ErrorKind
		want string
	}{
		{contract.KindAuth, "the key in OPENAI_API_KEY was refused"},
		{contract.KindQuota, "out of quota"},
		{contract.KindContextLength, "too long for this model"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			f := &flaky{errs: []*contract.ProviderError{pe(tc.kind, 0), pe(tc.kind, 0)}}
			fb := &flaky{}
			k, sl := policyKernel(t, Options{ProviderName: "openai", KeyHint: "OPENAI_API_KEY",
				Fallback: []Model{{Provider: fb, Name: "anthropic"}}}, f)
			collect(t, k.Send(t.Context(), Input{Text: "hi"}))
			st := k.State()
			if f.calls != 1 || fb.calls != 0 || len(sl.got) != 0 {
				t.Errorf("%d calls, %d fallback calls, %d waits; want one call and a stop", f.calls, fb.calls, len(sl.got))
			}
			if st.Outcome != contract.OutcomeFailed {
				t.Errorf("outcome %q", st.Outcome)
			}
			var reason string
			for env, err := range k.Events() {
				if err != nil {
					t.Fatal(err)
				}
				if rf, ok := env.Data.(*contract.RunFinished); ok {
					reason = rf.Reason
				}
			}
			if !strings.Contains(reason, tc.want) || strings.Contains(reason, "\n") {
				t.Errorf("reason %q, want one line with %q", reason, tc.want)
			}
		})
	}
}

func TestFallback(t *testing.T) {
	primary := &flaky{errs: []*contract.ProviderError{pe(contract.KindOverloaded, 0), pe(contract.KindOverloaded, 0)}}
	second := &flaky{}
	k, _ := policyKernel(t, Options{ProviderName: "anthropic", Model: "claude",
		Retry:    RetryPolicy{Attempts: 2},
		Fallback: []Model{{Provider: second, Name: "openai", Model: "gpt-4.1-mini"}}}, primary)
	out := collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	fbs := eventsOf[*contract.FallbackSelected](out)
	if len(fbs) != 1 || fbs[0].From != "anthropic:claude" || fbs[0].To != "openai:gpt-4.1-mini" || !strings.Contains(fbs[0].Reason, "overloaded after 2 attempt(s)") {
		t.Fatalf("fallback events %+v", fbs)
	}
	reqs := eventsOf[*contract.ModelRequested](out)
	if d := cmp.Diff([]string{"anthropic", "anthropic", "openai"}, []string{reqs[0].Provider, reqs[1].Provider, reqs[2].Provider}); d != "" {
		t.Errorf("providers asked (-want +got):\n%s", d)
	}
	if st := k.State(); st.Status != state.Completed || st.Provider != "openai" {
		t.Errorf("state %q on %q", st.Status, st.Provider)
	}
	// The switch lasts: the next run goes to the fallback directly.
	collect(t, k.Send(t.Context(), Input{Text: "again"}))
	if primary.calls != 2 || second.calls != 2 {
		t.Errorf("calls: primary %d, fallback %d; want 2 and 2", primary.calls, second.calls)
	}
}

func TestRetryAfterBeyondTheCapFallsBack(t *testing.T) {
	primary := &flaky{errs: []*contract.ProviderError{pe(contract.KindRateLimit, 3_600_000)}}
	second := &flaky{}
	k, sl := policyKernel(t, Options{Fallback: []Model{{Provider: second, Name: "second"}}}, primary)
	collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	if primary.calls != 1 || second.calls != 1 || len(sl.got) != 0 {
		t.Errorf("calls %d/%d, waits %v: an hour's retry-after should move on at once", primary.calls, second.calls, sl.got)
	}
}

func TestExhaustedRetriesFail(t *testing.T) {
	f := &flaky{errs: []*contract.ProviderError{pe(contract.KindServer, 0), pe(contract.KindServer, 0), pe(contract.KindServer, 0)}}
	k, sl := policyKernel(t, Options{Retry: RetryPolicy{Attempts: 3}}, f)
	out := collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	if st := k.State(); st.Outcome != contract.OutcomeFailed || f.calls != 3 || len(sl.got) != 2 {
		t.Errorf("outcome %q after %d calls and %d waits", st.Outcome, f.calls, len(sl.got))
	}
	if want := "server happened; gave up after 3 attempts"; !strings.HasSuffix(finished(t, out).Reason, want) {
		t.Errorf("reason %q, want it to end %q", finished(t, out).Reason, want)
	}
}

// What a model's Explain adds is said once, by the reason of the run that
// stops on its failure; a failure a fallback takes over from is not
// explained, nor a call that succeeds.
func TestExplainTheFailureThatStops(t *testing.T) {
	notFound := &contract.ProviderError{Kind: contract.KindBadRequest, HTTPStatus: 404, Message: `model "gpt-9" not found`}
	var asked []*contract.ProviderError
	explain := func(ctx context.Context, perr *contract.ProviderError) string {
		asked = append(asked, perr)
		return "the server offers qwen3:8b and llama3.2"
	}
	primary := &flaky{errs: []*contract.ProviderError{notFound, notFound}}
	k, sl := policyKernel(t, Options{Explain: explain}, primary)
	out := collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	want := `primary: bad_request: model "gpt-9" not found (http 404); the server offers qwen3:8b and llama3.2`
	if got := finished(t, out).Reason; got != want || primary.calls != 1 || len(sl.got) != 0 {
		t.Errorf("reason %q after %d calls and %d waits; want %q at once", got, primary.calls, len(sl.got), want)
	}
	if len(asked) != 1 || asked[0].Kind != contract.KindBadRequest || asked[0].HTTPStatus != 404 {
		t.Errorf("Explain asked about %+v, want the 404 once", asked)
	}

	asked = nil
	second := &flaky{errs: []*contract.ProviderError{notFound}}
	k, _ = policyKernel(t, Options{Explain: explain, Fallback: []Model{{Provider: second, Name: "second"}}}, &flaky{errs: []*contract.ProviderError{notFound}})
	out = collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	if got := finished(t, out).Reason; strings.Contains(got, "offers") || len(asked) != 0 {
		t.Errorf("the fallback's failure explained by the primary's Explain: %q", got)
	}
}

func TestCancelWhileWaitingToRetry(t *testing.T) {
	f := &flaky{errs: []*contract.ProviderError{pe(contract.KindServer, 0)}}
	ctx, cancel := context.WithCancel(t.Context())
	log := eventlog.New(memstore.New(), nil)
	defer log.Close()
	k, err := New(f, log, &Options{ProviderName: "p", Retry: RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return context.Canceled
	}}})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(ctx, Input{Text: "hi"}))
	if st := k.State(); st.Outcome != contract.OutcomeCancelled || f.calls != 1 {
		t.Errorf("outcome %q after %d calls", st.Outcome, f.calls)
	}
}

func TestContextWindowBoundsTheRequest(t *testing.T) {
	f := &flaky{}
	k, _ := policyKernel(t, Options{Capabilities: provider.Capabilities{ContextWindow: 5}}, f)
	out := collect(t, k.Send(t.Context(), Input{Text: strings.Repeat("a long message ", 20)}))
	f2 := finished(t, out)
	if f.calls != 0 || f2.Outcome != contract.OutcomeFailed || !strings.Contains(f2.Reason, "cannot fit") {
		t.Errorf("calls %d, run.finished %+v: a request over the window must not be sent, and the run says why", f.calls, f2)
	}
}

func TestParallelToolCallsOnlyWhereSupported(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := &flaky{}
		k, _ := policyKernel(t, Options{Capabilities: provider.Capabilities{Tools: true, ParallelTools: parallel}, Registry: mustRegistry(t, runTests(t), listDir())}, f)
		collect(t, k.Send(t.Context(), Input{Text: "hi"}))
		if f.reqs[0].ParallelToolCalls != parallel {
			t.Errorf("capability %v: request asked ParallelToolCalls=%v", parallel, f.reqs[0].ParallelToolCalls)
		}
	}
}
