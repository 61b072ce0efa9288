package command

import (
	"strings"
	"testing"
)

// A command file is a person's, but may come with a cloned repository
// (.rein/commands): reading and expanding it never panics.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"---\ndescription: x\n---\nDo $1 with $ARGUMENTS", "---\n", "$", "$9$$1", "# t\n"} {
		f.Add(s, `a "b c" 'd`)
	}
	f.Fuzz(func(t *testing.T, file, args string) {
		c, err := parseFile(file)
		if err != nil {
			return
		}
		Expand(c.Template, args)
		Split(args)
		if name, rest, ok := Parse("/" + file); ok && (!ValidName(name) || strings.ContainsAny(name, " \n")) {
			t.Errorf("Parse(%q) = %q, %q: not a valid name", "/"+file, name, rest)
		}
	})
}
