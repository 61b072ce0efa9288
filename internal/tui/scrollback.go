package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxScrollback bounds the lines kept for a reprint: a terminal keeps
// fewer (tmux 2,000, most others 10,000), so more would only cost memory.
const maxScrollback = 20_000

// scrollback is what the UI printed into the terminal's scrollback, line
// by line, so that it can be printed again after a resize. Only the
// program's loop touches it.
type scrollback struct {
	lines   []string
	dropped int
}

// add keeps the lines of a print, dropping the oldest past the bound.
func (s *scrollback) add(text string) {
	s.lines = append(s.lines, strings.Split(text, "\n")...)
	if over := len(s.lines) - maxScrollback; over > 0 {
		// Copied down, so the dropped lines' memory goes too.
		s.lines = append(s.lines[:0:0], s.lines[over:]...)
		s.dropped += over
	}
}

// wrapped is every line kept, each wider than width wrapped to it (styles
// kept), and a first line saying how many older ones were dropped.
func (s *scrollback) wrapped(width int) string {
	var b strings.Builder
	if s.dropped > 0 {
		fmt.Fprintf(&b, "(%d earlier lines are not shown again; rein replay shows the whole session)\n", s.dropped)
	}
	for i, l := range s.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if ansi.StringWidth(l) > width {
			l = ansi.Wrap(l, width, "")
		}
		b.WriteString(l)
	}
	return b.String()
}
