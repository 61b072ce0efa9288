package transcript

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/style"
)

// paint returns s, one line, in st; s itself in the plain theme.
func paint(th style.Theme, st lipgloss.Style, s string) string {
	if !th.Color || s == "" {
		return s
	}
	return st.Render(s)
}

// wrapText word-wraps printable text to width cells, a word cut only
// when it is wider than a line; tabs become spaces.
func wrapText(s string, width int) []string {
	s = strings.ReplaceAll(s, "\t", "    ")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.Split(Wrap(l, max(width, 1)), "\n")...)
	}
	return out
}

// prefixed renders lines behind first (the first line) and rest (the
// others), each line painted st.
func prefixed(lines []string, first, rest string, th style.Theme, st lipgloss.Style) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
			b.WriteString(rest)
		} else {
			b.WriteString(first)
		}
		b.WriteString(paint(th, st, l))
	}
	return b.String()
}

// User renders a person's message, set apart by a "› " prefix in the
// Prompt style and the text in the User style, word-wrapped to width
// with a hanging indent.
func User(text string, width int, th style.Theme) string {
	text = strings.TrimRight(printable.Text(text), "\n")
	return prefixed(wrapText(text, width-2), paint(th, th.Prompt, "›")+" ", "  ", th, th.User)
}

// Note renders one line of the UI's own (a long one wraps): kind is
// "info" (dim, behind a "· "), "warn" or "error" (with their word in
// front).
// text is made printable: it may quote a provider or a tool.
func Note(kind, text string, width int, th style.Theme) string {
	st, lead := th.Dim, "· "
	switch kind {
	case "warn":
		st, lead = th.Warn, "warning: "
	case "error":
		st, lead = th.Error, "error: "
	}
	return prefixed(wrapText(lead+printable.Line(text), width-2), "", "  ", th, st)
}

// Diff renders a unified diff coloured: added lines Add, removed Del,
// hunk headers Hunk, file headers File; at most maxLines lines (all when
// maxLines <= 0), then "… N more lines". Lines wider than width are cut
// with "…".
func Diff(diff string, width, maxLines int, th style.Theme) string {
	lines := strings.Split(strings.TrimRight(printable.Text(diff), "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	more := 0
	if maxLines > 0 && len(lines) > maxLines {
		more = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		st := diffStyle(l, th)
		// A long line is wrapped, never cut: nobody should approve text
		// they cannot read. Its other rows keep its +, - or space.
		for j, row := range diffRows(strings.ReplaceAll(l, "\t", "    "), max(width, 4)) {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(paint(th, st, row))
		}
	}
	if more > 0 {
		b.WriteString("\n" + paint(th, th.Dim, fmt.Sprintf("… %d more lines", more)))
	}
	return b.String()
}

// diffRows splits a diff line into rows of width columns, at a space
// where there is one in the row's second half, else where the width ends;
// a row after the first starts with "↳ ", so that it reads as the line
// going on, not as a line of its own (its colour is the line's).
func diffRows(l string, width int) []string {
	if ansi.StringWidth(l) <= width {
		return []string{l}
	}
	var rows []string
	room := width
	for ansi.StringWidth(l) > room {
		row := ansi.Cut(l, 0, room)
		if i := strings.LastIndexByte(row, ' '); i > len(row)/2 {
			row = row[:i+1]
		}
		rows = append(rows, row)
		l = l[len(row):]
		room = width - 2
	}
	rows = append(rows, l)
	for i := 1; i < len(rows); i++ {
		rows[i] = "↳ " + rows[i]
	}
	return rows
}

// diffStyle is the style of one line of a unified diff.
func diffStyle(l string, th style.Theme) lipgloss.Style {
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		return th.File
	case strings.HasPrefix(l, "@@"):
		return th.Hunk
	case strings.HasPrefix(l, "+"):
		return th.Add
	case strings.HasPrefix(l, "-"):
		return th.Del
	}
	return th.Text
}
