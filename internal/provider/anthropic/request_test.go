package anthropic

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// conversation is a whole tool-use turn as the projection builds it: a
// system prompt, the user's text, an assistant message with reasoning,
// text, two tool calls and its provider state, the two results (one a
// failure), the user's next words, and the tools.
func conversation() *contract.ModelRequest {
	return &contract.ModelRequest{
		Model:  "claude-sonnet-4-5",
		System: "You are rein, a coding agent.",
		Messages: []contract.ModelMessage{
			{Role: contract.RoleUser, Text: "Why do the tests fail?"},
			{
				Role:      contract.RoleAssistant,
				Reasoning: "Run the tests, then read the code.",
				Text:      "Let me run the tests and read the source.",
				ToolCalls: []contract.ToolCall{
					{IntentID: "in_01", ProviderCallID: "toolu_01A", ToolName: "bash", Input: json.RawMessage(`{"command":"npm test"}`)},
					{IntentID: "in_02", ProviderCallID: "toolu_01B", ToolName: "read_file", Input: json.RawMessage(`{"path":"src/sum.ts"}`)},
				},
				ProviderState: json.RawMessage(`{"provider":"anthropic","blocks":[{"type":"thinking","thinking":"Run the tests, then read the code.","signature":"EqQBCgIYAhIM"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3"}]}`),
			},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_01", ProviderCallID: "toolu_01A", ToolName: "bash", Text: "npm test failed with exit code 1", IsError: true}},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_02", ProviderCallID: "toolu_01B", ToolName: "read_file", Text: "export const sum = (a, b) => a - b;"}},
			{Role: contract.RoleUser, Text: "Keep it short."},
		},
		Tools: []contract.ToolSpec{
			{Name: "bash", Description: "Run a shell command.", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
			{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		},
	}
}

// TestBuildRequestGolden shows whole requests: the cache breakpoints (on
// the system prompt and on the last block of the conversation), no
// thinking without a reasoning effort, a thinking budget for a model that
// thinks by budget, and adaptive thinking with its effort for one that
// has it.
func TestBuildRequestGolden(t *testing.T) {
	for _, tc := range []struct{ file, model, effort string }{
		{"request.golden.json", "claude-sonnet-4-5", ""},
		{"request_budget.golden.json", "claude-sonnet-4-5", "high"},
		{"request_adaptive.golden.json", "claude-opus-4-6", "medium"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			req := conversation()
			req.ReasoningEffort = tc.effort
			req.CacheKey = "ses_01" // Anthropic has no cache key: nothing of it is sent
			body, err := BuildRequest(req, tc.model)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.file, indent(t, body))
		})
	}
}

// wire decodes a request body for assertions on its parts.
type wire struct {
	Model      string          `json:"model"`
	MaxTokens  int             `json:"max_tokens"`
	System     json.RawMessage `json:"system"`
	Messages   []wireMsg       `json:"messages"`
	Tools      json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Stream     bool            `json:"stream"`
}

type wireMsg struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

