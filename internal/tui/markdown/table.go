package markdown

import "strings"

// chunk is a part of a block: markdown text, or a pipe table.
type chunk struct {
	text  string
	table *table
}

// table is a GFM pipe table: its header, its columns' alignments ('l',
// 'c', 'r') and its rows, each cell's markdown text; raw is its lines as
// written.
type table struct {
	header []string
	align  []byte
	rows   [][]string
	raw    []string
}

// splitTables cuts a block into its markdown text and the pipe tables in
// it (outside code fences): a line with a pipe followed by a delimiter row
// of as many cells starts one, and it runs while the lines hold a pipe.
func splitTables(src string) []chunk {
	if !strings.Contains(src, "|") {
		return []chunk{{text: src}}
	}
	lines := strings.SplitAfter(src, "\n")
	var out []chunk
	var fence fenceState
	start := 0
	for i := 0; i < len(lines); i++ {
		l := []byte(strings.TrimSuffix(lines[i], "\n"))
		if fence.open {
			if closesFence(l, fence) {
				fence = fenceState{}
			}
			continue
		}
		if f, ok := opensFence(l); ok {
			fence = f
			continue
		}
		if i+1 >= len(lines) || !strings.Contains(lines[i], "|") || strings.HasPrefix(lines[i], "    ") || strings.HasPrefix(lines[i], "\t") {
			continue // an indented line is code
		}
		header := cells(lines[i])
		align, ok := delimiterRow(lines[i+1])
		if !ok || len(align) != len(header) {
			continue
		}
		t := &table{header: header, align: align, raw: []string{lines[i], lines[i+1]}}
		j := i + 2
		for ; j < len(lines) && strings.Contains(lines[j], "|"); j++ {
			t.rows = append(t.rows, cells(lines[j]))
			t.raw = append(t.raw, lines[j])
		}
		if start < i {
			out = append(out, chunk{text: strings.Join(lines[start:i], "")})
		}
		out = append(out, chunk{table: t})
		start, i = j, j-1
	}
	if start < len(lines) {
		if rest := strings.Join(lines[start:], ""); strings.TrimSpace(rest) != "" {
			out = append(out, chunk{text: rest})
		}
	}
	return out
}

// cells splits a table row at its pipes (not those escaped by a
// backslash), without the outer ones.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteString(`\|`)
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(b.String()))
}

// delimiterRow reports whether row is a table's delimiter row
// ("| :--- | ---: |") and the alignment of each column.
func delimiterRow(row string) ([]byte, bool) {
	if !strings.Contains(row, "-") {
		return nil, false
	}
	var align []byte
	for _, c := range cells(row) {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		dashes := strings.Trim(c, ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			align = append(align, 'c')
		case right:
			align = append(align, 'r')
		default:
			align = append(align, 'l')
		}
	}
	return align, true
}

// table renders a table with its columns aligned, or its lines as
// written when it is wider than width.
func (r *renderer) table(t *table, width int) []string {
	st := r.st
	n := len(t.header)
	head := r.cellSegs(t.header, n, mBold)
	rows := make([][][]seg, len(t.rows))
	for i, row := range t.rows {
		rows[i] = r.cellSegs(row, n, 0)
	}
	colW := make([]int, n)
	for _, row := range append([][][]seg{head}, rows...) {
		for c, segs := range row {
			colW[c] = max(colW[c], segsWidth(segs))
		}
	}
	total := 3 * (n - 1)
	for _, w := range colW {
		total += w
	}
	if total > width {
		return preformatted(strings.Join(t.raw, ""), width, 0, st)
	}
	sep := st.render(" │ ", mRule)
	out := []string{tableRow(head, colW, t.align, sep, st)}
	rule := make([]string, n)
	for c, w := range colW {
		rule[c] = strings.Repeat("─", w)
	}
	out = append(out, st.render(strings.Join(rule, "─┼─"), mRule))
	for _, row := range rows {
		out = append(out, tableRow(row, colW, t.align, sep, st))
	}
	return out
}

// tableRow renders one row, each cell padded to its column's width as
// its column is aligned.
func tableRow(r [][]seg, colW []int, align []byte, sep string, st *styler) string {
	var b strings.Builder
	for c, segs := range r {
		if c > 0 {
			b.WriteString(sep)
		}
		pad := colW[c] - segsWidth(segs)
		left := 0
		switch align[c] {
		case 'r':
			left = pad
		case 'c':
			left = pad / 2
		}
		b.WriteString(strings.Repeat(" ", left))
		b.WriteString(st.line(segs))
		if c < len(r)-1 {
			b.WriteString(strings.Repeat(" ", pad-left))
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// cellSegs renders the inline markdown of a row's cells, padded or cut to
// n cells, marked m.
func (r *renderer) cellSegs(row []string, n int, m mark) [][]seg {
	out := make([][]seg, n)
	for c := range n {
		if c >= len(row) || row[c] == "" {
			continue
		}
		blocks, _ := parseBlocks(splitLines(row[c]))
		for _, b := range blocks {
			if b.kind == bParagraph && b.text != "" {
				out[c] = r.inlines(parseInlines(b.text, &r.refs), m, nil)
				break
			}
		}
		if out[c] == nil {
			out[c] = []seg{{row[c], m}}
		}
	}
	return out
}

func segsWidth(segs []seg) int {
	w := 0
	for _, s := range segs {
		w += cellWidth(s.text)
	}
	return w
}
