// Package style holds the interactive UI's theme: one set of lipgloss
// styles for a dark or a light background, or none at all (NO_COLOR, a
// terminal without colours), shared by every part of the UI so that a
// tool card, a diff and the status line agree.
package style

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme is the UI's styles. The zero Theme renders everything plain (no
// colour, no attribute), as NO_COLOR asks. A Theme is a value: safe to
// copy and to use from any goroutine.
type Theme struct {
	// Color says the theme uses colours and attributes; false when it was
	// made plain.
	Color bool

	// Text is ordinary text; Dim is secondary text (reasoning, hints,
	// timings); Bold is emphasis.
	Text, Dim, Bold, Italic, Strike lipgloss.Style
	// User sets the person's own messages apart; Prompt is the composer's
	// prompt sign.
	User, Prompt lipgloss.Style
	// Accent marks what the eye should find first: a tool card's bullet,
	// the selected completion, the status line's model.
	Accent lipgloss.Style
	// OK, Warn and Error colour results: a command that passed, a
	// denial or a shortened output, a failure.
	OK, Warn, Error lipgloss.Style
	// Heading, Link, Code (inline code), Quote and Rule render markdown.
	Heading, Link, Code, Quote, Rule lipgloss.Style
	// CodeBlock is a fenced block's text; Keyword, String, Comment and
	// Number highlight its tokens.
	CodeBlock, Keyword, String, Comment, Number lipgloss.Style
	// Add, Del and Hunk colour a unified diff's added, removed and hunk
	// header lines; File its file header.
	Add, Del, Hunk, File lipgloss.Style
	// Border draws the approval dialog's frame; Status the status line.
	Border, Status lipgloss.Style
}

// New returns the theme for a dark background (dark) or a light one;
// colour false returns the plain theme.
func New(dark, colour bool) Theme {
	if !colour {
		return Theme{}
	}
	pick := lipgloss.LightDark(dark)
	c := func(light, dark string) color.Color { return pick(lipgloss.Color(light), lipgloss.Color(dark)) }
	fg := func(light, dark string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(light, dark)) }
	return Theme{
		Color:     true,
		Dim:       fg("#6c6c6c", "#8a8a8a"),
		Bold:      lipgloss.NewStyle().Bold(true),
		Italic:    lipgloss.NewStyle().Italic(true),
		Strike:    lipgloss.NewStyle().Strikethrough(true),
		User:      fg("#005f87", "#87afd7").Bold(true),
		Prompt:    fg("#005f87", "#87afd7").Bold(true),
		Accent:    fg("#875f00", "#d7af5f"),
		OK:        fg("#00875f", "#5fd787"),
		Warn:      fg("#af5f00", "#ffaf5f"),
		Error:     fg("#af0000", "#ff5f5f"),
		Heading:   fg("#5f00af", "#af87ff").Bold(true),
		Link:      fg("#005faf", "#5fafff").Underline(true),
		Code:      fg("#af005f", "#ff87af"),
		Quote:     fg("#6c6c6c", "#a8a8a8").Italic(true),
		Rule:      fg("#bcbcbc", "#4e4e4e"),
		CodeBlock: fg("#303030", "#d0d0d0"),
		Keyword:   fg("#870087", "#d787ff"),
		String:    fg("#008700", "#87d787"),
		Comment:   fg("#808080", "#808080").Italic(true),
		Number:    fg("#af5f00", "#ffaf5f"),
		Add:       fg("#008700", "#87d787"),
		Del:       fg("#af0000", "#ff8787"),
		Hunk:      fg("#0087af", "#5fafd7"),
		File:      lipgloss.NewStyle().Bold(true),
		Border:    fg("#875f00", "#d7af5f"),
		Status:    fg("#585858", "#9e9e9e"),
	}
}