func build(t *testing.T, req *contract.ModelRequest) wire {
	t.Helper()
	body, err := BuildRequest(req, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	var w wire
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// contents renders each message as role: blocks, compactly.
func contents(w wire) []string {
	var out []string
	for _, m := range w.Messages {
		s := m.Role + ":"
		for _, c := range m.Content {
			s += " " + string(c)
		}
		out = append(out, s)
	}
	return out
}

func TestBuildRequest(t *testing.T) {
	user := func(text string) contract.ModelMessage {
		return contract.ModelMessage{Role: contract.RoleUser, Text: text}
	}
	for _, tc := range []struct {
		name  string
		req   *contract.ModelRequest
		check func(t *testing.T, w wire)
	}{
		{
			name: "defaults: stream, max_tokens per model, no tools and no tool_choice",
			req:  &contract.ModelRequest{Messages: []contract.ModelMessage{user("hi")}},
			check: func(t *testing.T, w wire) {
				if !w.Stream || w.MaxTokens != 16384 || w.Model != "claude-sonnet-4-5" || w.Tools != nil || w.ToolChoice != nil || w.System != nil {
					t.Errorf("%+v", w)
				}
			},
		},
		{
			name: "MaxOutputTokens and parallel tool calls allowed",
			req: &contract.ModelRequest{MaxOutputTokens: 1234, ParallelToolCalls: true, Messages: []contract.ModelMessage{user("hi")},
				Tools: []contract.ToolSpec{{Name: "t", Description: "d"}}},
			check: func(t *testing.T, w wire) {
				if w.MaxTokens != 1234 || w.ToolChoice != nil {
					t.Errorf("max_tokens %d, tool_choice %s", w.MaxTokens, w.ToolChoice)
				}
				if string(w.Tools) != `[{"name":"t","description":"d","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]` {
					t.Errorf("tools %s: a missing schema must become an object schema, and the last tool a breakpoint when there is no system prompt", w.Tools)
				}
			},
		},
		{
			name: "a provider state that is not ours is not sent; reasoning alone never is",
			req: &contract.ModelRequest{Messages: []contract.ModelMessage{
				user("hi"),
				{Role: contract.RoleAssistant, Reasoning: "thought", Text: "ok", ProviderState: json.RawMessage(`{"provider":"gemini","signatures":["x"]}`)},
				{Role: contract.RoleAssistant, Text: "more", ProviderState: json.RawMessage(`not json`)},
			}},
			check: func(t *testing.T, w wire) {
				want := []string{`user: {"type":"text","text":"hi"}`, `assistant: {"type":"text","text":"ok"} {"type":"text","text":"more","cache_control":{"type":"ephemeral"}}`}
				if d := cmp.Diff(want, contents(w)); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			},
		},
		{
			name: "a call from another provider goes by its intent id, made acceptable to the API",
			req: &contract.ModelRequest{Messages: []contract.ModelMessage{
				user("hi"),
				{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{IntentID: "in:01/x", ToolName: "glob", Input: nil}}},
				{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in:01/x", ToolName: "glob", Text: ""}},
			}},
			check: func(t *testing.T, w wire) {
				want := []string{
					`user: {"type":"text","text":"hi"}`,
					`assistant: {"type":"tool_use","id":"in_01_x","name":"glob","input":{}}`,
					`user: {"type":"tool_result","tool_use_id":"in_01_x","cache_control":{"type":"ephemeral"}}`,
				}
				if d := cmp.Diff(want, contents(w)); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			},
		},
		{
			name: "system messages follow the system prompt, a breakpoint on the first and the last; empty text is dropped; same roles merge",
			req: &contract.ModelRequest{System: "base", Messages: []contract.ModelMessage{
				{Role: contract.RoleSystem, Text: "summary of earlier turns"},
				user("one"), user("  "), user("two"),
			}},
			check: func(t *testing.T, w wire) {
				wantSystem := `[{"type":"text","text":"base","cache_control":{"type":"ephemeral"}},{"type":"text","text":"summary of earlier turns","cache_control":{"type":"ephemeral"}}]`
				if string(w.System) != wantSystem {
					t.Errorf("system %s\nwant   %s", w.System, wantSystem)
				}
				want := []string{`user: {"type":"text","text":"one"} {"type":"text","text":"two","cache_control":{"type":"ephemeral"}}`}
				if d := cmp.Diff(want, contents(w)); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			},
		},
		{
			name: "tool results come first in their user message",
			req: &contract.ModelRequest{Messages: []contract.ModelMessage{
				user("go"),
				{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{ProviderCallID: "toolu_1", ToolName: "a", Input: json.RawMessage(`{}`)}}},
				user("note"),
				{Role: contract.RoleTool, Result: &contract.ToolResult{ProviderCallID: "toolu_1", Text: "done"}},
			}},
			check: func(t *testing.T, w wire) {
				want := []string{
					`user: {"type":"text","text":"go"}`,
					`assistant: {"type":"tool_use","id":"toolu_1","name":"a","input":{}}`,
					`user: {"type":"tool_result","tool_use_id":"toolu_1","content":"done"} {"type":"text","text":"note","cache_control":{"type":"ephemeral"}}`,
				}
				if d := cmp.Diff(want, contents(w)); d != "" {
					t.Errorf("(-want +got):\n%s", d)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, build(t, tc.req)) })
	}
}

func TestBuildRequestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  contract.ModelMessage
	}{
		{"tool message without a result", contract.ModelMessage{Role: contract.RoleTool}},
		{"tool call input not an object", contract.ModelMessage{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{ToolName: "a", Input: json.RawMessage(`[1]`)}}}},
		{"tool call input not JSON", contract.ModelMessage{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{ToolName: "a", Input: json.RawMessage(`{`)}}}},
		{"unknown role", contract.ModelMessage{Role: "robot", Text: "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := BuildRequest(&contract.ModelRequest{Messages: []contract.ModelMessage{tc.msg}}, "m"); err == nil {
				t.Error("BuildRequest() succeeded")
			}
		})
	}
}

