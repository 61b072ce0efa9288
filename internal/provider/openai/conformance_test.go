package openai

import (
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/projection"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Suite{
		New:       func(baseURL string) provider.Provider { return New(&Options{BaseURL: baseURL, APIKey: "sk-test"}) },
		Text:      fixture(t, "text.sse"),
		ToolCalls: fixture(t, "parallel_calls.sse"),
		// The message is complete at its finish_reason, which may be all
		// a server sends ([DONE] is optional after it): a body cut before
		// the finish_reason's value is interrupted, and one cut after it
		// is not.
		Terminal: `"finish_reason":"`,
	})
}

// sse renders frames as an event stream ending in [DONE].
func eventStream(frames ...string) string {
	var b strings.Builder
	for _, f := range frames {
		b.WriteString("data: " + f + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// npmTest is the running example's first turn: bash "npm test", its
// arguments in two fragments.
var npmTest = eventStream(
	`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"npm test\"}"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
)

func streamBody(t *testing.T, body string) providertest.Result {
	t.Helper()
	srv := providertest.Serve(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, body)
	return providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), conversation())
}

// Seed test 1: a provider tool call is normalized into an intent.
func TestNormalizesToolCallsIntoIntents(t *testing.T) {
	r := streamBody(t, npmTest)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var got []contract.ToolIntent
	for _, ev := range r.Events {
		if p, ok := ev.(*contract.IntentProposed); ok {
			got = append(got, p.ToolIntent)
		}
	}
	want := []contract.ToolIntent{{
		ProviderCallID: "call_1", ToolName: "bash", Input: json.RawMessage(`{"command":"npm test"}`), RawInput: `{"command": "npm test"}`,
		Provider:      contract.ProviderRef{Name: "openai", Model: DefaultModel},
		AssembledFrom: contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("proposed intents mismatch (-want +got):\n%s", d)
	}
}

// Seed test 2: the provider runtime executes nothing. The tools the model
// sees have executors that would record a call (and the bash command
// would create a file); the stream only proposes. The package does not
// even import what running something would take.
func TestDoesNotExecuteTools(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "executed")
	var calls atomic.Int32
	exec := func(context.Context, *registry.Call) (registry.Result, error) {
		calls.Add(1)
		return registry.Result{}, nil
	}
	reg, err := registry.New(registry.Tool{
		Name: "bash", Description: "run", InputSchema: json.RawMessage(`{"type":"object"}`),
		Risk: registry.RiskExecute, Concurrency: registry.Exclusive, Execute: exec,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := state.State{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "fix the tests"}}}
	req := projection.Project(&s, reg, nil).Request
	body := eventStream(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":` +
		strconv.Quote(`{"command":"touch `+marker+`"}`) + `}}]},"finish_reason":"tool_calls"}]}`)
	srv := providertest.Serve(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, body)
	r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), req)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, ev := range r.Events {
		switch ev.(type) {
		case *contract.ModelStarted, *contract.TextDelta, *contract.ReasoningDelta, *contract.IntentDelta,
			*contract.IntentProposed, *contract.ModelUsage, *contract.ModelFinished, *contract.ProviderError:
		default:
			t.Errorf("the provider yielded %s, which is not a model event", ev.EventType())
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("a tool executor ran %d times", n)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the proposed command ran: %s exists", marker)
	}

	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, bad := range []string{"os/exec", "/internal/tool", "/internal/permission", "/internal/kernel", "/internal/cli", "/internal/registry", "/internal/state"} {
				if path == bad || strings.HasSuffix(path, bad) || strings.Contains(path, bad+"/") {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}

// Seed test 3: deltas are assembled before the intent is proposed.
func TestAssemblesDeltasBeforeProposing(t *testing.T) {
	r := streamBody(t, npmTest)
	var types []string
	for _, ev := range r.Events {
		types = append(types, ev.EventType())
	}
	want := []string{"model.started", "tool_intent.delta", "tool_intent.delta", "tool_intent.proposed", "model.finished"}
	if d := cmp.Diff(want, types); d != "" {
		t.Errorf("event order mismatch (-want +got):\n%s", d)
	}
	if r.Err != nil {
		t.Error(r.Err)
	}
}

// Seed test 4: provider errors are mapped into the taxonomy and never
// become tool observations.
func TestMapsProviderErrorsWithoutObservations(t *testing.T) {
	for name, serve := range map[string]func(t *testing.T) providertest.Result{
		"HTTP 429": func(t *testing.T) providertest.Result {
			srv := providertest.Serve(t, http.StatusTooManyRequests, http.Header{"Retry-After": {"1"}},
				`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`)
			return providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), conversation())
		},
		"mid-stream": func(t *testing.T) providertest.Result {
			return streamBody(t, "data: "+`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"bash","arguments":"{}"}}]}}]}`+
				"\n\ndata: "+`{"error":{"message":"Rate limit reached, try again in 2s","code":"rate_limit_exceeded"}}`+"\n\n")
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := serve(t)
			if r.Err == nil || r.Err.Kind != contract.KindRateLimit || !r.Err.Retryable || r.Err.RetryAfterMS == 0 {
				t.Errorf("error %+v, want a retryable rate_limit with a retry hint", r.Err)
			}
			// A ModelEvent cannot be an observation at all (the types say
			// so); nor is an intent proposed from a call that failed.
			for _, ev := range r.Events {
				if typ := ev.EventType(); typ == contract.TypeToolObservation || typ == contract.TypeIntentProposed {
					t.Errorf("a failed call yielded %s", typ)
				}
			}
		})
	}
}

