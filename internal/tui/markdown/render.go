// Package markdown renders markdown to styled, word-wrapped text for a
// terminal, whole ([Render]) or as it streams ([Stream]).
//
// The text is cut into blocks at blank lines outside code fences, and each
// block is parsed (goldmark's CommonMark core, with pipe tables found by
// this package) and rendered on its own, so that a block printed while an
// answer streams is never rendered again. What CommonMark would join across
// a blank line (a loose list's items, a link reference defined in another
// block) is rendered block by block.
package markdown

import (
	"fmt"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// mdParser is goldmark's CommonMark parser, made on first use so that a
// program that renders no markdown pays nothing for it.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
})

// renderer renders the AST of one piece of markdown.
type renderer struct {
	src   []byte
	st    *styler
	base  mark // marks every text inherits (a block quote's)
	depth int  // how deep in lists
}

// renderBlock renders one block of printable markdown text to width
// columns, without a trailing newline; "" when it shows nothing.
func renderBlock(src string, width int, st *styler) string {
	var out []string
	for _, c := range splitTables(src) {
		var lines []string
		if c.table != nil {
			lines = renderTable(c.table, width, st)
		} else {
			lines = renderMarkdown(c.text, width, st)
		}
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return strings.Join(out, "\n")
}

// renderMarkdown parses src and renders its blocks.
func renderMarkdown(src string, width int, st *styler) []string {
	b := []byte(src)
	doc := mdParser().Parse(text.NewReader(b))
	r := &renderer{src: b, st: st}
	return r.blocks(doc, width, false)
}

// blocks renders the children of parent, a blank line between two unless
// tight (a tight list's item).
func (r *renderer) blocks(parent ast.Node, width int, tight bool) []string {
	var out []string
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width)
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

// block renders one block node to lines of at most width cells.
func (r *renderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		var segs []seg
		if !r.st.th.Color {
			segs = append(segs, seg{strings.Repeat("#", n.Level) + " ", 0})
		}
		return r.st.lines(wrap(r.inlines(n, r.base|mHeading, segs), width))
	case *ast.Paragraph, *ast.TextBlock:
		return r.st.lines(wrap(r.inlines(n, r.base, nil), width))
	case *ast.ThematicBreak:
		return []string{r.st.render(strings.Repeat("─", width), mRule)}
	case *ast.Blockquote:
		return r.quote(n, width)
	case *ast.List:
		return r.list(n, width)
	case *ast.FencedCodeBlock:
		return codeLines(r.lineText(n), string(n.Language(r.src)), width, r.st)
	case *ast.CodeBlock:
		return codeLines(r.lineText(n), "", width, r.st)
	case *ast.HTMLBlock:
		s := r.lineText(n)
		if n.HasClosure() {
			s += string(n.ClosureLine.Value(r.src))
		}
		return preformatted(s, width, r.base, r.st)
	default:
		return r.blocks(n, width, false)
	}
}

// lineText returns the text of a block's lines.
func (r *renderer) lineText(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// quote renders a block quote: its blocks behind a bar.
func (r *renderer) quote(n *ast.Blockquote, width int) []string {
	saved := r.base
	r.base |= mQuote
	inner := r.blocks(n, max(width-2, 1), false)
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
func (r *renderer) list(n *ast.List, width int) []string {
	count := n.ChildCount()
	markW := 2
	if n.IsOrdered() {
		markW = len(fmt.Sprint(n.Start+count-1)) + 2
	}
	r.depth++
	defer func() { r.depth-- }()
	var out []string
	i := 0
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := bullets[(r.depth-1)%len(bullets)]
		if n.IsOrdered() {
			marker = fmt.Sprintf("%d%c", n.Start+i, n.Marker)
		}
		marker += strings.Repeat(" ", markW-len([]rune(marker)))
		lines := r.blocks(item, max(width-markW, 1), n.IsTight)
		if len(lines) == 0 {
			lines = []string{""}
		}
		if i > 0 && !n.IsTight {
			out = append(out, "")
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
		i++
	}
	return out
}
