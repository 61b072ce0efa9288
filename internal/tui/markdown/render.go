// Package markdown renders markdown to styled, word-wrapped text for a
// terminal, whole ([Render]) or as it streams ([Stream]).
package markdown

import (
	"strings"

	"github.com/rein-agent/rein/internal/tui/style"
)

// renderBlock renders one block of printable markdown text.
func renderBlock(src string, width int, th style.Theme) string {
	return strings.TrimRight(src, "\n")
}