// Seed test 5: the adapter is request-scoped: two streams interleaved on
// one adapter yield what each yields alone, and the adapter keeps nothing
// of a conversation.
func TestRequestScoped(t *testing.T) {
	first := eventStream(
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"bash","arguments":"{\"command\":"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`,
	)
	second := eventStream(
		`{"choices":[{"index":0,"delta":{"reasoning_content":"other"}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"list_dir","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	)
	// One server, whose answer depends on the model asked for.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req) // a bad body gets the second answer, and the test fails
		w.Header().Set("Content-Type", "text/event-stream")
		if req.Model == "first" {
			io.WriteString(w, first)
		} else {
			io.WriteString(w, second)
		}
	}))
	defer srv.Close()
	a := New(&Options{BaseURL: srv.URL})
	streamTo := func(model string) iter.Seq2[contract.ModelEvent, error] {
		req := conversation()
		req.Model = model
		return a.Stream(t.Context(), req)
	}
	alone := func(model string) []string {
		var events []contract.ModelEvent
		for ev, err := range streamTo(model) {
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
		}
		return providertest.JSON(events)
	}
	want1, want2 := alone("first"), alone("second")

	// The first stream pauses after two events while the second runs to
	// its end on the same adapter.
	next, stop := iter.Pull2(streamTo("first"))
	defer stop()
	var got1 []contract.ModelEvent
	for range 2 {
		ev, err, ok := next()
		if !ok || err != nil {
			t.Fatalf("first stream: %v %v", err, ok)
		}
		got1 = append(got1, ev)
	}
	var got2 []contract.ModelEvent
	for ev, err := range streamTo("second") {
		if err != nil {
			t.Fatal(err)
		}
		got2 = append(got2, ev)
	}
	for {
		ev, err, ok := next()
		if !ok {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got1 = append(got1, ev)
	}
	if d := cmp.Diff(want1, providertest.JSON(got1)); d != "" {
		t.Errorf("first stream interleaved (-alone +interleaved):\n%s", d)
	}
	if d := cmp.Diff(want2, providertest.JSON(got2)); d != "" {
		t.Errorf("second stream interleaved (-alone +interleaved):\n%s", d)
	}

	// The adapter holds configuration only: no field can hold messages
	// (the client, the extra headers and the logger are configuration).
	typ := reflect.TypeFor[Adapter]()
	for i := range typ.NumField() {
		switch f := typ.Field(i); f.Type.Kind() {
		case reflect.String, reflect.Struct:
		default:
			if f.Name != "client" && f.Name != "header" && f.Name != "logger" {
				t.Errorf("Adapter has a field %s of type %s that could hold a conversation", f.Name, f.Type)
			}
		}
	}
}

// Seed test 6: the observations the core projected become tool-result
// messages of this API, tied to the model's call id.
func TestProjectedObservationsBecomeToolMessages(t *testing.T) {
	r := streamBody(t, npmTest)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	// The kernel's part, by hand: the stream's events and the tool
	// runtime's observation, folded into state.
	envs := []contract.Envelope{{Seq: 1, Data: &contract.UserMessage{Text: "fix the tests"}}}
	for _, ev := range r.Events {
		if contract.IsDelta(ev.EventType()) {
			continue
		}
		if p, ok := ev.(*contract.IntentProposed); ok {
			p.ID = "in_1"
		}
		envs = append(envs, contract.Envelope{Seq: uint64(len(envs) + 1), Data: ev})
	}
	envs = append(envs, contract.Envelope{Seq: uint64(len(envs) + 1), Data: &contract.ToolObservation{Observation: contract.Observation{
		IntentID: "in_1", ToolName: "bash", OK: false, Phase: "execution", Text: "npm test failed with exit code 1",
	}}})
	s := statetest.Reduce(envs)
	body, err := BuildRequest(projection.Project(&s, nil, nil).Request, "gpt-4.1")
	if err != nil {
		t.Fatal(err)
	}
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	want := []wireMessage{
		{Role: "user", Content: "fix the tests"},
		{Role: "assistant", ToolCalls: []wireToolCall{{ID: "call_1", Type: "function", Function: wireFunction{Name: "bash", Arguments: `{"command":"npm test"}`}}}},
		{Role: "tool", ToolCallID: "call_1", Content: "npm test failed with exit code 1"},
	}
	if d := cmp.Diff(want, w.Messages); d != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", d)
	}
}
