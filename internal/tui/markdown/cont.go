package markdown

import "strings"

// level is a list item a block of the stream leaves open: a later block
// whose first line is indented to its content goes on with it, as a
// list item goes on after a blank line in CommonMark.
type level struct {
	col   int // where its content begins, past the content of the level around it
	markW int // the cells its marker takes as rendered: its content's indent
}

// piece renders src, a block's text or the part of one in a list item,
// which goes on with the list items ctx left open (the outermost first):
// the lines indented to the first item's content are rendered as its
// content, under it, and what follows them as the blocks after the list.
func (r *renderer) piece(src string, ctx []level, width int) []string {
	if len(ctx) == 0 || indentOf(src) < ctx[0].col {
		return r.chunks(src, width)
	}
	item, rest := itemLines(splitLines(src), ctx[0].col)
	markW := ctx[0].markW
	if width-markW < minInner {
		markW = 0 // too deep to indent, as the list was rendered
	}
	r.depth++
	out := r.piece(strings.Join(item, "\n"), ctx[1:], width-markW)
	r.depth--
	pad := strings.Repeat(" ", markW)
	for i, l := range out {
		if l != "" {
			out[i] = pad + l
		}
	}
	if len(rest) > 0 {
		if after := r.chunks(strings.Join(rest, "\n"), width); len(after) > 0 {
			if len(out) > 0 {
				out = append(out, "")
			}
			out = append(out, after...)
		}
	}
	return out
}

// nextLevels returns the list items left open at the end of lines, the
// lines of a block that go on with the items ctx left open.
func nextLevels(lines []string, ctx []level) []level {
	if len(ctx) == 0 || indentOf(lines[0]) < ctx[0].col {
		blocks, _ := parseBlocks(lines)
		return openLevels(blocks)
	}
	item, rest := itemLines(lines, ctx[0].col)
	if len(rest) > 0 {
		return nextLevels(rest, nil)
	}
	return append([]level{ctx[0]}, nextLevels(item, ctx[1:])...)
}

// openLevels returns the list items open at the end of blocks: the last
// item of a list that ends them, and those open at its end. An item that
// holds nothing is not: a blank line ends it.
func openLevels(blocks []*block) []level {
	if len(blocks) == 0 {
		return nil
	}
	b := blocks[len(blocks)-1]
	if b.kind != bList || len(b.items[len(b.items)-1]) == 0 {
		return nil
	}
	last := len(b.items) - 1
	return append([]level{{col: b.cols[last], markW: markWidth(b)}}, openLevels(b.items[last])...)
}

// openFence returns the code fence open at the end of lines, the lines
// of a block that go on with the items ctx left open, when it is in a
// list item (a blank line does not end it), with the column the item's
// content begins at; a zero fenceState if there is none.
func openFence(lines []string, ctx []level) (fenceState, int) {
	if len(ctx) == 0 || indentOf(lines[0]) < ctx[0].col {
		blocks, _ := parseBlocks(lines)
		return fenceIn(blocks, 0)
	}
	item, rest := itemLines(lines, ctx[0].col)
	if len(rest) > 0 {
		return openFence(rest, nil)
	}
	f, col := openFence(item, ctx[1:])
	return f, col + ctx[0].col
}

// fenceIn returns the code fence open at the end of blocks, found
// through the last items of lists only, and the column of its item's
// content, col being that of blocks.
func fenceIn(blocks []*block, col int) (fenceState, int) {
	if len(blocks) == 0 {
		return fenceState{}, 0
	}
	b := blocks[len(blocks)-1]
	switch {
	case b.kind == bCode && b.fence.open:
		return b.fence, col
	case b.kind == bList:
		last := len(b.items) - 1
		return fenceIn(b.items[last], col+b.cols[last])
	}
	return fenceState{}, 0
}

// itemLines cuts lines, which begin in a list item's content at column
// col, into the item's lines (without col's indent) and those after it:
// the item goes on with the lines indented to col, blank ones, and the
// lazy continuation lines of a paragraph it ends in.
func itemLines(lines []string, col int) (item, rest []string) {
	var in inner
	for j, l := range lines {
		switch {
		case isBlank(l):
			in.add("")
		case indentCols(l) >= col:
			in.add(stripCols(l, col))
		case in.lazy(l):
			in.addLazy(l)
		default:
			return in.lines, lines[j:]
		}
	}
	return in.lines, nil
}

// indentOf returns the indent, in columns, of the first line of src,
// which is not blank (a block's text, or its part in a list item).
func indentOf(src string) int {
	return indentCols(strings.TrimPrefix(src, lazyMark))
}
