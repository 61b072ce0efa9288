package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// conversation is the running example after one tool-calling turn: a
// system prompt, the user's text, an assistant message with reasoning,
// text, two tool calls and the state its server asked back, the two tool
// results (one failed), and the tools.
func conversation() *contract.ModelRequest {
	return &contract.ModelRequest{
		System: "You are rein, a coding agent. Prefer <small> & safe steps.",
		Messages: []contract.ModelMessage{
			{Role: contract.RoleUser, Text: "look at why this project's tests fail and fix them"},
			{
				Role: contract.RoleAssistant, Reasoning: "Run the tests first.", Text: "I'll run the tests and look around.",
				ToolCalls: []contract.ToolCall{
					{IntentID: "in_01", ProviderCallID: "call_abc", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
					{IntentID: "in_02", ToolName: "list_dir", Input: json.RawMessage(`{}`)},
				},
				ProviderState: json.RawMessage(`{"provider":"openai","reasoning_content":true,"reasoning_details":[{"type":"reasoning.encrypted","data":"CiQB","index":0}]}`),
			},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_01", ProviderCallID: "call_abc", ToolName: "bash", Text: "--- FAIL: TestMean (0.00s)\nexit code 1", IsError: true}},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_02", ToolName: "list_dir", Text: "go.mod\nstats.go\nstats_test.go"}},
		},
		Tools: []contract.ToolSpec{
			{Name: "bash", Description: "Run a shell command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
			{Name: "list_dir", Description: "List a directory.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		},
		MaxOutputTokens:   4096,
		ParallelToolCalls: true,
	}
}

// TestBuildRequestGolden shows whole requests: to OpenAI's own API with
// the session's prompt_cache_key, with a reasoning effort for a reasoning
// model, and to a compatible server, which gets the effort but no cache
// key.
func TestBuildRequestGolden(t *testing.T) {
	for _, tc := range []struct {
		file, model, effort string
		dialect             dialect
	}{
		{"request.golden.json", "gpt-4.1", "", openAIDialect},
		{"request_reasoning.golden.json", "gpt-5", "high", openAIDialect},
		{"request_compatible.golden.json", "qwen3:32b", "low", compatibleDialect},
	} {
		t.Run(tc.file, func(t *testing.T) {
			req := conversation()
			req.CacheKey = "ses_01"
			req.ReasoningEffort = tc.effort
			body, err := buildRequest(req, tc.model, tc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatalf("buildRequest() is not JSON: %v\n%s", err, body)
			}
			pretty.WriteByte('\n')
			golden(t, filepath.Join("testdata", tc.file), pretty.Bytes())
		})
	}
}

// decoded is a request body read back, for checks on single fields.
type decoded struct {
	Model               string            `json:"model"`
	Stream              bool              `json:"stream"`
	StreamOptions       *streamOptions    `json:"stream_options"`
	MaxTokens           *int              `json:"max_tokens"`
	MaxCompletionTokens *int              `json:"max_completion_tokens"`
	ParallelToolCalls   *bool             `json:"parallel_tool_calls"`
	Tools               []json.RawMessage `json:"tools"`
	Messages            []map[string]any  `json:"messages"`
}

func decode(t *testing.T, body []byte) decoded {
	t.Helper()
	var d decoded
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, body)
	}
	return d
}

func ptr[T any](v T) *T { return &v }

