package markdown

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// inlineKind is what an inline node is.
type inlineKind uint8

const (
	iText inlineKind = iota
	iSoft            // a line end inside a paragraph
	iHard            // a hard line break
	iCode
	iEmph
	iLink
	iImage
	iAutolink
	iHTML
	iDelim   // a run of * or _ not yet matched
	iBracket // a [ or ![ not yet closed
)

// inline is a node of a paragraph's inline content. Text is resolved
// (escapes and entities) but not yet made printable; a code span's,
// autolink's or raw HTML's text is as written.
type inline struct {
	kind  inlineKind
	text  string
	dest  string // a link's or image's destination, as written
	level int    // an emphasis's: 1 or 2
	kids  []*inline
	// A delimiter run's character, its count left and at first, and
	// whether it can open or close emphasis; a bracket's active flag and
	// its place in the text (in n).
	ch          byte
	n, orig     int
	open, close bool
	active      bool
}

// inlineParser parses inline markdown, CommonMark's way: delimiter runs
// and brackets are nodes, matched when a closer is met (links) or at the
// end (emphasis).
type inlineParser struct {
	src      string
	pos      int
	out      []*inline
	text     strings.Builder // text not yet made a node
	brackets []int           // indexes in out of the open brackets
	refs     *linkRefs
	find     finder
	// noRun are the lengths of backtick runs the rest of the text lacks.
	noRun []int
}

// parseInlines parses src, the text of a paragraph or heading, refs
// resolving its reference links (nil: none is).
func parseInlines(src string, refs *linkRefs) []*inline {
	p := &inlineParser{src: src, refs: refs}
	for p.pos < len(p.src) {
		p.step()
	}
	p.flush()
	return literal(processEmphasis(p.out))
}

// step parses what begins at p.pos.
func (p *inlineParser) step() {
	c := p.src[p.pos]
	switch c {
	case '\\':
		p.escape()
	case '\n':
		p.lineEnd()
	case '`':
		p.codeSpan()
	case '*', '_':
		p.delimiter(c)
	case '[':
		p.push(&inline{kind: iBracket, text: "[", active: true, n: p.pos})
		p.brackets = append(p.brackets, len(p.out)-1)
		p.pos++
	case '!':
		if strings.HasPrefix(p.src[p.pos:], "![") {
			p.push(&inline{kind: iBracket, text: "![", active: true, n: p.pos})
			p.brackets = append(p.brackets, len(p.out)-1)
			p.pos += 2
			return
		}
		p.text.WriteByte(c)
		p.pos++
	case ']':
		p.closeBracket()
	case '<':
		p.angle()
	case '&':
		if r, n := entity(p.src[p.pos:]); n > 0 {
			p.text.WriteString(r)
			p.pos += n
			return
		}
		p.text.WriteByte(c)
		p.pos++
	default:
		// Copy the run of characters that mean nothing.
		end := p.pos + 1
		for end < len(p.src) && strings.IndexByte("\\\n`*_[!]<&", p.src[end]) < 0 {
			end++
		}
		p.text.WriteString(p.src[p.pos:end])
		p.pos = end
	}
}

// flush makes the pending text a node.
func (p *inlineParser) flush() {
	if p.text.Len() > 0 {
		p.out = append(p.out, &inline{kind: iText, text: p.text.String()})
		p.text.Reset()
	}
}

// push appends n after the pending text.
func (p *inlineParser) push(n *inline) {
	p.flush()
	p.out = append(p.out, n)
}

// escape parses a backslash: an escaped punctuation character, a hard
// break before a line end, else itself.
func (p *inlineParser) escape() {
	if p.pos+1 < len(p.src) {
		c := p.src[p.pos+1]
		if c == '\n' {
			p.push(&inline{kind: iHard})
			p.pos = skipLeading(p.src, p.pos+2)
			return
		}
		if isASCIIPunct(c) {
			p.text.WriteByte(c)
			p.pos += 2
			return
		}
	}
	p.text.WriteByte('\\')
	p.pos++
}

