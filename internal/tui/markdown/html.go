package markdown

import "strings"

// htmlStart returns which of CommonMark's seven kinds of HTML block s,
// its indent removed, begins, 0 for none; the seventh (any tag alone on
// its line) only when seven, as it cannot interrupt a paragraph.
func htmlStart(s string, seven bool) int {
	if len(s) < 2 || s[0] != '<' {
		return 0
	}
	lower := strings.ToLower(s)
	for _, t := range []string{"<script", "<pre", "<style", "<textarea"} {
		if strings.HasPrefix(lower, t) && (len(s) == len(t) || strings.IndexByte(" \t>", s[len(t)]) >= 0) {
			return 1
		}
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		return 2
	case strings.HasPrefix(s, "<?"):
		return 3
	case strings.HasPrefix(s, "<![CDATA["):
		return 5
	case len(s) > 2 && s[1] == '!' && isLetter(s[2]):
		return 4
	}
	name := lower[1:]
	name = strings.TrimPrefix(name, "/")
	n := 0
	for n < len(name) && (isLetter(name[n]) || isDigit(name[n])) {
		n++
	}
	if n > 0 && blockTag(name[:n]) {
		if rest := name[n:]; rest == "" || strings.IndexByte(" \t>", rest[0]) >= 0 || strings.HasPrefix(rest, "/>") {
			return 6
		}
	}
	if seven {
		if n := htmlTag(s, nil); n > 0 && isBlank(s[n:]) {
			return 7
		}
	}
	return 0
}

// htmlEnds reports whether line ends an HTML block of kind k.
func htmlEnds(line string, k int) bool {
	switch k {
	case 1:
		l := strings.ToLower(line)
		return strings.Contains(l, "</script>") || strings.Contains(l, "</pre>") ||
			strings.Contains(l, "</style>") || strings.Contains(l, "</textarea>")
	case 2:
		return strings.Contains(line, "-->")
	case 3:
		return strings.Contains(line, "?>")
	case 4:
		return strings.Contains(line, ">")
	case 5:
		return strings.Contains(line, "]]>")
	}
	return false
}

// htmlBlock parses an HTML block of kind k from lines[i]: its lines as
// written, to the line that ends it (kinds 1 to 5) or to a blank line.
func htmlBlock(lines []string, i, k int) (*block, int) {
	j := i
	for ; j < len(lines); j++ {
		if k >= 6 && isBlank(lines[j]) {
			break
		}
		if k <= 5 && htmlEnds(lines[j], k) {
			j++
			break
		}
	}
	return &block{kind: bHTML, text: joinLines(lines[i:j])}, j
}

// blockTags are the tags of HTML blocks of the sixth kind.
var blockTags = []string{
	"address", "article", "aside", "base", "basefont", "blockquote", "body", "caption", "center",
	"col", "colgroup", "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption",
	"figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
	"header", "hr", "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "nav",
	"noframes", "ol", "optgroup", "option", "p", "param", "search", "section", "summary", "table",
	"tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul",
}

// blockTag reports whether name, in lower case, is one of blockTags.
func blockTag(name string) bool {
	for _, t := range blockTags {
		if t == name {
			return true
		}
	}
	return false
}

// htmlTag returns the length of the HTML tag s begins with (an open or
// closing tag, a comment, a processing instruction, a declaration or a
// CDATA section, as CommonMark's raw HTML), 0 when it begins none. f,
// which may be nil, remembers what the rest of the text lacks.
func htmlTag(s string, f *finder) int {
	if len(s) < 3 || s[0] != '<' {
		return 0
	}
	switch {
	case strings.HasPrefix(s, "<!--"):
		if strings.HasPrefix(s, "<!-->") {
			return 5
		}
		if strings.HasPrefix(s, "<!--->") {
			return 6
		}
		return endAfter(s, 4, "-->", f)
	case strings.HasPrefix(s, "<?"):
		return endAfter(s, 2, "?>", f)
	case strings.HasPrefix(s, "<![CDATA["):
		return endAfter(s, 9, "]]>", f)
	case s[1] == '!' && isLetter(s[2]):
		return endAfter(s, 2, ">", f)
	case s[1] == '/':
		i := tagName(s, 2)
		if i == 2 {
			return 0
		}
		i = skipSpace(s, i)
		if i < len(s) && s[i] == '>' {
			return i + 1
		}
		return 0
	}
	return openTag(s, f)
}

// openTag returns the length of the open tag s begins with, 0 if none.
func openTag(s string, f *finder) int {
	i := tagName(s, 1)
	if i == 1 {
		return 0
	}
	for {
		j := skipSpace(s, i)
		if j < len(s) && s[j] == '>' {
			return j + 1
		}
		if strings.HasPrefix(s[j:], "/>") {
			return j + 2
		}
		if j == i {
			return 0 // an attribute needs a space before it
		}
		k := attribute(s, j, f)
		if k == j {
			return 0
		}
		i = k
	}
}

// attribute returns where the attribute at s[i] ends, i if there is none.
func attribute(s string, i int, f *finder) int {
	if i >= len(s) || !(isLetter(s[i]) || s[i] == '_' || s[i] == ':') {
		return i
	}
	j := i + 1
	for j < len(s) && (isLetter(s[j]) || isDigit(s[j]) || strings.IndexByte("_.:-", s[j]) >= 0) {
		j++
	}
	k := skipSpace(s, j)
	if k >= len(s) || s[k] != '=' {
		return j
	}
	k = skipSpace(s, k+1)
	if k >= len(s) {
		return i
	}
	if q := s[k]; q == '"' || q == '\'' {
		end := f.index(s[k+1:], s[k:k+1])
		if end < 0 {
			return i
		}
		return k + 1 + end + 1
	}
	e := k
	for e < len(s) && strings.IndexByte(" \t\n\"'=<>`", s[e]) < 0 {
		e++
	}
	if e == k {
		return i
	}
	return e
}

// tagName returns where the tag name at s[i] ends, i if there is none.
func tagName(s string, i int) int {
	if i >= len(s) || !isLetter(s[i]) {
		return i
	}
	j := i + 1
	for j < len(s) && (isLetter(s[j]) || isDigit(s[j]) || s[j] == '-') {
		j++
	}
	return j
}

// endAfter returns the length of s up to the end of the first end after
// s[from:], 0 when there is none.
func endAfter(s string, from int, end string, f *finder) int {
	i := f.index(s[from:], end)
	if i < 0 {
		return 0
	}
	return from + i + len(end)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// finder finds strings in the rest of a text, remembering those it
// found none of: a text with many openers and no closer is searched to
// its end once per closer, not once per opener. Each text searched must
// be a suffix of the previous one. A nil finder remembers nothing.
type finder struct {
	missing []string
}

// index returns the index of end in s, -1 if none.
func (f *finder) index(s, end string) int {
	if f != nil {
		for _, m := range f.missing {
			if m == end {
				return -1
			}
		}
	}
	i := strings.Index(s, end)
	if i < 0 && f != nil {
		f.missing = append(f.missing, end)
	}
	return i
}
