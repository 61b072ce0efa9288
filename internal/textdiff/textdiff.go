// Package textdiff makes unified diffs of text: a shortest line diff
// (Myers), bounded in the edits it searches for, with three lines of
// context, as diff -u writes them. The file tools show their edits with
// it, and /diff what a command changed.
package textdiff

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// maxDiffEdits bounds the edit distance the line diff searches for; past
// it, the changed region is shown as one block removed and one added,
// still a correct diff, only a longer one.
const maxDiffEdits = 1000

// Unified returns the unified diff (three lines of context) that turns
// before into after, with the headers "--- a/name" and "+++ b/name" (name
// alone when it is absolute), or "" when they are equal.
func Unified(name string, before, after []byte) string {
	ops := diffLines(splitLines(before), splitLines(after))
	var b strings.Builder
	prefix := "a/"
	if filepath.IsAbs(name) {
		prefix = ""
	}
	oldLine, newLine := 0, 0 // lines of before and after passed so far
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i, oldLine, newLine = i+1, oldLine+1, newLine+1
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "--- %s%s\n+++ %s%s\n", prefix, name, strings.Replace(prefix, "a", "b", 1), name)
		}
		// A hunk starts diffContext lines before its first change and
		// runs until a stretch of more than 2*diffContext equal lines.
		lo := max(0, i-diffContext)
		hi := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				hi = j + 1
			} else if j-hi >= 2*diffContext {
				break
			}
		}
		hi = min(len(ops), hi+diffContext)
		oldStart, newStart := oldLine-(i-lo), newLine-(i-lo)
		oldCount, newCount := 0, 0
		for _, op := range ops[lo:hi] {
			if op.kind != '+' {
				oldCount++
			}
			if op.kind != '-' {
				newCount++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
		for _, op := range ops[lo:hi] {
			b.WriteByte(op.kind)
			if text, ok := strings.CutSuffix(op.line, "\n"); ok {
				b.WriteString(op.line)
			} else {
				b.WriteString(text + "\n\\ No newline at end of file\n")
			}
		}
		oldLine, newLine = oldStart+oldCount, newStart+newCount
		i = hi
	}
	return b.String()
}

// hunkRange formats a hunk's range as diff does: start is the number of
// lines before the hunk; a one-line range omits its count, and an empty
// one names the line it follows.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

// splitLines splits data into lines, each with its newline; the last has
// none when data does not end with one.
func splitLines(data []byte) []string {
	s := string(data)
	lines := make([]string, 0, CountLines(data))
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// diffOp is one line of a diff: kind is ' ' (kept), '-' (removed) or '+'
// (added).
type diffOp struct {
	kind byte
	line string
}

// diffLines returns a shortest edit script from a to b: the common head
// and tail are kept as they are, and the region between is diffed with
// Myers' algorithm.
func diffLines(a, b []string) []diffOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := make([]diffOp, 0, len(a)+len(b)-head-tail)
	for _, l := range a[:head] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, myers(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

// myers returns a shortest edit script from a to b (E. Myers, "An O(ND)
// Difference Algorithm and Its Variations", 1986), removals before
// additions where both are shortest. Beyond maxDiffEdits edits it gives up
// and removes all of a, then adds all of b.
func myers(a, b []string) []diffOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		// Only additions, or only removals (a new file): nothing to
		// search for.
		return allReplaced(a, b)
	}
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3) // v[off+k]: furthest x on diagonal k
	var trace [][]int           // trace[d]: v[off-d : off+d+1] before round d
	for d := 0; d <= limit; d++ {
		trace = append(trace, slices.Clone(v[off-d:off+d+1]))
		for k := -d; k <= d; k += 2 {
			x := v[off+k-1] + 1
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace)
			}
		}
	}
	return allReplaced(a, b)
}

// allReplaced is the edit script that removes all of a, then adds all of
// b.
func allReplaced(a, b []string) []diffOp {
	ops := make([]diffOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, diffOp{'-', l})
	}
	for _, l := range b {
		ops = append(ops, diffOp{'+', l})
	}
	return ops
}

// backtrack walks the rounds of myers back from the end of a and b.
func backtrack(a, b []string, trace [][]int) []diffOp {
	x, y := len(a), len(b)
	var rev []diffOp
	for d := len(trace) - 1; d >= 0; d-- {
		k := x - y
		prevX, prevY := 0, 0
		if d > 0 {
			v := trace[d] // v[i] is diagonal i-d
			prevK := k - 1
			if k == -d || k != d && v[k-1+d] < v[k+1+d] {
				prevK = k + 1
			}
			prevX = v[prevK+d]
			prevY = prevX - prevK
		}
		for x > prevX && y > prevY {
			rev = append(rev, diffOp{' ', a[x-1]})
			x, y = x-1, y-1
		}
		if d > 0 {
			if x == prevX {
				rev = append(rev, diffOp{'+', b[y-1]})
			} else {
				rev = append(rev, diffOp{'-', a[x-1]})
			}
		}
		x, y = prevX, prevY
	}
	slices.Reverse(rev)
	return rev
}

// CountLines returns how many lines data holds; a last line without a
// newline counts.
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
