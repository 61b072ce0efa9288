package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// View draws the live region: what is in progress, what waits, the
// composer (or a dialog, or the picker) and the status line.
func (m *model) View() tea.View {
	if m.quitting || m.suspended || !m.shown {
		// No frame before the first print (the banner): a frame drawn
		// first would be cleared from the screen's top-left corner by the
		// print, which some terminals (tmux) keep in the scrollback.
		return tea.NewView("")
	}
	var parts []string
	if list := m.checklistView(m.running); list != "" {
		parts = append(parts, list)
	}
	for _, q := range m.queue {
		parts = append(parts, m.theme.Dim.Render(truncate("queued: "+printable.Line(firstLine(q.Display)), m.width)))
	}
	if m.running {
		parts = append(parts, m.working())
	}
	if m.note != "" {
		parts = append(parts, m.theme.Warn.Render(truncate(printable.Line(m.note), m.width)))
	}
	var cursor *tea.Cursor
	switch {
	case m.ask != nil:
		// The dialog has the screen but for a row, the status line and
		// what is above it here.
		d := m.dialog(m.ask, m.height-1-rows(parts)-1)
		parts = append(parts, d)
		if m.tell != nil {
			// The line the person writes on is the dialog's last.
			if c := m.tell.Cursor(); c != nil {
				cc := *c
				cc.X += 2
				cc.Y = rows(parts) - 1
				cursor = &cc
			}
		}
	case m.picker != nil || m.models != nil || m.rewind != nil:
		parts = append(parts, m.pickerView(m.height-1-rows(parts)-1))
	default:
		if m.compDirty {
			m.compView, m.compCursor, m.compDirty = m.comp.View(), m.comp.Cursor(), false
		}
		if c := m.compCursor; c != nil {
			cc := *c
			cc.Y += rows(parts)
			cursor = &cc
		}
		parts = append(parts, m.compView)
	}
	parts = append(parts, m.statusLine())
	if live := m.live(rows(parts)); live != "" {
		parts = append([]string{live}, parts...)
		if cursor != nil {
			cursor.Y += rows([]string{live})
		}
	}
	content := strings.Join(parts, "\n")
	if lines := strings.Split(content, "\n"); len(lines) > m.height-1 {
		// Never taller than the screen less a row: a frame as tall as
		// the screen starts at its top-left corner, and clearing from
		// there (every redraw that shrinks it, every print above it)
		// makes some terminals (tmux) scroll the frame into the
		// scrollback.
		content = strings.Join(lines[len(lines)-(m.height-1):], "\n")
		if cursor != nil {
			cursor.Y -= len(lines) - (m.height - 1)
		}
	}
	m.liveRows = rows([]string{content})
	v := tea.NewView(content)
	v.Cursor = cursor
	v.WindowTitle = "rein"
	if m.goal != "" {
		v.WindowTitle = "rein: " + m.goal
	}
	return v
}

// pickerView is the picker open (/resume's, /model's, /rewind's), in
// room rows.
func (m *model) pickerView(room int) string {
	switch {
	case m.picker != nil:
		return m.picker.view(m)
	case m.models != nil:
		return m.models.view(m)
	}
	return m.rewind.view(m, room)
}

// live is what is in progress, in the rows the rest of the live region
// (rest rows) leaves: a long block still streaming shows its end. A blank
// line sets it apart from the scrollback, as printed blocks are set apart
// from each other.
func (m *model) live(rest int) string {
	live := m.tr.Live(m.now())
	if live == "" {
		return ""
	}
	// The screen less a row (see View), the blank line and the rest.
	room := m.height - 2 - rest
	if room < 1 {
		return ""
	}
	lines := strings.Split(live, "\n")
	if len(lines) > room {
		lines = lines[len(lines)-room:]
	}
	return "\n" + strings.Join(lines, "\n")
}

// rows counts the rows parts take, each on its own lines.
func rows(parts []string) int {
	n := 0
	for _, p := range parts {
		n += strings.Count(p, "\n") + 1
	}
	return n
}

