package responses

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// newAdapter returns an adapter that sends its requests to baseURL (a test
// server's URL), as the CLI would build it for a local server.
func newAdapter(baseURL string) *Adapter {
	return New(&Options{BaseURL: baseURL + "/v1/", APIKey: "sk-test", Model: "gpt-5"})
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func testRequest() *contract.ModelRequest {
	return &contract.ModelRequest{
		System:   "You are rein.",
		Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "why do the tests fail?"}},
		Tools: []contract.ToolSpec{
			{Name: "bash", Description: "run a command", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
		},
	}
}

// serve streams body through the real adapter and returns what it yielded.
func serve(t *testing.T, status int, contentType string, body string) providertest.Result {
	t.Helper()
	h := http.Header{"Content-Type": {contentType}, "X-Request-Id": {"req_fixture"}}
	srv := providertest.Serve(t, status, h, body)
	return providertest.Collect(t, t.Context(), newAdapter(srv.URL), testRequest())
}

// render is the golden form of a result: one event per line, then the
// error.
func render(r providertest.Result) string {
	var b strings.Builder
	for _, line := range providertest.JSON(r.Events) {
		b.WriteString(line + "\n")
	}
	if r.Err != nil {
		line := providertest.JSON([]contract.ModelEvent{r.Err})[0]
		b.WriteString("error " + line + "\n")
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

// intent is the part of a proposed intent the fixture tests check.
type intent struct {
	CallID, Tool, Input string
}

func intents(events []contract.ModelEvent) []intent {
	var out []intent
	for _, e := range events {
		if p, ok := e.(*contract.IntentProposed); ok {
			out = append(out, intent{p.ProviderCallID, p.ToolName, string(p.Input)})
		}
	}
	return out
}

func finish(events []contract.ModelEvent) *contract.ModelFinished {
	if len(events) == 0 {
		return nil
	}
	f, _ := events[len(events)-1].(*contract.ModelFinished)
	return f
}

func usageOf(events []contract.ModelEvent) *contract.ModelUsage {
	for _, e := range events {
		if u, ok := e.(*contract.ModelUsage); ok {
			return u
		}
	}
	return nil
}

func text(events []contract.ModelEvent, reasoning bool) string {
	var b strings.Builder
	for _, e := range events {
		switch e := e.(type) {
		case *contract.TextDelta:
			if !reasoning {
				b.WriteString(e.Text)
			}
		case *contract.ReasoningDelta:
			if reasoning {
				b.WriteString(e.Text)
			}
		}
	}
	return b.String()
}

// TestFixtures serves every recorded body through the real adapter. Each
// case checks what matters about it; the golden file holds every event.
func TestFixtures(t *testing.T) {
	type want struct {
		finish    contract.FinishReason // "" when the stream ends in an error
		kind      contract.ErrorKind
		retryable bool
		retryMS   int64
		text      string
		reasoning string
		intents   []intent
		usage     *contract.ModelUsage
		state     string
	}
	for _, tc := range []struct {
		name        string
		file        string
		contentType string
		want        want
	}{
		{"text only", "text.sse", "", want{finish: contract.FinishStop, text: "Hello, I am rein's model.",
			usage: &contract.ModelUsage{InputTokens: 21, OutputTokens: 9}}},
		{"one call over many fragments", "tool_fragments.sse", "", want{finish: contract.FinishToolUse,
			intents: []intent{{"call_Ab12", "bash", `{"command":"npm test"}`}},
			usage:   &contract.ModelUsage{InputTokens: 120, OutputTokens: 22}}},
		{"parallel calls", "parallel.sse", "", want{finish: contract.FinishToolUse, text: "Reading both.",
			intents: []intent{{"call_read", "read_file", `{"path":"src/sum.ts"}`}, {"call_list", "list_dir", `{"path":"tests"}`}},
			usage:   &contract.ModelUsage{InputTokens: 300, OutputTokens: 40, CacheReadTokens: 128}}},
		{"no argument deltas", "no_deltas.sse", "", want{finish: contract.FinishToolUse,
			intents: []intent{{"call_glob", "glob", `{"pattern":"**/*.go"}`}, {"call_grep", "grep", `{"pattern":"TODO"}`}},
			usage:   &contract.ModelUsage{InputTokens: 50, OutputTokens: 12}}},
		{"no-arg tools", "noarg.sse", "", want{finish: contract.FinishToolUse,
			intents: []intent{{"call_pwd", "pwd", `{}`}, {"call_ls", "list_dir", `{}`}},
			usage:   &contract.ModelUsage{InputTokens: 40, OutputTokens: 8}}},
		{"reasoning summary with encrypted content", "reasoning.sse", "", want{finish: contract.FinishStop,
			text:      "I will run the tests.",
			reasoning: "**Checking tests**\n\nI should run the tests first.\n\n**Plan**\n\nThen fix.",
			usage:     &contract.ModelUsage{InputTokens: 1000, OutputTokens: 300, CacheReadTokens: 512, ReasoningTokens: 256},
			state:     `{"provider":"responses","reasoning":[{"type":"reasoning","summary":[{"type":"summary_text","text":"**Checking tests**\n\nI should run the tests first."},{"type":"summary_text","text":"**Plan**\n\nThen fix."}],"encrypted_content":"gAAAAABo_enc1=="}]}`}},
		{"reasoning text", "reasoning_text.sse", "", want{finish: contract.FinishStop, text: "Hi!", reasoning: "The user wants a greeting.",
			usage: &contract.ModelUsage{InputTokens: 30, OutputTokens: 20, ReasoningTokens: 12}}},
		{"usage on response.incomplete", "incomplete.sse", "", want{finish: contract.FinishLength, text: "The answer is a long story that",
			usage: &contract.ModelUsage{InputTokens: 80, OutputTokens: 16}}},
		{"content filter without usage", "content_filter.sse", "", want{finish: contract.FinishContentFilter, text: "I can"}},
		{"usage null", "no_usage.sse", "", want{finish: contract.FinishStop, text: "ok"}},
		{"context length in response.failed", "failed_context.sse", "", want{kind: contract.KindContextLength}},
		{"server error in response.failed", "failed_server.sse", "", want{kind: contract.KindServer, retryable: true, text: "Let me",
			usage: &contract.ModelUsage{InputTokens: 10, OutputTokens: 2}}},
		{"error event", "error_event.sse", "", want{kind: contract.KindRateLimit, retryable: true, retryMS: 2400}},
		{"nested error event", "error_nested.sse", "", want{kind: contract.KindQuota}},
		{"error body after the events", "error_stray.sse", "", want{kind: contract.KindOverloaded, retryable: true, text: "Hel"}},
		{"untyped error data", "error_untyped.sse", "", want{kind: contract.KindUnknown}},
		{"truncated inside a call", "truncated.sse", "", want{kind: contract.KindStreamInterrupted, retryable: true,
			intents: []intent{{"call_ok", "read_file", `{"path":"a.go"}`}}}},
		{"non-JSON data line", "nonjson.sse", "", want{kind: contract.KindUnknown}},
		{"vendor-run tools ignored", "vendor_tools.sse", "", want{finish: contract.FinishToolUse,
			intents: []intent{{"call_real", "read_file", `{"path":"go.mod"}`}},
			usage:   &contract.ModelUsage{InputTokens: 500, OutputTokens: 60}}},
		{"tool_search_call with object arguments", "tool_search.sse", "", want{finish: contract.FinishStop, text: "The bash tool can run the tests.",
			usage: &contract.ModelUsage{InputTokens: 412, OutputTokens: 31}}},
		{"built-in and unknown items of any shape", "odd_items.sse", "", want{finish: contract.FinishStop, text: "Here is a gopher.",
			usage: &contract.ModelUsage{InputTokens: 90, OutputTokens: 1200}}},
		{"unknown fields and frames", "unknown.sse", "", want{finish: contract.FinishStop, text: "Unknown",
			usage: &contract.ModelUsage{InputTokens: 5, OutputTokens: 2}}},
		{"output only in response.completed", "only_completed.sse", "", want{finish: contract.FinishToolUse, text: "Done.", reasoning: "Short.",
			intents: []intent{{"call_9", "glob", `{"pattern":"*.md"}`}},
			usage:   &contract.ModelUsage{InputTokens: 10, OutputTokens: 5},
			state:   `{"provider":"responses","reasoning":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Short."}],"encrypted_content":"enc9"}]}`}},
		{"whole application/json response", "whole.json", "application/json", want{finish: contract.FinishToolUse,
			text: "Running them.", reasoning: "Look at the tests.",
			intents: []intent{{"call_w1", "bash", `{"command":"go test ./..."}`}, {"call_w2", "list_dir", `{}`}},
			usage:   &contract.ModelUsage{InputTokens: 200, OutputTokens: 50, CacheReadTokens: 100, ReasoningTokens: 20},
			state:   `{"provider":"responses","reasoning":[{"type":"reasoning","summary":[{"type":"summary_text","text":"Look at the tests."}],"encrypted_content":"encW=="}]}`}},
		{"events labelled application/json", "text.sse", "application/json", want{finish: contract.FinishStop, text: "Hello, I am rein's model.",
			usage: &contract.ModelUsage{InputTokens: 21, OutputTokens: 9}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.contentType
			if ct == "" {
				ct = "text/event-stream; charset=utf-8"
			}
			r := serve(t, http.StatusOK, ct, fixture(t, tc.file))
			if tc.contentType == "" || strings.HasSuffix(tc.file, ".json") {
				golden(t, strings.TrimSuffix(strings.TrimSuffix(tc.file, ".sse"), ".json")+".events", render(r))
			}

			if s, ok := r.Events[0].(*contract.ModelStarted); !ok || *s != (contract.ModelStarted{Provider: "responses", Model: "gpt-5", RequestID: "req_fixture"}) {
				t.Errorf("first event %s, want model.started with the request id", providertest.JSON(r.Events[:1]))
			}
			w := tc.want
			switch {
			case w.finish != "":
				if r.Err != nil {
					t.Fatalf("error %v, want finish %s", r.Err, w.finish)
				}
				f := finish(r.Events)
				if f == nil {
					t.Fatalf("last event is not model.finished:\n%s", render(r))
				}
				if f.Reason != w.finish {
					t.Errorf("finish reason %s, want %s", f.Reason, w.finish)
				}
				if string(f.ProviderState) != w.state {
					t.Errorf("provider state\n%s\nwant\n%s", f.ProviderState, w.state)
				}
			default:
				if r.Err == nil {
					t.Fatalf("no error, want %s:\n%s", w.kind, render(r))
				}
				if r.Err.Kind != w.kind || r.Err.Retryable != w.retryable || r.Err.RetryAfterMS != w.retryMS || r.Err.Message == "" {
					t.Errorf("error %+v, want kind %s, retryable %v, retry after %d ms and a message", r.Err, w.kind, w.retryable, w.retryMS)
				}
				if r.Err.RequestID != "req_fixture" || r.Err.Provider != "responses" || r.Err.Model != "gpt-5" {
					t.Errorf("error %+v does not name the provider, model and request", r.Err)
				}
				if finish(r.Events) != nil {
					t.Error("a stream that ends in an error yielded model.finished")
				}
			}
			if got := text(r.Events, false); got != w.text {
				t.Errorf("text %q, want %q", got, w.text)
			}
			if got := text(r.Events, true); got != w.reasoning {
				t.Errorf("reasoning %q, want %q", got, w.reasoning)
			}
			if d := cmp.Diff(w.intents, intents(r.Events)); d != "" {
				t.Errorf("intents mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(w.usage, usageOf(r.Events)); d != "" {
				t.Errorf("usage mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestHTTPErrors maps the error bodies OpenAI and compatible servers send
// with a failing status.
func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		header  http.Header
		body    string
		kind    contract.ErrorKind
		retryMS int64
		message string
	}{
		{"bad key", 401, nil, `{"error":{"message":"Incorrect API key provided: sk-test.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			contract.KindAuth, 0, "Incorrect API key provided: sk-test."},
		{"quota", 429, nil, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			contract.KindQuota, 0, "You exceeded your current quota, please check your plan and billing details."},
		{"rate limit with a hint in the body", 429, nil, `{"error":{"message":"Rate limit reached for gpt-5 on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 11.054s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			contract.KindRateLimit, 11054, ""},
		{"rate limit with retry-after-ms", 429, http.Header{"Retry-After-Ms": {"750"}}, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			contract.KindRateLimit, 750, "Rate limit reached"},
		{"context length", 400, nil, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			contract.KindContextLength, 0, ""},
		{"encrypted reasoning not supported", 400, nil, `{"error":{"message":"Encrypted content is not supported with this model.","type":"invalid_request_error","param":"include","code":null}}`,
			contract.KindUnsupportedFeature, 0, "Encrypted content is not supported with this model."},
		{"unsupported parameter", 400, nil, `{"error":{"message":"Unsupported parameter: 'parallel_tool_calls' is not supported with this model.","type":"invalid_request_error","param":"parallel_tool_calls","code":"unsupported_parameter"}}`,
			contract.KindUnsupportedFeature, 0, ""},
		{"unknown model", 404, nil, `{"error":{"message":"The model 'gpt-9' does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			contract.KindBadRequest, 0, ""},
		{"server error", 500, nil, `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`,
			contract.KindServer, 0, ""},
		{"overloaded", 503, http.Header{"Retry-After": {"3"}}, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","code":"server_is_overloaded"}}`,
			contract.KindOverloaded, 3000, ""},
		{"plain text", 502, nil, "<html>502 Bad Gateway</html>", contract.KindServer, 0, "<html>502 Bad Gateway</html>"},
		{"ollama string error", 400, nil, `{"error":"model \"llama9\" not found, try pulling it first"}`, contract.KindBadRequest, 0, `model "llama9" not found, try pulling it first`},
		{"vllm object error", 400, nil, `{"object":"error","message":"This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.","type":"BadRequestError","param":null,"code":400}`,
			contract.KindContextLength, 0, ""},
		{"empty body", 403, nil, ``, contract.KindPermission, 0, "Forbidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_http"}}
			for k, v := range tc.header {
				h[k] = v
			}
			srv := providertest.Serve(t, tc.status, h, tc.body)
			r := providertest.Collect(t, t.Context(), newAdapter(srv.URL), testRequest())
			if len(r.Events) != 0 {
				t.Errorf("events before the HTTP error: %s", providertest.JSON(r.Events))
			}
			e := r.Err
			if e == nil {
				t.Fatal("no error")
			}
			if e.Kind != tc.kind || e.Retryable != tc.kind.Retryable() || e.HTTPStatus != tc.status ||
				e.RequestID != "req_http" || e.RetryAfterMS != tc.retryMS || e.Provider != "responses" || e.Model != "gpt-5" {
				t.Errorf("error %+v; want kind %s, status %d, retry after %d ms, the request id, provider and model", e, tc.kind, tc.status, tc.retryMS)
			}
			if tc.message != "" && e.Message != tc.message {
				t.Errorf("message %q, want %q", e.Message, tc.message)
			}
			if e.Message == "" {
				t.Error("no message")
			}
		})
	}
}

// TestTransportErrors: a connection that drops mid-stream (a server that
// cannot be reached is the conformance suite's "refused").
func TestTransportErrors(t *testing.T) {
	t.Run("dropped", func(t *testing.T) {
		body := fixture(t, "text.sse")
		srv := newHijackServer(t, body[:len(body)/2])
		r := providertest.Collect(t, t.Context(), newAdapter(srv), testRequest())
		if r.Err == nil || r.Err.Kind != contract.KindStreamInterrupted || !r.Err.Retryable {
			t.Errorf("got %v; want stream_interrupted", r.Err)
		}
	})
}

// TestRequestOnTheWire checks what the adapter sends: the path, the
// headers (the key only when set, nothing else vendor-specific), and the
// body BuildRequest makes.
func TestRequestOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		path    string
		auth    string
		model   string
		extraOK bool
	}{
		{"openai", Options{APIKey: "sk-test"}, "/v1/responses", "Bearer sk-test", DefaultModel, false},
		{"local server without key", Options{Model: "qwen3-coder:30b"}, "/v1/responses", "", "qwen3-coder:30b", false},
		{"extra headers", Options{APIKey: "k", Header: http.Header{"X-Trace": {"t1"}, "Accept": {"text/event-stream, application/json"}}}, "/v1/responses", "Bearer k", DefaultModel, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *http.Request
			var body []byte
			srv := newCaptureServer(t, fixture(t, "text.sse"), func(r *http.Request, b []byte) { got, body = r, b })
			opts := tc.opts
			opts.BaseURL = srv + "/v1/"
			res := providertest.Collect(t, t.Context(), New(&opts), testRequest())
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got.Method != http.MethodPost || got.URL.Path != tc.path {
				t.Errorf("%s %s, want POST %s", got.Method, got.URL.Path, tc.path)
			}
			if a := got.Header.Get("Authorization"); a != tc.auth {
				t.Errorf("Authorization %q, want %q", a, tc.auth)
			}
			for _, h := range []string{"Openai-Organization", "Openai-Project", "X-Api-Key", "Api-Key"} {
				if v := got.Header.Get(h); v != "" {
					t.Errorf("sent %s: %q", h, v)
				}
			}
			if ct := got.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tc.extraOK {
				if got.Header.Get("X-Trace") != "t1" || got.Header.Get("Accept") != "text/event-stream, application/json" {
					t.Errorf("extra headers not sent as given: %v", got.Header)
				}
			}
			want, err := BuildRequest(testRequest(), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, want) {
				t.Errorf("body\n%s\nwant\n%s", body, want)
			}
		})
	}
}

// TestNormalizeDirect runs the normalizer over a body without any
// network, as `rein debug normalize` does, and checks it agrees with the
// adapter.
func TestNormalizeDirect(t *testing.T) {
	ref := contract.ProviderRef{Name: "responses", Model: "gpt-5", RequestID: "req_fixture"}
	for _, name := range []string{"parallel.sse", "reasoning.sse", "truncated.sse", "whole.json"} {
		t.Run(name, func(t *testing.T) {
			var r providertest.Result
			for ev, err := range Normalize(t.Context(), strings.NewReader(fixture(t, name)), ref) {
				if err != nil {
					r.Err, _ = errors.AsType[*contract.ProviderError](err)
					continue
				}
				r.Events = append(r.Events, ev)
			}
			ct := "text/event-stream"
			if strings.HasSuffix(name, ".json") {
				ct = "application/json"
			}
			want := serve(t, http.StatusOK, ct, fixture(t, name))
			if d := cmp.Diff(render(want), render(r)); d != "" {
				t.Errorf("Normalize and Stream disagree (-stream +normalize):\n%s", d)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		var last error
		for _, err := range Normalize(ctx, strings.NewReader(fixture(t, "text.sse")), ref) {
			last = err
		}
		pe, ok := errors.AsType[*contract.ProviderError](last)
		if !ok || pe.Kind != contract.KindAborted {
			t.Errorf("cancelled Normalize ended with %v, want aborted", last)
		}
	})
}

// TestEveryCut cuts complete bodies at every byte before their terminal
// frame: each cut is stream_interrupted, never a success and never another
// error, and proposes nothing the complete body does not.
func TestEveryCut(t *testing.T) {
	ref := contract.ProviderRef{Name: "responses", Model: "gpt-5"}
	for _, name := range []string{"text.sse", "parallel.sse", "reasoning.sse", "no_deltas.sse", "unknown.sse"} {
		t.Run(name, func(t *testing.T) {
			body := fixture(t, name)
			end := strings.LastIndex(body, "response.completed")
			end = strings.LastIndex(body[:end], "\n") + 1 // the start of the terminal event's first line
			complete := map[string]bool{}
			for ev := range Normalize(t.Context(), strings.NewReader(body), ref) {
				if p, ok := ev.(*contract.IntentProposed); ok {
					complete[p.ToolName+string(p.Input)] = true
				}
			}
			for cut := range end + 1 {
				var last error
				for ev, err := range Normalize(t.Context(), strings.NewReader(body[:cut]), ref) {
					last = err
					switch e := ev.(type) {
					case *contract.ModelFinished:
						t.Fatalf("cut at %d: model.finished", cut)
					case *contract.IntentProposed:
						if !complete[e.ToolName+string(e.Input)] {
							t.Fatalf("cut at %d: proposed %s %s", cut, e.ToolName, e.Input)
						}
					}
				}
				pe, ok := errors.AsType[*contract.ProviderError](last)
				if !ok || pe.Kind != contract.KindStreamInterrupted || !pe.Retryable {
					t.Fatalf("cut at %d of %d (%q): %v, want stream_interrupted", cut, len(body), body[max(0, cut-20):cut], last)
				}
			}
		})
	}
}
