package markdown

import "strings"

// refDef is a link reference definition: "[label]: destination "title"".
// Its label is normalised (normLabel), raw is as written; its
// destination's escapes and references are resolved.
type refDef struct {
	label, raw, dest string
}

// takeDefs removes the link reference definitions that begin a
// paragraph's text and returns them with what is left of the text.
func takeDefs(text string) ([]refDef, string) {
	var defs []refDef
	for strings.HasPrefix(text, "[") {
		d, n := parseDef(text)
		if n == 0 {
			break
		}
		defs = append(defs, d)
		text = strings.TrimLeft(text[n:], " \t")
	}
	return defs, text
}

// parseDef parses the definition text begins with, returning its length
// with its line end, 0 if text begins none.
func parseDef(text string) (refDef, int) {
	end := 1
	for end < len(text) && text[end] != ']' && text[end] != '[' {
		if text[end] == '\\' && end+1 < len(text) {
			end++
		}
		end++
	}
	if end >= len(text) || end > 1000 || text[end] != ']' || !strings.HasPrefix(text[end+1:], ":") {
		return refDef{}, 0
	}
	label := normLabel(text[1:end])
	if label == "" {
		return refDef{}, 0
	}
	i := skipLineSpace(text, end+2)
	var dest string
	if i < len(text) && text[i] == '<' {
		j := strings.IndexAny(text[i+1:], ">\n")
		if j < 0 || text[i+1+j] != '>' {
			return refDef{}, 0
		}
		dest, i = text[i+1:i+1+j], i+2+j
	} else {
		j := i
		for j < len(text) && text[j] > ' ' {
			j++
		}
		if j == i {
			return refDef{}, 0
		}
		dest, i = text[i:j], j
	}
	// The rest of the line holds nothing, or a title; a title may be on
	// the next line.
	lineEnd := lineEndAfter(text, i)
	def := refDef{label: label, raw: text[1:end], dest: unescape(dest)}
	if t := titleEnd(text, i); t > 0 {
		return def, t
	}
	if strings.TrimSpace(text[i:lineEnd]) != "" {
		return refDef{}, 0
	}
	return def, lineEnd
}

// titleEnd returns where the line ends that ends the title after a
// definition's destination at text[i], 0 when there is none.
func titleEnd(text string, i int) int {
	j := skipLineSpace(text, i)
	if j == i && (j >= len(text) || text[j] != '\n') {
		return 0 // a title needs a space before it
	}
	if j < len(text) && text[j] == '\n' {
		j = skipLineSpace(text, j+1)
	}
	if j >= len(text) || strings.IndexByte("\"'(", text[j]) < 0 {
		return 0
	}
	k := titleClose(text, j, nil)
	if k < 0 {
		return 0
	}
	e := lineEndAfter(text, k+1)
	if strings.TrimSpace(text[k+1:e]) != "" {
		return 0
	}
	return e
}

// titleClose returns the index in s of what closes the link title opened
// at s[j] (a " or ' by its like, a ( by a ")"), past backslash escapes; -1
// when nothing does, which f remembers (see finder; nil remembers
// nothing).
func titleClose(s string, j int, f *finder) int {
	closer := s[j]
	if closer == '(' {
		closer = ')'
	}
	if f.index(s[j+1:], string(closer)) < 0 {
		return -1
	}
	for k := j + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++ // the escaped character closes nothing
		case closer:
			return k
		}
	}
	return -1
}

// lineEndAfter returns the index after the line end that follows
// text[i], or len(text).
func lineEndAfter(text string, i int) int {
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(text)
}

// skipLineSpace skips spaces and tabs, and one line end among them.
func skipLineSpace(s string, i int) int {
	i = skipLeading(s, i)
	if i < len(s) && s[i] == '\n' {
		i = skipLeading(s, i+1)
	}
	return i
}

// normLabel returns a link label as it is matched: trimmed, its runs of
// white space one space, case folded (in lower case, and "ß", whose
// upper case is "SS", as "ss").
func normLabel(label string) string {
	l := strings.ToLower(strings.Join(strings.Fields(label), " "))
	if strings.Contains(l, "ß") {
		l = strings.ReplaceAll(l, "ß", "ss")
	}
	return l
}

// collectDefs gathers the definitions of blocks and of the blocks in
// them, the first of a label winning, into refs; nil if there are none.
func collectDefs(blocks []*block, refs map[string]string) map[string]string {
	for _, b := range blocks {
		for _, d := range b.defs {
			if refs == nil {
				refs = map[string]string{}
			}
			if _, ok := refs[d.label]; !ok {
				refs[d.label] = d.dest
			}
		}
		refs = collectDefs(b.kids, refs)
		for _, item := range b.items {
			refs = collectDefs(item, refs)
		}
	}
	return refs
}

// linkDefs is what a stream knows of link reference definitions: those
// of the blocks it completed, by label, the first of a label winning as
// in CommonMark; and the labels of the references those blocks could not
// resolve. A block printed cannot change: a definition that comes after
// a reference to it is shown where it stands ("[1]: https://go.dev"), so
// that its destination is on the screen.
type linkDefs struct {
	known  map[string]string
	wanted map[string]bool
}

// add makes what the block r rendered knows the stream's: its
// definitions, and the labels it could not resolve.
func (d *linkDefs) add(r *linkRefs) {
	for label, dest := range r.own {
		if _, ok := d.known[label]; ok {
			continue
		}
		if d.known == nil {
			d.known = map[string]string{}
		}
		d.known[label] = dest
		delete(d.wanted, label)
	}
	for label := range r.missing {
		if _, ok := d.known[label]; ok {
			continue
		}
		if d.wanted == nil {
			d.wanted = map[string]bool{}
		}
		d.wanted[label] = true
	}
}

// linkRefs resolves the references of one block: by the definitions of
// the blocks before it, then by its own. It notes the labels it could
// not resolve.
type linkRefs struct {
	known   map[string]string // the stream's, read only
	own     map[string]string
	missing map[string]bool
}

// resolve returns the destination of the normalised label.
func (l *linkRefs) resolve(label string) (string, bool) {
	if d, ok := l.known[label]; ok {
		return d, true
	}
	if d, ok := l.own[label]; ok {
		return d, true
	}
	if l.missing == nil {
		l.missing = map[string]bool{}
	}
	l.missing[label] = true
	return "", false
}
