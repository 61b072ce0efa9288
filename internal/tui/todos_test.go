package tui

import (
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// The task list is drawn above the composer and changed in place as
// todo_write calls change it: the scrollback gets the calls' cards ("1 of
// 3 done"), never the list; once the run ends with every item done, the
// checklist goes. The plain theme draws it in ASCII.
func TestChecklist(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 80, rt)
	h.m.running, h.m.run, h.m.started = true, 1, h.m.now()
	h.m.activityAt = h.m.started
	list := func(statuses ...string) []contract.Todo {
		names := []string{"Read the failing test", "Fix the parser", "Run the tests"}
		out := make([]contract.Todo, len(statuses))
		for i, s := range statuses {
			out[i] = contract.Todo{Content: names[i], Status: s}
		}
		out[1].ActiveForm = "Fixing the parser"
		return out
	}
	call := func(seq uint64, id string, todos []contract.Todo) []contract.Envelope {
		in := rawInput(map[string]any{"todos": todos})
		return []contract.Envelope{
			env(seq, &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: "todo_write", Input: in}}),
			env(seq+1, &contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode"}),
			env(seq+2, &contract.InvocationStarted{IntentID: id, InvocationID: "inv_" + id, ToolName: "todo_write", Input: in}),
			env(seq+3, &contract.TodoUpdated{IntentID: id, Todos: todos}),
			env(seq+4, &contract.InvocationCompleted{IntentID: id, InvocationID: "inv_" + id, Exit: contract.ExitOK}),
			env(seq+5, &contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: "todo_write", OK: true, Phase: "execution",
				Text: "The task list is saved."}}),
		}
	}
	h.send(eventsMsg{run: 1, events: call(3, "int_1", list(contract.TodoCompleted, contract.TodoInProgress, contract.TodoPending))})
	h.golden("checklist")
	screen := h.screenText()
	for _, want := range []string{"tasks · 1 of 3 done\n[x] Read the failing test\n[>] Fixing the parser\n[ ] Run the tests\n", "todo_write 1 of 3 done"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	if back := strings.Join(h.back, "\n"); strings.Contains(back, "Run the tests") {
		t.Errorf("the list went into the scrollback:\n%s", back)
	}
	h.send(eventsMsg{run: 1, events: call(9, "int_2", list(contract.TodoCompleted, contract.TodoCompleted, contract.TodoInProgress))})
	live := h.m.View().Content
	if strings.Count(live, "Read the failing test") != 1 || !strings.Contains(live, "tasks · 2 of 3 done\n[x] Read the failing test\n[x] Fix the parser\n[>] Run the tests") {
		t.Errorf("the checklist was not updated in place:\n%s", live)
	}
	h.send(eventsMsg{run: 1, events: call(15, "int_3", list(contract.TodoCompleted, contract.TodoCompleted, contract.TodoCompleted))})
	if !strings.Contains(h.m.View().Content, "3 of 3 done") {
		t.Errorf("while the run works, a list all done stays:\n%s", h.m.View().Content)
	}
	h.send(runDoneMsg{run: 1})
	if strings.Contains(h.m.View().Content, "tasks ·") {
		t.Errorf("after the run, a list all done is still drawn:\n%s", h.m.View().Content)
	}
	if back := strings.Join(h.back, "\n"); strings.Count(back, "todo_write") != 3 || strings.Contains(back, "[x]") {
		t.Errorf("the scrollback should hold the three cards and no list:\n%s", back)
	}
}

// A long list shows the items around the one in progress and says how
// many it leaves out.
func TestChecklistWindow(t *testing.T) {
	var todos []contract.Todo
	for i := range 20 {
		s := contract.TodoCompleted
		switch {
		case i == 12:
			s = contract.TodoInProgress
		case i > 12:
			s = contract.TodoPending
		}
		todos = append(todos, contract.Todo{Content: "step " + itoa(i), Status: s})
	}
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.todos.set(todos)
	got := h.m.checklistView(true)
	want := "tasks · 12 of 20 done\n  … 10 before\n[x] step 10\n[x] step 11\n[>] step 12\n[ ] step 13\n[ ] step 14\n[ ] step 15\n[ ] step 16\n[ ] step 17\n  … 2 more"
	if got != want {
		t.Errorf("checklist:\n%s\nwant:\n%s", got, want)
	}
}
