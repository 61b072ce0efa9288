package markdown

import (
	"bytes"
	"strings"
)

// liveCode is the rendering of a code block still streaming, kept from
// one Live to the next so that each renders only the lines that came
// since: a long block costs the same per frame at its end as at its
// start. A code block's lines are rendered one by one anyway, the
// highlighter carrying its state across them.
type liveCode struct {
	body  int // the fence's body this is the rendering of
	width int
	upto  int // where in the text the lines rendered end
	// done holds the lines rendered, each followed by a line end.
	done strings.Builder
	hl   highlighter
}

// liveCode renders the code block being streamed: its complete lines
// from the cache, then the line being written.
func (s *Stream) liveCode() string {
	c := &s.code
	if c.body != s.fence.body || c.width != s.width {
		c.body, c.width, c.upto, c.hl = s.fence.body, s.width, s.fence.body, *newHighlighter(s.fence.lang)
		c.done = strings.Builder{}
	}
	for c.upto < s.scan {
		nl := bytes.IndexByte(s.buf[c.upto:s.scan], '\n')
		for _, l := range codeLine(nil, &c.hl, string(s.buf[c.upto:c.upto+nl]), s.width, s.st) {
			c.done.WriteString(l)
			c.done.WriteByte('\n')
		}
		c.upto += nl + 1
	}
	done := c.done.String() // no copy: a Builder's String shares its bytes
	if c.upto == len(s.buf) {
		if done == "" {
			return codeIndent
		}
		return done[:len(done)-1]
	}
	hl := c.hl // the line being written must not move the state on
	return done + strings.Join(codeLine(nil, &hl, string(s.buf[c.upto:]), s.width, s.st), "\n")
}
