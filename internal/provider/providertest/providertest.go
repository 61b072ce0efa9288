// Package providertest is the conformance suite every provider adapter
// runs: the stream contract of package provider, checked against an
// httptest server that replays a vendor's response body.
package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// Suite describes an adapter to the conformance tests.
type Suite struct {
	// New returns the adapter under test, configured with baseURL as its
	// base URL (the test server's URL, without a trailing slash, or a
	// closed port's). Whatever path the adapter appends, the server answers
	// with the body under test.
	New func(baseURL string) provider.Provider
	// ContentType is the content type of the bodies; empty means
	// text/event-stream.
	ContentType string
	// Text is a complete response body with text only.
	Text string
	// ToolCalls is a complete response body with at least two tool calls,
	// one of them streamed in several fragments.
	ToolCalls string
	// Terminal is the text that starts the terminal frame in Text and
	// ToolCalls (such as "data: [DONE]" or "event: message_stop"): a body
	// cut anywhere before it must end in stream_interrupted.
	Terminal string
}

// Run runs the conformance suite.
func Run(t *testing.T, s Suite) {
	t.Helper()
	if s.ContentType == "" {
		s.ContentType = "text/event-stream"
	}
	t.Run("order", func(t *testing.T) { s.order(t) })
	t.Run("truncated", func(t *testing.T) { s.truncated(t) })
	t.Run("chunk-split invariance", func(t *testing.T) { s.splits(t) })
	t.Run("early break closes the body", func(t *testing.T) { s.earlyBreak(t) })
	t.Run("http errors", func(t *testing.T) { s.httpErrors(t) })
	t.Run("cancelled", func(t *testing.T) { s.cancelled(t) })
	t.Run("request-scoped", func(t *testing.T) { s.requestScoped(t) })
	t.Run("garbage", func(t *testing.T) { s.garbage(t) })
	t.Run("refused", func(t *testing.T) { s.refused(t) })
}

// Result is what one Stream yielded.
type Result struct {
	Events []contract.ModelEvent
	Err    *contract.ProviderError
}

// Collect runs p.Stream to the end and checks the error is the last pair
// and a *contract.ProviderError.
func Collect(t *testing.T, ctx context.Context, p provider.Provider, req *contract.ModelRequest) Result {
	t.Helper()
	var r Result
	for ev, err := range p.Stream(ctx, req) {
		if r.Err != nil {
			t.Fatalf("the stream yielded after its error: %v, %v", ev, err)
		}
		if err != nil {
			pe, ok := errors.AsType[*contract.ProviderError](err)
			if !ok {
				t.Fatalf("the stream's error is a %T, not a *contract.ProviderError: %v", err, err)
			}
			if ev != nil {
				t.Errorf("the error came with an event %T", ev)
			}
			r.Err = pe
			continue
		}
		if ev == nil {
			t.Fatal("the stream yielded a nil event without an error")
		}
		r.Events = append(r.Events, ev)
	}
	return r
}

// JSON renders events as JSON lines with their types, for comparisons and
// failure messages.
func JSON(events []contract.ModelEvent) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		b, _ := json.Marshal(ev) // contract events always marshal
		out[i] = ev.EventType() + " " + string(b)
	}
	return out
}

// Serve starts a server that answers every request with status, headers and
// body written in the given pieces, flushed one by one.
func Serve(t *testing.T, status int, header http.Header, pieces ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		for _, p := range pieces {
			w.Write([]byte(p)) // the client going away is not the test's failure
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (s *Suite) header() http.Header {
	return http.Header{"Content-Type": {s.ContentType}, "X-Request-Id": {"req_conformance"}}
}

func request() *contract.ModelRequest {
	return &contract.ModelRequest{
		Model:    "conformance-model",
		System:   "You are a test.",
		Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}},
		Tools: []contract.ToolSpec{{Name: "bash", Description: "run", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)},
			{Name: "list_dir", Description: "list", InputSchema: json.RawMessage(`{"type":"object"}`)}},
	}
}

func (s *Suite) run(t *testing.T, pieces ...string) Result {
	t.Helper()
	srv := Serve(t, http.StatusOK, s.header(), pieces...)
	return Collect(t, t.Context(), s.New(srv.URL), request())
}