func TestBuildRequestDoesNotModifyRequest(t *testing.T) {
	req := conversation()
	before, _ := json.Marshal(req) // a ModelRequest always marshals
	if _, err := BuildRequest(req, "m"); err != nil {
		t.Fatal(err)
	}
	after, _ := json.Marshal(req)
	if string(before) != string(after) {
		t.Error("BuildRequest modified its request")
	}
}

// TestRoundTrip sends a turn's provider state back: the thinking blocks a
// stream yields on model.finished open the next request's assistant
// message, verbatim.
func TestRoundTrip(t *testing.T) {
	r := streamBody(t, "thinking.sse", readFile(t, "thinking.sse"))
	f := finished(t, r)
	p := proposed(r.Events)
	req := &contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "fix it"},
		{Role: contract.RoleAssistant, Text: "Running the test.", ToolCalls: []contract.ToolCall{p[0].Call()}, ProviderState: f.ProviderState},
		{Role: contract.RoleTool, Result: &contract.ToolResult{ProviderCallID: p[0].ProviderCallID, Text: "1 failing"}},
	}}
	w := build(t, req)
	var state providerState
	if err := json.Unmarshal(f.ProviderState, &state); err != nil {
		t.Fatal(err)
	}
	got := w.Messages[1].Content
	if len(got) != 4 || string(got[0]) != string(state.Blocks[0]) || string(got[1]) != string(state.Blocks[1]) {
		t.Errorf("assistant content %s; want the two state blocks first", got)
	}
	if !strings.Contains(string(got[3]), `"id":"toolu_01Think"`) {
		t.Errorf("tool_use block %s", got[3])
	}
}

// TestHTTPRequest checks what goes on the wire: the path, the headers, the
// body.
func TestHTTPRequest(t *testing.T) {
	for _, tc := range []struct {
		name, base, path string
		key              string
		header           http.Header
		wantHeader       http.Header
	}{
		{name: "default path with a key", path: "", key: "sk-ant-1", wantHeader: http.Header{"X-Api-Key": {"sk-ant-1"}, "Anthropic-Version": {"2023-06-01"}, "Content-Type": {"application/json"}}},
		{name: "base ending in /v1/", path: "/v1/", wantHeader: http.Header{"Anthropic-Version": {"2023-06-01"}, "Content-Type": {"application/json"}}},
		{name: "proxy prefix and extra headers", path: "/proxy/", header: http.Header{"Anthropic-Beta": {"interleaved-thinking-2025-05-14"}, "Anthropic-Version": {"2099-01-01"}},
			wantHeader: http.Header{"Anthropic-Beta": {"interleaved-thinking-2025-05-14"}, "Anthropic-Version": {"2099-01-01"}, "Content-Type": {"application/json"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			type got struct {
				method, path string
				header       http.Header
				body         []byte
			}
			ch := make(chan got, 1)
			text := readFile(t, "text.sse")
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body) // a short read fails the comparison below
				ch <- got{r.Method, r.URL.Path, r.Header.Clone(), b}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, text)
			}))
			defer srv.Close()
			a := New(&Options{BaseURL: srv.URL + tc.path, APIKey: tc.key, Header: tc.header, Model: "claude-opus-4-1"})
			req := &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}}
			if r := providertest.Collect(t, t.Context(), a, req); r.Err != nil {
				t.Fatal(r.Err)
			}
			g := <-ch
			wantPath := strings.TrimSuffix(strings.TrimSuffix(tc.path, "/"), "/v1") + "/v1/messages"
			if g.method != http.MethodPost || g.path != wantPath {
				t.Errorf("%s %s, want POST %s", g.method, g.path, wantPath)
			}
			for k := range g.header {
				switch k {
				case "Accept-Encoding", "User-Agent", "Content-Length":
					g.header.Del(k)
				}
			}
			if d := cmp.Diff(tc.wantHeader, g.header); d != "" {
				t.Errorf("headers (-want +got):\n%s", d)
			}
			want, _ := BuildRequest(req, "claude-opus-4-1") // the same request built twice
			if string(g.body) != string(want) {
				t.Errorf("body\n got %s\nwant %s", g.body, want)
			}
		})
	}
}

