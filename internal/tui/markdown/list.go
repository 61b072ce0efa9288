package markdown

import (
	"strconv"
	"strings"
)

// itemMarker is a list item's marker as parsed from its first line.
type itemMarker struct {
	ordered bool
	start   int
	char    byte // the bullet, or the ordered delimiter ('.' or ')')
	width   int  // the marker's bytes
	empty   bool // nothing follows the marker on its line
}

// listMarker parses the marker that begins s, its indent removed: a
// bullet (-, + or *) or one to nine digits and '.' or ')', followed by a
// space, a tab or the line's end.
func listMarker(s string) (itemMarker, bool) {
	var m itemMarker
	switch {
	case s == "":
		return m, false
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		m.char, m.width = s[0], 1
	default:
		n := 0
		for n < len(s) && n < 10 && s[n] >= '0' && s[n] <= '9' {
			m.start = m.start*10 + int(s[n]-'0')
			n++
		}
		if n == 0 || n > 9 || n >= len(s) || (s[n] != '.' && s[n] != ')') {
			return m, false
		}
		m.ordered, m.char, m.width = true, s[n], n+1
	}
	rest := s[m.width:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return m, false
	}
	m.empty = isBlank(rest)
	return m, true
}

// sameList reports whether b is a marker of the list a began.
func sameList(a, b itemMarker) bool {
	return a.ordered == b.ordered && a.char == b.char
}

// list parses a list from lines[i], the line of its first item.
func list(lines []string, i int) (*block, int) {
	first, _ := listMarker(stripCols(lines[i], indentCols(lines[i])))
	l := &block{kind: bList, ordered: first.ordered, start: first.start, tight: true}
	if first.ordered {
		l.marker = first.char
	}
	j := i
	for j < len(lines) {
		ind := indentCols(lines[j])
		if ind >= 4 || isBlank(lines[j]) {
			break
		}
		m, ok := listMarker(stripCols(lines[j], ind))
		if !ok || !sameList(first, m) || (len(l.items) > 0 && isRule(stripCols(lines[j], ind))) {
			break
		}
		inner, col, next, blankAfter := listItem(lines, j, ind, m)
		kids, gap := parseBlocks(inner)
		if gap {
			l.tight = false
		}
		l.items = append(l.items, kids)
		l.cols = append(l.cols, col)
		j = next
		if blankAfter && j < len(lines) && continuesList(lines[j], first) {
			l.tight = false
		}
	}
	return l, j
}

// continuesList reports whether line is another item of the list first
// began.
func continuesList(line string, first itemMarker) bool {
	ind := indentCols(line)
	if ind >= 4 {
		return false
	}
	m, ok := listMarker(stripCols(line, ind))
	return ok && sameList(first, m)
}

// listItem collects the lines of the item whose marker m, indented ind
// columns, begins lines[i]: its content with the item's indent removed,
// and the column that content begins at. blankAfter reports blank lines
// between it and what follows.
func listItem(lines []string, i, ind int, m itemMarker) (content []string, col, next int, blankAfter bool) {
	after := expandLead(stripCols(lines[i], ind)[m.width:], ind+m.width)
	pad := indentCols(after)
	if m.empty || pad > 4 {
		pad = 1 // the content starts on the next line, or is indented code
	}
	width := ind + m.width + pad
	var in inner
	if m.empty {
		in.add("")
	} else {
		in.add(stripCols(after, pad))
	}
	j := i + 1
	for ; j < len(lines); j++ {
		l := lines[j]
		switch {
		case isBlank(l):
			if m.empty && j == i+1 {
				return in.lines, width, j, true // an item begins with one blank line at most
			}
			in.add("")
		case indentCols(l) >= width:
			in.add(stripCols(l, width))
		case in.lazy(l):
			in.addLazy(l)
		default:
			content, blankAfter = trimBlank(in.lines)
			return content, width, j, blankAfter
		}
	}
	content, blankAfter = trimBlank(in.lines)
	return content, width, j, blankAfter
}

// trimBlank drops the blank lines that end lines, reporting there were.
func trimBlank(lines []string) ([]string, bool) {
	n := len(lines)
	for n > 1 && strings.TrimSpace(lines[n-1]) == "" {
		n--
	}
	return lines[:n], n < len(lines)
}

// markWidth returns the cells a list's markers take as rendered, with
// the space after them: the widest number's and its delimiter, or a
// bullet's.
func markWidth(l *block) int {
	if l.ordered {
		return len(strconv.Itoa(l.start+len(l.items)-1)) + 2
	}
	return 2
}
