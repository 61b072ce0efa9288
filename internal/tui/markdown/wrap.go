package markdown

import (
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/tui/style"
)

// mark is what a piece of text is, as a set: its style is made from it.
type mark uint32

// The marks of text. The first ones combine; of the last ones (a code
// token's kind) a text has at most one.
const (
	mBold mark = 1 << iota
	mItalic
	mCode
	mLink
	mDim
	mHeading
	mQuote
	mRule
	mMarker
	mCodeBlock
	mKeyword
	mString
	mComment
	mNumber
)

// seg is a piece of printable text and its marks.
type seg struct {
	text string
	m    mark
}

// styler renders marked text with a theme's styles. Each combination of
// marks is rendered once, around a sentinel, into the sequences that open
// and close it: text is then styled by concatenation, which is cheaper
// than a lipgloss render per piece and styles a run as one (lipgloss
// underlines rune by rune).
type styler struct {
	th    style.Theme
	cache map[mark][2]string
}

func newStyler(th style.Theme) *styler {
	return &styler{th: th, cache: map[mark][2]string{}}
}

// render returns s styled for m: s itself in the plain theme.
func (st *styler) render(s string, m mark) string {
	if !st.th.Color || m == 0 || s == "" {
		return s
	}
	seq, ok := st.cache[m]
	if !ok {
		const sentinel = "X"
		r := st.style(m).Render(sentinel)
		if i := strings.Index(r, sentinel); i >= 0 {
			seq = [2]string{r[:i], r[i+len(sentinel):]}
		}
		st.cache[m] = seq
	}
	return seq[0] + s + seq[1]
}

// style makes the style of m from the theme: the most specific base
// style, then the attributes.
func (st *styler) style(m mark) lipgloss.Style {
	th := st.th
	s := th.Text
	for _, b := range []struct {
		m mark
		s lipgloss.Style
	}{
		{mQuote, th.Quote}, {mHeading, th.Heading}, {mLink, th.Link}, {mCode, th.Code},
		{mDim, th.Dim}, {mRule, th.Rule}, {mMarker, th.Accent}, {mCodeBlock, th.CodeBlock},
		{mKeyword, th.Keyword}, {mString, th.String}, {mComment, th.Comment}, {mNumber, th.Number},
	} {
		if m&b.m != 0 {
			s = b.s
		}
	}
	if m&mBold != 0 {
		s = s.Bold(true)
	}
	if m&mItalic != 0 {
		s = s.Italic(true)
	}
	return s
}

// line renders one line of segments, neighbours of the same marks styled
// as one.
func (st *styler) line(segs []seg) string {
	if len(segs) == 1 {
		return st.render(segs[0].text, segs[0].m)
	}
	var b strings.Builder
	for i := 0; i < len(segs); {
		j := i + 1
		for j < len(segs) && segs[j].m == segs[i].m {
			j++
		}
		run := segs[i].text
		if j > i+1 {
			var r strings.Builder
			for _, s := range segs[i:j] {
				r.WriteString(s.text)
			}
			run = r.String()
		}
		b.WriteString(st.render(run, segs[i].m))
		i = j
	}
	return b.String()
}

// lines renders lines of segments.
func (st *styler) lines(ls [][]seg) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = st.line(l)
	}
	return out
}

// wrapper fills lines of at most width cells with words.
type wrapper struct {
	width int
	lines [][]seg
	cur   []seg
	curW  int
}

// wrap word-wraps segs to width cells: a line breaks at a space, or at
// "\n", and inside a word only when the word is wider than a line. Runs
// of spaces are one break; spaces at a line's ends are dropped.
func wrap(segs []seg, width int) [][]seg {
	w := &wrapper{width: max(width, 1)}
	var word []seg
	wordW := 0
	space := false
	flushWord := func() {
		if len(word) > 0 {
			w.place(word, wordW, space) // copies word
			word, wordW, space = word[:0], 0, false
		}
	}
	for _, s := range segs {
		t := s.text
		for t != "" {
			i := strings.IndexAny(t, " \n")
			if i < 0 {
				word = append(word, seg{t, s.m})
				wordW += cellWidth(t)
				break
			}
			if i > 0 {
				word = append(word, seg{t[:i], s.m})
				wordW += cellWidth(t[:i])
			}
			flushWord()
			if t[i] == '\n' {
				w.newline()
				space = false
			} else if w.curW > 0 {
				space = true
			}
			t = t[i+1:]
		}
	}
	flushWord()
	if len(w.cur) > 0 {
		w.newline()
	}
	return w.lines
}

// newline ends the current line.
func (w *wrapper) newline() {
	w.lines = append(w.lines, w.cur)
	w.cur, w.curW = nil, 0
}

// place puts a word of width ww on the current line, after a space when
// space, or on the next one, or cut across lines when it is wider than
// one.
func (w *wrapper) place(word []seg, ww int, space bool) {
	gap := 0
	if space && w.curW > 0 {
		gap = 1
	}
	if w.curW > 0 && w.curW+gap+ww > w.width {
		w.newline()
		gap = 0
	}
	if gap == 1 {
		m := mark(0)
		if last := w.cur[len(w.cur)-1]; last.m == word[0].m {
			m = last.m
		}
		w.cur = append(w.cur, seg{" ", m})
		w.curW++
	}
	if ww <= w.width-w.curW {
		w.cur = append(w.cur, word...)
		w.curW += ww
		return
	}
	for _, s := range word {
		w.cut(s)
	}
}

// cut puts s on the current line and as many next ones as it needs.
func (w *wrapper) cut(s seg) {
	t := s.text
	for t != "" {
		room := w.width - w.curW
		// A character takes no more cells than bytes, and rarely more
		// than four bytes a cell: what lies past limit cannot fit, and
		// is not measured again for each line it is cut into.
		limit := min(len(t), 4*room+64)
		for limit < len(t) && !utf8.RuneStart(t[limit]) {
			limit--
		}
		if limit == len(t) {
			if tw := cellWidth(t); tw <= room {
				w.cur = append(w.cur, seg{t, s.m})
				w.curW += tw
				return
			}
		}
		head := ansi.Cut(t[:limit], 0, room)
		if head == "" && w.curW == 0 {
			// A character wider than the whole line: it goes alone.
			_, size := utf8.DecodeRuneInString(t)
			head = t[:size]
		}
		if head != "" {
			w.cur = append(w.cur, seg{head, s.m})
			w.curW += cellWidth(head)
			t = t[len(head):]
		}
		w.newline()
	}
}

// cellWidth returns the cells s takes on a terminal: its length when it
// is printable ASCII, the common case, which needs no grapheme segmentation.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}
