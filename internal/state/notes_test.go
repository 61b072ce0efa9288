package state

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// A change of tools during a model call, or between a tool call and its
// result, waits for the first place a user message may stand: after the
// results. One between turns joins at once.
func TestNotesWaitForTheirPlace(t *testing.T) {
	in := contract.ToolIntent{ID: "i1", ToolName: "mcp__gh__get", Input: json.RawMessage(`{}`)}
	changed := &contract.ToolsChanged{Server: "gh", Removed: []string{"mcp__gh__get"}, Reason: "the server crashed"}
	s := reduceSlice(envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.UserMessage{Text: "go"},
		&contract.RunStarted{Goal: "go"},
		&contract.ModelRequested{},
		changed, // during the call
		&contract.IntentProposed{ToolIntent: in},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
	))
	if len(s.Messages) != 2 || len(s.Notes) != 1 {
		t.Fatalf("messages %d, notes %d; want the note held back (2, 1)", len(s.Messages), len(s.Notes))
	}
	s = Apply(s, contract.Envelope{Seq: s.LastSeq + 1, Data: &contract.ToolObservation{Observation: contract.Observation{IntentID: "i1", ToolName: in.ToolName, Text: "gone"}}})
	if len(s.Messages) != 4 || len(s.Notes) != 0 {
		t.Fatalf("messages %d, notes %d; want user, assistant, result, note", len(s.Messages), len(s.Notes))
	}
	note := s.Messages[3]
	if note.Role != contract.RoleUser || !strings.Contains(note.Text, "No longer available: mcp__gh__get") || !strings.Contains(note.Text, "crashed") {
		t.Errorf("note = %+v", note)
	}
	if s.Seqs[3] != 5 {
		t.Errorf("the note's seq = %d, want the tools.changed's (5)", s.Seqs[3])
	}
}

// A UserPromptSubmit hook's context, recorded before its prompt, follows
// the prompt; a Stop hook that blocks asks the model to go on.
func TestHookNotes(t *testing.T) {
	s := reduceSlice(envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.HookRan{Event: contract.HookUserPromptSubmit, Command: "ctx.sh", Context: "branch: main"},
		&contract.UserMessage{Text: "go"},
		&contract.RunStarted{Goal: "go"},
		&contract.ModelRequested{},
		&contract.ModelText{Text: "done"},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.HookRan{Event: contract.HookStop, Command: "check.sh", Decision: contract.HookBlock, Reason: "tests still fail"},
	))
	var got []string
	for _, m := range s.Messages {
		got = append(got, string(m.Role)+": "+m.Text)
	}
	want := []string{
		"user: go",
		"user: [rein] The user's UserPromptSubmit hook adds this context:\nbranch: main",
		"assistant: done",
		"user: [rein] The user's Stop hook asks you to go on before you finish: tests still fail",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("conversation:\n%q\nwant\n%q", got, want)
	}
	if s.LastUser != "go" {
		t.Errorf("LastUser = %q: a note is not the user's message", s.LastUser)
	}
}
