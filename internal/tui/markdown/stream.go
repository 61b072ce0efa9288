package markdown

import (
	"strings"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/style"
)

// Render renders a whole markdown text to width columns: each block (a
// stretch of text a blank line ends outside a code fence, or a code fence
// with its closing line) rendered on its own, the blocks separated by a
// blank line. It is what a [Stream] fed md in any pieces returns in all.
// The text is made printable first, so no escape sequence in it reaches
// the terminal.
func Render(md string, width int, th style.Theme) string {
	s := NewStream(width, th)
	s.Write(md)
	return JoinBlocks(s.Done(), s.Close())
}

// JoinBlocks joins rendered pieces, each holding whole blocks, with the
// blank line that separates blocks, skipping empty pieces: the layout of
// rendered markdown, and of a transcript's blocks around it.
func JoinBlocks(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p)
	}
	return b.String()
}

// Stream renders markdown that arrives in pieces (a model's answer as it
// streams). What [Stream.Done] returns is final: print it once, it is
// never re-rendered; [Stream.Live] is the block still arriving, rendered
// again after each Write. The outputs of successive Done calls and of
// [Stream.Close], joined by a blank line (those that are not empty), are
// [Render] of the whole text, however it was split. A Stream is not safe
// for concurrent use.
type Stream struct {
	width int
	st    *styler
	clean printable.Stream

	buf   []byte // the printable text received
	start int    // where the current block begins in buf
	scan  int    // where the next line not yet classified begins
	seen  int    // how far the line at scan was looked at for its end
	// blocks are the completed blocks Done has not returned; fence is
	// the code fence open at scan, html the kind of the HTML block (1
	// to 5, which a blank line does not end) open at scan, 0 for none.
	blocks []span
	fence  fenceState
	html   int
	// ctx are the list items the blocks before the current one left
	// open; mayList says a line of the current block may begin a list
	// item, or it goes on with one.
	ctx     []level
	mayList bool
	defs    linkDefs
	// live caches Live's rendering until the next Write; liveOK says it
	// is current.
	live   string
	liveOK bool
	code   liveCode
	closed bool
}

// NewStream returns a Stream that renders to width columns with th.
func NewStream(width int, th style.Theme) *Stream {
	return &Stream{width: max(width, minWidth), st: newStyler(th)}
}

// minWidth is the narrowest width rendered: below it nothing fits.
const minWidth = 10

// Write appends delta, a piece of raw model text. Its cost is that of the
// delta: only the lines it completes are looked at.
func (s *Stream) Write(delta string) {
	if s.closed || delta == "" {
		return
	}
	s.buf = append(s.buf, s.clean.Next(delta)...)
	s.liveOK = false
	s.classify()
}

// Done returns the blocks completed since the last call, rendered and
// separated by a blank line; "" if none.
func (s *Stream) Done() string {
	if len(s.blocks) == 0 {
		return ""
	}
	parts := make([]string, 0, len(s.blocks))
	for _, r := range s.blocks {
		parts = append(parts, s.render(r, true))
	}
	s.blocks = s.blocks[:0]
	return JoinBlocks(parts...)
}

// Live returns the current, incomplete block rendered, "" when there is
// none. It is rendered once per Write and cached. Call Done first: a block
// completed and not yet taken by Done is not shown.
func (s *Stream) Live() string {
	if !s.liveOK {
		s.live = ""
		if s.fence.open && s.fence.body > 0 {
			s.live = s.liveCode()
		} else if !blank(s.buf[s.start:]) {
			s.live = s.render(span{s.start, len(s.buf), s.ctx}, false)
		}
		s.liveOK = true
	}
	return s.live
}

// Close ends the stream and returns the rest rendered: the blocks Done
// has not returned and the incomplete one. Writes after Close are ignored.
func (s *Stream) Close() string {
	if s.closed {
		return ""
	}
	s.buf = append(s.buf, s.clean.Flush()...)
	s.closed = true
	if blank(s.buf[s.start:]) {
		return s.Done()
	}
	s.blocks = append(s.blocks, span{s.start, len(s.buf), s.ctx})
	s.start = len(s.buf)
	s.live, s.liveOK = "", true
	return s.Done()
}

// span is a block of the stream's text: where it begins and ends in the
// text, and the list items the blocks before it left open.
type span struct {
	start, end int
	ctx        []level
}

// render renders the block sp, without a trailing newline; "" when it
// shows nothing. A block is rendered once done, when done is set: the
// link reference definitions it holds and the labels of the references it
// could not resolve are then the stream's, for the blocks after it.
func (s *Stream) render(sp span, done bool) string {
	r := &renderer{st: s.st, refs: linkRefs{known: s.defs.known}, wanted: s.defs.wanted}
	out := r.piece(string(s.buf[sp.start:sp.end]), sp.ctx, s.width)
	if done {
		s.defs.add(&r.refs)
	}
	return strings.Join(out, "\n")
}

// Resize sets the width of the blocks not yet returned by Done or Close.
func (s *Stream) Resize(width int) {
	s.width = max(width, minWidth)
	s.liveOK = false
}
