package composer

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// A paste of more than pasteLines lines or pasteChars characters is shown
// collapsed, as a placeholder.
const (
	pasteLines = 5
	pasteChars = 800
)

// paste is a large paste of the draft: the placeholder shown in its
// place, and what it stands for.
type paste struct {
	label   string
	content string
}

// paste inserts a bracketed paste at the cursor: as it is when it is
// small, else as a placeholder for it. Carriage returns become newlines;
// nothing is sent.
func (c *Composer) paste(s string) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if s == "" {
		return
	}
	lines := strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
	if lines <= pasteLines && utf8.RuneCountInString(s) <= pasteChars {
		c.ta.InsertString(s)
		c.settle()
		return
	}
	label := c.newLabel(lines, utf8.RuneCountInString(s))
	c.pastes = append(c.pastes, paste{label: label, content: s})
	c.ta.InsertString(label)
	c.settle()
}

// newLabel returns a placeholder no paste of the draft has: "[pasted 120
// lines]" for the first, "[pasted #2 40 lines]" for the next ones.
func (c *Composer) newLabel(lines, chars int) string {
	size := fmt.Sprintf("%d lines", lines)
	if lines == 1 {
		size = fmt.Sprintf("%d characters", chars)
	}
	for {
		c.pasteSeq++
		label := "[pasted " + size + "]"
		if c.pasteSeq > 1 {
			label = fmt.Sprintf("[pasted #%d %s]", c.pasteSeq, size)
		}
		if !slices.ContainsFunc(c.pastes, func(p paste) bool { return p.label == label }) {
			return label
		}
	}
}

// expand returns display with each paste's placeholder replaced by what
// it stands for, in one pass (a paste's content is never expanded again).
func expand(display string, pastes []paste) string {
	if len(pastes) == 0 {
		return display
	}
	pairs := make([]string, 0, 2*len(pastes))
	for _, p := range pastes {
		pairs = append(pairs, p.label, p.content)
	}
	return strings.NewReplacer(pairs...).Replace(display)
}

// deletePaste removes the placeholder that ends at the cursor (back, for
// backspace) or starts at it (for delete), whole, and reports whether
// there was one.
func (c *Composer) deletePaste(back bool) bool {
	if len(c.pastes) == 0 {
		return false
	}
	before, after := c.split()
	for i, p := range c.pastes {
		b, a, ok := before, after, false
		if back {
			b, ok = strings.CutSuffix(before, p.label)
		} else {
			a, ok = strings.CutPrefix(after, p.label)
		}
		if ok {
			c.pastes = slices.Delete(c.pastes, i, i+1)
			c.set(b, a)
			return true
		}
	}
	return false
}
