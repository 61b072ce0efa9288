package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

// envs numbers events densely as a log would, deltas excepted.
func envs(events ...contract.Event) []contract.Envelope {
	var out []contract.Envelope
	var seq uint64
	for _, e := range events {
		env := contract.Envelope{Session: "s1", Run: "r1", Turn: 1, Data: e}
		if env.Durable() {
			seq++
			env.Seq = seq
		}
		out = append(out, env)
	}
	return out
}

// The seed's "rebuilds conversation state from events", in our catalogue.
func TestRebuildWaitingForTool(t *testing.T) {
	s := reduceSlice(envs(
		&contract.SessionStarted{Cwd: "/w", Provider: "scripted"},
		&contract.UserMessage{Text: "修复测试"},
		&contract.RunStarted{Goal: "修复测试"},
		&contract.ModelRequested{Provider: "scripted"},
		&contract.TextDelta{Text: "我先运行测试。"},
		&contract.ModelText{Text: "我先运行测试。"},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ID: "i1", ToolName: "run_tests", Input: json.RawMessage(`{"command":"npm test"}`),
		}},
	))
	if s.Status != WaitingForTool {
		t.Errorf("Status = %q, want %q", s.Status, WaitingForTool)
	}
	if len(s.Pending) != 1 || s.Pending[0].ToolName != "run_tests" {
		t.Fatalf("Pending = %+v, want one run_tests intent", s.Pending)
	}
	if s.LastSeq != 6 {
		t.Errorf("LastSeq = %d, want 6 (the delta has no seq)", s.LastSeq)
	}
}

