// Package markdown renders markdown to styled, word-wrapped text for a
// terminal, whole ([Render]) or as it streams ([Stream]).
//
// The text is cut into blocks at blank lines outside code fences (and
// the HTML blocks a blank line does not end: <pre>, <script>, <style>,
// <textarea>, comments, ...), and each block is parsed (CommonMark's
// blocks and inlines, by this package, with GFM pipe tables) and
// rendered on its own, so that a block printed while an answer streams
// is never rendered again. What CommonMark joins across a blank line is
// carried from block to block:
//
//   - A list item goes on: a block whose first line is indented to the
//     content of the item the blocks before it left open is rendered as
//     that item's content, under it (and a code fence in an item keeps
//     its blank lines).
//   - A link reference definition resolves the references of the blocks
//     after it. One that comes after a reference to it cannot change the
//     block already printed: it is shown where it stands, "[1]:
//     https://go.dev", so that the URL is on the screen.
//
// testdata/commonmark holds the CommonMark spec's examples: the text of
// every one survives the rendering (TestCommonMarkTextSurvives).
package markdown

import (
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/printable"
)

// renderer renders the blocks of one block of a stream's text.
type renderer struct {
	st *styler
	// refs resolves the block's reference links; wanted are the labels
	// of references the blocks before it left unresolved, whose
	// definitions it shows (nil for none); shown are those it showed.
	refs   linkRefs
	wanted map[string]bool
	shown  map[string]bool
	base   mark // marks every text inherits (a block quote's)
	depth  int  // how deep in lists
}

// chunks renders src, printable markdown text: its pipe tables and the
// markdown between them, a blank line between two.
func (r *renderer) chunks(src string, width int) []string {
	var out []string
	for _, c := range splitTables(src) {
		var lines []string
		if c.table != nil {
			lines = r.table(c.table, width)
		} else {
			lines = r.markdown(c.text, width)
		}
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// markdown parses src and renders its blocks; the link reference
// definitions in it are the block's from here on.
func (r *renderer) markdown(src string, width int) []string {
	blocks, _ := parseBlocks(splitLines(src))
	r.refs.own = collectDefs(blocks, r.refs.own)
	return r.blocks(blocks, width, false)
}

// splitLines cuts src into its lines, without their line ends.
func splitLines(src string) []string {
	src = strings.TrimSuffix(src, "\n")
	if src == "" {
		return nil
	}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = expandMarkerTabs(strings.TrimSuffix(l, "\r"))
	}
	return lines
}

// expandMarkerTabs returns line with the tabs that follow a block quote's
// '>' or a list item's marker at its start as spaces to the next multiple
// of four columns, so that the lines of a container, which begin at
// another column, are parsed by the columns they are at. Tabs of the
// leading indent stay: a code block's lines keep them.
func expandMarkerTabs(line string) string {
	col, marked := 0, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\t' && marked:
			var b strings.Builder
			b.WriteString(line[:i])
			for ; i < len(line) && strings.IndexByte(" \t>-+*.)0123456789", line[i]) >= 0; i++ {
				if line[i] == '\t' {
					n := 4 - col%4
					b.WriteString(strings.Repeat(" ", n))
					col += n
					continue
				}
				b.WriteByte(line[i])
				col++
			}
			b.WriteString(line[i:])
			return b.String()
		case c == '\t':
			col += 4 - col%4
		case c == ' ':
			col++
		case strings.IndexByte(">-+*.)0123456789", c) >= 0:
			col++
			marked = true
		default:
			return line
		}
	}
	return line
}

