package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
)

// collect drains one stream, checking the stream contract on the way: no
// nil event before the end, an error only as the last pair.
func collect(t *testing.T, ctx context.Context, p *Provider, req *contract.ModelRequest) ([]contract.ModelEvent, *contract.ProviderError) {
	t.Helper()
	var events []contract.ModelEvent
	var perr *contract.ProviderError
	for ev, err := range p.Stream(ctx, req) {
		if perr != nil {
			t.Fatalf("stream yielded (%T, %v) after its error", ev, err)
		}
		if err != nil {
			if ev != nil {
				t.Fatalf("error %v yielded with event %T", err, ev)
			}
			if !errors.As(err, &perr) {
				t.Fatalf("error %v is a %T, want *contract.ProviderError", err, err)
			}
			continue
		}
		if ev == nil {
			t.Fatal("stream yielded a nil event without an error")
		}
		events = append(events, ev)
	}
	return events, perr
}

// request returns a request whose conversation holds n assistant messages,
// each followed by a tool result, after one user message.
func request(n int) *contract.ModelRequest {
	req := &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "fix the tests"}}}
	for i := range n {
		req.Messages = append(req.Messages,
			contract.ModelMessage{Role: contract.RoleAssistant, Text: "turn"},
			contract.ModelMessage{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_" + string(rune('a'+i)), Text: "ok"}},
		)
	}
	return req
}

func mustParse(t *testing.T, script string) *Script {
	t.Helper()
	s, err := Parse([]byte(script))
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	return s
}

var ignoreErr = cmpopts.IgnoreFields(contract.ProviderError{}, "Err")

func started(turn, attempt string) *contract.ModelStarted {
	return &contract.ModelStarted{Provider: "scripted", Model: "m", RequestID: "scripted-" + turn + "-" + attempt}
}

func ref(requestID string) contract.ProviderRef {
	return contract.ProviderRef{Name: "scripted", Model: "m", RequestID: requestID}
}

func TestEveryStepKind(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{"steps": [
		{"reasoning": "think"},
		{"text": "Hello "},
		{"text": "world"},
		{"tool": {"index": 0, "id": "call_1", "name": "bash", "args": "{\"command\":"}},
		{"tool": {"index": 0, "args": "\"ls\"}"}},
		{"tool_end": {"index": 0}},
		{"tool": {"id": "call_2", "name": "glob", "input": {"pattern": "*.go", "n": [1, 2]}}},
		{"usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 3, "cache_write_tokens": 2, "reasoning_tokens": 1}},
		{"finish": "tool_use", "provider_state": {"sig": "abc"}}
	]}]}`)
	events, perr := collect(t, t.Context(), New(s, nil), request(0))
	if perr != nil {
		t.Fatalf("unexpected error %v", perr)
	}
	want := []contract.ModelEvent{
		started("1", "1"),
		&contract.ReasoningDelta{Text: "think"},
		&contract.TextDelta{Text: "Hello "},
		&contract.TextDelta{Text: "world"},
		&contract.IntentDelta{Index: 0, ProviderCallID: "call_1", ToolName: "bash", RawInput: `{"command":`},
		&contract.IntentDelta{Index: 0, ProviderCallID: "call_1", ToolName: "bash", RawInput: `{"command":"ls"}`},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ProviderCallID: "call_1", ToolName: "bash",
			Input: json.RawMessage(`{"command":"ls"}`), RawInput: `{"command":"ls"}`,
			Provider:      ref("scripted-1-1"),
			AssembledFrom: contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1},
		}},
		&contract.IntentDelta{Index: 1, ProviderCallID: "call_2", ToolName: "glob", RawInput: `{"pattern":"*.go","n":[1,2]}`},
		&contract.ModelUsage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 3, CacheWriteTokens: 2, ReasoningTokens: 1},
		// finish ends the call still open before model.finished.
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ProviderCallID: "call_2", ToolName: "glob",
			Input: json.RawMessage(`{"pattern":"*.go","n":[1,2]}`), RawInput: `{"pattern":"*.go","n":[1,2]}`,
			Provider:      ref("scripted-1-1"),
			AssembledFrom: contract.Assembly{Fragments: 1, FirstIndex: 2, LastIndex: 2},
		}},
		&contract.ModelFinished{Reason: contract.FinishToolUse, ProviderState: json.RawMessage(`{"sig": "abc"}`)},
	}
	if d := cmp.Diff(want, events); d != "" {
		t.Errorf("events mismatch (-want +got):\n%s", d)
	}
}

func TestErrorStep(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{"steps": [
		{"text": "partial"},
		{"error": {"kind": "server", "message": "boom", "http_status": 502}}
	]}, {"steps": [
		{"error": {"kind": "server", "message": "boom", "retryable": false}}
	]}]}`)
	p := New(s, nil)
	events, perr := collect(t, t.Context(), p, request(0))
	wantEvents := []contract.ModelEvent{started("1", "1"), &contract.TextDelta{Text: "partial"}}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Errorf("events mismatch (-want +got):\n%s", d)
	}
	want := &contract.ProviderError{
		Kind: contract.KindServer, Retryable: true, Provider: "scripted", Model: "m",
		RequestID: "scripted-1-1", HTTPStatus: 502, Message: "boom",
	}
	if d := cmp.Diff(want, perr, ignoreErr); d != "" {
		t.Errorf("error mismatch (-want +got):\n%s", d)
	}
	_, perr = collect(t, t.Context(), p, request(1))
	if perr == nil || perr.Retryable {
		t.Errorf("error %+v: want one with retryable overridden to false", perr)
	}
}

