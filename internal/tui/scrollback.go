package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/tui/transcript"
)

// What is kept of the scrollback for a reprint: a terminal keeps fewer
// lines (tmux 2,000, most others 10,000), so more would only cost memory.
// Past either bound the oldest tenth is dropped at once, so that a print
// does not copy the whole of it each time.
const (
	maxScrollback      = 20_000
	maxScrollbackBytes = 8 << 20
)

// scrollback is what the UI printed into the terminal's scrollback, line
// by line, so that it can be printed again after a resize. Only the
// program's loop touches it.
type scrollback struct {
	lines   []string
	bytes   int
	dropped int
}

// add keeps the lines of a print, dropping the oldest past the bounds.
func (s *scrollback) add(text string) {
	for l := range strings.SplitSeq(text, "\n") {
		s.lines = append(s.lines, l)
		s.bytes += len(l) + 1
	}
	if len(s.lines) <= maxScrollback && s.bytes <= maxScrollbackBytes {
		return
	}
	drop := max(0, len(s.lines)-maxScrollback*9/10)
	freed := s.sizeOf(drop)
	for drop < len(s.lines) && s.bytes-freed > maxScrollbackBytes*9/10 {
		freed += len(s.lines[drop]) + 1
		drop++
	}
	s.bytes -= freed
	// Copied down, so the dropped lines' memory goes too.
	s.lines = append(s.lines[:0:0], s.lines[drop:]...)
	s.dropped += drop
}

// sizeOf is the bytes the first n lines take.
func (s *scrollback) sizeOf(n int) int {
	size := 0
	for _, l := range s.lines[:max(0, min(n, len(s.lines)))] {
		size += len(l) + 1
	}
	return size
}

// wrapped is every line kept, each wider than width wrapped to it at
// spaces (styles kept), and a first line saying how many older ones were
// dropped.
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
			l = transcript.Wrap(l, width)
		}
		b.WriteString(l)
	}
	return b.String()
}
