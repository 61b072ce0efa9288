package why

import (
	"strings"

	"github.com/rein-agent/rein/internal/shell"
)

// script matches every static word of a bash command line, as
// [shell.Parse] reads it: arguments, assignment values and redirection
// targets, in lists, pipelines, subshells, command and process
// substitutions, loops and functions, and in the literal scripts given to
// sh -c, bash -c or eval; and the files its commands' arguments name, a
// file they write (rm, tee, cp's target, sed -i, sed's w) being a Write.
// A word with an expansion, a glob or brace pattern, or a leading tilde
// names a path known only when it runs, and is left out. A command, or a
// nested script, that does not parse is split on blanks, quotes and
// operators instead.
func (m *matcher) script(src string) {
	s, _ := shell.Parse(src) // what does not parse is in s.Unparsed
	for _, w := range s.Words {
		if w.Static() {
			m.word(w.Text, false)
		}
	}
	for _, r := range s.Redirects {
		if r.Target.Static() {
			m.word(r.Target.Text, r.Role == shell.RoleWrite)
		}
	}
	for i := range s.Commands {
		for _, f := range s.Commands[i].Files {
			if f.Path.Static() && !f.Moved && !s.ChangesDir {
				m.path(f.Path.Text, f.Role == shell.RoleWrite)
			}
		}
	}
	for _, u := range s.Unparsed {
		m.fields(u)
	}
}

// fields matches the words of a command that does not parse: its text
// split on blanks, quotes and shell operators, leaving out any word with
// expansion or glob characters.
func (m *matcher) fields(src string) {
	words := strings.FieldsFunc(src, func(r rune) bool {
		return strings.ContainsRune(" \t\n\r'\"`;&|()<>", r)
	})
	for _, w := range words {
		if !strings.ContainsAny(w, "$*?[{\\~") {
			m.word(w, false)
		}
	}
}