func TestTurnSelection(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [
		{"steps": [{"text": "zero"}, {"finish": "tool_use"}]},
		{"steps": [{"text": "one"}, {"finish": "tool_use"}]},
		{"steps": [{"text": "two"}, {"finish": "stop"}]}
	]}`)
	p := New(s, nil)
	// Out of order and repeated: the request decides, not a cursor.
	for _, n := range []int{2, 0, 1, 1, 0} {
		events, perr := collect(t, t.Context(), p, request(n))
		if perr != nil {
			t.Fatalf("request(%d): error %v", n, perr)
		}
		text := events[1].(*contract.TextDelta).Text
		if want := []string{"zero", "one", "two"}[n]; text != want {
			t.Errorf("request(%d) played %q, want %q", n, text, want)
		}
	}
	// The attempt counts per turn: the second request for turn 2 is attempt 2.
	events, _ := collect(t, t.Context(), p, request(1))
	if got := events[0].(*contract.ModelStarted).RequestID; got != "scripted-2-3" {
		t.Errorf("third request for turn 2 has request id %q, want scripted-2-3", got)
	}

	_, perr := collect(t, t.Context(), p, request(3))
	want := &contract.ProviderError{
		Kind: contract.KindBadRequest, Provider: "scripted", Model: "m",
		Message: "the script has 3 turns; the conversation asks for turn 4",
	}
	if d := cmp.Diff(want, perr, ignoreErr); d != "" {
		t.Errorf("past the script: error mismatch (-want +got):\n%s", d)
	}
}

func TestFailThenSucceed(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{
		"fail": [
			{"kind": "rate_limit", "message": "slow down", "http_status": 429, "retry_after_ms": 1000},
			{"kind": "stream_interrupted", "message": "reset", "steps": [
				{"text": "Let me"},
				{"tool": {"index": 0, "id": "c1", "name": "bash", "args": "{\"command\":\"ls\"}"}}
			]},
			{"kind": "overloaded", "retryable": false}
		],
		"steps": [{"text": "ok"}, {"finish": "stop"}]
	}]}`)
	p := New(s, nil)

	events, perr := collect(t, t.Context(), p, request(0))
	want := &contract.ProviderError{
		Kind: contract.KindRateLimit, Retryable: true, Provider: "scripted", Model: "m",
		RequestID: "scripted-1-1", HTTPStatus: 429, Message: "slow down", RetryAfterMS: 1000,
	}
	if len(events) != 0 {
		t.Errorf("attempt 1 yielded %d events before its error, want none", len(events))
	}
	if d := cmp.Diff(want, perr, ignoreErr); d != "" {
		t.Errorf("attempt 1: error mismatch (-want +got):\n%s", d)
	}
	if perr.RetryAfter() != time.Second {
		t.Errorf("RetryAfter() = %v, want 1s", perr.RetryAfter())
	}

	events, perr = collect(t, t.Context(), p, request(0))
	wantEvents := []contract.ModelEvent{
		started("1", "2"),
		&contract.TextDelta{Text: "Let me"},
		&contract.IntentDelta{ProviderCallID: "c1", ToolName: "bash", RawInput: `{"command":"ls"}`},
	}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Errorf("attempt 2: events mismatch (-want +got):\n%s", d)
	}
	if perr == nil || perr.Kind != contract.KindStreamInterrupted || !perr.Retryable || perr.RequestID != "scripted-1-2" {
		t.Errorf("attempt 2: error %+v, want retryable stream_interrupted of scripted-1-2", perr)
	}

	_, perr = collect(t, t.Context(), p, request(0))
	if perr == nil || perr.Kind != contract.KindOverloaded || perr.Retryable {
		t.Errorf("attempt 3: error %+v, want overloaded, not retryable", perr)
	}

	events, perr = collect(t, t.Context(), p, request(0))
	if perr != nil {
		t.Fatalf("attempt 4: error %v, want success", perr)
	}
	wantEvents = []contract.ModelEvent{started("1", "4"), &contract.TextDelta{Text: "ok"}, &contract.ModelFinished{Reason: contract.FinishStop}}
	if d := cmp.Diff(wantEvents, events); d != "" {
		t.Errorf("attempt 4: events mismatch (-want +got):\n%s", d)
	}
}

