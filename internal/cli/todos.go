package cli

import (
	"slices"

	"github.com/rein-agent/rein/internal/contract"
)

// todoList shows the task list a todo_write call wrote, when it differs
// from the one shown before: a line that says how far it is, then an item
// a line (☑ done, dimmed; ◼ in progress, bold; ☐ to do). It reports
// whether data was a todo.updated.
func (t *terminal) todoList(data contract.Event) bool {
	e, ok := data.(*contract.TodoUpdated)
	if !ok {
		return false
	}
	if t.todosShown && slices.Equal(e.Todos, t.todos) {
		return true
	}
	t.todos, t.todosShown = e.Todos, true
	if len(e.Todos) == 0 {
		t.line(t.style("2", "  task list cleared"))
		return true
	}
	done := 0
	for _, td := range e.Todos {
		if td.Status == contract.TodoCompleted {
			done++
		}
	}
	t.line(t.style("2", sayf("  task list: %d of %d done", done, len(e.Todos))))
	for _, td := range e.Todos {
		switch td.Status {
		case contract.TodoCompleted:
			t.line(t.style("2", "    ☑ "+field(td.Content)))
		case contract.TodoInProgress:
			t.line(t.style("1", "    ◼ "+field(td.Content)))
		default:
			t.line("    ☐ " + field(td.Content))
		}
	}
	return true
}