func TestBuildRequestSwitches(t *testing.T) {
	noTools := conversation()
	noTools.Tools = nil
	single := conversation()
	single.ParallelToolCalls = false
	uncapped := conversation()
	uncapped.MaxOutputTokens = 0
	for _, tc := range []struct {
		name                     string
		req                      *contract.ModelRequest
		model                    string
		dialect                  dialect
		parallel                 *bool
		maxTokens, maxCompletion *int
		streamOptions            bool
	}{
		{"openai with tools", conversation(), "gpt-4.1", openAIDialect, ptr(true), nil, ptr(4096), true},
		{"parallel off asks for one call", single, "gpt-4.1", openAIDialect, ptr(false), nil, ptr(4096), true},
		{"no tools, no switch", noTools, "gpt-4.1", openAIDialect, nil, nil, ptr(4096), true},
		{"o-series rejects the switch", conversation(), "o3-mini", openAIDialect, nil, nil, ptr(4096), true},
		{"o-series behind a router", single, "openai/o4-mini", compatibleDialect, nil, ptr(4096), nil, true},
		{"compatible servers get max_tokens", conversation(), "qwen3:8b", compatibleDialect, ptr(true), ptr(4096), nil, true},
		{"mistral: no stream_options", single, "mistral-large-latest", mistralDialect, ptr(false), ptr(4096), nil, false},
		{"no cap", uncapped, "gpt-4.1", openAIDialect, ptr(true), nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := buildRequest(tc.req, tc.model, tc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			d := decode(t, body)
			if d.Model != tc.model || !d.Stream {
				t.Errorf("model %q stream %v, want %q and true", d.Model, d.Stream, tc.model)
			}
			if d := cmp.Diff(tc.parallel, d.ParallelToolCalls); d != "" {
				t.Errorf("parallel_tool_calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.maxTokens, d.MaxTokens); d != "" {
				t.Errorf("max_tokens (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.maxCompletion, d.MaxCompletionTokens); d != "" {
				t.Errorf("max_completion_tokens (-want +got):\n%s", d)
			}
			if got := d.StreamOptions != nil && d.StreamOptions.IncludeUsage; got != tc.streamOptions {
				t.Errorf("stream_options.include_usage %v, want %v", got, tc.streamOptions)
			}
		})
	}
}

func TestBuildRequestStateAndEdges(t *testing.T) {
	t.Run("another provider's state is ignored", func(t *testing.T) {
		req := conversation()
		req.Messages[1].ProviderState = json.RawMessage(`{"provider":"anthropic","reasoning_content":true,"reasoning_details":[1]}`)
		d := decode(t, must(BuildRequest(req, "m")))
		if _, ok := d.Messages[2]["reasoning_content"]; ok {
			t.Errorf("reasoning_content sent for another provider's state: %v", d.Messages[2])
		}
		if _, ok := d.Messages[2]["reasoning_details"]; ok {
			t.Errorf("reasoning_details sent for another provider's state: %v", d.Messages[2])
		}
	})
	t.Run("no state, no reasoning sent", func(t *testing.T) {
		req := conversation()
		req.Messages[1].ProviderState = nil
		d := decode(t, must(BuildRequest(req, "m")))
		if _, ok := d.Messages[2]["reasoning_content"]; ok {
			t.Errorf("reasoning sent without a state asking for it: %v", d.Messages[2])
		}
	})
	t.Run("a call without input, a tool without schema", func(t *testing.T) {
		req := &contract.ModelRequest{
			Messages: []contract.ModelMessage{{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{IntentID: "in_1", ToolName: "list_dir"}}}},
			Tools:    []contract.ToolSpec{{Name: "list_dir"}},
		}
		body := string(must(BuildRequest(req, "m")))
		for _, want := range []string{`"content":""`, `"arguments":"{}"`, `"id":"in_1"`, `"parameters":{"type":"object","properties":{}}`} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %s:\n%s", want, body)
			}
		}
	})
	for _, tc := range []struct {
		name string
		msg  contract.ModelMessage
	}{
		{"tool message without a result", contract.ModelMessage{Role: contract.RoleTool}},
		{"unknown role", contract.ModelMessage{Role: "narrator", Text: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := BuildRequest(&contract.ModelRequest{Messages: []contract.ModelMessage{tc.msg}}, "m"); err == nil {
				t.Error("BuildRequest() succeeded")
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// captured is one request as the server saw it.
type captured struct {
	Path   string
	Header http.Header
	Body   []byte
}

// capture starts a server that records requests and answers with body.
func capture(t *testing.T, body string) (*httptest.Server, func() []captured) {
	t.Helper()
	var mu sync.Mutex
	var got []captured
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a short read shows in the test's checks
		mu.Lock()
		got = append(got, captured{Path: r.URL.Path, Header: r.Header.Clone(), Body: b})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []captured {
		mu.Lock()
		defer mu.Unlock()
		return append([]captured(nil), got...)
	}
}

const minimal = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func TestStreamSendsWhatItShould(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       func(base string) *Options
		req        *contract.ModelRequest
		path       string
		auth       string
		model      string
		extra      string
		headerName string
	}{
		{
			name: "key, trailing slash, default model",
			opts: func(base string) *Options { return &Options{BaseURL: base + "/v1/", APIKey: "sk-secret"} },
			req:  &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}},
			path: "/v1/chat/completions", auth: "Bearer sk-secret", model: DefaultModel,
		},
		{
			name: "no key sends no credential; the options' model",
			opts: func(base string) *Options { return &Options{BaseURL: base, Model: "llama3.1:8b"} },
			req:  &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}},
			path: "/chat/completions", model: "llama3.1:8b",
		},
		{
			name: "a full endpoint URL, the request's model, extra headers",
			opts: func(base string) *Options {
				return &Options{BaseURL: base + "/api/v1/chat/completions", APIKey: "k", Model: "x", Header: http.Header{"Http-Referer": {"https://rein.dev"}}}
			},
			req:  &contract.ModelRequest{Model: "anthropic/claude-sonnet-4", Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}},
			path: "/api/v1/chat/completions", auth: "Bearer k", model: "anthropic/claude-sonnet-4",
			headerName: "Http-Referer", extra: "https://rein.dev",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := capture(t, minimal)
			a := New(tc.opts(srv.URL))
			r := providertest.Collect(t, t.Context(), a, tc.req)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			reqs := got()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			c := reqs[0]
			if c.Path != tc.path {
				t.Errorf("path %q, want %q", c.Path, tc.path)
			}
			if h := c.Header.Get("Authorization"); h != tc.auth {
				t.Errorf("Authorization %q, want %q", h, tc.auth)
			}
			for _, h := range []string{"Openai-Organization", "Openai-Project", "X-Api-Key", "Api-Key"} {
				if v := c.Header.Get(h); v != "" {
					t.Errorf("sent %s: %q", h, v)
				}
			}
			if tc.headerName != "" && c.Header.Get(tc.headerName) != tc.extra {
				t.Errorf("%s %q, want %q", tc.headerName, c.Header.Get(tc.headerName), tc.extra)
			}
			if ct := c.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if d := decode(t, c.Body); d.Model != tc.model {
				t.Errorf("model %q, want %q", d.Model, tc.model)
			}
			if s, ok := r.Events[0].(*contract.ModelStarted); !ok || s.Model != tc.model || s.Provider != DefaultName {
				t.Errorf("first event %v, want model.started for %s", r.Events[0], tc.model)
			}
		})
	}
}

