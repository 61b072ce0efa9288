package responses

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Suite{
		New: func(baseURL string) provider.Provider {
			return New(&Options{BaseURL: baseURL, APIKey: "sk-test", Model: "gpt-5"})
		},
		Text:      fixture(t, "text.sse"),
		ToolCalls: fixture(t, "parallel.sse"),
		Terminal:  "event: response.completed",
	})
}

// The seed chapter's six tests, on this adapter.

// 1. A provider tool call is normalised into a tool intent.
func TestSeedToolCallBecomesIntent(t *testing.T) {
	r := serve(t, http.StatusOK, "text/event-stream", fixture(t, "tool_fragments.sse"))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var got *contract.IntentProposed
	for _, e := range r.Events {
		if p, ok := e.(*contract.IntentProposed); ok {
			got = p
		}
	}
	if got == nil {
		t.Fatalf("no tool_intent.proposed:\n%s", render(r))
	}
	want := contract.ToolIntent{
		ProviderCallID: "call_Ab12", ToolName: "bash",
		Input: json.RawMessage(`{"command":"npm test"}`), RawInput: `{"command":"npm test"}`,
		Provider:      contract.ProviderRef{Name: "responses", Model: "gpt-5", RequestID: "req_fixture"},
		AssembledFrom: contract.Assembly{Fragments: 9, FirstIndex: 0, LastIndex: 8},
	}
	if d := cmp.Diff(want, got.ToolIntent); d != "" {
		t.Errorf("intent mismatch (-want +got):\n%s", d)
	}
}

// 2. Nothing is executed inside the provider: the package imports nothing
// that could run a tool, and a stream whose tools would be dangerous to
// run yields only model events. (The project's boundary test checks the
// transitive imports.)
func TestSeedNothingExecuted(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := []string{"os/exec", "syscall", "plugin", "github.com/rein-agent/rein/internal/tool", "github.com/rein-agent/rein/internal/permission", "github.com/rein-agent/rein/internal/kernel", "github.com/rein-agent/rein/internal/cli"}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range forbidden {
				if path == bad || strings.HasPrefix(path, bad+"/") {
					t.Errorf("%s imports %s: a provider translates, it never executes", f, path)
				}
			}
		}
	}
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(fixture(t, "tool_fragments.sse"), "npm", "rm -f "+victim+" ;")
	r := serve(t, http.StatusOK, "text/event-stream", body)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, e := range r.Events {
		switch e.(type) {
		case *contract.ModelStarted, *contract.IntentDelta, *contract.IntentProposed, *contract.ModelUsage, *contract.ModelFinished:
		default:
			t.Errorf("unexpected event %s", e.EventType())
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the proposed command ran: %v", err)
	}
}

// 3. Tool-call deltas are assembled before the intent is proposed: the
// exact event order.
func TestSeedDeltasBeforeProposal(t *testing.T) {
	body := "event: response.output_item.added\n" +
		`data: {"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"bash","arguments":""}}` + "\n\n" +
		"event: response.function_call_arguments.delta\n" +
		`data: {"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{\"command\":"}` + "\n\n" +
		"event: response.function_call_arguments.delta\n" +
		`data: {"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"\"npm test\"}"}` + "\n\n" +
		"event: response.output_item.done\n" +
		`data: {"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"bash","arguments":"{\"command\":\"npm test\"}"}}` + "\n\n" +
		"event: response.completed\n" +
		`data: {"type":"response.completed","response":{"status":"completed","usage":null}}` + "\n\n"
	r := serve(t, http.StatusOK, "text/event-stream", body)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var types []string
	for _, e := range r.Events {
		types = append(types, e.EventType())
	}
	want := []string{"model.started", "tool_intent.delta", "tool_intent.delta", "tool_intent.delta", "tool_intent.proposed", "model.finished"}
	if d := cmp.Diff(want, types); d != "" {
		t.Errorf("event order (-want +got):\n%s", d)
	}
	if d := r.Events[3].(*contract.IntentDelta); d.RawInput != `{"command":"npm test"}` {
		t.Errorf("the last delta holds %q", d.RawInput)
	}
	if p := r.Events[4].(*contract.IntentProposed); string(p.Input) != `{"command":"npm test"}` {
		t.Errorf("proposed input %s", p.Input)
	}
}