func TestAssembledIntent(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	events, perr := collect(t, t.Context(), New(s, nil), request(0))
	if perr != nil {
		t.Fatalf("unexpected error %v", perr)
	}
	var intents []*contract.IntentProposed
	deltas := 0
	for _, ev := range events {
		switch ev := ev.(type) {
		case *contract.IntentProposed:
			intents = append(intents, ev)
		case *contract.IntentDelta:
			deltas++
		}
	}
	want := []*contract.IntentProposed{{ToolIntent: contract.ToolIntent{
		ProviderCallID: "call_1",
		ToolName:       "bash",
		Input:          json.RawMessage(`{"command":"go test ./..."}`),
		RawInput:       `{"command":"go test ./..."}`,
		Provider:       contract.ProviderRef{Name: "scripted", Model: "scripted-demo", RequestID: "scripted-1-1"},
		AssembledFrom:  contract.Assembly{Fragments: 3, FirstIndex: 0, LastIndex: 2},
	}}}
	if d := cmp.Diff(want, intents); d != "" {
		t.Errorf("intents mismatch (-want +got):\n%s", d)
	}
	if deltas != 3 {
		t.Errorf("%d tool_intent.delta events, want 3", deltas)
	}
	last, ok := events[len(events)-1].(*contract.ModelFinished)
	if !ok || last.Reason != contract.FinishToolUse || string(last.ProviderState) != `{"any": "opaque json, optional"}` {
		t.Errorf("last event %#v, want model.finished tool_use with the provider state", events[len(events)-1])
	}
}

func TestMalformedCallDoesNotStopTheStream(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{"steps": [
		{"tool": {"index": 0, "id": "c1", "name": "bash", "args": "{\"command\": \"ls"}},
		{"tool_end": {"index": 0}},
		{"tool": {"index": 1, "id": "c2", "name": "bash", "args": "{\"command\": \"pwd\"}"}},
		{"finish": "tool_use"}
	]}]}`)
	events, perr := collect(t, t.Context(), New(s, nil), request(0))
	if perr != nil {
		t.Fatalf("terminal error %v, want none", perr)
	}
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev.EventType())
	}
	want := []string{
		contract.TypeModelStarted, contract.TypeIntentDelta, contract.TypeProviderError,
		contract.TypeIntentDelta, contract.TypeIntentProposed, contract.TypeModelFinished,
	}
	if d := cmp.Diff(want, kinds); d != "" {
		t.Fatalf("event types mismatch (-want +got):\n%s", d)
	}
	pe := events[2].(*contract.ProviderError)
	if pe.Kind != contract.KindMalformedToolCall || pe.RequestID != "scripted-1-1" || !strings.Contains(pe.Message, `"bash"`) {
		t.Errorf("mid-stream error %+v, want malformed_tool_call naming bash", pe)
	}
	if got := events[4].(*contract.IntentProposed).ProviderCallID; got != "c2" {
		t.Errorf("proposed call %q, want c2", got)
	}
}

func TestInterruptedTurnProposesNothing(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{"steps": [
		{"text": "running"},
		{"tool": {"index": 0, "id": "c1", "name": "bash", "args": "{\"command\":\"rm -rf build\"}"}},
		{"tool": {"index": 1, "id": "c2", "name": "bash", "args": "{\"command\":"}}
	]}]}`)
	events, perr := collect(t, t.Context(), New(s, nil), request(0))
	for _, ev := range events {
		if _, ok := ev.(*contract.IntentProposed); ok {
			t.Errorf("an interrupted stream proposed %+v", ev)
		}
		if _, ok := ev.(*contract.ModelFinished); ok {
			t.Error("an interrupted stream finished")
		}
	}
	if perr == nil || perr.Kind != contract.KindStreamInterrupted || !perr.Retryable {
		t.Errorf("terminal error %+v, want retryable stream_interrupted", perr)
	}
}

