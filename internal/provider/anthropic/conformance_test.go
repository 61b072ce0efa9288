package anthropic

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Suite{
		New: func(baseURL string) provider.Provider {
			return New(&Options{BaseURL: baseURL, APIKey: "sk-ant-test"})
		},
		Text:      readFile(t, "text.sse"),
		ToolCalls: readFile(t, "parallel.sse"),
		Terminal:  "event: message_stop",
	})
}

// sseBody writes events as an SSE body, each named by its data's type.
func sseBody(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		var p struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(d), &p) // test data is valid JSON; a bad one shows as an unnamed event
		b.WriteString("event: " + p.Type + "\ndata: " + d + "\n\n")
	}
	return b.String()
}

// toolCallBody is a turn that proposes bash with command, in fragments.
func toolCallBody(id, command string, fragments int) string {
	args, _ := json.Marshal(map[string]string{"command": command}) // strings always marshal
	data := []string{
		`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"` + id + `","name":"bash","input":{}}}`,
	}
	step := (len(args) + fragments - 1) / fragments
	for i := 0; i < len(args); i += step {
		piece, _ := json.Marshal(string(args[i:min(i+step, len(args))])) // strings always marshal
		data = append(data, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+string(piece)+`}}`)
	}
	data = append(data,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null}}`,
		`{"type":"message_stop"}`,
	)
	return sseBody(data...)
}

// Seed test 1: a provider tool call is normalized into a tool intent.
func TestSeedToolCallsNormalizedIntoIntents(t *testing.T) {
	r := streamBody(t, "call.sse", toolCallBody("toolu_call_1", "npm test", 3))
	p := proposed(r.Events)
	if len(p) != 1 {
		t.Fatalf("proposed %d intents: %v", len(p), providertest.JSON(r.Events))
	}
	got := p[0].ToolIntent
	want := contract.ToolIntent{
		ProviderCallID: "toolu_call_1",
		ToolName:       "bash",
		Input:          json.RawMessage(`{"command":"npm test"}`),
		RawInput:       `{"command":"npm test"}`,
		Provider:       ref("req_fixture"),
		AssembledFrom:  contract.Assembly{Fragments: 4, FirstIndex: 0, LastIndex: 3},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("intent (-want +got):\n%s", d)
	}
}

// Seed test 2: nothing is executed inside the provider. The package
// imports nothing that runs anything, and a proposed command that would
// leave a mark leaves none: the stream yields events and nothing else.
func TestSeedNothingExecuted(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"os/exec", "syscall", "plugin", "github.com/rein-agent/rein/internal/tool", "github.com/rein-agent/rein/internal/permission", "github.com/rein-agent/rein/internal/kernel", "github.com/rein-agent/rein/internal/cli"}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value) // the parser only accepts quoted paths
			for _, bad := range forbidden {
				if path == bad || strings.HasPrefix(path, bad+"/") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}

	mark := filepath.Join(t.TempDir(), "executed")
	r := streamBody(t, "call.sse", toolCallBody("toolu_x", "touch "+mark, 4))
	if len(proposed(r.Events)) != 1 || r.Err != nil {
		t.Fatalf("the call was not proposed: %v %v", providertest.JSON(r.Events), r.Err)
	}
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Errorf("the proposed command ran: stat %s: %v", mark, err)
	}
	for _, e := range r.Events {
		switch e.(type) {
		case *contract.ModelStarted, *contract.TextDelta, *contract.ReasoningDelta, *contract.IntentDelta,
			*contract.IntentProposed, *contract.ModelUsage, *contract.ModelFinished, *contract.ProviderError:
		default:
			t.Errorf("the provider yielded %s", e.EventType())
		}
	}
}

// Seed test 3: streamed deltas are assembled before the intent is
// proposed, in exactly this order.
func TestSeedDeltasAssembledBeforeProposing(t *testing.T) {
	r := streamBody(t, "call.sse", toolCallBody("toolu_1", "npm test", 2))
	want := []string{
		"model.started",
		"tool_intent.delta",
		"tool_intent.delta",
		"tool_intent.delta",
		"tool_intent.proposed",
		"model.finished",
	}
	if d := cmp.Diff(want, types(r.Events)); d != "" || r.Err != nil {
		t.Errorf("event order (-want +got):\n%s\nerror %v", d, r.Err)
	}
}

// Seed test 4: a provider error is mapped into the taxonomy and creates no
// observation, nor any other event.
func TestSeedProviderErrorsWithoutObservations(t *testing.T) {
	srv := providertest.Serve(t, http.StatusTooManyRequests,
		http.Header{"Content-Type": {"application/json"}, "Retry-After": {"3"}, "Request-Id": {"req_429"}},
		`{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`)
	r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), &contract.ModelRequest{Model: testModel})
	if r.Err == nil || r.Err.Kind != contract.KindRateLimit || !r.Err.Retryable || r.Err.RetryAfterMS != 3000 {
		t.Errorf("error %+v; want a retryable rate_limit with a 3 s hint", r.Err)
	}
	for _, e := range r.Events {
		t.Errorf("the failed request yielded %s", e.EventType())
	}
	// Mid-stream, too: the error ends the stream and nothing stands for a
	// tool's result.
	r = streamBody(t, "error_overloaded.sse", readFile(t, "error_overloaded.sse"))
	for _, e := range r.Events {
		if strings.HasPrefix(e.EventType(), "tool.") {
			t.Errorf("the failed stream yielded %s", e.EventType())
		}
	}
}

// Seed test 5: the adapter is request-scoped. A stream that broke off with
// a call half assembled leaves nothing behind for the next one, and a
// stream's events do not depend on the streams before it.
func TestSeedRequestScoped(t *testing.T) {
	bodies := map[string]string{
		"first":  readFile(t, "truncated.sse"),
		"second": readFile(t, "parallel.sse"),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 || len(req.Messages[0].Content) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, bodies[req.Messages[0].Content[0].Text])
	}))
	defer srv.Close()
	ask := func(a *Adapter, text string) providertest.Result {
		return providertest.Collect(t, t.Context(), a, &contract.ModelRequest{Model: testModel, Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: text}}})
	}
	shared := New(&Options{BaseURL: srv.URL})
	if r := ask(shared, "first"); r.Err == nil || r.Err.Kind != contract.KindStreamInterrupted {
		t.Fatalf("first stream: %v", r.Err)
	}
	after := ask(shared, "second")
	alone := ask(New(&Options{BaseURL: srv.URL}), "second")
	if d := cmp.Diff(providertest.JSON(alone.Events), providertest.JSON(after.Events)); d != "" {
		t.Errorf("a stream after a broken one differs from a lone one (-alone +after):\n%s", d)
	}
}

// Seed test 6: observations, projected by the kernel into tool messages,
// become the API's tool_result blocks, tied to their calls, sent as they
// are.
func TestSeedProjectedObservationsBecomeToolResults(t *testing.T) {
	bodies := make(chan []byte, 1)
	text := readFile(t, "text.sse")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // a short body fails the checks below
		bodies <- b
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, text)
	}))
	defer srv.Close()
	req := &contract.ModelRequest{Model: testModel, Messages: []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "fix the tests"},
		{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{IntentID: "in_1", ProviderCallID: "toolu_call_1", ToolName: "bash", Input: json.RawMessage(`{"command":"npm test"}`)}}},
		{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_1", ProviderCallID: "toolu_call_1", ToolName: "bash", Text: "npm test failed with exit code 1", IsError: true}},
	}}
	if r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), req); r.Err != nil {
		t.Fatal(r.Err)
	}
	var sent wire
	if err := json.Unmarshal(<-bodies, &sent); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`user: {"type":"text","text":"fix the tests"}`,
		`assistant: {"type":"tool_use","id":"toolu_call_1","name":"bash","input":{"command":"npm test"}}`,
		// The last block of the conversation is also its cache breakpoint.
		`user: {"type":"tool_result","tool_use_id":"toolu_call_1","content":"npm test failed with exit code 1","is_error":true,"cache_control":{"type":"ephemeral"}}`,
	}
	if d := cmp.Diff(want, contents(sent)); d != "" {
		t.Errorf("messages sent (-want +got):\n%s", d)
	}
}
