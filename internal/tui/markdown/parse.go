package markdown

import "strings"

// blockKind is what a parsed block is.
type blockKind uint8

const (
	bParagraph blockKind = iota
	bHeading
	bRule
	bQuote
	bList
	bCode
	bHTML
)

// block is a parsed block of markdown. A paragraph or heading holds the
// inline markdown of its text; a code or HTML block its lines as written;
// a quote its blocks; a list its items, each a sequence of blocks.
type block struct {
	kind  blockKind
	level int    // a heading's
	text  string // a paragraph's or heading's inline source, a code or HTML block's lines
	lang  string // a fenced code block's language
	kids  []*block
	items [][]*block
	cols  []int      // where each item's content begins, in the list's lines
	fence fenceState // a fenced code block's fence, open if no line closed it
	defs  []refDef   // the link reference definitions a paragraph or heading began with
	// A list's: ordered or not, its first number, its marker ('.' or ')'
	// when ordered) and whether its items are tight.
	ordered bool
	start   int
	marker  byte
	tight   bool
}

// parseBlocks parses the lines of a piece of markdown (CommonMark's
// blocks) into its blocks; gap
// reports whether a blank line separates two of them.
func parseBlocks(lines []string) (blocks []*block, gap bool) {
	blankBefore := false
	for i := 0; i < len(lines); {
		line := lines[i]
		if isBlank(line) {
			blankBefore = true
			i++
			continue
		}
		if blankBefore && len(blocks) > 0 {
			gap = true
		}
		blankBefore = false
		b, next := parseBlock(lines, i)
		blocks = append(blocks, b)
		i = next
	}
	return blocks, gap
}

// parseBlock parses the block that begins at lines[i], which is not
// blank, and returns it with the index of the line after it.
func parseBlock(lines []string, i int) (*block, int) {
	line := lines[i]
	ind := indentCols(line)
	if strings.HasPrefix(line, lazyMark) {
		return paragraph(lines, i)
	}
	if ind >= 4 {
		return indentedCode(lines, i)
	}
	s := stripCols(line, ind)
	if f, ok := opensFence([]byte(s)); ok {
		return fencedCode(lines, i, ind, f)
	}
	if level, text, ok := atxHeading(s); ok {
		return &block{kind: bHeading, level: level, text: text}, i + 1
	}
	if isRule(s) {
		return &block{kind: bRule}, i + 1
	}
	if s[0] == '>' {
		return quote(lines, i)
	}
	if _, ok := listMarker(s); ok {
		return list(lines, i)
	}
	if end := htmlStart(s, true); end != 0 {
		return htmlBlock(lines, i, end)
	}
	return paragraph(lines, i)
}

// paragraph parses a paragraph, or a setext heading, from lines[i].
func paragraph(lines []string, i int) (*block, int) {
	text := []string{strings.TrimLeft(unmark(lines[i]), " \t")}
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		if strings.HasPrefix(l, lazyMark) {
			text = append(text, unmark(l))
			continue
		}
		if isBlank(l) {
			break
		}
		if level := setextLevel(l); level > 0 {
			// The link reference definitions the lines begin with are
			// not the heading's; lines that are only definitions make
			// no heading, and the underline is text (or a rule).
			if defs, rest := takeDefs(strings.TrimSpace(strings.Join(text, "\n"))); rest != "" {
				return &block{kind: bHeading, level: level, text: rest, defs: defs}, j + 1
			}
		}
		if interrupts(l) {
			break
		}
		text = append(text, strings.TrimLeft(l, " \t"))
	}
	defs, rest := takeDefs(strings.TrimRight(strings.Join(text, "\n"), " \t"))
	return &block{kind: bParagraph, text: rest, defs: defs}, j
}

