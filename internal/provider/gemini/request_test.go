package gemini

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// conversation is a turn after a round of tool calls: system prompt, user
// text, an assistant message with reasoning, text, two calls (one with
// Gemini's own id, one whose id the adapter made up) and its state, the
// two results (one an error), and the tools.
func conversation() *contract.ModelRequest {
	return &contract.ModelRequest{
		Model:  "gemini-2.5-flash",
		System: "You are rein, a coding agent. Work in the current directory.",
		Messages: []contract.ModelMessage{
			{Role: contract.RoleUser, Text: "Why do the tests fail? Fix them."},
			{
				Role:      contract.RoleAssistant,
				Reasoning: "**Running the tests**\n\nI should run the tests first and read the failing file.",
				Text:      "I'll run the tests and read the code.",
				ToolCalls: []contract.ToolCall{
					{IntentID: "int_1", ProviderCallID: "fc_8f2k", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./... && echo ok"}`)},
					{IntentID: "int_2", ProviderCallID: "call_1", ToolName: "read_file", Input: json.RawMessage(`{"path":"sum.go"}`)},
				},
				ProviderState: json.RawMessage(`{"provider":"gemini","parts":[{"kind":"thought","signature":"c2lnLXRob3VnaHQ="},{"kind":"call","call_id":"fc_8f2k","signature":"c2lnLWNhbGw="},{"kind":"call","call_id":"call_1","synthetic_id":true}]}`),
			},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "int_1", ProviderCallID: "fc_8f2k", ToolName: "bash",
				Text: "--- FAIL: TestSum (0.00s)\n    sum_test.go:9: Sum(2, 2) = 5, want 4\nFAIL", IsError: true}},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "int_2", ProviderCallID: "call_1", ToolName: "read_file",
				Text: "package sum\n\nfunc Sum(a, b int) int { return a + b + 1 }\n"}},
		},
		Tools: []contract.ToolSpec{
			{Name: "bash", Description: "Run a shell command in the workspace.", InputSchema: json.RawMessage(`{
				"$schema": "https://json-schema.org/draft/2020-12/schema",
				"type": "object",
				"properties": {"command": {"type": "string", "description": "the command"}, "timeout_ms": {"type": ["integer", "null"]}},
				"required": ["command"],
				"additionalProperties": false
			}`)},
			{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "list_dir", Description: "List the current directory."},
		},
		MaxOutputTokens:   8192,
		ParallelToolCalls: true,
	}
}

func TestBuildRequestGolden(t *testing.T) {
	req := conversation()
	before, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := BuildRequest(req, req.Model)
	if err != nil {
		t.Fatal(err)
	}
	if after, err := json.Marshal(req); err != nil || !bytes.Equal(before, after) {
		t.Errorf("BuildRequest modified the request (%v)", err)
	}
	// Gemini has no switch for parallel calls: the flag changes nothing.
	single := conversation()
	single.ParallelToolCalls = false
	if other, err := BuildRequest(single, single.Model); err != nil || !bytes.Equal(other, body) {
		t.Errorf("ParallelToolCalls false changed the body (%v):\n%s", err, other)
	}
	goldenRequest(t, "request.golden.json", body)
}

// TestBuildRequestGoldenThinking shows the thinking settings a reasoning
// effort gives: a budget for Gemini 2.5, a level for Gemini 3. The cache
// key is not sent: Gemini's implicit cache needs none.
func TestBuildRequestGoldenThinking(t *testing.T) {
	for _, tc := range []struct{ file, model, effort string }{
		{"request_budget.golden.json", "gemini-2.5-flash", "high"},
		{"request_level.golden.json", "gemini-3-flash-preview", "low"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			req := conversation()
			req.ReasoningEffort, req.CacheKey = tc.effort, "ses_01"
			body, err := BuildRequest(req, tc.model)
			if err != nil {
				t.Fatal(err)
			}
			goldenRequest(t, tc.file, body)
		})
	}
}

