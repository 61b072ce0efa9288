package cli

import (
	"fmt"
	"io"

	"github.com/rein-agent/rein/internal/printable"
)

// shown is text fit for a person's terminal: rein's own words, or text
// that came from outside (a model, a tool, a provider, a configuration
// file, a log) made printable by [text], [field] or [sayf], which show
// every control character, escape sequence, bidirectional override and
// zero-width character as an escape a person reads (\x1b, <U+202E>).
//
// What the CLI writes for a person goes out through [say] and [printf],
// which take shown text, and rein's styles wrap shown text only
// ([terminal.style]): so the only escape sequences rein writes are its own
// SGR styles, added after the text was made printable, and a string from
// outside cannot reach a terminal without a conversion to shown that
// review sees. TestOnlyShownTextIsWritten keeps the package's writes to
// those two. JSON output (--json) is for programs and is written as it is,
// faithful to the log.
type shown string

// text makes s, which may hold several lines (an answer, an output),
// printable: its newlines and tabs kept.
func text(s string) shown { return shown(printable.Text(s)) }

// field makes s printable for a one-line slot: a tool's name, a path, a
// rule, a reason, an error message in a line of rein's own. Its newlines
// and tabs are shown as \n and \t.
func field(s string) shown { return shown(printable.Line(s)) }

// sayf formats rein's own words: format is rein's, and each argument that
// is not shown text already or a number or a bool is made printable as a
// [field] before it is put in, whatever its type (an error, a kind, an
// outcome read from a log).
func sayf(format string, args ...any) shown {
	for i, a := range args {
		switch a.(type) {
		case shown, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		default:
			args[i] = field(fmt.Sprint(a))
		}
	}
	return shown(fmt.Sprintf(format, args...))
}

// say writes s to w.
func say(w io.Writer, s shown) error {
	_, err := io.WriteString(w, string(s))
	return err
}

// printf writes rein's own words, formatted by [sayf], to w.
func printf(w io.Writer, format string, args ...any) error {
	return say(w, sayf(format, args...))
}