func (s *Suite) order(t *testing.T) {
	for name, body := range map[string]string{"text": s.Text, "tool calls": s.ToolCalls} {
		t.Run(name, func(t *testing.T) {
			r := s.run(t, body)
			if r.Err != nil {
				t.Fatalf("complete body ended with %v", r.Err)
			}
			ev := r.Events
			if len(ev) < 2 {
				t.Fatalf("only %d events", len(ev))
			}
			if _, ok := ev[0].(*contract.ModelStarted); !ok {
				t.Errorf("first event is %s, want model.started", ev[0].EventType())
			}
			if _, ok := ev[len(ev)-1].(*contract.ModelFinished); !ok {
				t.Errorf("last event is %s, want model.finished", ev[len(ev)-1].EventType())
			}
			proposed := 0
			usageAt := -1
			for i, e := range ev {
				if usageAt >= 0 {
					if _, ok := e.(*contract.ModelFinished); !ok {
						t.Errorf("%s after model.usage: usage comes once, last before model.finished", e.EventType())
					}
				}
				switch e := e.(type) {
				case *contract.ModelUsage:
					usageAt = i
				case *contract.ModelFinished:
					if i != len(ev)-1 {
						t.Errorf("model.finished at %d of %d", i, len(ev))
					}
				case *contract.IntentProposed:
					proposed++
					var obj map[string]any
					if err := json.Unmarshal(e.Input, &obj); err != nil {
						t.Errorf("proposed intent %s has input %s: not a JSON object", e.ToolName, e.Input)
					}
					if e.ID != "" {
						t.Errorf("the adapter set the intent id %q; the kernel assigns them", e.ID)
					}
					if !deltaBefore(ev[:i], e) {
						t.Errorf("intent %s (%s) proposed without a tool_intent.delta before it", e.ToolName, e.ProviderCallID)
					}
				}
			}
			if name == "tool calls" && proposed < 2 {
				t.Errorf("%d intents proposed, want at least 2:\n%s", proposed, strings.Join(JSON(ev), "\n"))
			}
		})
	}
}

func deltaBefore(events []contract.ModelEvent, p *contract.IntentProposed) bool {
	for _, e := range events {
		d, ok := e.(*contract.IntentDelta)
		if !ok {
			continue
		}
		if p.ProviderCallID != "" && d.ProviderCallID == p.ProviderCallID {
			return true
		}
		if p.ProviderCallID == "" && d.ToolName == p.ToolName {
			return true
		}
	}
	return false
}

func (s *Suite) truncated(t *testing.T) {
	for name, body := range map[string]string{"text": s.Text, "tool calls": s.ToolCalls} {
		end := strings.Index(body, s.Terminal)
		if end < 0 {
			t.Fatalf("%s body has no terminal %q", name, s.Terminal)
		}
		complete := s.run(t, body)
		r := rand.New(rand.NewPCG(uint64(len(body)), 3))
		cuts := []int{0, 1, end - 1, end}
		for range 30 {
			cuts = append(cuts, r.IntN(end+1))
		}
		for _, cut := range cuts {
			cut = max(0, min(cut, end))
			res := s.run(t, body[:cut])
			if res.Err == nil || res.Err.Kind != contract.KindStreamInterrupted || !res.Err.Retryable {
				t.Errorf("%s cut at %d of %d: error %v, want retryable stream_interrupted", name, cut, len(body), res.Err)
				continue
			}
			// Every intent proposed before the cut was proposed by the
			// complete stream too, with the same input: nothing partial.
			for _, e := range res.Events {
				if p, ok := e.(*contract.IntentProposed); ok && !proposedIn(complete.Events, p) {
					t.Errorf("%s cut at %d proposed %s %s, which the complete stream does not", name, cut, p.ToolName, p.Input)
				}
				if _, ok := e.(*contract.ModelFinished); ok {
					t.Errorf("%s cut at %d yielded model.finished", name, cut)
				}
			}
		}
	}
}

func proposedIn(events []contract.ModelEvent, p *contract.IntentProposed) bool {
	for _, e := range events {
		if q, ok := e.(*contract.IntentProposed); ok && q.ToolName == p.ToolName && string(q.Input) == string(p.Input) {
			return true
		}
	}
	return false
}

func (s *Suite) splits(t *testing.T) {
	for name, body := range map[string]string{"text": s.Text, "tool calls": s.ToolCalls} {
		want := JSON(s.run(t, body).Events)
		for seed := range uint64(8) {
			r := rand.New(rand.NewPCG(seed, 11))
			var pieces []string
			for rest := body; rest != ""; {
				n := min(len(rest), 1+r.IntN(24))
				pieces = append(pieces, rest[:n])
				rest = rest[n:]
			}
			got := s.run(t, pieces...)
			if got.Err != nil {
				t.Fatalf("%s split %d: %v", name, seed, got.Err)
			}
			if d := cmp.Diff(want, JSON(got.Events)); d != "" {
				t.Errorf("%s split %d changed the events (-whole +split):\n%s", name, seed, d)
			}
		}
	}
}