func TestDialectByHost(t *testing.T) {
	for _, tc := range []struct {
		base string
		want dialect
	}{
		{"", openAIDialect},
		{"https://api.openai.com/v1", openAIDialect},
		{"https://my-res.openai.azure.com/openai/deployments/gpt4/", openAIDialect},
		{"https://api.mistral.ai/v1", mistralDialect},
		{"http://127.0.0.1:11434/v1", compatibleDialect},
		{"https://openrouter.ai/api/v1", compatibleDialect},
		{"https://api.groq.com/openai/v1", compatibleDialect},
		{"https://api.deepseek.com", compatibleDialect},
	} {
		if got := New(&Options{BaseURL: tc.base}).dialect; got != tc.want {
			t.Errorf("%q: dialect %+v, want %+v", tc.base, got, tc.want)
		}
	}
}

// BuildRequest returns the exact JSON body Stream sends to OpenAI's own API
// for req, asking for model. Against other servers Stream changes only the
// name of the output cap (max_tokens rather than max_completion_tokens)
// and, for Mistral, leaves out stream_options; see the package
// documentation. It fails when the conversation cannot be expressed: a tool
// message without a result, a role the API does not have, or a schema or
// state that is not valid JSON.
func BuildRequest(req *contract.ModelRequest, model string) ([]byte, error) {
	return buildRequest(req, model, openAIDialect)
}

// The first-byte bound of the options reaches the request: a server that
// takes it and says nothing, or sends its headers and then nothing, ends
// the stream with a retryable timeout.
func TestStreamGivesUpOnASilentServer(t *testing.T) {
	for name, headers := range map[string]bool{"nothing": false, "headers then nothing": true} {
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if headers {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			a := New(&Options{BaseURL: srv.URL + "/v1", Model: "m", FirstByteTimeout: 50 * time.Millisecond})
			r := providertest.Collect(t, t.Context(), a, &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}})
			var perr *contract.ProviderError
			if !errors.As(r.Err, &perr) || perr.Kind != contract.KindTimeout || !perr.Retryable || perr.Message != "no response from "+srv.URL+"/v1 within 0.05s" {
				t.Errorf("stream error %v, want a retryable timeout naming the endpoint", r.Err)
			}
		})
	}
}
