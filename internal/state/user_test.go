package state

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

// A person's own command is no part of the model's turn: it waits for its
// observation outside the draft, leaves the status as it was, and its
// observation joins the conversation as the person's message. A
// compaction that keeps only that message still keeps their latest
// request apart.
func TestAPersonsCommandIsTheirMessage(t *testing.T) {
	in := contract.ToolIntent{ID: "u1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`), Origin: contract.OriginUser}
	events := envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.UserMessage{Text: "hi"},
		&contract.RunStarted{Goal: "hi"},
		&contract.ModelRequested{},
		&contract.ModelText{Text: "Hello."},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted},
		&contract.IntentProposed{ToolIntent: in},
	)
	s := reduceSlice(events)
	if s.Status != Completed || s.Draft.Role != "" || len(s.Pending) != 1 {
		t.Fatalf("after the person's intent: status %s, draft %+v, %d pending", s.Status, s.Draft, len(s.Pending))
	}
	s = Apply(s, contract.Envelope{Seq: 8, Data: &contract.ToolObservation{Observation: contract.Observation{
		IntentID: "u1", ToolName: "bash", Phase: contract.PhaseExecution, Text: "FAIL\nexit code: 1\n", Untrusted: true,
	}}})
	want := []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "hi"},
		{Role: contract.RoleAssistant, Text: "Hello."},
		{Role: contract.RoleUser, Text: "I ran `go test ./...` myself:\nFAIL\nexit code: 1"},
	}
	if d := cmp.Diff(want, s.Messages); d != "" {
		t.Errorf("Messages mismatch (-want +got):\n%s", d)
	}
	if s.Status != Completed || len(s.Pending) != 0 || s.LastUser != "hi" {
		t.Errorf("after its observation: status %s, %d pending, last user %q", s.Status, len(s.Pending), s.LastUser)
	}
	s = Apply(s, contract.Envelope{Seq: 9, Data: &contract.ContextCompacted{Summary: "sum", Replaced: 2}})
	if s.SummaryUser != "hi" {
		t.Errorf("SummaryUser = %q after a compaction that kept only the command, want the latest user message", s.SummaryUser)
	}
}
