//go:build unix

package builtin_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// todo_write runs in plan mode without asking anyone, reports its list
// (trimmed, activeForm kept) as todo.updated while it runs, which the
// state folds into Todos, and tells the model the list was saved.
func TestTodoWriteReportsTheList(t *testing.T) {
	rt := newRuntime(t, t.TempDir(), permission.Plan, nil, nil)
	input := `{"todos": [{"content": " Read the failing test ", "status": "completed"},
		{"content": "Fix the parser", "status": "in_progress", "activeForm": "Fixing the parser", "id": "2", "priority": "high"},
		{"content": "Run the tests", "status": "pending"}]}`
	rec, obs := turn(t, rt, &state.State{}, [2]string{"todo_write", input})
	if !obs[0].OK {
		t.Fatalf("observation %+v, want ok", obs[0])
	}
	if want := "The task list is saved: 1 of 3 done; in progress: Fix the parser. Keep it up to date"; !strings.HasPrefix(obs[0].Text, want) {
		t.Errorf("the model reads %q, want it to begin %q", obs[0].Text, want)
	}
	want := []contract.Todo{{Content: "Read the failing test", Status: contract.TodoCompleted},
		{Content: "Fix the parser", Status: contract.TodoInProgress, ActiveForm: "Fixing the parser"},
		{Content: "Run the tests", Status: contract.TodoPending}}
	var types []string
	for _, e := range rec.events {
		types = append(types, e.EventType())
		if u, ok := e.(*contract.TodoUpdated); ok {
			if u.IntentID != "int_0" {
				t.Errorf("todo.updated names intent %q, want int_0", u.IntentID)
			}
			if d := cmp.Diff(want, u.Todos); d != "" {
				t.Errorf("todo.updated's list (-want +got):\n%s", d)
			}
		}
	}
	wantTypes := []string{contract.TypeToolValidation, contract.TypeToolPermission, contract.TypeInvocationStarted,
		contract.TypeTodoUpdated, contract.TypeInvocationCompleted, contract.TypeToolObservation}
	if d := cmp.Diff(wantTypes, types); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	if p, ok := rec.events[1].(*contract.ToolPermission); !ok || p.Decision != contract.Allow || p.By != string(permission.ByMode) {
		t.Errorf("permission %+v, want allowed by plan mode", rec.events[1])
	}
	if d := cmp.Diff(want, fold(rec.events).Todos); d != "" {
		t.Errorf("State.Todos (-want +got):\n%s", d)
	}

	// An empty list clears it; a list all done says so.
	_, obs = turn(t, rt, &state.State{}, [2]string{"todo_write", `{"todos": []}`})
	if !obs[0].OK || obs[0].Text != "The task list is cleared.\n" {
		t.Errorf("clearing: %+v", obs[0])
	}
	_, obs = turn(t, rt, &state.State{}, [2]string{"todo_write", `{"todos": [{"content": "a", "status": "completed"}]}`})
	if !obs[0].OK || obs[0].Text != "The task list is saved: all 1 items are done.\n" {
		t.Errorf("all done: %+v", obs[0])
	}
}

// A list that breaks a rule is refused at validation, saying why, and
// nothing is recorded of it.
func TestTodoWriteRefusesABadList(t *testing.T) {
	item := func(content, status string) string {
		b, _ := json.Marshal(map[string]string{"content": content, "status": status})
		return string(b)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = item(fmt.Sprint("step ", i), "pending")
	}
	tests := []struct {
		name, input, want string
	}{
		{"two in progress", `{"todos": [` + item("a", "in_progress") + `,` + item("b", "pending") + `,` + item("c", "in_progress") + `]}`,
			"items 1 and 3 are both in_progress; at most one item is in_progress at a time"},
		{"empty content", `{"todos": [` + item("a", "pending") + `,` + item(" \n ", "pending") + `]}`, "item 2 has no content"},
		{"content too long", `{"todos": [` + item(strings.Repeat("x", 1025), "pending") + `]}`, "the content of item 1 is 1025 bytes; at most 1024"},
		{"too many items", `{"todos": [` + strings.Join(many, ",") + `]}`, "101"},
		{"unknown status", `{"todos": [` + item("a", "done") + `]}`, "done"},
		{"no list", `{}`, "todos"},
	}
	rt := newRuntime(t, t.TempDir(), permission.Default, nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec, obs := turn(t, rt, &state.State{}, [2]string{"todo_write", tc.input})
			v, ok := rec.events[0].(*contract.ToolValidation)
			if !ok || v.OK || v.Code != contract.CodeSchemaInvalid || obs[0].OK {
				t.Fatalf("events %+v, want a failed validation (schema_invalid)", rec.events)
			}
			if !strings.Contains(obs[0].Text, tc.want) {
				t.Errorf("the model reads %q, want it to say %q", obs[0].Text, tc.want)
			}
			for _, e := range rec.events {
				if _, ok := e.(*contract.TodoUpdated); ok {
					t.Errorf("a refused list was recorded")
				}
			}
		})
	}
	// A content of exactly 1 KiB, spaces around it aside, is kept.
	_, obs := turn(t, rt, &state.State{}, [2]string{"todo_write", `{"todos": [` + item("  "+strings.Repeat("x", 1024)+"  ", "pending") + `]}`})
	if !obs[0].OK {
		t.Errorf("a content of 1 KiB was refused: %s", obs[0].Text)
	}
}

// todo_write is a read that changes nothing: no mode asks before it, a
// checkpoint has nothing to keep, and two calls of a turn run one after
// the other, in order.
func TestTodoWriteIsARead(t *testing.T) {
	td := builtin.TodoWrite()
	if td.Risk != registry.RiskRead || !td.ReadOnly || td.MaxParallel != 1 || td.External() {
		t.Errorf("todo_write: risk %s, read-only %v, max parallel %d", td.Risk, td.ReadOnly, td.MaxParallel)
	}
	rt := newRuntime(t, t.TempDir(), permission.Default, nil, nil)
	rec, _ := turn(t, rt, &state.State{},
		[2]string{"todo_write", `{"todos": [{"content": "first", "status": "pending"}]}`},
		[2]string{"todo_write", `{"todos": [{"content": "second", "status": "pending"}]}`})
	if got := fold(rec.events).Todos; len(got) != 1 || got[0].Content != "second" {
		t.Errorf("after two calls in a turn the list is %+v, want the second", got)
	}
}
