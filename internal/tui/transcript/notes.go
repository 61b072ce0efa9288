package transcript

import "github.com/rein-agent/rein/internal/tui/style"

// User renders a person's message, set apart by a "› " prefix in the
// User style, word-wrapped to width.
func User(text string, width int, th style.Theme) string {
	return "› " + text
}

// Diff renders a unified diff coloured (added lines Add, removed Del,
// hunk headers Hunk, file headers File), at most maxLines lines, then
// "… N more lines".
func Diff(diff string, width, maxLines int, th style.Theme) string {
	return diff
}

// Note renders one line of the UI's own; kind is "info", "warn" or
// "error".
func Note(kind, text string, width int, th style.Theme) string {
	return text
}