// working is the line that says a run works: a spinner, what it does,
// for how long.
func (m *model) working() string {
	took := m.now().Sub(m.activityAt).Seconds()
	key := fmt.Sprintf("%d %s %s %.1f", m.width, m.spin.View(), m.activity, took)
	if key == m.workingKey {
		return m.workingLine // a frame inside the same tenth of a second
	}
	m.workingKey, m.workingLine = key, m.workingText(took)
	return m.workingLine
}

func (m *model) workingText(took float64) string {
	line := fmt.Sprintf("%s %s · %.1f s", m.spin.View(), printable.Line(m.activity), took)
	hint := m.theme.Dim.Render("  (esc to interrupt)")
	if ansi.StringWidth(line)+ansi.StringWidth(hint) > m.width {
		hint = ""
	}
	return truncate(line, m.width) + hint
}

// statusLine is the model, the permission mode, the sandbox, the running
// background jobs, the context used, and the session's tokens and cost, shortened to the width by
// dropping the least needed words and parts first.
func (m *model) statusLine() string {
	cur := m.rt.Current()
	st := m.rt.State()
	window := m.window
	if window == 0 && cur.Info != nil {
		window = cur.Info.ContextWindow
	}
	ctxPart := "ctx ?"
	if window > 0 {
		ctxPart = fmt.Sprintf("ctx %d%%", min(100, m.contextUsed*100/window))
	}
	u := st.Usage
	sandbox := printable.Line(orDash(sandboxWord(m.sess.Sandbox)))
	name, mode, tok, cost := printable.Line(modelName(cur)), m.rt.Mode(), tokensShort(u.InputTokens+u.OutputTokens)+" tok", costShort(u.CostUSD, u.Calls, u.Unpriced)
	jobs := jobsPart(&st)
	key := strings.Join([]string{fmt.Sprint(m.width), name, mode, sandbox, ctxPart, tok, cost, jobs}, "\x00")
	if key == m.statusKey {
		return m.statusDrawn // drawn sixty times a second, changed a few
	}
	m.statusKey = key
	var line string
	for _, parts := range [][]string{
		{name, mode, "sandbox " + sandbox, jobs, ctxPart, tok, cost},
		{name, mode, sandbox, jobs, ctxPart, tok, cost},
		{name, mode, sandbox, jobs, ctxPart, cost},
		{name, mode, jobs, ctxPart, cost},
		{name, mode, jobs, ctxPart},
		{name, mode, ctxPart},
	} {
		parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
		if line = strings.Join(parts, " · "); ansi.StringWidth(line) <= m.width {
			break
		}
	}
	m.statusDrawn = m.theme.Status.Render(truncate(line, m.width))
	return m.statusDrawn
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tokensShort is a token count in k or M.
func tokensShort(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// costShort is the session's cost for the status line: nothing before
// the first call, nor when no call's price is known (/cost says so in
// words); "+?" after a sum some calls of which were not priced.
func costShort(usd float64, calls, unpriced int) string {
	switch {
	case calls == 0, unpriced == calls:
		return ""
	case unpriced > 0:
		return fmt.Sprintf("$%.2f+?", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}

// truncate cuts s to w columns with an ellipsis.
func truncate(s string, w int) string {
	if w <= 1 || ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// wrapIndent word-wraps s to w columns, each line after indent.
func wrapIndent(s string, w int, indent string) string {
	width := max(10, w-ansi.StringWidth(indent))
	var b strings.Builder
	for i, l := range strings.Split(transcript.Wrap(s, width), "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(indent + l)
	}
	return b.String()
}

// toolSubject is what a tool acts on, for the activity line: the command,
// the path, the pattern.
func toolSubject(tool string, input json.RawMessage) string {
	if tool == "task" {
		// Its card says what the child does; the line, which child.
		return printable.Line(tool) + " " + firstLine(transcript.Subject(tool, input, ""))
	}
	var in struct {
		Command, Path, Pattern string
	}
	_ = json.Unmarshal(input, &in) // a bad input shows the tool's name alone
	subject := in.Command
	if subject == "" {
		subject = in.Path
	}
	if subject == "" {
		subject = in.Pattern
	}
	if subject == "" {
		return printable.Line(tool)
	}
	return printable.Line(tool) + " " + firstLine(subject)
}
