package gemini

import (
	"encoding/json"
	"go/build"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Suite{
		New: func(baseURL string) provider.Provider {
			return New(&Options{BaseURL: baseURL, APIKey: "test-key"})
		},
		Text:      readFixture(t, "text.sse"),
		ToolCalls: readFixture(t, "tool_calls.sse"),
		// The terminal frame is the chunk whose candidate has a
		// finishReason; a body cut anywhere before that key is cut before
		// the terminal frame is complete.
		Terminal: `"finishReason"`,
	})
}

// The six tests of the seed chapter ("Provider Runtime"), for this adapter.

// 1. A provider tool call is normalized into a tool intent.
func TestSeedToolCallsNormalizedIntoIntents(t *testing.T) {
	body := `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"call_1","name":"bash","args":{"command":"npm test"}}}]},"finishReason":"STOP"}]}` + "\r\n\r\n"
	r := providertest.Collect(t, t.Context(), serve(t, http.StatusOK, "text/event-stream", body), userRequest())
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	want := proposed("call_1", "bash", `{"command":"npm test"}`, `{"command":"npm test"}`, from(1, 0, 0))
	if !slices.ContainsFunc(r.Events, func(e contract.ModelEvent) bool { return cmp.Equal(e, want) }) {
		t.Errorf("no tool_intent.proposed for bash {command: npm test} among:\n%s", strings.Join(providertest.JSON(r.Events), "\n"))
	}
}

// 2. The provider runtime does not execute tools: the package cannot
// start a process or reach the tool runtime, and a stream with tool calls
// yields nothing but model events.
func TestSeedNoToolExecutedInsideTheProvider(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if imp == "os/exec" || imp == "os" || imp == "syscall" ||
			strings.Contains(imp, "/internal/tool") || strings.Contains(imp, "/internal/permission") ||
			strings.Contains(imp, "/internal/kernel") || strings.Contains(imp, "/internal/cli") {
			t.Errorf("the adapter imports %s", imp)
		}
	}
	r := providertest.Collect(t, t.Context(), serve(t, http.StatusOK, "text/event-stream", readFixture(t, "tool_calls.sse")), userRequest())
	for _, e := range r.Events {
		switch e.(type) {
		case *contract.ModelStarted, *contract.TextDelta, *contract.ReasoningDelta, *contract.IntentDelta,
			*contract.IntentProposed, *contract.ModelUsage, *contract.ModelFinished:
		default:
			t.Errorf("the stream yielded a %s", e.EventType())
		}
	}
}

// 3. Streamed tool-call deltas are assembled before the intent is
// proposed: the exact event order.
func TestSeedDeltasAssembledBeforeProposing(t *testing.T) {
	body := `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"bash","partialArgs":[{"jsonPath":"$.command","stringValue":"npm","willContinue":true}],"willContinue":true}}]}}]}` + "\r\n\r\n" +
		`data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.command","stringValue":" test"}]}}]},"finishReason":"STOP"}]}` + "\r\n\r\n"
	r := providertest.Collect(t, t.Context(), serve(t, http.StatusOK, "text/event-stream", body), userRequest())
	var types []string
	for _, e := range r.Events {
		types = append(types, e.EventType())
	}
	want := []string{"model.started", "tool_intent.delta", "tool_intent.delta", "tool_intent.proposed", "model.finished"}
	if d := cmp.Diff(want, types); d != "" || r.Err != nil {
		t.Fatalf("event types mismatch (-want +got):\n%s\nerror: %v", d, r.Err)
	}
	p := r.Events[3].(*contract.IntentProposed)
	if string(p.Input) != `{"command":"npm test"}` {
		t.Errorf("proposed input %s", p.Input)
	}
}

