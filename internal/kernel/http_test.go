package kernel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider/anthropic"
	"github.com/rein-agent/rein/internal/provider/openai"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/state"
)

// chatOK is a complete Chat Completions stream answering "fixed".
const chatOK = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"fixed\"},\"finish_reason\":null}]}\n\n" +
	"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: [DONE]\n\n"

// failing answers its first requests with the given failures, then chatOK.
type failing struct {
	mu       sync.Mutex
	failures []func(w http.ResponseWriter)
	calls    int
}

func (f *failing) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := f.calls
	f.calls++
	f.mu.Unlock()
	if n < len(f.failures) {
		f.failures[n](w)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Write([]byte(chatOK))
}

func status(code int, header, value, body string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		if header != "" {
			w.Header().Set(header, value)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		w.Write([]byte(body))
	}
}

// dropped starts a stream and cuts the connection in the middle of it.
func dropped(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(chatOK[:60]))
	w.(http.Flusher).Flush()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

func newKernel(t *testing.T, primary kernel.Model, fallback ...kernel.Model) (*kernel.Kernel, *[]time.Duration) {
	t.Helper()
	var waits []time.Duration
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := kernel.New(primary.Provider, log, &kernel.Options{
		ProviderName: primary.Name, Model: primary.Model, KeyHint: primary.KeyHint, Secret: primary.Secret, Fallback: fallback,
		Retry: kernel.RetryPolicy{Attempts: 5, Sleep: func(ctx context.Context, d time.Duration) error {
			waits = append(waits, d)
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k, &waits
}

func envelopes(t *testing.T, k *kernel.Kernel) []contract.Envelope {
	var out []contract.Envelope
	for env, err := range k.Events() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

func TestRetriesOverHTTP(t *testing.T) {
	srv := httptest.NewServer(&failing{failures: []func(http.ResponseWriter){
		status(429, "Retry-After", "2", `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`),
		status(529, "", "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		status(500, "", "", `{"error":{"message":"internal error"}}`),
		dropped,
	}})
	defer srv.Close()
	k, waits := newKernel(t, kernel.Model{Provider: openai.New(&openai.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test"}), Name: "openai", Model: "gpt-test"})
	for _, err := range k.Send(t.Context(), kernel.Input{Text: "fix the tests"}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := k.State()
	if st.Status != state.Completed || st.Messages[len(st.Messages)-1].Text != "fixed" {
		t.Fatalf("status %q, messages %+v", st.Status, st.Messages)
	}
	var kinds []contract.ErrorKind
	for _, env := range envelopes(t, k) {
		if e, ok := env.Data.(*contract.ProviderError); ok {
			kinds = append(kinds, e.Kind)
		}
	}
	want := []contract.ErrorKind{contract.KindRateLimit, contract.KindOverloaded, contract.KindServer, contract.KindStreamInterrupted}
	if len(kinds) != len(want) {
		t.Fatalf("errors %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Errorf("error %d is %s, want %s", i, kinds[i], want[i])
		}
	}
	if len(*waits) != 4 || (*waits)[0] < 2*time.Second {
		t.Errorf("waits %v: want 4, the first honouring retry-after 2s", *waits)
	}
}

func TestUnauthorizedIsNotRetried(t *testing.T) {
	f := &failing{failures: []func(http.ResponseWriter){
		status(401, "", "", `{"error":{"message":"Incorrect API key provided: sk-test-key. You can find your API key at https://platform.openai.com.","code":"invalid_api_key"}}`),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	k, waits := newKernel(t, kernel.Model{Provider: openai.New(&openai.Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test-key"}), Name: "openai", KeyHint: "OPENAI_API_KEY", Secret: "sk-test-key"})
	for range k.Send(t.Context(), kernel.Input{Text: "hi"}) {
	}
	// The server echoed the key; the log must not.
	for _, env := range envelopes(t, k) {
		if b, _ := env.MarshalJSON(); strings.Contains(string(b), "sk-test-key") {
			t.Errorf("the key reached the log: %s", b)
		}
	}
	if f.calls != 1 || len(*waits) != 0 {
		t.Errorf("%d calls, %d waits: a 401 must not be retried", f.calls, len(*waits))
	}
	evs := envelopes(t, k)
	fin, ok := evs[len(evs)-1].Data.(*contract.RunFinished)
	if !ok || fin.Outcome != contract.OutcomeFailed || !strings.Contains(fin.Reason, "OPENAI_API_KEY") || strings.Contains(fin.Reason, "\n") {
		t.Errorf("run.finished %+v: want failed, one line naming OPENAI_API_KEY", evs[len(evs)-1].Data)
	}
}

func TestFallbackOverHTTP(t *testing.T) {
	down := &failing{failures: []func(http.ResponseWriter){
		status(529, "", "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		status(529, "", "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		status(529, "", "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		status(529, "", "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		status(529, "", "", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
	}}
	primarySrv := httptest.NewServer(down)
	defer primarySrv.Close()
	okSrv := httptest.NewServer(&failing{})
	defer okSrv.Close()
	k, _ := newKernel(t,
		kernel.Model{Provider: anthropic.New(&anthropic.Options{BaseURL: primarySrv.URL, APIKey: "k"}), Name: "anthropic", Model: "claude-test"},
		kernel.Model{Provider: openai.New(&openai.Options{BaseURL: okSrv.URL + "/v1", APIKey: "k"}), Name: "openai", Model: "gpt-4.1-mini"})
	for range k.Send(t.Context(), kernel.Input{Text: "hi"}) {
	}
	var fb *contract.FallbackSelected
	for _, env := range envelopes(t, k) {
		if e, ok := env.Data.(*contract.FallbackSelected); ok {
			fb = e
		}
	}
	if fb == nil || fb.From != "anthropic:claude-test" || fb.To != "openai:gpt-4.1-mini" || !strings.Contains(fb.Reason, "overloaded") {
		t.Fatalf("fallback %+v", fb)
	}
	if st := k.State(); st.Status != state.Completed || st.Provider != "openai" || down.calls != 5 {
		t.Errorf("status %q on %q after %d calls to the primary", st.Status, st.Provider, down.calls)
	}
}

// TestRefusedIsRetriedThenFailsNetwork points the real adapter at a closed
// port on 127.0.0.1: the connection that cannot be made is network,
// retried within the policy's attempts like any retryable kind, and the run
// fails with the message that names the configured endpoint.
func TestRefusedIsRetriedThenFailsNetwork(t *testing.T) {
	base := "http://127.0.0.1:" + providertest.ClosedPort(t) + "/v1"
	k, waits := newKernel(t, kernel.Model{Provider: openai.New(&openai.Options{BaseURL: base}), Name: "openai", Model: "gpt-test"})
	for range k.Send(t.Context(), kernel.Input{Text: "fix the tests"}) {
	}
	want := "could not connect to " + base + " (connection refused): is the server running?"
	var errs, retries int
	var fin *contract.RunFinished
	for _, env := range envelopes(t, k) {
		switch e := env.Data.(type) {
		case *contract.ProviderError:
			errs++
			if e.Kind != contract.KindNetwork || !e.Retryable || e.Message != want {
				t.Errorf("provider.error %+v, want a retryable network error: %s", e, want)
			}
		case *contract.RetryScheduled:
			retries++
			if e.Kind != contract.KindNetwork {
				t.Errorf("retry scheduled for %s, want network", e.Kind)
			}
		case *contract.RunFinished:
			fin = e
		}
	}
	if errs != 5 || retries != 4 || len(*waits) != 4 {
		t.Errorf("%d errors, %d retries, %d waits; want 5 attempts, 4 retries (the policy's cap)", errs, retries, len(*waits))
	}
	if fin == nil || fin.Outcome != contract.OutcomeFailed || !strings.Contains(fin.Reason, want) {
		t.Errorf("run.finished %+v, want failed, naming the endpoint", fin)
	}
}