// goldenRequest compares body with testdata/file, indented, or rewrites
// the file under -update.
func goldenRequest(t *testing.T, file string, body []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("the body is not JSON: %v\n%s", err, body)
	}
	pretty.WriteByte('\n')
	golden := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if d := cmp.Diff(string(want), pretty.String()); d != "" {
		t.Errorf("request body mismatch (-golden +got):\n%s", d)
	}
	// The golden file is indented for reading; the body is exactly its
	// compact form, byte for byte.
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(compact.Bytes(), body) {
		t.Errorf("body is not the compact golden file:\n%s", body)
	}
}

// TestBuildRequestMapping checks one rule of the mapping per case, on the
// whole body.
func TestBuildRequestMapping(t *testing.T) {
	call := func(intent, id, name, input string) contract.ToolCall {
		return contract.ToolCall{IntentID: intent, ProviderCallID: id, ToolName: name, Input: json.RawMessage(input)}
	}
	result := func(intent, id, name, text string, isErr bool) contract.ModelMessage {
		return contract.ModelMessage{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: intent, ProviderCallID: id, ToolName: name, Text: text, IsError: isErr}}
	}
	user := func(s string) contract.ModelMessage { return contract.ModelMessage{Role: contract.RoleUser, Text: s} }
	for _, tc := range []struct {
		name  string
		model string
		req   contract.ModelRequest
		want  string
	}{
		{
			name: "a plain turn for a model that does not think: no generationConfig, no tools",
			req:  contract.ModelRequest{Messages: []contract.ModelMessage{user("hi")}},
			want: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		},
		{
			name:  "a model that thinks gets includeThoughts; maxOutputTokens when set",
			model: "gemini-3-pro-preview",
			req:   contract.ModelRequest{Messages: []contract.ModelMessage{user("hi")}, MaxOutputTokens: 100},
			want:  `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":100,"thinkingConfig":{"includeThoughts":true}}}`,
		},
		{
			name: "system prompt and system messages join the system instruction; empty messages are left out",
			req: contract.ModelRequest{System: "be brief", Messages: []contract.ModelMessage{
				{Role: contract.RoleSystem, Text: "the user is in a hurry"}, user(""), user("hi"), {Role: contract.RoleAssistant},
			}},
			want: `{"systemInstruction":{"parts":[{"text":"be brief"},{"text":"the user is in a hurry"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
		},
		{
			name: "consecutive tool results share one user content, with the user text after them",
			req: contract.ModelRequest{Messages: []contract.ModelMessage{
				user("go"),
				{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{call("i1", "a1", "read_file", `{"path":"x"}`), call("i2", "a2", "bash", `{"command":"ls"}`)}},
				result("i1", "a1", "read_file", "x's text", false),
				result("i2", "a2", "bash", "no such dir", true),
				user("and now?"),
			}},
			want: `{"contents":[
				{"role":"user","parts":[{"text":"go"}]},
				{"role":"model","parts":[{"functionCall":{"id":"a1","name":"read_file","args":{"path":"x"}}},{"functionCall":{"id":"a2","name":"bash","args":{"command":"ls"}}}]},
				{"role":"user","parts":[
					{"functionResponse":{"id":"a1","name":"read_file","response":{"output":"x's text"}}},
					{"functionResponse":{"id":"a2","name":"bash","response":{"error":"no such dir"}}},
					{"text":"and now?"}]}]}`,
		},
		{
			name: "ids the adapter made up are sent neither on the call nor on its result",
			req: contract.ModelRequest{Messages: []contract.ModelMessage{
				user("go"),
				{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{call("i1", "call_0", "pwd", `{}`), call("i2", "x7", "pwd", `{}`)},
					ProviderState: json.RawMessage(`{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true}]}`)},
				result("i1", "call_0", "pwd", "/w", false),
				result("i2", "x7", "pwd", "/w", false),
			}},
			want: `{"contents":[
				{"role":"user","parts":[{"text":"go"}]},
				{"role":"model","parts":[{"functionCall":{"name":"pwd","args":{}}},{"functionCall":{"id":"x7","name":"pwd","args":{}}}]},
				{"role":"user","parts":[
					{"functionResponse":{"name":"pwd","response":{"output":"/w"}}},
					{"functionResponse":{"id":"x7","name":"pwd","response":{"output":"/w"}}}]}]}`,
		},
		{
			name:  "a call from another provider: its intent id, its foreign state ignored, the skip signature for a model that thinks",
			model: "gemini-2.5-pro",
			req: contract.ModelRequest{Messages: []contract.ModelMessage{
				user("go"),
				{Role: contract.RoleAssistant, Text: "Looking.", ToolCalls: []contract.ToolCall{call("int_9", "", "bash", `{"command":"ls"}`), call("int_10", "toolu_1", "bash", ``)},
					ProviderState: json.RawMessage(`{"provider":"anthropic","parts":[{"kind":"call","call_id":"int_9","synthetic_id":true,"signature":"bad"}]}`)},
				result("int_9", "", "bash", "a b", false),
			}},
			want: `{"contents":[
				{"role":"user","parts":[{"text":"go"}]},
				{"role":"model","parts":[
					{"text":"Looking."},
					{"functionCall":{"id":"int_9","name":"bash","args":{"command":"ls"}},"thoughtSignature":"skip_thought_signature_validator"},
					{"functionCall":{"id":"toolu_1","name":"bash","args":{}}}]},
				{"role":"user","parts":[{"functionResponse":{"id":"int_9","name":"bash","response":{"output":"a b"}}}]}],
				"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`,
		},
		{
			name: "no skip signature for a model that does not think",
			req: contract.ModelRequest{Messages: []contract.ModelMessage{
				user("go"),
				{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{call("int_9", "", "bash", `{"command":"ls"}`)}},
			}},
			want: `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"int_9","name":"bash","args":{"command":"ls"}}}]}]}`,
		},
		{
			name:  "every signature back on its kind of part: thoughts, text (extra ones on empty parts), calls",
			model: "gemini-2.5-flash",
			req: contract.ModelRequest{Messages: []contract.ModelMessage{
				user("go"),
				{Role: contract.RoleAssistant, Reasoning: "thinking", Text: "answer", ToolCalls: []contract.ToolCall{call("i1", "c1", "a", `{}`), call("i2", "c2", "b", `{}`)},
					ProviderState: json.RawMessage(`{"provider":"gemini","parts":[{"kind":"thought","signature":"VA=="},{"kind":"text","signature":"WA=="},{"kind":"text","signature":"WQ=="},{"kind":"call","call_id":"c2","signature":"Qg=="}]}`)},
				{Role: contract.RoleAssistant, Reasoning: "unsigned thoughts are not sent back", Text: "", ProviderState: json.RawMessage(`{"provider":"gemini","parts":[{"kind":"text","signature":"Wg=="}]}`)},
			}},
			want: `{"contents":[
				{"role":"user","parts":[{"text":"go"}]},
				{"role":"model","parts":[
					{"text":"thinking","thought":true,"thoughtSignature":"VA=="},
					{"text":"answer","thoughtSignature":"WA=="},
					{"text":"","thoughtSignature":"WQ=="},
					{"functionCall":{"id":"c1","name":"a","args":{}}},
					{"functionCall":{"id":"c2","name":"b","args":{}},"thoughtSignature":"Qg=="},
					{"text":"","thoughtSignature":"Wg=="}]}],
				"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`,
		},
		{
			name: "tool schemas verbatim in parametersJsonSchema; none for a tool without one",
			req: contract.ModelRequest{Messages: []contract.ModelMessage{user("hi")}, Tools: []contract.ToolSpec{
				{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/n"}]}},"$defs":{"n":{"type":"null"}},"additionalProperties":false}`)},
				{Name: "u", InputSchema: json.RawMessage(`null`)},
			}},
			want: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[
				{"name":"t","description":"d","parametersJsonSchema":{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/n"}]}},"$defs":{"n":{"type":"null"}},"additionalProperties":false}},
				{"name":"u"}]}]}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := tc.model
			if model == "" {
				model = "gemini-2.0-flash"
			}
			body, err := BuildRequest(&tc.req, model)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, body)
			}
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatalf("bad want: %v", err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("body mismatch (-want +got):\n%s\nbody: %s", d, body)
			}
		})
	}
}

func TestBuildRequestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  *contract.ModelRequest
		want string
	}{
		{"no request", nil, "no request"},
		{"a role rein does not have", &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: "narrator", Text: "x"}}}, `role "narrator"`},
		{"a schema that is not JSON", &contract.ModelRequest{Tools: []contract.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`{"type":`)}}}, `tool "t"`},
		{"a call input that is not JSON", &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleAssistant,
			ToolCalls: []contract.ToolCall{{ToolName: "bash", Input: json.RawMessage(`{"command":`)}}}}}, `tool call "bash"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildRequest(tc.req, DefaultModel)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "gemini: ") {
				t.Errorf("BuildRequest() error = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

// TestStreamSendsTheRequest checks what goes on the wire: the URL, the
// method, the headers (the key only in its header, and only when set), and
// the body BuildRequest makes.
func TestStreamSendsTheRequest(t *testing.T) {
	type seen struct {
		method, uri string
		header      http.Header
		body        []byte
	}
	for _, tc := range []struct {
		name     string
		opts     Options
		model    string
		wantURI  string
		wantKey  string
		wantHdrs map[string]string
	}{
		{name: "defaults and a key", opts: Options{APIKey: "k-123"}, wantURI: "/v1beta/models/" + DefaultModel + ":streamGenerateContent?alt=sse", wantKey: "k-123"},
		{name: "no key, a model of the options", opts: Options{Model: "gemini-2.0-flash"}, wantURI: "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"},
		{name: "a model given as models/x", model: "models/gemini-2.5-pro", wantURI: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{name: "a tuned model", model: "tunedModels/my-model-7", wantURI: "/v1beta/tunedModels/my-model-7:streamGenerateContent?alt=sse"},
		{name: "a model name that needs escaping", model: "my model/v2", wantURI: "/v1beta/models/my%20model%2Fv2:streamGenerateContent?alt=sse"},
		{name: "extra headers", opts: Options{APIKey: "k", Header: http.Header{"X-Proxy-Tag": {"t1"}}}, wantURI: "/v1beta/models/" + DefaultModel + ":streamGenerateContent?alt=sse", wantKey: "k",
			wantHdrs: map[string]string{"X-Proxy-Tag": "t1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan seen, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got <- seen{r.Method, r.RequestURI, r.Header.Clone(), b}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, readFixture(t, "text.sse"))
			}))
			defer srv.Close()
			opts := tc.opts
			opts.BaseURL = srv.URL + "/v1beta/" // a trailing slash is tolerated
			req := userRequest()
			req.Model = tc.model
			r := providertest.Collect(t, t.Context(), New(&opts), req)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			s := <-got
			if s.method != http.MethodPost || s.uri != tc.wantURI {
				t.Errorf("request %s %s, want POST %s", s.method, s.uri, tc.wantURI)
			}
			if k := s.header.Get("X-Goog-Api-Key"); k != tc.wantKey {
				t.Errorf("x-goog-api-key = %q, want %q", k, tc.wantKey)
			}
			if _, ok := s.header["Authorization"]; ok {
				t.Error("an Authorization header was sent")
			}
			if strings.Contains(s.uri, "key=") {
				t.Errorf("the key is in the URL: %s", s.uri)
			}
			if ct := s.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
			for k, v := range tc.wantHdrs {
				if s.header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, s.header.Get(k), v)
				}
			}
			model := tc.model
			if model == "" {
				model = New(&opts).http.Model
			}
			want, err := BuildRequest(req, model)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(s.body, want) {
				t.Errorf("body:\n%s\nwant BuildRequest's:\n%s", s.body, want)
			}
			if m := r.Events[0].(*contract.ModelStarted).Model; m != model {
				t.Errorf("model.started names model %q, want %q", m, model)
			}
		})
	}
}

func TestStreamBadRequestNeverSent(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls++ }))
	defer srv.Close()
	req := &contract.ModelRequest{Tools: []contract.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`{`)}}}
	r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), req)
	if r.Err == nil || r.Err.Kind != contract.KindBadRequest || len(r.Events) != 0 || calls != 0 {
		t.Errorf("error %v, %d events, %d requests; want bad_request before any request", r.Err, len(r.Events), calls)
	}
}