// 4. Provider errors are mapped into the taxonomy, and nothing that looks
// like a tool observation comes with them.
func TestSeedProviderErrorsWithoutObservations(t *testing.T) {
	a := serve(t, http.StatusTooManyRequests, "application/json", readFixture(t, "http_429.json"))
	r := providertest.Collect(t, t.Context(), a, userRequest())
	if r.Err == nil || r.Err.Kind != contract.KindRateLimit || !r.Err.Retryable || r.Err.RetryAfterMS != 13000 {
		t.Fatalf("error %+v, want a retryable rate_limit with a 13s hint", r.Err)
	}
	for _, e := range r.Events {
		if strings.HasPrefix(e.EventType(), "tool.") || strings.HasPrefix(e.EventType(), "tool_intent.") {
			t.Errorf("a provider error came with a %s", e.EventType())
		}
	}
}

// 5. The runtime is request-scoped: two streams of one adapter share
// nothing, whatever the order or the overlap, and the adapter holds no
// conversation.
func TestSeedRequestScoped(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if strings.Contains(string(b), "first") {
			io.WriteString(w, readFixture(t, "parallel.sse"))
			return
		}
		io.WriteString(w, readFixture(t, "tool_calls.sse"))
	}))
	defer srv.Close()
	a := New(&Options{BaseURL: srv.URL})
	first := &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "first"}}}
	second := &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "second"}}}
	alone1 := providertest.JSON(providertest.Collect(t, t.Context(), a, first).Events)
	alone2 := providertest.JSON(providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), second).Events)
	// Interleave the two streams by hand, one event at a time.
	next1, stop1 := iterPull(a.Stream(t.Context(), first))
	defer stop1()
	next2, stop2 := iterPull(a.Stream(t.Context(), second))
	defer stop2()
	var got1, got2 []contract.ModelEvent
	for more1, more2 := true, true; more1 || more2; {
		var e contract.ModelEvent
		if e, more1 = next1(); more1 {
			got1 = append(got1, e)
		}
		if e, more2 = next2(); more2 {
			got2 = append(got2, e)
		}
	}
	if d := cmp.Diff(alone1, providertest.JSON(got1)); d != "" {
		t.Errorf("the first stream changed when interleaved (-alone +interleaved):\n%s", d)
	}
	if d := cmp.Diff(alone2, providertest.JSON(got2)); d != "" {
		t.Errorf("the second stream changed when interleaved (-alone +interleaved):\n%s", d)
	}
	// Each request carries its own conversation only.
	for _, b := range bodies {
		if strings.Contains(b, "first") && strings.Contains(b, "second") {
			t.Errorf("a request carries both conversations: %s", b)
		}
	}
}

// iterPull pulls events from a stream one at a time; an error ends it.
func iterPull(seq func(func(contract.ModelEvent, error) bool)) (func() (contract.ModelEvent, bool), func()) {
	ch := make(chan contract.ModelEvent)
	done := make(chan struct{})
	go func() {
		defer close(ch)
		for ev, err := range seq {
			if err != nil {
				return
			}
			select {
			case ch <- ev:
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return func() (contract.ModelEvent, bool) {
			e, ok := <-ch
			return e, ok
		}, func() {
			once.Do(func() { close(done) })
		}
}

// 6. Observations the kernel projected (tool messages) become Gemini's
// tool-result messages, functionResponse parts tied to their calls, and
// building the request runs nothing.
func TestSeedProjectedObservationsBecomeFunctionResponses(t *testing.T) {
	req := &contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "fix the tests"},
		{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{IntentID: "int_1", ProviderCallID: "call_1", ToolName: "bash", Input: json.RawMessage(`{"command":"npm test"}`)}}},
		{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "int_1", ProviderCallID: "call_1", ToolName: "bash", Text: "npm test failed with exit code 1", IsError: true}},
	}}
	body, err := BuildRequest(req, "gemini-2.0-flash")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionResponse *struct {
					ID       string            `json:"id"`
					Name     string            `json:"name"`
					Response map[string]string `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	last := got.Contents[len(got.Contents)-1]
	if last.Role != "user" || len(last.Parts) != 1 || last.Parts[0].FunctionResponse == nil {
		t.Fatalf("last content is not a user functionResponse: %s", body)
	}
	fr := last.Parts[0].FunctionResponse
	if fr.ID != "call_1" || fr.Name != "bash" || fr.Response["error"] != "npm test failed with exit code 1" {
		t.Errorf("functionResponse = %+v", fr)
	}
}