func TestMessagesURL(t *testing.T) {
	for base, want := range map[string]string{
		"":                                  "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/":        "https://api.anthropic.com/v1/messages",
		"https://api.anthropic.com/v1":      "https://api.anthropic.com/v1/messages",
		"http://127.0.0.1:8080/v1/":         "http://127.0.0.1:8080/v1/messages",
		"https://gateway.example/anthropic": "https://gateway.example/anthropic/v1/messages",
	} {
		if got := messagesURL(base); got != want {
			t.Errorf("messagesURL(%q) = %q, want %q", base, got, want)
		}
	}
}

// TestCacheBreakpoints checks where the breakpoints go: on the last system
// block (and the first, when there are several), else on the last tool,
// and on the last block of the last message that can carry one; never
// more than the API's four.
func TestCacheBreakpoints(t *testing.T) {
	const mark = `"cache_control":{"type":"ephemeral"}`
	tools := []contract.ToolSpec{{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "b", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	thinkingOnly := json.RawMessage(`{"provider":"anthropic","blocks":[{"type":"thinking","thinking":"t","signature":"s"}]}`)
	for _, tc := range []struct {
		name                       string
		req                        *contract.ModelRequest
		system, tools, lastMessage string // what carries a breakpoint, or ""
	}{
		{
			name:        "system prompt and tools: the system block",
			req:         &contract.ModelRequest{System: "sys", Tools: tools, Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}},
			system:      `[{"type":"text","text":"sys",` + mark + `}]`,
			tools:       `[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"}}]`,
			lastMessage: `{"type":"text","text":"hi",` + mark + `}`,
		},
		{
			name:        "no system prompt: the last tool",
			req:         &contract.ModelRequest{Tools: tools, Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}},
			tools:       `[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"},` + mark + `}]`,
			lastMessage: `{"type":"text","text":"hi",` + mark + `}`,
		},
		{
			name:        "neither: the conversation only",
			req:         &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}},
			lastMessage: `{"type":"text","text":"hi",` + mark + `}`,
		},
		{
			name: "a thinking block cannot carry one: a last message of thinking only has none",
			req: &contract.ModelRequest{Messages: []contract.ModelMessage{
				{Role: contract.RoleUser, Text: "hi"},
				{Role: contract.RoleAssistant, ProviderState: thinkingOnly},
			}},
			lastMessage: `{"type":"thinking","thinking":"t","signature":"s"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := BuildRequest(tc.req, "claude-sonnet-4-5")
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(body), mark); n > 4 {
				t.Errorf("%d breakpoints, more than the API's four", n)
			}
			w := build(t, tc.req)
			if tc.system != "" && string(w.System) != tc.system {
				t.Errorf("system %s\nwant   %s", w.System, tc.system)
			}
			if tc.tools != "" && string(w.Tools) != tc.tools {
				t.Errorf("tools %s\nwant  %s", w.Tools, tc.tools)
			}
			last := w.Messages[len(w.Messages)-1].Content
			if got := string(last[len(last)-1]); got != tc.lastMessage {
				t.Errorf("last block %s\nwant       %s", got, tc.lastMessage)
			}
		})
	}
}