func (s *Suite) earlyBreak(t *testing.T) {
	closed := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range s.header() {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		// Everything but the terminal frame, then wait for the client.
		w.Write([]byte(s.ToolCalls[:strings.Index(s.ToolCalls, s.Terminal)]))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(closed)
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	for range s.New(srv.URL).Stream(t.Context(), request()) {
		break
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("breaking out of the stream did not close the connection")
	}
}

func (s *Suite) httpErrors(t *testing.T) {
	for _, tc := range []struct {
		status     int
		header     http.Header
		body       string
		kind       contract.ErrorKind
		retryAfter int64
	}{
		{401, nil, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, contract.KindAuth, 0},
		{429, http.Header{"Retry-After": {"2"}}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, contract.KindRateLimit, 2000},
		{500, nil, `{"error":{"message":"internal"}}`, contract.KindServer, 0},
		{503, nil, `upstream unavailable`, contract.KindOverloaded, 0},
		{529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, contract.KindOverloaded, 0},
		{400, nil, `{"error":"model 'x' not found"}`, contract.KindBadRequest, 0},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_err"}}
			for k, v := range tc.header {
				h[k] = v
			}
			srv := Serve(t, tc.status, h, tc.body)
			r := Collect(t, t.Context(), s.New(srv.URL), request())
			if r.Err == nil {
				t.Fatalf("HTTP %d gave no error; events %v", tc.status, JSON(r.Events))
			}
			e := r.Err
			if e.Kind != tc.kind || e.HTTPStatus != tc.status || e.Retryable != tc.kind.Retryable() || e.RetryAfterMS != tc.retryAfter || e.RequestID != "req_err" || e.Message == "" {
				t.Errorf("HTTP %d: %+v; want kind %s, status, retryable %v, retry-after %d ms, request id and a message", tc.status, e, tc.kind, tc.kind.Retryable(), tc.retryAfter)
			}
		})
	}
}

func (s *Suite) cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", s.ContentType)
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(s.Text[:strings.Index(s.Text, s.Terminal)/2]))
		w.(http.Flusher).Flush()
		cancel()
		<-r.Context().Done()
	}))
	defer srv.Close()
	r := Collect(t, ctx, s.New(srv.URL), request())
	if r.Err == nil || r.Err.Kind != contract.KindAborted {
		t.Errorf("cancelled stream ended with %v, want aborted", r.Err)
	}
}

func (s *Suite) requestScoped(t *testing.T) {
	srv := Serve(t, http.StatusOK, s.header(), s.ToolCalls)
	p := s.New(srv.URL)
	want := JSON(Collect(t, t.Context(), p, request()).Events)
	var wg sync.WaitGroup
	results := make([][]string, 4)
	for i := range results {
		wg.Go(func() { results[i] = JSON(Collect(t, t.Context(), p, request()).Events) })
	}
	wg.Wait()
	for i, got := range results {
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("concurrent stream %d differs from a lone one (-lone +concurrent):\n%s", i, d)
		}
	}
}

func (s *Suite) garbage(t *testing.T) {
	for _, body := range []string{"data: this is not json\n\n", "event: message_start\ndata: {\"type\":\n\n"} {
		r := s.run(t, body)
		if r.Err == nil {
			t.Errorf("body %q: no error; events %v", body, JSON(r.Events))
			continue
		}
		if k := r.Err.Kind; (k != contract.KindBadRequest && k != contract.KindUnknown) || r.Err.Retryable {
			t.Errorf("body %q: %v; want a bad_request or unknown error, not retryable: bad data does not get better", body, r.Err)
		}
	}
}

// ClosedPort returns a port on 127.0.0.1 where nothing listens: it listens
// on a free port, takes its number and closes the listener.
func ClosedPort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, err := net.SplitHostPort(l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// refused streams to a closed port on 127.0.0.1: no event, and an error of
// kind network, retryable, whose message names the endpoint as configured
// (the path the adapter appends aside) without its credentials, the short
// cause and a hint.
func (s *Suite) refused(t *testing.T) {
	port := ClosedPort(t)
	base := "http://127.0.0.1:" + port + "/v1"
	for _, configured := range []string{base, "http://rein:hunter2@127.0.0.1:" + port + "/v1?key=sk-secret#top"} {
		r := Collect(t, t.Context(), s.New(configured), request())
		if len(r.Events) != 0 || r.Err == nil {
			t.Fatalf("%s: events %v, error %v; want only an error", configured, JSON(r.Events), r.Err)
		}
		e := r.Err
		want := "could not connect to " + base + " (connection refused): is the server running?"
		if e.Kind != contract.KindNetwork || !e.Retryable || e.Message != want {
			t.Errorf("%s: %+v; want a retryable network error: %s", configured, e, want)
		}
		for _, secret := range []string{"hunter2", "sk-secret", "rein:", "top"} {
			if strings.Contains(e.Message, secret) {
				t.Errorf("%s: the message %q shows %q", configured, e.Message, secret)
			}
		}
	}
}

// Func adapts a function to provider.Provider, in the manner of
// http.HandlerFunc: a test's provider in a few lines. The function must
// keep the stream contract of provider.Provider.
type Func func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error]

// Stream calls f(ctx, req).
func (f Func) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return f(ctx, req)
}