// An intent run twice (the second time outside the sandbox, which a
// person allowed) keeps only its last invocation in Ended, and leaves it
// with its one observation; another intent's ended invocation stays.
func TestIntentRunTwice(t *testing.T) {
	in := contract.ToolIntent{ID: "i1", ToolName: "bash", Input: json.RawMessage(`{"command":"touch /x"}`)}
	other := contract.ToolIntent{ID: "i2", ToolName: "read_file"}
	head := []contract.Event{
		&contract.SessionStarted{Cwd: "/w"}, &contract.RunStarted{}, &contract.ModelRequested{},
		&contract.IntentProposed{ToolIntent: in}, &contract.IntentProposed{ToolIntent: other}, &contract.ModelFinished{Reason: "tool_use"},
		&contract.InvocationStarted{IntentID: "i2", InvocationID: "v0", ToolName: "read_file"},
		&contract.InvocationCompleted{IntentID: "i2", InvocationID: "v0", Exit: contract.ExitOK},
		&contract.InvocationStarted{IntentID: "i1", InvocationID: "v1", ToolName: "bash"},
		&contract.InvocationCompleted{IntentID: "i1", InvocationID: "v1", Exit: contract.ExitError, ExitCode: 1},
		&contract.ToolPermission{IntentID: "i1", Decision: contract.Allow, By: "user", Reason: "run again outside the sandbox: ..."},
		&contract.InvocationStarted{IntentID: "i1", InvocationID: "v2", ToolName: "bash", Sandbox: &contract.SandboxSpec{Mode: "off"}},
	}
	completed := &contract.InvocationCompleted{IntentID: "i1", InvocationID: "v2", Exit: contract.ExitOK}
	observed := &contract.ToolObservation{Observation: contract.Observation{IntentID: "i1", ToolName: "bash", OK: true, Text: "done"}}
	tests := []struct {
		name     string
		tail     []contract.Event
		inFlight []Invocation
		ended    []Invocation
	}{
		{"running again", nil, []Invocation{{IntentID: "i1", InvocationID: "v2", ToolName: "bash"}},
			[]Invocation{{IntentID: "i2", InvocationID: "v0", ToolName: "read_file", Exit: contract.ExitOK},
				{IntentID: "i1", InvocationID: "v1", ToolName: "bash", Exit: contract.ExitError, ExitCode: 1}}},
		{"ran again", []contract.Event{completed}, nil,
			[]Invocation{{IntentID: "i2", InvocationID: "v0", ToolName: "read_file", Exit: contract.ExitOK},
				{IntentID: "i1", InvocationID: "v2", ToolName: "bash", Exit: contract.ExitOK}}},
		{"observed", []contract.Event{completed, observed}, nil,
			[]Invocation{{IntentID: "i2", InvocationID: "v0", ToolName: "read_file", Exit: contract.ExitOK}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := reduceSlice(envs(slices.Concat(head, tc.tail)...))
			if d := cmp.Diff(tc.inFlight, s.InFlight); d != "" {
				t.Errorf("InFlight mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.ended, s.Ended); d != "" {
				t.Errorf("Ended mismatch (-want +got):\n%s", d)
			}
		})
	}
	s := reduceSlice(envs(slices.Concat(head, []contract.Event{completed, observed})...))
	if len(s.Pending) != 1 || s.Pending[0].ID != "i2" || s.Messages[len(s.Messages)-1].Result.Text != "done" {
		t.Errorf("Pending = %+v, last message %+v", s.Pending, s.Messages[len(s.Messages)-1])
	}
}

func TestConversation(t *testing.T) {
	in := contract.ToolIntent{ID: "i1", ProviderCallID: "call_1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test"}`)}
	s := reduceSlice(envs(
		&contract.SessionStarted{Cwd: "/w", Provider: "p", Model: "m"},
		&contract.UserMessage{Text: "fix it"},
		&contract.RunStarted{Goal: "fix it"},
		&contract.ModelRequested{Provider: "p"},
		&contract.ModelReasoning{Text: "think"},
		&contract.ModelText{Text: "I'll run"},
		&contract.IntentProposed{ToolIntent: in},
		&contract.ModelUsage{InputTokens: 10, OutputTokens: 3},
		&contract.ModelFinished{Reason: contract.FinishToolUse, ProviderState: json.RawMessage(`{"sig":"x"}`)},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "i1", OK: false, Code: contract.CodeToolError, Text: "FAIL",
			Truncated: true, OmittedBytes: 2570, ArtifactRef: "artifacts/inv_i1.txt"}},
	))
	want := []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "fix it"},
		{Role: contract.RoleAssistant, Text: "I'll run", Reasoning: "think", ToolCalls: []contract.ToolCall{in.Call()}, ProviderState: json.RawMessage(`{"sig":"x"}`)},
		{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "i1", ProviderCallID: "call_1", ToolName: "bash", Text: "FAIL", IsError: true,
			OmittedBytes: 2570, ArtifactRef: "artifacts/inv_i1.txt"}},
	}
	if d := cmp.Diff(want, s.Messages); d != "" {
		t.Errorf("Messages mismatch (-want +got):\n%s", d)
	}
	if s.Status != Running || len(s.Pending) != 0 {
		t.Errorf("Status = %q, pending %d; want running and none pending", s.Status, len(s.Pending))
	}
	if s.Usage != (contract.Totals{InputTokens: 10, OutputTokens: 3, Calls: 1, Unpriced: 1}) {
		t.Errorf("Usage = %+v", s.Usage)
	}
}

func TestDiscardDropsPartialOutput(t *testing.T) {
	s := reduceSlice(envs(
		&contract.UserMessage{Text: "hi"},
		&contract.RunStarted{},
		&contract.ModelRequested{},
		&contract.ModelText{Text: "half a sent"},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "i1", ToolName: "bash", Input: json.RawMessage(`{}`)}},
		&contract.ProviderError{Kind: contract.KindStreamInterrupted, Retryable: true, Message: "eof"},
		&contract.ModelDiscarded{Reason: "retrying"},
	))
	if len(s.Messages) != 1 || len(s.Pending) != 0 || s.Draft.Role != "" {
		t.Errorf("after discard: %d messages, %d pending, draft %+v; want only the user message", len(s.Messages), len(s.Pending), s.Draft)
	}
	if s.LastError == nil || s.LastError.Kind != contract.KindStreamInterrupted {
		t.Errorf("LastError = %v, want stream_interrupted", s.LastError)
	}
	if s.Status != Running {
		t.Errorf("Status = %q, want running", s.Status)
	}
}

func TestRunFinished(t *testing.T) {
	for _, tc := range []struct {
		outcome contract.Outcome
		want    Status
	}{
		{contract.OutcomeCompleted, Completed},
		{contract.OutcomeFailed, Failed},
		{contract.OutcomeCancelled, Failed},
		{contract.OutcomeMaxTurns, Failed},
	} {
		t.Run(string(tc.outcome), func(t *testing.T) {
			s := reduceSlice(envs(&contract.RunStarted{}, &contract.RunFinished{Outcome: tc.outcome}))
			if s.Status != tc.want || s.Outcome != tc.outcome {
				t.Errorf("Status, Outcome = %q, %q; want %q, %q", s.Status, s.Outcome, tc.want, tc.outcome)
			}
		})
	}
}

// TestFoldEqualsLive is the reducer's property: over random valid event
// sequences, the state maintained incrementally equals, after every event,
// the fold of the whole prefix from scratch, and the fold of the same
// events read back from JSON.
func TestFoldEqualsLive(t *testing.T) {
	for seed := range uint64(100) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			events := randomSession(rand.New(rand.NewPCG(seed, 7)))
			var live State
			history := make([]State, 0, len(events))
			folds := make([]State, 0, len(events))
			for i, env := range events {
				live = Apply(live, env)
				history = append(history, live)
				folds = append(folds, reduceSlice(events[:i+1]))
				if d := cmp.Diff(folds[i], live); d != "" {
					t.Fatalf("after event %d (%s): fold != live (-fold +live):\n%s", i, env.Type(), d)
				}
				if err := invariants(events[:i+1], &live); err != nil {
					t.Fatalf("after event %d (%s): %v", i, env.Type(), err)
				}
			}
			// Later events must not have changed what an earlier state shows.
			for i, old := range history {
				if d := cmp.Diff(folds[i], old); d != "" {
					t.Fatalf("state after event %d changed later (-fold +kept):\n%s", i, d)
				}
			}
			var decoded []contract.Envelope
			for _, env := range events {
				b, err := json.Marshal(env)
				if err != nil {
					t.Fatal(err)
				}
				var back contract.Envelope
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatalf("decode %s: %v", b, err)
				}
				decoded = append(decoded, back)
			}
			if d := cmp.Diff(live, reduceSlice(decoded)); d != "" {
				t.Fatalf("fold of the JSON log != live (-live +decoded):\n%s", d)
			}
		})
	}
}

// invariants checks what must hold of the state after any valid prefix of
// a session, independently of how Apply computes it.
func invariants(events []contract.Envelope, s *State) error {
	var durable uint64
	var usageCalls int
	proposed := map[string]bool{}
	var lastRun *contract.RunFinished
	seen := map[string]contract.FileStamp{} // the ledger, the naive way
	seenAt := map[uint64]map[string]contract.FileStamp{}
	var todos []contract.Todo // the task list, the naive way
	todosAt := map[uint64][]contract.Todo{}
	for _, env := range events {
		if env.Durable() {
			durable++
		}
		switch e := env.Data.(type) {
		case *contract.ToolObservation:
			for _, f := range e.Files {
				if f.Op.Seen() {
					seen[f.Path] = f
				}
			}
		case *contract.UserMessage:
			seenAt[env.Seq] = maps.Clone(seen)
			todosAt[env.Seq] = todos
		case *contract.TodoUpdated:
			todos = e.Todos
		case *contract.SessionRewound:
			if at, ok := seenAt[e.To]; ok && e.Scope != contract.RewindCode {
				seen = maps.Clone(at)
				todos = todosAt[e.To]
			}
		case *contract.ModelUsage:
			usageCalls++
		case *contract.IntentProposed:
			proposed[e.ID] = true
		case *contract.RunStarted:
			lastRun = nil
		case *contract.RunFinished:
			lastRun = e
		}
	}
	if s.LastSeq != durable {
		return fmt.Errorf("LastSeq = %d, want %d durable events", s.LastSeq, durable)
	}
	if s.Usage.Calls != usageCalls {
		return fmt.Errorf("Usage.Calls = %d, want %d model.usage events", s.Usage.Calls, usageCalls)
	}
	if len(s.Seqs) != len(s.Messages) || !slices.IsSorted(s.Seqs) {
		return fmt.Errorf("seqs %v for %d messages", s.Seqs, len(s.Messages))
	}
	if err := sameLedger(s.Ledger, seen); err != nil {
		return err
	}
	if !slices.Equal(s.Todos, todos) {
		return fmt.Errorf("Todos = %v, want %v", s.Todos, todos)
	}
	inConversation := map[string]bool{}
	answered := map[string]bool{}
	for i, m := range append(slices.Clone(s.Messages), s.Draft) {
		for _, c := range m.ToolCalls {
			inConversation[c.IntentID] = true
		}
		if m.Result != nil {
			if !inConversation[m.Result.IntentID] {
				return fmt.Errorf("message %d answers intent %s, which no earlier assistant message proposed", i, m.Result.IntentID)
			}
			answered[m.Result.IntentID] = true
		}
	}
	for _, in := range s.Pending {
		if !inConversation[in.ID] || !proposed[in.ID] || answered[in.ID] {
			return fmt.Errorf("pending intent %s: proposed %v, in the conversation %v, answered %v", in.ID, proposed[in.ID], inConversation[in.ID], answered[in.ID])
		}
	}
	switch {
	case s.Status == WaitingForTool && len(s.Pending) == 0:
		return fmt.Errorf("waiting_for_tool with nothing pending")
	case lastRun == nil && len(s.Pending) > 0 && s.Status != WaitingForTool:
		return fmt.Errorf("status %q during a run with %d pending intents", s.Status, len(s.Pending))
	case lastRun != nil && (s.Status == Completed) != (lastRun.Outcome == contract.OutcomeCompleted):
		return fmt.Errorf("status %q after run.finished %q", s.Status, lastRun.Outcome)
	}
	return nil
}

// randomSession generates a valid session: runs of turns with text,
// reasoning, intents, usage, failures, discards, observations and deltas.
func randomSession(r *rand.Rand) []contract.Envelope {
	var out []contract.Envelope
	var seq uint64
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	run, turn, n := "", 0, 0
	add := func(e contract.Event) {
		env := contract.Envelope{Session: "s", Run: run, Turn: turn, Time: t0.Add(time.Duration(len(out)) * time.Millisecond), Data: e}
		if env.Durable() {
			seq++
			env.Seq = seq
		}
		env.ID = fmt.Sprintf("evt_%d", len(out))
		out = append(out, env)
	}
	add(&contract.SessionStarted{Cwd: "/w", Version: "test", Provider: "p", Model: "m"})
	var pending []string
	for range 1 + r.IntN(6) {
		n++
		run = fmt.Sprintf("run_%d", n)
		// Intents left over from an earlier run are answered first.
		for _, id := range pending {
			add(&contract.ToolObservation{Observation: contract.Observation{IntentID: id, Phase: "kernel", Code: "not_executed", Text: "not run"}})
		}
		pending = nil
		if r.IntN(3) == 0 {
			add(&contract.CheckpointRecorded{ID: fmt.Sprintf("cp%d", len(out)), When: contract.CheckpointAfter})
		}
		if points := reduceSlice(out).Points; len(points) > 0 && r.IntN(3) == 0 {
			// A rewind to any point, a rewound one included.
			scopes := []string{contract.RewindBoth, contract.RewindConversation, contract.RewindCode}
			add(&contract.CheckpointRecorded{ID: fmt.Sprintf("cp%d", len(out)), When: contract.CheckpointRewind})
			add(&contract.SessionRewound{To: points[r.IntN(len(points))].Seq, Scope: scopes[r.IntN(3)]})
		}
		add(&contract.UserMessage{Text: fmt.Sprintf("message %d", n)})
		add(&contract.RunStarted{Goal: "goal"})
		outcome := contract.OutcomeCompleted
		for range 1 + r.IntN(4) {
			turn++
			if r.IntN(4) == 0 {
				randomContext(r, out, add)
			}
			add(&contract.ModelRequested{Provider: "p", Model: "m", MessageCount: r.IntN(9), InputBytes: 100 + r.IntN(5000)})
			add(&contract.ModelStarted{Provider: "p", Model: "m", RequestID: "req"})
			var proposed []string
			for range r.IntN(6) {
				switch r.IntN(6) {
				case 0:
					add(&contract.TextDelta{Text: "te"})
					add(&contract.ModelText{Text: "text"})
				case 1:
					add(&contract.ReasoningDelta{Text: "th"})
					add(&contract.ModelReasoning{Text: "thought"})
				case 2:
					id := fmt.Sprintf("int_%d", len(out))
					add(&contract.IntentDelta{ToolName: "bash", RawInput: "{"})
					add(&contract.IntentProposed{ToolIntent: contract.ToolIntent{
						ID: id, ProviderCallID: "call_" + id, ToolName: "bash",
						Input: json.RawMessage(`{"command":"go test ./..."}`), RawInput: `{"command":"go test ./..."}`,
						Provider: contract.ProviderRef{Name: "p", Model: "m"}, AssembledFrom: contract.Assembly{Fragments: 3, LastIndex: 2},
					}})
					proposed = append(proposed, id)
				case 3:
					add(&contract.ModelUsage{InputTokens: int64(r.IntN(1000)), OutputTokens: int64(r.IntN(100))})
				case 4:
					add(&contract.Unknown{Type: "future.event", Data: json.RawMessage(`{"x":1}`)})
				case 5:
					add(&contract.ContextProjected{Turn: turn, EstimatedTokens: 100})
				}
			}
			switch r.IntN(5) {
			case 0: // a failed attempt, retried
				add(&contract.ProviderError{Kind: contract.KindOverloaded, Retryable: true, Provider: "p", HTTPStatus: 529, Message: "busy"})
				add(&contract.ModelDiscarded{Reason: "retrying after overloaded"})
				add(&contract.RetryScheduled{Attempt: 1, DelayMS: 10, Kind: contract.KindOverloaded})
				continue
			case 1: // a fatal error
				add(&contract.ProviderError{Kind: contract.KindAuth, Provider: "p", HTTPStatus: 401, Message: "bad key"})
				add(&contract.ModelDiscarded{Reason: "failed"})
				outcome = contract.OutcomeFailed
			default:
				add(&contract.ModelFinished{Reason: contract.FinishStop, ProviderState: json.RawMessage(`"opaque"`)})
				pending = append(pending, proposed...)
				if len(pending) == 0 || r.IntN(3) == 0 {
					// The model is done, or the run waits for its intents.
					break
				}
				// The intents are answered, one by one, before the next call.
				for len(pending) > 0 {
					id := pending[0]
					pending = pending[1:]
					if r.IntN(4) == 0 { // a todo_write reports its list as it runs
						add(&contract.TodoUpdated{IntentID: id, Todos: randomTodos(r)})
					}
					add(&contract.ToolObservation{Observation: contract.Observation{IntentID: id, OK: r.IntN(2) == 0, Phase: "execution", Text: "ok", Files: randomFiles(r, t0.Add(time.Duration(len(out))*time.Second))}})
				}
				continue
			}
			break
		}
		if len(pending) == 0 || outcome != contract.OutcomeCompleted {
			add(&contract.RunFinished{Outcome: outcome})
		}
	}
	return out
}

// randomContext adds what the context engine may record before a turn:
// an elision of some results, or a compaction with its side call,
// replacing messages up to a user or an assistant message no later than
// the latest assistant message, as a plan would.
func randomContext(r *rand.Rand, out []contract.Envelope, add func(contract.Event)) {
	s := reduceSlice(out)
	if r.IntN(2) == 0 {
		var ids []string
		for _, m := range s.Messages {
			if m.Result != nil && !slices.Contains(s.Elided, m.Result.IntentID) && r.IntN(2) == 0 {
				ids = append(ids, m.Result.IntentID)
			}
		}
		add(&contract.ContextProjected{Elided: ids, EstimatedTokens: 100})
		return
	}
	var cuts []int
	for i, m := range s.Messages {
		if m.Role == contract.RoleAssistant || m.Role == contract.RoleUser {
			cuts = append(cuts, i)
		}
		if m.Role == contract.RoleAssistant && len(s.Pending) > 0 {
			break // pending intents stay with their call: cut no later
		}
	}
	if len(cuts) == 0 {
		return
	}
	add(&contract.ModelRequested{Provider: "p", Model: "m", Purpose: contract.PurposeCompaction, InputBytes: 2000})
	add(&contract.ModelText{Text: "summary"})
	add(&contract.ModelUsage{InputTokens: int64(1 + r.IntN(1000)), OutputTokens: 10})
	add(&contract.ModelFinished{Reason: contract.FinishStop, ProviderState: json.RawMessage(`"x"`)})
	if r.IntN(4) == 0 {
		add(&contract.CompactionFailed{Attempt: 1, By: contract.CompactAuto, Reason: "empty"})
		return
	}
	add(&contract.ContextCompacted{Summary: "summary", Replaced: cuts[r.IntN(len(cuts))], By: contract.CompactAuto})
}

// randomFiles returns what a file tool call may have read or written: no
// file most often, else one or two stamps of a few paths, so that paths
// come back with new content and a later stamp must win.
func randomFiles(r *rand.Rand, at time.Time) []contract.FileStamp {
	if r.IntN(3) > 0 {
		return nil
	}
	var out []contract.FileStamp
	for range 1 + r.IntN(2) {
		op := contract.FileRead
		if r.IntN(2) == 0 {
			op = contract.FileWrite
		}
		size := int64(r.IntN(4))
		out = append(out, contract.FileStamp{
			Path: fmt.Sprintf("/w/f%d.go", r.IntN(5)), Size: size, ModTime: at.Add(time.Duration(r.IntN(1000)) * time.Nanosecond),
			SHA256: fmt.Sprintf("%064x", size*7+int64(r.IntN(3))), Op: op,
		})
	}
	return out
}

// randomTodos returns a task list of zero to three items.
func randomTodos(r *rand.Rand) []contract.Todo {
	statuses := []string{contract.TodoPending, contract.TodoInProgress, contract.TodoCompleted}
	out := []contract.Todo{}
	for i := range r.IntN(4) {
		out = append(out, contract.Todo{Content: fmt.Sprint("step ", i), Status: statuses[r.IntN(3)]})
	}
	return out
}

func BenchmarkApply(b *testing.B) {
	events := randomSession(rand.New(rand.NewPCG(1, 2)))
	for len(events) < 200 {
		events = append(events, randomSession(rand.New(rand.NewPCG(uint64(len(events)), 2)))...)
	}
	b.ReportAllocs()
	var s State
	i := 0
	for b.Loop() {
		if i == len(events) {
			s, i = State{}, 0
		}
		s = Apply(s, events[i])
		i++
	}
	_ = s
}
