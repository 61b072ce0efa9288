package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// Each todo.updated replaces the list; an earlier state keeps the list it
// showed; a compaction keeps the list and the ledger as they stood for the
// plot, and a later list leaves that copy alone.
func TestTodosFold(t *testing.T) {
	first := []contract.Todo{{Content: "Read the failing test", Status: contract.TodoInProgress, ActiveForm: "Reading the failing test"},
		{Content: "Fix the parser", Status: contract.TodoPending}}
	second := []contract.Todo{{Content: "Read the failing test", Status: contract.TodoCompleted},
		{Content: "Fix the parser", Status: contract.TodoInProgress}}
	read := contract.FileStamp{Path: "/w/parse.go", Size: 3, SHA256: "ab", Op: contract.FileRead}
	events := envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.UserMessage{Text: "fix the parser"},
		&contract.TodoUpdated{IntentID: "i1", Todos: first},
	)
	s := reduceSlice(events)
	if d := cmp.Diff(first, s.Todos); d != "" {
		t.Fatalf("Todos after the first list (-want +got):\n%s", d)
	}
	before := s
	s = Apply(s, contract.Envelope{Seq: 4, Data: &contract.ToolObservation{Observation: contract.Observation{IntentID: "i0", Files: []contract.FileStamp{read}}}})
	s = Apply(s, contract.Envelope{Seq: 5, Data: &contract.TodoUpdated{IntentID: "i2", Todos: second}})
	if d := cmp.Diff(second, s.Todos); d != "" {
		t.Errorf("Todos after the second list (-want +got):\n%s", d)
	}
	if d := cmp.Diff(first, before.Todos); d != "" {
		t.Errorf("the earlier state's list changed (-want +got):\n%s", d)
	}
	if s.SummaryTodos != nil || s.SummaryLedger.Len() != 0 {
		t.Errorf("before any compaction: SummaryTodos %v, SummaryLedger of %d paths", s.SummaryTodos, s.SummaryLedger.Len())
	}
	s = Apply(s, contract.Envelope{Seq: 6, Data: &contract.ContextCompacted{Summary: "s", Replaced: 1}})
	if d := cmp.Diff(second, s.SummaryTodos); d != "" {
		t.Errorf("SummaryTodos after the compaction (-want +got):\n%s", d)
	}
	if got, ok := s.SummaryLedger.Lookup(read.Path); !ok || got != read {
		t.Errorf("SummaryLedger holds %+v, %v; want the read of %s", got, ok, read.Path)
	}
	s = Apply(s, contract.Envelope{Seq: 7, Data: &contract.TodoUpdated{IntentID: "i3", Todos: []contract.Todo{}}})
	s = Apply(s, contract.Envelope{Seq: 8, Data: &contract.ToolObservation{Observation: contract.Observation{IntentID: "i0",
		Files: []contract.FileStamp{{Path: "/w/new.go", Op: contract.FileWrite}}}}})
	if len(s.Todos) != 0 || len(s.SummaryTodos) != 2 || s.SummaryLedger.Len() != 1 {
		t.Errorf("after a cleared list and a write: Todos %v, SummaryTodos %v, SummaryLedger of %d paths; want the plot unchanged",
			s.Todos, s.SummaryTodos, s.SummaryLedger.Len())
	}
}
