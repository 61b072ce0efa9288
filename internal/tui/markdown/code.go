package markdown

import "strings"

// codeIndent is how far a code block is indented.
const codeIndent = "  "

// contMark ends a code line cut because it is wider than the width.
const contMark = "↩"

// codeLines renders a code block's text: indented, highlighted for lang,
// not wrapped but each line too long cut across lines, each part but the
// last ending with a continuation mark.
func codeLines(code, lang string, width int, st *styler) []string {
	code = strings.TrimSuffix(code, "\n")
	if code == "" {
		return []string{codeIndent}
	}
	hl := newHighlighter(lang)
	var out []string
	for _, l := range strings.Split(code, "\n") {
		out = codeLine(out, hl, l, width, st)
	}
	return out
}

// codeLine appends the rendering of one line of code to out.
func codeLine(out []string, hl *highlighter, l string, width int, st *styler) []string {
	for _, part := range hardLines(hl.line(expandTabs(l)), width-len(codeIndent), st) {
		out = append(out, codeIndent+part)
	}
	return out
}

// preformatted renders text line by line as it is, marked m, each line
// too long cut like a code block's.
func preformatted(text string, width int, m mark, st *styler) []string {
	text = strings.TrimSuffix(text, "\n")
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, hardLines([]seg{{expandTabs(l), m}}, width, st)...)
	}
	return out
}

// hardLines renders one line of segments in width cells: itself when it
// fits, else cut into parts of width-1 cells each followed by contMark.
func hardLines(segs []seg, width int, st *styler) []string {
	total := 0
	for _, s := range segs {
		total += cellWidth(s.text)
	}
	if total <= width {
		return []string{st.line(segs)}
	}
	w := &wrapper{width: max(width-1, 1)}
	for _, s := range segs {
		w.cut(s)
	}
	if len(w.cur) > 0 {
		w.newline()
	}
	out := st.lines(w.lines)
	for i := range len(out) - 1 {
		out[i] += st.render(contMark, mDim)
	}
	return out
}

// tabWidth is the columns a tab stands for in code.
const tabWidth = 4

// expandTabs replaces the tabs of l by spaces to the next tab stop, as
// the terminal would show them (a tab has no width of its own to count).
func expandTabs(l string) string {
	if !strings.Contains(l, "\t") {
		return l
	}
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += cellWidth(string(r))
	}
	return b.String()
}
