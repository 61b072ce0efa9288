package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap word-wraps s to width columns at spaces only: a path, a flag or
// an id is never broken at its hyphens or slashes, as other wrappers do;
// a word longer than width is cut where the width ends. Lines already
// short enough are kept as they are, and styles (escape sequences) are
// kept, since no word is split at one.
func Wrap(s string, width int) string {
	width = max(width, 1)
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		var cur strings.Builder
		curW := 0
		for _, word := range strings.Split(line, " ") {
			w := ansi.StringWidth(word)
			switch {
			case curW == 0 && cur.Len() == 0:
			case curW+1+w <= width:
				cur.WriteByte(' ')
				curW++
			default:
				out = append(out, cur.String())
				cur.Reset()
				curW = 0
			}
			for curW == 0 && w > width {
				out = append(out, ansi.Cut(word, 0, width))
				word = ansi.Cut(word, width, w)
				w = ansi.StringWidth(word)
			}
			cur.WriteString(word)
			curW += w
		}
		out = append(out, cur.String())
	}
	return strings.Join(out, "\n")
}