// interrupts reports whether line, after a paragraph's line, begins
// another block rather than continuing the paragraph.
func interrupts(line string) bool {
	ind := indentCols(line)
	if isBlank(line) {
		return true
	}
	if ind >= 4 {
		return false
	}
	s := stripCols(line, ind)
	if _, ok := opensFence([]byte(s)); ok {
		return true
	}
	if _, _, ok := atxHeading(s); ok {
		return true
	}
	if isRule(s) || s[0] == '>' || htmlStart(s, false) != 0 {
		return true
	}
	if m, ok := listMarker(s); ok && !m.empty && (!m.ordered || m.start == 1) {
		return true
	}
	return false
}

// endsInParagraph reports whether the last of blocks is a paragraph (or
// a quote or list ending in one) that a lazy line would continue.
func endsInParagraph(blocks []*block) bool {
	if len(blocks) == 0 {
		return false
	}
	b := blocks[len(blocks)-1]
	switch b.kind {
	case bParagraph:
		return true
	case bQuote:
		return endsInParagraph(b.kids)
	case bList:
		return endsInParagraph(b.items[len(b.items)-1])
	}
	return false
}

// inner is the lines of a container (a quote, a list item) as they are
// collected, and what is known of whether they end in a paragraph: a
// line that continues a paragraph keeps it known, so that a long run of
// lazy lines is not parsed once per line.
type inner struct {
	lines []string
	para  bool // whether lines end in a paragraph, if known == len(lines)
	known int
}

// add appends a line of the container's own.
func (c *inner) add(l string) {
	c.lines = append(c.lines, l)
	if c.known != len(c.lines)-1 {
		return
	}
	switch {
	case isBlank(l):
		c.para, c.known = false, len(c.lines)
	case c.para && continues(l) && setextLevel(l) == 0:
		c.known = len(c.lines)
	}
}

// addLazy appends a line that continues the paragraph lazily.
func (c *inner) addLazy(l string) {
	c.lines = append(c.lines, lazyLine(l))
	c.para, c.known = true, len(c.lines)
}

// lazy reports whether line continues lazily the paragraph the lines so
// far end in.
func (c *inner) lazy(line string) bool {
	if strings.HasPrefix(line, lazyMark) {
		return true // it continues the paragraph the container is in
	}
	if !continues(line) || len(c.lines) == 0 || isBlank(c.lines[len(c.lines)-1]) {
		return false
	}
	if c.known != len(c.lines) {
		blocks, _ := parseBlocks(c.lines)
		c.para, c.known = endsInParagraph(blocks), len(c.lines)
	}
	return c.para
}

// continues reports whether line, after a paragraph's line, continues
// it: it is not blank, it begins no block that interrupts a paragraph,
// nor a list item.
func continues(line string) bool {
	if strings.HasPrefix(line, lazyMark) {
		return true
	}
	if isBlank(line) || interrupts(line) {
		return false
	}
	if ind := indentCols(line); ind < 4 {
		if _, ok := listMarker(stripCols(line, ind)); ok {
			return false
		}
	}
	return true
}

// lazyMark begins a line a container took as the lazy continuation of
// the paragraph it ends in, so that the container's blocks, parsed from
// its lines, read it as that and nothing else (not a setext underline,
// nor an item of a list inside). The text is printable: it holds no NUL.
const lazyMark = "\x00"

// lazyLine returns line marked as a lazy continuation line.
func lazyLine(line string) string {
	if strings.HasPrefix(line, lazyMark) {
		return line
	}
	return lazyMark + strings.TrimLeft(line, " \t")
}

// unmark returns line without its lazy mark.
func unmark(line string) string { return strings.TrimPrefix(line, lazyMark) }

// quote parses a block quote from lines[i].
func quote(lines []string, i int) (*block, int) {
	var in inner
	j := i
	for ; j < len(lines); j++ {
		l := lines[j]
		ind := indentCols(l)
		if ind < 4 && !isBlank(l) && stripCols(l, ind)[0] == '>' {
			s := expandLead(stripCols(l, ind)[1:], ind+1)
			in.add(strings.TrimPrefix(s, " "))
			continue
		}
		if !in.lazy(l) {
			break
		}
		in.addLazy(l)
	}
	kids, _ := parseBlocks(in.lines)
	return &block{kind: bQuote, kids: kids}, j
}