// blocks renders blocks, a blank line between two unless tight (a tight
// list's item).
func (r *renderer) blocks(blocks []*block, width int, tight bool) []string {
	var out []string
	for _, b := range blocks {
		lines := r.block(b, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

// block renders one block to lines of at most width cells.
func (r *renderer) block(b *block, width int) []string {
	switch b.kind {
	case bHeading:
		var segs []seg
		if !r.st.th.Color {
			segs = append(segs, seg{strings.Repeat("#", b.level) + " ", 0})
		}
		return r.withDefs(b, r.st.lines(wrap(r.inlines(parseInlines(b.text, &r.refs), r.base|mHeading, segs), width)), width)
	case bParagraph:
		if b.text == "" {
			return r.defs(b.defs, width)
		}
		return r.withDefs(b, r.st.lines(wrap(r.inlines(parseInlines(b.text, &r.refs), r.base, nil), width)), width)
	case bRule:
		return []string{r.st.render(strings.Repeat("─", width), mRule)}
	case bQuote:
		return r.quote(b, width)
	case bList:
		return r.list(b, width)
	case bCode:
		return codeLines(b.text, b.lang, width, r.st)
	default:
		return preformatted(b.text, width, r.base, r.st)
	}
}

// withDefs returns lines, the rendering of a paragraph or heading b,
// after the definitions it began with that are shown.
func (r *renderer) withDefs(b *block, lines []string, width int) []string {
	if len(b.defs) == 0 {
		return lines
	}
	return append(r.defs(b.defs, width), lines...)
}

// defs renders the link reference definitions of defs that a reference
// before them, which could not be resolved, needs: "[label]: URL", so
// that the URL is on the screen. The others show nothing.
func (r *renderer) defs(defs []refDef, width int) []string {
	var out []string
	for _, d := range defs {
		if r.shown[d.label] || !r.wanted[d.label] && !r.refs.missing[d.label] {
			continue
		}
		if r.shown == nil {
			r.shown = map[string]bool{}
		}
		r.shown[d.label] = true
		label := "[" + strings.Join(strings.Fields(printable.Line(d.raw)), " ") + "]: "
		segs := []seg{{label, r.base}, {printable.Line(d.dest), r.base | mDim}}
		out = append(out, r.st.lines(wrap(segs, width))...)
	}
	return out
}

// minInner is the narrowest width a quote or list gives its blocks: a
// container nested deeper than that leaves its indent out, so that no
// line is wider than the width (a wide character, a cut code line's
// continuation mark fit in it).
const minInner = 6

// quote renders a block quote: its blocks behind a bar.
func (r *renderer) quote(b *block, width int) []string {
	saved := r.base
	r.base |= mQuote
	if width-2 < minInner {
		defer func() { r.base = saved }()
		return r.blocks(b.kids, width, false)
	}
	inner := r.blocks(b.kids, width-2, false)
	r.base = saved
	bar := r.st.render("│ ", mQuote)
	for i, l := range inner {
		inner[i] = bar + l
	}
	return inner
}

// bullets are the marks of an unordered list's items, by depth.
var bullets = []string{"•", "◦", "▪"}

// list renders a list, each item behind its marker with a hanging indent.
func (r *renderer) list(b *block, width int) []string {
	markW := markWidth(b)
	r.depth++
	defer func() { r.depth-- }()
	var out []string
	for i, item := range b.items {
		marker := bullets[(r.depth-1)%len(bullets)]
		if b.ordered {
			marker = fmt.Sprintf("%d%c", b.start+i, b.marker)
		}
		marker += strings.Repeat(" ", markW-len([]rune(marker)))
		if i > 0 && !b.tight {
			out = append(out, "")
		}
		if width-markW < minInner {
			// Too deep to indent: the marker on a line of its own.
			out = append(out, r.st.render(strings.TrimRight(marker, " "), r.base|mMarker))
			out = append(out, r.blocks(item, width, b.tight)...)
			continue
		}
		lines := r.blocks(item, width-markW, b.tight)
		if len(lines) == 0 {
			lines = []string{""}
		}
		pad := strings.Repeat(" ", markW)
		for j, l := range lines {
			switch {
			case j == 0:
				out = append(out, r.st.render(marker, r.base|mMarker)+l)
			case l == "":
				out = append(out, "")
			default:
				out = append(out, pad+l)
			}
		}
	}
	return out
}

// inlines appends the segments of nodes to out, marked m and whatever
// emphasis, code or link adds.
func (r *renderer) inlines(nodes []*inline, m mark, out []seg) []seg {
	for _, n := range nodes {
		switch n.kind {
		case iText:
			out = append(out, seg{printable.Text(n.text), m}) // a reference may name a control character
		case iSoft:
			out = append(out, seg{" ", m})
		case iHard:
			out = append(out, seg{"\n", m})
		case iCode:
			code := n.text
			if !r.st.th.Color {
				code = "`" + code + "`"
			}
			out = append(out, seg{code, m | mCode})
		case iEmph:
			em := mItalic
			if n.level >= 2 {
				em = mBold
			}
			out = r.inlines(n.kids, m|em, out)
		case iLink:
			out = r.link(n, m, out)
		case iAutolink:
			out = append(out, seg{n.text, m | mLink})
		case iImage:
			out = append(out, seg{"[image: ", m})
			out = r.inlines(n.kids, m, out)
			out = append(out, seg{"]", m}, seg{" (" + printable.Line(n.dest) + ")", m | mDim})
		default: // raw HTML, shown as written
			out = append(out, seg{n.text, m})
		}
	}
	return out
}

// link appends a link: its text, then its URL dim when the text is not
// the URL itself.
func (r *renderer) link(n *inline, m mark, out []seg) []seg {
	start := len(out)
	out = r.inlines(n.kids, m|mLink, out)
	var txt strings.Builder
	for _, s := range out[start:] {
		txt.WriteString(s.text)
	}
	if n.dest != "" && n.dest != txt.String() {
		out = append(out, seg{" (" + printable.Line(n.dest) + ")", m | mDim})
	}
	return out
}
