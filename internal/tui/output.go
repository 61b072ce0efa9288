package tui

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// maxShown bounds what Ctrl-O prints of an output kept whole in an
// artifact (up to 64 MiB): the scrollback is for reading, and the file
// stays where it is for the rest.
const maxShown = 256 << 10

// showOutput prints the latest tool call's output whole into the
// scrollback: the artifact that holds all of it when the model was shown
// a shortened text, else the text itself.
func (m *model) showOutput() tea.Cmd {
	out := m.tr.LastOutput()
	if out.Call == "" {
		m.print(transcript.Note("info", "no tool output to show yet: ctrl+o prints the latest tool call's whole output once one has run", m.width, m.theme))
		return m.flushPrint()
	}
	text, rest := out.Text, ""
	if out.Artifact != "" {
		whole, more, err := readHead(out.Artifact, maxShown)
		switch {
		case err != nil:
			rest = "the whole output could not be read (" + err.Error() + "); above is what the model was shown; the file:"
		default:
			text = whole
			if more > 0 {
				rest = fmt.Sprintf("%d more bytes of it are in the file:", more)
			}
		}
	}
	text = strings.TrimRight(printable.Text(strings.ReplaceAll(text, "\r\n", "\n")), "\n")
	block := m.theme.Bold.Render(truncate(printable.Line(out.Call), m.width)) + "\n" + indentAll(text, "  ", m.width)
	if rest != "" {
		// The path on a line of its own, never cut: it is for copying.
		block += "\n" + transcript.Note("warn", rest, m.width, m.theme) + "\n  " + printable.Line(out.Artifact)
	}
	m.print(block)
	return m.flushPrint()
}

// readHead reads at most limit bytes of the file at path, and how many
// bytes are left after them.
func readHead(path string, limit int64) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the caller shows the path on its own line
		}
		return "", 0, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return "", 0, err
	}
	var more int64
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(len(b)) {
		more = fi.Size() - int64(len(b))
	}
	return string(b), more, nil
}

// indentAll puts indent before every line of s, each wrapped to width so
// that its rows keep the indent.
func indentAll(s, indent string, width int) string {
	if s == "" {
		return indent + "(no output)"
	}
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(wrapIndent(strings.ReplaceAll(l, "\t", "    "), width, indent))
	}
	return b.String()
}
