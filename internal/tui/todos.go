package tui

import (
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/printable"
)

// maxChecklist is how many items of the task list the checklist shows;
// a longer list shows those around the item in progress, and says how
// many it leaves out.
const maxChecklist = 8

// checklist is the model's task list drawn above the composer, updated in
// place as todo_write calls change it, never printed into the scrollback
// (the call's card says how far the list is). The model's own words are
// made printable. A list that is empty is not drawn, nor one all done
// once the run that did it ended.
type checklist struct {
	todos []contract.Todo
	// drawn is the checklist as drawn last, at width; dirty says the list
	// changed since.
	drawn string
	width int
	dirty bool
}

// set makes todos the list shown.
func (c *checklist) set(todos []contract.Todo) { c.todos, c.dirty = todos, true }

// checklistView returns the checklist at the screen's width in the
// theme's styles, "" when there is nothing to show (running says a run is
// under way).
func (m *model) checklistView(running bool) string {
	c := &m.todos
	done := 0
	for _, td := range c.todos {
		if td.Status == contract.TodoCompleted {
			done++
		}
	}
	if len(c.todos) == 0 || done == len(c.todos) && !running {
		return ""
	}
	if !c.dirty && c.width == m.width {
		return c.drawn
	}
	c.dirty, c.width = false, m.width
	th := m.theme
	from, to := window(c.todos)
	lines := []string{th.Dim.Render(truncate(fmt.Sprintf("tasks · %d of %d done", done, len(c.todos)), m.width))}
	if from > 0 {
		lines = append(lines, th.Dim.Render(fmt.Sprintf("  … %d before", from)))
	}
	for _, td := range c.todos[from:to] {
		text := printable.Line(strings.Join(strings.Fields(td.Content), " "))
		switch td.Status {
		case contract.TodoCompleted:
			lines = append(lines, th.Dim.Render(truncate(m.mark("☑", "[x]")+" "+th.Strike.Render(text), m.width)))
		case contract.TodoInProgress:
			if td.ActiveForm != "" {
				text = printable.Line(strings.Join(strings.Fields(td.ActiveForm), " "))
			}
			lines = append(lines, th.Accent.Render(truncate(m.mark("◼", "[>]")+" "+th.Bold.Render(text), m.width)))
		default:
			lines = append(lines, truncate(m.mark("☐", "[ ]")+" "+text, m.width))
		}
	}
	if to < len(c.todos) {
		lines = append(lines, th.Dim.Render(fmt.Sprintf("  … %d more", len(c.todos)-to)))
	}
	c.drawn = strings.Join(lines, "\n")
	return c.drawn
}

// mark is a checklist's mark: the glyph in a theme with colours, the
// ASCII one in the plain theme (NO_COLOR, a dumb terminal).
func (m *model) mark(glyph, ascii string) string {
	if m.theme.Color {
		return glyph
	}
	return ascii
}

// window returns the items of todos the checklist shows, [from, to): all
// of a short list, else maxChecklist of them from two before the item in
// progress (or the first not done).
func window(todos []contract.Todo) (from, to int) {
	if len(todos) <= maxChecklist {
		return 0, len(todos)
	}
	at := -1
	for i, td := range todos {
		if td.Status == contract.TodoInProgress {
			at = i
			break
		}
		if at < 0 && td.Status != contract.TodoCompleted {
			at = i
		}
	}
	from = min(max(at-2, 0), len(todos)-maxChecklist)
	return from, from + maxChecklist
}