// 4. Provider errors are mapped into the taxonomy and never become tool
// observations or intents.
func TestSeedProviderErrorsWithoutObservations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		ct     string
		body   string
	}{
		{"HTTP 429", http.StatusTooManyRequests, "application/json", `{"error":{"message":"Rate limit reached for gpt-5. Please try again in 1s.","type":"requests","code":"rate_limit_exceeded"}}`},
		{"mid-stream", http.StatusOK, "text/event-stream", fixture(t, "error_event.sse")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := serve(t, tc.status, tc.ct, tc.body)
			if r.Err == nil || r.Err.Kind != contract.KindRateLimit || !r.Err.Retryable || r.Err.RetryAfterMS == 0 {
				t.Fatalf("error %+v, want a retryable rate_limit with a retry hint", r.Err)
			}
			for _, e := range r.Events {
				switch e.(type) {
				case *contract.ModelStarted:
				default:
					t.Errorf("event %s besides the error", e.EventType())
				}
			}
		})
	}
}

// 5. The adapter is request-scoped: it holds no conversation, and one
// stream's half-assembled calls never leak into the next.
func TestSeedRequestScoped(t *testing.T) {
	typ := reflect.TypeFor[Adapter]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		switch f.Type {
		case reflect.TypeFor[[]contract.ModelMessage](), reflect.TypeFor[*contract.ModelRequest](), reflect.TypeFor[*provider.Assembler]():
			t.Errorf("Adapter holds %s %s: per-request state", f.Name, f.Type)
		}
	}
	// One adapter, one server: the first request's stream breaks off
	// inside a call, the second one is complete, the third is the first
	// again.
	bodies := []string{fixture(t, "truncated.sse"), fixture(t, "noarg.sse"), fixture(t, "truncated.sse")}
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Request-Id", "req_fixture")
		io.WriteString(w, bodies[int(served.Add(1)-1)%len(bodies)]) // the client going away is not the test's failure
	}))
	defer srv.Close()
	a := newAdapter(srv.URL)
	first := providertest.Collect(t, t.Context(), a, testRequest())
	if first.Err == nil || first.Err.Kind != contract.KindStreamInterrupted {
		t.Fatalf("first stream: %v", first.Err)
	}
	second := providertest.Collect(t, t.Context(), a, testRequest())
	alone := serve(t, http.StatusOK, "text/event-stream", fixture(t, "noarg.sse"))
	if d := cmp.Diff(render(alone), render(second)); d != "" {
		t.Errorf("a stream after an interrupted one differs from a stream alone (-alone +after):\n%s", d)
	}
	again := providertest.Collect(t, t.Context(), a, testRequest())
	if d := cmp.Diff(render(first), render(again)); d != "" {
		t.Errorf("the same request twice gave different events (-first +again):\n%s", d)
	}
}

// 6. Projected observations (tool messages) become the vendor's tool-result
// items, tied to their calls, and reach the server as such.
func TestSeedObservationsBecomeToolResults(t *testing.T) {
	var body []byte
	url := newCaptureServer(t, fixture(t, "text.sse"), func(_ *http.Request, b []byte) { body = b })
	r := providertest.Collect(t, t.Context(), newAdapter(url), conversation())
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	_, input := wireInput(t, body)
	var outputs []map[string]any
	for _, it := range input {
		if it["type"] == "function_call_output" {
			outputs = append(outputs, it)
		}
	}
	want := []map[string]any{
		{"type": "function_call_output", "call_id": "call_Ab12", "output": "npm test failed with exit code 1\nexpected 3, got 4"},
		{"type": "function_call_output", "call_id": "in_02", "output": "export const sum = (a, b) => a + b + 1;"},
	}
	if d := cmp.Diff(want, outputs); d != "" {
		t.Errorf("tool results (-want +got):\n%s", d)
	}
	calls := slices.IndexFunc(input, func(it map[string]any) bool { return it["type"] == "function_call" })
	results := slices.IndexFunc(input, func(it map[string]any) bool { return it["type"] == "function_call_output" })
	if calls < 0 || results < calls {
		t.Errorf("the results do not follow their calls: %v", input)
	}
}