// isBlank reports whether line holds only spaces and tabs.
func isBlank(line string) bool {
	return strings.TrimLeft(line, " \t") == ""
}

// indentCols returns the columns of line's leading spaces and tabs, a tab
// going to the next multiple of four.
func indentCols(line string) int {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col
		}
	}
	return col
}

// stripCols removes n columns of line's leading whitespace; a tab that
// spans the cut leaves the spaces of its columns past it.
func stripCols(line string, n int) string {
	col := 0
	for i := 0; i < len(line); i++ {
		if col >= n {
			return line[i:]
		}
		switch line[i] {
		case ' ':
			col++
		case '\t':
			next := col + 4 - col%4
			if next > n {
				return strings.Repeat(" ", next-n) + line[i+1:]
			}
			col = next
		default:
			return line[i:]
		}
	}
	return ""
}

// expandLead returns s with its leading spaces and tabs as spaces, s
// beginning at column col (a tab goes to the next multiple of four).
func expandLead(s string, col int) string {
	i, c := 0, col
	for ; i < len(s); i++ {
		switch s[i] {
		case ' ':
			c++
		case '\t':
			c += 4 - c%4
		default:
			return expandTo(s, i, c-col)
		}
	}
	return expandTo(s, i, c-col)
}

// expandTo returns s with its first i bytes, spaces and tabs, replaced by
// cols spaces: s itself when they are all spaces.
func expandTo(s string, i, cols int) string {
	if strings.IndexByte(s[:i], '\t') < 0 {
		return s
	}
	return strings.Repeat(" ", cols) + s[i:]
}

// atxHeading parses an ATX heading ("## Title ##"), its indent removed.
func atxHeading(s string) (level int, text string, ok bool) {
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, "", false
	}
	text = strings.TrimSpace(s[level:])
	// A closing sequence of #s, after a space, is not part of the title.
	if t := strings.TrimRight(text, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
		text = strings.TrimSpace(t)
	}
	return level, text, true
}

// isRule reports whether s, its indent removed, is a thematic break:
// three or more of -, _ or *, with only spaces and tabs between.
func isRule(s string) bool {
	if s == "" || (s[0] != '-' && s[0] != '_' && s[0] != '*') {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// setextLevel returns the level of the setext heading line underlines
// (1 for =, 2 for -), 0 when it is no underline.
func setextLevel(line string) int {
	ind := indentCols(line)
	if ind >= 4 {
		return 0
	}
	s := strings.TrimRight(stripCols(line, ind), " \t")
	if s == "" || strings.Trim(s, s[:1]) != "" {
		return 0
	}
	switch s[0] {
	case '=':
		return 1
	case '-':
		return 2
	}
	return 0
}

// indentedCode parses an indented code block from lines[i].
func indentedCode(lines []string, i int) (*block, int) {
	var code []string
	j := i
	for ; j < len(lines) && (isBlank(lines[j]) || indentCols(lines[j]) >= 4); j++ {
		code = append(code, stripCols(lines[j], 4))
	}
	for len(code) > 0 && isBlank(code[len(code)-1]) {
		code = code[:len(code)-1]
	}
	return &block{kind: bCode, text: joinLines(code)}, j
}

// fencedCode parses a fenced code block from lines[i], whose fence f is
// indented ind columns.
func fencedCode(lines []string, i, ind int, f fenceState) (*block, int) {
	s := stripCols(lines[i], ind)
	lang, _, _ := strings.Cut(strings.TrimSpace(s[f.n:]), " ")
	var code []string
	j := i + 1
	for ; j < len(lines); j++ {
		if closesFence([]byte(lines[j]), f) {
			f.open = false
			j++
			break
		}
		code = append(code, stripCols(lines[j], min(ind, indentCols(lines[j]))))
	}
	return &block{kind: bCode, text: joinLines(code), lang: lang, fence: f}, j
}

// joinLines joins lines, each followed by a line end, without their
// lazy marks.
func joinLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(unmark(l))
		b.WriteByte('\n')
	}
	return b.String()
}
