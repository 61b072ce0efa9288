package markdown

import (
	"bytes"
	"strings"
)

// fenceState is whether the line scan is inside a code fence, and which
// fence closes it.
type fenceState struct {
	open bool
	char byte
	n    int
	// body is where the code of a fence that begins its block, unindented,
	// begins in the stream's text (0 for another fence); lang is its
	// language. Live renders such a block line by line as it grows.
	body int
	lang string
}

// classify looks at each line of buf that is complete and not yet looked
// at, and ends the current block at a blank line outside a fence or at a
// closing fence.
func (s *Stream) classify() {
	for {
		// The part of the line looked at by an earlier Write holds no
		// line end: look only at what came since.
		from := max(s.scan, s.seen)
		nl := bytes.IndexByte(s.buf[from:], '\n')
		if nl < 0 {
			s.seen = len(s.buf)
			return
		}
		line := s.buf[s.scan : from+nl]
		end := from + nl + 1
		s.scan = end
		switch {
		case s.fence.open:
			if closesFence(line, s.fence) {
				s.fence = fenceState{}
				s.endBlock(end)
			}
		case blank(line):
			if blank(s.buf[s.start:end]) {
				s.start = end // blank lines between blocks belong to none
			} else {
				s.endBlock(end)
			}
		default:
			if f, ok := opensFence(line); ok {
				if line[0] == f.char && blank(s.buf[s.start:end-len(line)-1]) {
					f.body = end
					f.lang, _, _ = strings.Cut(strings.TrimSpace(string(line[f.n:])), " ")
				}
				s.fence = f
			}
		}
	}
}

// endBlock ends the current block at end.
func (s *Stream) endBlock(end int) {
	s.blocks = append(s.blocks, span{s.start, end})
	s.start = end
}

// blank reports whether b holds only spaces, tabs and line ends.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// opensFence reports whether line opens a fenced code block: up to three
// spaces, then three or more backticks or tildes (a backtick fence's info
// string holds no backtick).
func opensFence(line []byte) (fenceState, bool) {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i >= len(line) || (line[i] != '`' && line[i] != '~') {
		return fenceState{}, false
	}
	c := line[i]
	n := 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	if n < 3 {
		return fenceState{}, false
	}
	if c == '`' {
		for _, b := range line[i+n:] {
			if b == '`' {
				return fenceState{}, false
			}
		}
	}
	return fenceState{open: true, char: c, n: n}, true
}

// closesFence reports whether line closes the fence f: up to three
// spaces, at least as many of its characters, then only spaces.
func closesFence(line []byte, f fenceState) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	n := 0
	for i+n < len(line) && line[i+n] == f.char {
		n++
	}
	return n >= f.n && blank(line[i+n:])
}
