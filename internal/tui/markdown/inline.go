package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	"github.com/rein-agent/rein/internal/printable"
)

// inlines appends the text of n's inline children to out, marked m and
// whatever emphasis, code or link adds.
func (r *renderer) inlines(n ast.Node, m mark, out []seg) []seg {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(r.src)
			if !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
				v = []byte(printable.Text(string(v))) // a reference may name a control character
			}
			out = append(out, seg{string(v), m})
			switch {
			case c.HardLineBreak():
				out = append(out, seg{"\n", m})
			case c.SoftLineBreak():
				out = append(out, seg{" ", m})
			}
		case *ast.String:
			out = append(out, seg{string(c.Value), m})
		case *ast.CodeSpan:
			code := r.plainText(c)
			if !r.st.th.Color {
				code = "`" + code + "`"
			}
			out = append(out, seg{code, m | mCode})
		case *ast.Emphasis:
			em := mItalic
			if c.Level >= 2 {
				em = mBold
			}
			out = r.inlines(c, m|em, out)
		case *ast.Link:
			out = r.link(c, m, out)
		case *ast.AutoLink:
			out = append(out, seg{string(c.URL(r.src)), m | mLink})
		case *ast.Image:
			out = append(out, seg{"[image: ", m})
			out = r.inlines(c, m, out)
			out = append(out, seg{"]", m}, seg{" (" + printable.Line(string(c.Destination)) + ")", m | mDim})
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				s := c.Segments.At(i)
				out = append(out, seg{string(s.Value(r.src)), m})
			}
		default:
			out = r.inlines(c, m, out)
		}
	}
	return out
}

// link appends a link: its text, then its URL dim when the text is not
// the URL itself.
func (r *renderer) link(c *ast.Link, m mark, out []seg) []seg {
	start := len(out)
	out = r.inlines(c, m|mLink, out)
	var txt strings.Builder
	for _, s := range out[start:] {
		txt.WriteString(s.text)
	}
	if len(c.Destination) > 0 && !bytes.Equal(c.Destination, []byte(txt.String())) {
		out = append(out, seg{" (" + printable.Line(string(c.Destination)) + ")", m | mDim})
	}
	return out
}

// plainText returns the text of n's inline children, unstyled.
func (r *renderer) plainText(n ast.Node) string {
	var b strings.Builder
	for _, s := range r.inlines(n, 0, nil) {
		b.WriteString(s.text)
	}
	return b.String()
}