func TestEarlyBreak(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{"steps": [
		{"text": "a"}, {"text": "b"}, {"text": "c"}, {"finish": "stop"}
	]}]}`)
	p := New(s, nil)
	for stop := 1; stop <= 4; stop++ {
		calls := 0
		p.Stream(t.Context(), request(0))(func(contract.ModelEvent, error) bool {
			calls++
			return calls < stop
		})
		if calls != stop {
			t.Errorf("yield returned false at call %d, but was called %d times", stop, calls)
		}
	}
	// A range loop that breaks: the runtime panics if the iterator yields
	// again.
	for ev := range p.Stream(t.Context(), request(0)) {
		if _, ok := ev.(*contract.TextDelta); ok {
			break
		}
	}
}

func TestCancelled(t *testing.T) {
	s := mustParse(t, `{"model": "m", "turns": [{"steps": [
		{"text": "a"}, {"text": "b"}, {"finish": "stop"}
	]}]}`)

	t.Run("before the request", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		p := New(s, nil)
		events, perr := collect(t, ctx, p, request(0))
		if len(events) != 0 || perr == nil || perr.Kind != contract.KindAborted {
			t.Fatalf("got %d events and %+v, want only an aborted error", len(events), perr)
		}
		if !errors.Is(perr, context.Canceled) {
			t.Errorf("aborted error does not wrap context.Canceled")
		}
		// A cancelled request never reached the "server": it is not counted.
		events, _ = collect(t, t.Context(), p, request(0))
		if got := events[0].(*contract.ModelStarted).RequestID; got != "scripted-1-1" {
			t.Errorf("request id after a cancelled request = %q, want scripted-1-1", got)
		}
	})

	t.Run("between steps", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var events []contract.ModelEvent
		var last error
		for ev, err := range New(s, nil).Stream(ctx, request(0)) {
			if err != nil {
				last = err
				break
			}
			events = append(events, ev)
			if _, ok := ev.(*contract.TextDelta); ok {
				cancel()
			}
		}
		var perr *contract.ProviderError
		if !errors.As(last, &perr) || perr.Kind != contract.KindAborted || perr.RequestID != "scripted-1-1" {
			t.Fatalf("terminal error %v, want aborted for scripted-1-1", last)
		}
		if len(events) != 2 {
			t.Errorf("%d events before the abort, want 2 (started, first text)", len(events))
		}
	})

	t.Run("during the chunk delay", func(t *testing.T) {
		hour := time.Hour
		p := New(s, &Options{ChunkDelay: &hour})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		var last error
		for _, err := range p.Stream(ctx, request(0)) {
			if err != nil {
				last = err
			}
			cancel() // after model.started, while the first step waits
		}
		var perr *contract.ProviderError
		if !errors.As(last, &perr) || perr.Kind != contract.KindAborted {
			t.Fatalf("terminal error %v, want aborted", last)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("cancelling took %v: the delay did not watch ctx", d)
		}
	})
}

func TestOptions(t *testing.T) {
	s := mustParse(t, `{"model": "from-script", "chunk_delay_ms": 3600000, "turns": [{"steps": [{"finish": "stop"}]}]}`)
	zero := time.Duration(0)
	p := New(s, &Options{Name: "demo", Model: "from-options", ChunkDelay: &zero})
	events, perr := collect(t, t.Context(), p, request(0))
	if perr != nil {
		t.Fatal(perr)
	}
	want := &contract.ModelStarted{Provider: "demo", Model: "from-options", RequestID: "scripted-1-1"}
	if d := cmp.Diff(want, events[0]); d != "" {
		t.Errorf("options: model.started mismatch (-want +got):\n%s", d)
	}

	// A request's own model wins, as a real vendor reports what was asked.
	req := request(0)
	req.Model = "from-request"
	events, _ = collect(t, t.Context(), p, req)
	if got := events[0].(*contract.ModelStarted).Model; got != "from-request" {
		t.Errorf("model with req.Model set = %q, want from-request", got)
	}

	// Defaults: no name, no model anywhere.
	events, _ = collect(t, t.Context(), New(mustParse(t, `{"turns": [{"steps": [{"finish": "stop"}]}]}`), nil), request(0))
	want = &contract.ModelStarted{Provider: "scripted", Model: "scripted", RequestID: "scripted-1-1"}
	if d := cmp.Diff(want, events[0]); d != "" {
		t.Errorf("defaults: model.started mismatch (-want +got):\n%s", d)
	}
}

func TestChunkDelay(t *testing.T) {
	s := mustParse(t, `{"chunk_delay_ms": 5, "turns": [{"steps": [{"text": "a"}, {"text": "b"}, {"finish": "stop"}]}]}`)
	start := time.Now()
	_, perr := collect(t, t.Context(), New(s, nil), request(0))
	if perr != nil {
		t.Fatal(perr)
	}
	if d := time.Since(start); d < 15*time.Millisecond {
		t.Errorf("three steps with a 5ms delay took %v, want at least 15ms", d)
	}
}

// TestDeterminism plays every turn of the example on two fresh providers,
// retrying failures as a kernel would, and expects identical streams.
func TestDeterminism(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	play := func() [][]contract.ModelEvent {
		p := New(s, nil)
		var runs [][]contract.ModelEvent
		for n := range s.Turns() {
			for {
				events, perr := collect(t, t.Context(), p, request(n))
				if perr != nil {
					events = append(events, perr)
				}
				runs = append(runs, events)
				if perr == nil {
					break
				}
				if !perr.Retryable {
					t.Fatalf("turn %d: %v", n+1, perr)
				}
			}
		}
		return runs
	}
	first, second := play(), play()
	if len(first) != 6 {
		t.Errorf("%d streams played, want 6 (4 turns, 2 failures)", len(first))
	}
	if d := cmp.Diff(first, second, ignoreErr); d != "" {
		t.Errorf("two runs differ (-first +second):\n%s", d)
	}
}

func TestConcurrentStreams(t *testing.T) {
	s := mustParse(t, `{"turns": [{"fail": [{"kind": "rate_limit"}, {"kind": "rate_limit"}], "steps": [{"finish": "stop"}]}]}`)
	p := New(s, nil)
	results := make(chan bool)
	for range 10 {
		go func() {
			_, perr := collect(t, t.Context(), p, request(0))
			results <- perr == nil
		}()
	}
	ok := 0
	for range 10 {
		if <-results {
			ok++
		}
	}
	if ok != 8 {
		t.Errorf("%d of 10 concurrent requests succeeded, want 8 (two served the fail list)", ok)
	}
}

func TestSummaryTurnAnswersACompaction(t *testing.T) {
	p := New(mustParse(t, `{"turns":[{"steps":[{"text":"one"},{"finish":"stop"}]},{"steps":[{"text":"two"},{"finish":"stop"}]}],
		"summary":{"fail":[{"kind":"server","message":"busy"}],"steps":[{"text":"the summary"},{"finish":"stop"}]}}`), nil)
	summary := &contract.ModelRequest{Purpose: contract.PurposeCompaction, Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "summarise"}}}
	if _, perr := collect(t, t.Context(), p, summary); perr == nil || perr.Kind != contract.KindServer {
		t.Fatalf("first summary request: %v, want the scripted failure", perr)
	}
	events, perr := collect(t, t.Context(), p, summary)
	if perr != nil || len(events) < 2 || events[1].(*contract.TextDelta).Text != "the summary" {
		t.Fatalf("second summary request: %v %v", events, perr)
	}
	// After a compaction, the turns the summary stands for still count.
	req := request(0)
	req.Summarised = 1
	events, perr = collect(t, t.Context(), p, req)
	if perr != nil || events[1].(*contract.TextDelta).Text != "two" {
		t.Fatalf("a request after a compaction of one turn: %v %v, want turn 2", events, perr)
	}
	none := New(mustParse(t, `{"turns":[{"steps":[{"finish":"stop"}]}]}`), nil)
	if _, perr := collect(t, t.Context(), none, summary); perr == nil || !strings.Contains(perr.Message, "summary") {
		t.Errorf("a script without a summary turn: %v", perr)
	}
}
