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
	// col is the column the content of the list item the fence is in
	// begins at, 0 for a fence in no item: a line indented less ends the
	// item and the fence.
	col int
	// body is where the code of a fence that begins its block, unindented,
	// begins in the stream's text (0 for another fence); lang is its
	// language. Live renders such a block line by line as it grows.
	body int
	lang string
}

// classify looks at each line of buf that is complete and not yet looked
// at, and ends the current block at a blank line outside a fence or an
// HTML block that a blank line does not end, or at a closing fence.
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
		case s.fence.open && s.fence.col > 0 && !blank(line) && indentCols(string(line)) < s.fence.col:
			s.fence = fenceState{} // the list item ends, and its code with it
			s.line(line, end)
		case s.fence.open:
			closing := line
			if s.fence.col > 0 {
				closing = []byte(stripCols(string(line), s.fence.col))
			}
			if closesFence(closing, s.fence) {
				// A fence in a list item ends no block: the item goes on.
				if s.fence.col == 0 {
					s.endBlock(end)
				}
				s.fence = fenceState{}
			}
		case s.html > 0:
			if htmlEnds(string(line), s.html) {
				s.html = 0
			}
		case blank(line):
			if blank(s.buf[s.start:end]) {
				s.start = end // blank lines between blocks belong to none
			} else {
				s.endBlock(end)
			}
		default:
			s.line(line, end)
		}
	}
}

// line classifies a line, ending at end, that is not blank and not in
// a fence or an HTML block: it may open one.
func (s *Stream) line(line []byte, end int) {
	ind := 0
	for ind < len(line) && ind < 4 && line[ind] == ' ' {
		ind++
	}
	if ind < len(line) && strings.IndexByte("-+*0123456789", line[ind]) >= 0 {
		s.mayList = true
	}
	if f, ok := opensFence(line); ok {
		if line[0] == f.char && blank(s.buf[s.start:end-len(line)-1]) {
			f.body = end
			f.lang, _, _ = strings.Cut(strings.TrimSpace(string(line[f.n:])), " ")
		}
		s.fence = f
		return
	}
	if fenceAfterMarkers(line) {
		// A fence in a list item, after its marker or indented to its
		// content: what the block's lines so far parse to says.
		if f, col := openFence(splitLines(string(s.buf[s.start:end])), s.ctx); f.open {
			f.col = col
			s.fence = f
		}
		return
	}
	if ind < 4 && ind < len(line) && line[ind] == '<' {
		if k := htmlStart(string(line[ind:]), false); k >= 1 && k <= 5 && !htmlEnds(string(line), k) {
			s.html = k
		}
	}
}

// fenceAfterMarkers reports whether line, past its indent and the list
// markers it may begin with, begins with a fence's "```" or "~~~": it
// may open a fence in a list item.
func fenceAfterMarkers(line []byte) bool {
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '-' || c == '+' || c == '*':
			if i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
				return false
			}
			i++
		case isDigit(c):
			j := i
			for j < len(line) && isDigit(line[j]) {
				j++
			}
			if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return false
			}
			i = j + 1
		default:
			rest := line[i:]
			return bytes.HasPrefix(rest, []byte("```")) || bytes.HasPrefix(rest, []byte("~~~"))
		}
	}
	return false
}

// endBlock ends the current block at end.
func (s *Stream) endBlock(end int) {
	s.blocks = append(s.blocks, span{s.start, end, s.ctx})
	// Only a list, or a block that goes on with an item, leaves one open.
	goesOn := len(s.ctx) > 0 && indentCols(string(s.buf[s.start:min(end, s.start+s.ctx[0].col)])) >= s.ctx[0].col
	if s.mayList || goesOn {
		s.ctx = nextLevels(splitLines(string(s.buf[s.start:end])), s.ctx)
	} else {
		s.ctx = nil
	}
	s.start = end
	s.mayList = false
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