// lineEnd parses a line end: a hard break after two spaces, else soft;
// the spaces around it are dropped.
func (p *inlineParser) lineEnd() {
	t := p.text.String()
	hard := len(t)-len(strings.TrimRight(t, " ")) >= 2
	trimmed := strings.TrimRight(t, " \t")
	p.text.Reset()
	p.text.WriteString(trimmed)
	if hard {
		p.push(&inline{kind: iHard})
	} else {
		p.push(&inline{kind: iSoft})
	}
	p.pos = skipLeading(p.src, p.pos+1)
}

func skipLeading(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// codeSpan parses a run of backticks: a code span to the next run of the
// same length, else the run itself.
func (p *inlineParser) codeSpan() {
	n := runLen(p.src, p.pos, '`')
	for i := p.pos + n; i < len(p.src) && !slices.Contains(p.noRun, n); {
		j := strings.IndexByte(p.src[i:], '`')
		if j < 0 {
			break
		}
		i += j
		m := runLen(p.src, i, '`')
		if m == n {
			code := strings.ReplaceAll(p.src[p.pos+n:i], "\n", " ")
			if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
				code = code[1 : len(code)-1]
			}
			p.push(&inline{kind: iCode, text: code})
			p.pos = i + n
			return
		}
		i += m
	}
	if !slices.Contains(p.noRun, n) {
		p.noRun = append(p.noRun, n)
	}
	p.text.WriteString(p.src[p.pos : p.pos+n])
	p.pos += n
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// delimiter parses a run of * or _, which may open or close emphasis by
// what is on its two sides.
func (p *inlineParser) delimiter(c byte) {
	n := runLen(p.src, p.pos, c)
	before, after := ' ', ' '
	if p.pos > 0 {
		before, _ = utf8.DecodeLastRuneInString(p.src[:p.pos])
	}
	if p.pos+n < len(p.src) {
		after, _ = utf8.DecodeRuneInString(p.src[p.pos+n:])
	}
	left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
	right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
	d := &inline{kind: iDelim, ch: c, n: n, orig: n, open: left, close: right}
	if c == '_' {
		d.open = left && (!right || isPunct(before))
		d.close = right && (!left || isPunct(after))
	}
	p.push(d)
	p.pos += n
}

// isPunct reports whether r is punctuation or a symbol, as CommonMark
// counts them for emphasis.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// angle parses a '<': an autolink, raw HTML, else itself.
func (p *inlineParser) angle() {
	rest := p.src[p.pos:]
	if n := autolink(rest); n > 0 {
		p.push(&inline{kind: iAutolink, text: rest[1 : n-1]})
		p.pos += n
		return
	}
	if n := htmlTag(rest, &p.find); n > 0 {
		p.push(&inline{kind: iHTML, text: rest[:n]})
		p.pos += n
		return
	}
	p.text.WriteByte('<')
	p.pos++
}

// autolink returns the length of the autolink s begins with ("<scheme:…>"
// or "<address@host>"), 0 when it begins none.
func autolink(s string) int {
	end := 1
	for end < len(s) && strings.IndexByte(" \t\n<>", s[end]) < 0 {
		end++
	}
	if end >= len(s) || s[end] != '>' || end == 1 {
		return 0
	}
	body := s[1:end]
	if colon := strings.IndexByte(body, ':'); colon >= 2 && colon <= 32 && isLetter(body[0]) {
		ok := true
		for i := 1; i < colon; i++ {
			if c := body[i]; !isLetter(c) && !isDigit(c) && c != '+' && c != '.' && c != '-' {
				ok = false
			}
		}
		if ok {
			return end + 1
		}
	}
	if at := strings.IndexByte(body, '@'); at > 0 && at < len(body)-1 && !strings.ContainsAny(body, "\\:") {
		return end + 1
	}
	return 0
}
