package markdown

import "strings"

// closeBracket parses a ']': with the latest open bracket and an inline
// destination after it, a link or image of what is between; else itself.
func (p *inlineParser) closeBracket() {
	p.pos++
	if len(p.brackets) == 0 {
		p.text.WriteByte(']')
		return
	}
	p.flush()
	bi := p.brackets[len(p.brackets)-1]
	p.brackets = p.brackets[:len(p.brackets)-1]
	opener := p.out[bi]
	dest, n, ok := linkTail(p.src[p.pos:], &p.find)
	if !ok && p.refs != nil && opener.active {
		dest, n, ok = p.reference(opener)
	}
	if !opener.active || !ok {
		p.text.WriteByte(']')
		return
	}
	p.pos += n
	node := &inline{kind: iLink, dest: dest, kids: literal(processEmphasis(p.out[bi+1:]))}
	if opener.text == "![" {
		node.kind = iImage
	} else {
		// A link holds no link: the brackets before it open none.
		for _, b := range p.brackets {
			if p.out[b].text == "[" {
				p.out[b].active = false
			}
		}
	}
	p.out = append(p.out[:bi], node)
}

// reference resolves a reference link whose text opener began and
// which p.pos is after the ']' of: "[text][label]", "[label][]" or
// "[label]". It returns the destination and the length parsed after the
// ']'.
func (p *inlineParser) reference(opener *inline) (dest string, n int, ok bool) {
	label := p.src[opener.n+len(opener.text) : p.pos-1]
	rest := p.src[p.pos:]
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexAny(rest[1:], "[]"); j >= 0 && rest[1+j] == ']' {
			if j > 0 {
				if d, found := p.refs.resolve(normLabel(rest[1 : 1+j])); found {
					return d, j + 2, true
				}
				return "", 0, false
			}
			n = 2 // "[]": the text is the label
		}
	}
	if len(label) > 999 {
		return "", 0, false // no link label
	}
	norm := normLabel(label)
	if norm == "" {
		return "", 0, false
	}
	d, found := p.refs.resolve(norm)
	return d, n, found
}

// linkTail parses what follows a link's text: "(destination "title")".
// It returns the destination, its escapes and references resolved, and
// the length parsed.
func linkTail(s string, f *finder) (dest string, n int, ok bool) {
	if s == "" || s[0] != '(' {
		return "", 0, false
	}
	i := skipSpace(s, 1)
	switch {
	case i < len(s) && s[i] == '<':
		end := i + 1
		for end < len(s) && s[end] != '>' && s[end] != '\n' && s[end] != '<' {
			if s[end] == '\\' && end+1 < len(s) {
				end++
			}
			end++
		}
		if end >= len(s) || s[end] != '>' {
			return "", 0, false
		}
		dest, i = s[i+1:end], end+1
	default:
		start, depth := i, 0
	scan:
		for ; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
				i++
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			case c <= ' ':
				break scan
			}
		}
		if depth != 0 {
			return "", 0, false
		}
		dest = s[start:i]
	}
	j := skipSpace(s, i)
	if j < len(s) && j > i && (s[j] == '"' || s[j] == '\'' || s[j] == '(') {
		k := titleClose(s, j, f)
		if k < 0 {
			return "", 0, false
		}
		j = skipSpace(s, k+1)
	}
	if j >= len(s) || s[j] != ')' {
		return "", 0, false
	}
	return unescape(dest), j + 1, true
}

// unescape resolves the backslash escapes and character references of a
// link's destination: what it links to, which is what is shown.
func unescape(s string) string {
	if !strings.ContainsAny(s, `\&`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]) {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		if c == '&' {
			if r, n := entity(s[i:]); n > 0 {
				b.WriteString(r)
				i += n
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// processEmphasis matches the delimiter runs of nodes into emphasis,
// CommonMark's way, and returns the nodes with each match made one. The
// nodes are moved to a stack as they are looked at: a closer matches an
// opener on it, and what is above the opener becomes the emphasis.
func processEmphasis(nodes []*inline) []*inline {
	// bottom[k] is the index of out at and below which no opener for a
	// closer of kind k is left to find; it only spares searching again.
	var bottom [12]int
	for k := range bottom {
		bottom[k] = -1
	}
	out := make([]*inline, 0, len(nodes))
	for _, c := range nodes {
		if c.kind != iDelim || !c.close {
			out = append(out, c)
			continue
		}
		k := c.orig % 3
		if c.open {
			k += 3
		}
		if c.ch == '_' {
			k += 6
		}
		for c.n > 0 {
			oi := opener(out, c, bottom[k])
			if oi < 0 {
				bottom[k] = len(out) - 1
				break
			}
			o := out[oi]
			use := 1
			if o.n >= 2 && c.n >= 2 {
				use = 2
			}
			o.n -= use
			c.n -= use
			em := &inline{kind: iEmph, level: use, kids: literal(out[oi+1:])}
			out = out[:oi+1]
			if o.n == 0 {
				out = out[:oi]
			}
			out = append(out, em)
			for k := range bottom {
				bottom[k] = min(bottom[k], len(out)-1)
			}
		}
		out = append(out, c)
	}
	return out
}

// opener returns the index in out of the nearest delimiter run above
// bottom that closer c closes, -1 if none.
func opener(out []*inline, c *inline, bottom int) int {
	for j := len(out) - 1; j > bottom; j-- {
		o := out[j]
		if o.kind == iDelim && o.ch == c.ch && o.open && o.n > 0 &&
			!((o.close || c.open) && (o.orig+c.orig)%3 == 0 && (o.orig%3 != 0 || c.orig%3 != 0)) {
			return j
		}
	}
	return -1
}

// literal turns the delimiter runs and brackets left in nodes into text.
func literal(nodes []*inline) []*inline {
	out := nodes[:0:0]
	for _, n := range nodes {
		switch n.kind {
		case iDelim:
			if n.n == 0 {
				continue
			}
			n = &inline{kind: iText, text: strings.Repeat(string(n.ch), n.n)}
		case iBracket:
			n = &inline{kind: iText, text: n.text}
		}
		out = append(out, n)
	}
	return out
}
