package skill

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: whatever a SKILL.md holds, parse returns either a skill
// with a good name and a one-line description, or problems on a line of
// the file, and never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: pdf\ndescription: Fill forms.\n---\nbody\n",
		"---\nname: pdf\ndescription: >\n  folded\n  text\nmetadata: {a: [1, 2]}\n---\n",
		"---\nname: pdf\ndescription: a: b\n---\n",
		"---\n- a\n---\n",
		"---\nname: &a pdf\ndescription: *a\n---\n",
		"no front matter\n",
		"---\nname: pdf\n",
		"\ufeff---\r\nname: x\r\ndescription: \"\\x1b[31m\"\r\n---\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, problems := parse(data)
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines+1 || p.Message == "" {
				t.Errorf("problem %+v: line outside the file's %d lines, or no message", p, lines)
			}
		}
		if s.Name == "" {
			if len(problems) == 0 {
				t.Error("no skill and no problem")
			}
			return
		}
		if badName(s.Name) != "" || s.Description == "" || strings.ContainsAny(s.Description, "\n\r\t\x1b") ||
			!utf8.ValidString(s.Description) || utf8.RuneCountInString(s.Description) > MaxDescription {
			t.Errorf("parse() = %+v: a bad name or description", s)
		}
	})
}
