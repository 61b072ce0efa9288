package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// stream returns a provider that yields events and then, if err is not
// nil, err; it records every request it gets.
func stream(reqs *[]*contract.ModelRequest, err error, events ...contract.ModelEvent) provider.Provider {
	return providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			if reqs != nil {
				*reqs = append(*reqs, req)
			}
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
			}
			if err != nil {
				yield(nil, err)
			}
		}
	})
}

func intent(name, input string) *contract.IntentProposed {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: "call_1", ToolName: name, Input: json.RawMessage(input), RawInput: input,
		Provider: contract.ProviderRef{Name: "fake", Model: "m"},
	}}
}

// runTests is the seed's tool: executing it fails the test.
func runTests(t *testing.T) registry.Tool {
	return registry.Tool{
		Name: "run_tests", Description: "run the tests", Risk: registry.RiskExecute, Concurrency: registry.Exclusive,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`),
		Execute: func(context.Context, *registry.Call) (registry.Result, error) {
			t.Error("run_tests was executed: the kernel must only record the intent")
			return registry.Result{}, nil
		},
	}
}

func newKernel(t *testing.T, p provider.Provider, tools ...registry.Tool) (*Kernel, *eventlog.Log) {
	t.Helper()
	reg, err := registry.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	// One attempt and no fallback: these tests look at a single call; the
	// failure policy has its own tests.
	k, err := New(p, log, &Options{ProviderName: "fake", Model: "m", Registry: reg, Cwd: "/work", Version: "test",
		Capabilities: provider.Capabilities{Streaming: true, Tools: true}, Retry: RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

func collect(t *testing.T, seq iter.Seq2[contract.Envelope, error]) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	for env, err := range seq {
		if err != nil {
			t.Fatalf("Send yielded a runtime error: %v", err)
		}
		out = append(out, env)
	}
	return out
}

func types(envs []contract.Envelope) []string {
	var out []string
	for _, e := range envs {
		out = append(out, e.Type())
	}
	return out
}

func durable(t *testing.T, log *eventlog.Log) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	for env, err := range log.Events(1) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

func TestRecordsToolIntentWithoutExecutingIt(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil,
		&contract.ModelStarted{Provider: "fake", Model: "m", RequestID: "req_1"},
		&contract.TextDelta{Text: "我需要先"},
		&contract.TextDelta{Text: "运行测试。"},
		intent("run_tests", `{"command":"npm test"}`),
		&contract.ModelUsage{InputTokens: 100, OutputTokens: 20},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
	), runTests(t))
	out := collect(t, k.Send(t.Context(), Input{Text: "修复测试"}))

	var proposed *contract.IntentProposed
	for _, env := range out {
		if p, ok := env.Data.(*contract.IntentProposed); ok {
			proposed = p
		}
	}
	if proposed == nil || proposed.ToolName != "run_tests" {
		t.Fatalf("outputs %v: want a tool_intent.proposed for run_tests", types(out))
	}
	if !strings.HasPrefix(proposed.ID, "int_") {
		t.Errorf("intent id = %q, want rein's own id (int_...), not the provider's", proposed.ID)
	}
	st := k.State()
	if st.Status != state.WaitingForTool || len(st.Pending) != 1 || st.Pending[0].ID != proposed.ID {
		t.Errorf("state: status %q, pending %+v; want waiting_for_tool with the intent pending", st.Status, st.Pending)
	}
	want := []string{
		contract.TypeSessionStarted, contract.TypeUserMessage, contract.TypeRunStarted, contract.TypeContextProjected, contract.TypeModelRequested,
		contract.TypeModelStarted, contract.TypeModelText, contract.TypeIntentProposed, contract.TypeModelUsage,
		contract.TypeModelFinished,
	}
	if d := cmp.Diff(want, types(durable(t, log))); d != "" {
		t.Errorf("durable log mismatch (-want +got):\n%s", d)
	}
}

func TestUserInputBecomesUserMessage(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil, &contract.ModelFinished{Reason: contract.FinishStop}))
	collect(t, k.Send(t.Context(), Input{Text: "hello"}))
	for _, env := range durable(t, log) {
		if m, ok := env.Data.(*contract.UserMessage); ok {
			if m.Text != "hello" || env.Seq == 0 || env.Session != k.Session() || env.ID == "" {
				t.Errorf("user.message = %+v in %+v", m, env)
			}
			return
		}
	}
	t.Fatal("no user.message in the log")
}

// What the person saw as they sent a message is recorded beside it when
// it differs (a collapsed paste), and the model is given the text.
func TestUserMessageKeepsWhatWasShown(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil, &contract.ModelFinished{Reason: contract.FinishStop}))
	pasted := "why?\n" + strings.Repeat("FAIL line\n", 120)
	collect(t, k.Send(t.Context(), Input{Text: pasted, Display: "why?\n[pasted 120 lines]"}))
	collect(t, k.Send(t.Context(), Input{Text: "typed", Display: "typed"}))
	var got []contract.UserMessage
	for _, env := range durable(t, log) {
		if m, ok := env.Data.(*contract.UserMessage); ok {
			got = append(got, *m)
		}
	}
	want := []contract.UserMessage{{Text: pasted, Display: "why?\n[pasted 120 lines]"}, {Text: "typed"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("user.message (-want +got):\n%s", d)
	}
	if st := k.State(); st.LastUser != "typed" || !strings.Contains(st.Messages[0].Text, "FAIL line") {
		t.Errorf("the model is not given the text: %+v", st.Messages[0])
	}
}

func TestTextDeltaReachesBusAndLogOnce(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil,
		&contract.TextDelta{Text: "All "},
		&contract.TextDelta{Text: "good."},
		&contract.ReasoningDelta{Text: "hmm"},
		&contract.TextDelta{Text: " Bye."},
		&contract.ModelFinished{Reason: contract.FinishStop},
	))
	sub := log.Subscribe()
	out := collect(t, k.Send(t.Context(), Input{Text: "hi"}))

	var outText strings.Builder
	for _, env := range out {
		if d, ok := env.Data.(*contract.TextDelta); ok {
			if env.Seq != 0 {
				t.Errorf("a delta has seq %d", env.Seq)
			}
			outText.WriteString(d.Text)
		}
	}
	if outText.String() != "All good. Bye." {
		t.Errorf("deltas yielded to the caller = %q", outText.String())
	}
	var busText strings.Builder
	for {
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // drain what is queued without waiting
		env, err := sub.Next(ctx)
		if err != nil {
			break
		}
		if d, ok := env.Data.(*contract.TextDelta); ok {
			busText.WriteString(d.Text)
		}
	}
	if busText.String() != "All good. Bye." {
		t.Errorf("deltas on the bus = %q", busText.String())
	}
	var texts []string
	for _, env := range durable(t, log) {
		if contract.IsDelta(env.Type()) {
			t.Errorf("a delta reached the durable log: %+v", env)
		}
		if m, ok := env.Data.(*contract.ModelText); ok {
			texts = append(texts, m.Text)
		}
	}
	if d := cmp.Diff([]string{"All good.", " Bye."}, texts); d != "" {
		t.Errorf("model.text events mismatch (-want +got):\n%s", d)
	}
	if st := k.State(); st.Status != state.Completed || st.Messages[1].Text != "All good.\n\n Bye." || st.Messages[1].Reasoning != "hmm" {
		t.Errorf("state after the run: %q, %+v", st.Status, st.Messages)
	}
}

func TestStateRebuiltFromEventsEqualsLive(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil,
		&contract.ModelStarted{Provider: "fake"},
		&contract.ReasoningDelta{Text: "run the tests"},
		&contract.TextDelta{Text: "Running the tests."},
		intent("run_tests", `{"command":"npm test"}`),
		&contract.ModelFinished{Reason: contract.FinishToolUse, ProviderState: json.RawMessage(`{"signature":"abc"}`)},
	), runTests(t))
	collect(t, k.Send(t.Context(), Input{Text: "fix the tests"}))
	rebuilt, err := state.Reduce(log.Events(1))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(k.State(), rebuilt); d != "" {
		t.Errorf("rebuilt state != live state (-live +rebuilt):\n%s", d)
	}
	if rebuilt.Status != state.WaitingForTool {
		t.Errorf("rebuilt status = %q, want waiting_for_tool", rebuilt.Status)
	}
	// A new kernel over the same log continues the session.
	k2, err := New(stream(nil, nil), log, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k2.Session() != k.Session() || k2.State().Status != state.WaitingForTool {
		t.Errorf("reopened kernel: session %q status %q", k2.Session(), k2.State().Status)
	}
}

func TestOnlyVisibleToolsReachTheProvider(t *testing.T) {
	var reqs []*contract.ModelRequest
	hidden := runTests(t)
	hidden.Name = "deploy"
	hidden.Visible = func(*state.State) bool { return false }
	k, log := newKernel(t, stream(&reqs, nil, &contract.ModelFinished{Reason: contract.FinishStop}), runTests(t), hidden)
	collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	if len(reqs) != 1 {
		t.Fatalf("provider got %d requests, want 1", len(reqs))
	}
	var names []string
	for _, tool := range reqs[0].Tools {
		names = append(names, tool.Name)
	}
	if d := cmp.Diff([]string{"run_tests"}, names); d != "" {
		t.Errorf("tools in the request mismatch (-want +got):\n%s", d)
	}
	for _, env := range durable(t, log) {
		if r, ok := env.Data.(*contract.ModelRequested); ok {
			if d := cmp.Diff([]string{"run_tests"}, r.ToolNames); d != "" {
				t.Errorf("model.requested tool names mismatch (-want +got):\n%s", d)
			}
		}
	}
}

func TestProviderErrorBecomesAnEvent(t *testing.T) {
	for name, tc := range map[string]struct {
		err     error
		kind    contract.ErrorKind
		outcome contract.Outcome
	}{
		"rate limit":    {&contract.ProviderError{Kind: contract.KindRateLimit, Retryable: true, HTTPStatus: 429, Message: "slow down"}, contract.KindRateLimit, contract.OutcomeFailed},
		"foreign error": {errors.New("boom"), contract.KindUnknown, contract.OutcomeFailed},
		"aborted":       {&contract.ProviderError{Kind: contract.KindAborted, Message: "context canceled"}, contract.KindAborted, contract.OutcomeCancelled},
	} {
		t.Run(name, func(t *testing.T) {
			k, log := newKernel(t, stream(nil, tc.err, &contract.TextDelta{Text: "half an ans"}))
			out := collect(t, k.Send(t.Context(), Input{Text: "hi"}))
			got := types(out)
			want := []string{contract.TypeSessionStarted, contract.TypeUserMessage, contract.TypeRunStarted, contract.TypeContextProjected, contract.TypeModelRequested,
				contract.TypeTextDelta, contract.TypeModelText, contract.TypeProviderError, contract.TypeModelDiscarded, contract.TypeRunFinished}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("outputs mismatch (-want +got):\n%s", d)
			}
			pe := out[7].Data.(*contract.ProviderError)
			if pe.Kind != tc.kind || pe.Provider != "fake" || pe.Model != "m" {
				t.Errorf("provider.error = %+v", pe)
			}
			st := k.State()
			if st.Outcome != tc.outcome || st.LastError == nil || len(st.Messages) != 1 {
				t.Errorf("state: outcome %q, last error %v, %d messages; want %q, the error, only the user message", st.Outcome, st.LastError, len(st.Messages), tc.outcome)
			}
			if n := len(durable(t, log)); n != len(want)-1 {
				t.Errorf("durable events = %d, want %d", n, len(want)-1)
			}
		})
	}
}

func TestStreamWithoutFinishIsInterrupted(t *testing.T) {
	k, _ := newKernel(t, stream(nil, nil, &contract.TextDelta{Text: "and then"}))
	collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	st := k.State()
	if st.LastError == nil || st.LastError.Kind != contract.KindStreamInterrupted || st.Status != state.Failed {
		t.Errorf("state = %q, last error %v; want failed with stream_interrupted", st.Status, st.LastError)
	}
}

func TestPendingIntentsAreAnsweredWhenTheUserWritesAgain(t *testing.T) {
	var reqs []*contract.ModelRequest
	var calls atomic.Int32
	p := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		reqs = append(reqs, req)
		if calls.Add(1) == 1 {
			return stream(nil, nil, intent("run_tests", `{}`), &contract.ModelFinished{Reason: contract.FinishToolUse}).Stream(ctx, req)
		}
		return stream(nil, nil, &contract.TextDelta{Text: "ok"}, &contract.ModelFinished{Reason: contract.FinishStop}).Stream(ctx, req)
	})
	k, _ := newKernel(t, p, runTests(t))
	collect(t, k.Send(t.Context(), Input{Text: "one"}))
	collect(t, k.Send(t.Context(), Input{Text: "two"}))
	msgs := reqs[1].Messages
	roles := []contract.Role{}
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if d := cmp.Diff([]contract.Role{contract.RoleUser, contract.RoleAssistant, contract.RoleTool, contract.RoleUser}, roles); d != "" {
		t.Fatalf("second request roles mismatch (-want +got):\n%s", d)
	}
	if r := msgs[2].Result; r == nil || !r.IsError || r.IntentID != msgs[1].ToolCalls[0].IntentID {
		t.Errorf("tool result = %+v, want an error result tied to the intent", r)
	}
	if st := k.State(); st.Status != state.Completed || len(st.Pending) != 0 {
		t.Errorf("state %q with %d pending", st.Status, len(st.Pending))
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			if !yield(&contract.TextDelta{Text: "start"}, nil) {
				return
			}
			cancel()
			<-ctx.Done()
			yield(nil, &contract.ProviderError{Kind: contract.KindAborted, Message: ctx.Err().Error()})
		}
	})
	k, _ := newKernel(t, p)
	collect(t, k.Send(ctx, Input{Text: "hi"}))
	if st := k.State(); st.Outcome != contract.OutcomeCancelled {
		t.Errorf("outcome = %q, want cancelled", st.Outcome)
	}
}

func TestEarlyBreakStillCompletesTheLog(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil,
		&contract.TextDelta{Text: "a"}, &contract.TextDelta{Text: "b"}, &contract.ModelFinished{Reason: contract.FinishStop}))
	for env := range k.Send(t.Context(), Input{Text: "hi"}) {
		if env.Type() == contract.TypeTextDelta {
			break
		}
	}
	evs := durable(t, log)
	last := evs[len(evs)-1]
	if f, ok := last.Data.(*contract.RunFinished); !ok || f.Outcome != contract.OutcomeCancelled {
		t.Errorf("last event = %s %+v, want run.finished cancelled", last.Type(), last.Data)
	}
}

func TestOneSendAtATime(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	p := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			close(started)
			<-release
			yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
		}
	})
	k, _ := newKernel(t, p)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range k.Send(context.Background(), Input{Text: "one"}) {
		}
	}()
	<-started
	var got error
	for _, err := range k.Send(t.Context(), Input{Text: "two"}) {
		got = err
	}
	close(release)
	<-done
	if !errors.Is(got, ErrBusy) {
		t.Errorf("concurrent Send error = %v, want ErrBusy", got)
	}
}

// The facade exposes no provider-specific object: no exported method of
// Kernel mentions a type from a provider package, and every output is a
// contract event.
func TestModelsWithoutToolsAreOfferedNone(t *testing.T) {
	var reqs []*contract.ModelRequest
	log := eventlog.New(memstore.New(), nil)
	defer log.Close()
	k, err := New(stream(&reqs, nil, &contract.ModelFinished{Reason: contract.FinishStop}), log,
		&Options{ProviderName: "fake", Registry: mustRegistry(t, runTests(t)), Capabilities: provider.Capabilities{Streaming: true}})
	if err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(t.Context(), Input{Text: "hi"}))
	if len(reqs[0].Tools) != 0 {
		t.Errorf("a model without tools was offered %d", len(reqs[0].Tools))
	}
}

func TestFacadeExposesNoProviderObject(t *testing.T) {
	kt := reflect.TypeFor[*Kernel]()
	var seen []string
	var check func(t reflect.Type, depth int)
	check = func(typ reflect.Type, depth int) {
		if depth > 4 {
			return
		}
		if strings.Contains(typ.PkgPath(), "/internal/provider") {
			seen = append(seen, typ.String())
		}
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			check(typ.Elem(), depth+1)
		case reflect.Func:
			for i := range typ.NumIn() {
				check(typ.In(i), depth+1)
			}
			for i := range typ.NumOut() {
				check(typ.Out(i), depth+1)
			}
		case reflect.Struct:
			for i := range typ.NumField() {
				if typ.Field(i).IsExported() {
					check(typ.Field(i).Type, depth+1)
				}
			}
		}
	}
	for i := range kt.NumMethod() {
		check(kt.Method(i).Type, 0)
	}
	if len(seen) > 0 {
		t.Errorf("Kernel's exported API mentions provider types: %v", seen)
	}
	k, _ := newKernel(t, stream(nil, nil, &contract.TextDelta{Text: "x"}, intent("run_tests", `{}`), &contract.ModelFinished{Reason: contract.FinishToolUse}), runTests(t))
	for _, env := range collect(t, k.Send(t.Context(), Input{Text: "hi"})) {
		if pkg := reflect.TypeOf(env.Data).Elem().PkgPath(); !strings.HasSuffix(pkg, "/internal/contract") {
			t.Errorf("output %s is a %s, not a contract type", env.Type(), pkg)
		}
	}
}

// syncStore is a memory store that remembers how far it was synced.
type syncStore struct {
	*memstore.Store
	synced atomic.Uint64
}

func (s *syncStore) Sync() error {
	if err := s.Store.Sync(); err != nil {
		return err
	}
	s.synced.Store(s.LastSeq())
	return nil
}

// The durable points of DESIGN.md section 5: the user's message is synced
// before the model is asked, and everything is synced when Send returns,
// whether the run finished or waits for its intents.
func TestSyncAtDurablePoints(t *testing.T) {
	for name, events := range map[string][]contract.ModelEvent{
		"completed":        {&contract.TextDelta{Text: "hi"}, &contract.ModelFinished{Reason: contract.FinishStop}},
		"waiting for tool": {intent("run_tests", `{}`), &contract.ModelFinished{Reason: contract.FinishToolUse}},
		"failed":           {&contract.TextDelta{Text: "hi"}},
	} {
		t.Run(name, func(t *testing.T) {
			store := &syncStore{Store: memstore.New()}
			log := eventlog.New(store, nil)
			var syncedAtCall uint64
			p := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
				syncedAtCall = store.synced.Load()
				return stream(nil, nil, events...).Stream(ctx, req)
			})
			k, err := New(p, log, &Options{Retry: RetryPolicy{Attempts: 1}})
			if err != nil {
				t.Fatal(err)
			}
			collect(t, k.Send(t.Context(), Input{Text: "hi"}))
			if syncedAtCall < 3 {
				t.Errorf("synced up to seq %d when the model was asked; want session.started, user.message and run.started (3) durable", syncedAtCall)
			}
			if got, want := store.synced.Load(), store.LastSeq(); got != want {
				t.Errorf("synced up to seq %d when Send returned, want %d", got, want)
			}
		})
	}
}

func TestBreakAfterFinishKeepsTheCall(t *testing.T) {
	k, log := newKernel(t, stream(nil, nil, &contract.TextDelta{Text: "done"}, &contract.ModelFinished{Reason: contract.FinishStop}))
	for env := range k.Send(t.Context(), Input{Text: "hi"}) {
		if env.Type() == contract.TypeModelFinished {
			break
		}
	}
	got := types(durable(t, log))
	want := []string{contract.TypeSessionStarted, contract.TypeUserMessage, contract.TypeRunStarted, contract.TypeContextProjected, contract.TypeModelRequested,
		contract.TypeModelText, contract.TypeModelFinished, contract.TypeRunFinished}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("log mismatch (-want +got):\n%s", d)
	}
	if st := k.State(); st.Outcome != contract.OutcomeCompleted {
		t.Errorf("outcome %q, want completed", st.Outcome)
	}
}

func TestBreakBeforeTheModelCallAsksNoModel(t *testing.T) {
	var reqs []*contract.ModelRequest
	k, log := newKernel(t, stream(&reqs, nil, &contract.ModelFinished{Reason: contract.FinishStop}))
	for range k.Send(t.Context(), Input{Text: "hi"}) {
		break
	}
	if len(reqs) != 0 {
		t.Errorf("the provider got %d requests after the caller stopped reading", len(reqs))
	}
	evs := durable(t, log)
	if f, ok := evs[len(evs)-1].Data.(*contract.RunFinished); !ok || f.Outcome != contract.OutcomeCancelled {
		t.Errorf("last event %s, want run.finished cancelled", evs[len(evs)-1].Type())
	}
}

func listDir() registry.Tool {
	return registry.Tool{Name: "list_dir", Description: "list", Risk: registry.RiskRead, Concurrency: registry.Safe,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func mustRegistry(t *testing.T, tools ...registry.Tool) *registry.Registry {
	t.Helper()
	reg, err := registry.New(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
