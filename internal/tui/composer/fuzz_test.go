package composer

import (
	"strings"
	"testing"
)

// A cloned repository's .gitignore and whatever the person types are
// outside rein's control: reading them never panics.
func FuzzIgnore(f *testing.F) {
	for _, s := range []string{"*.log\n!keep.log\n", "/a/**/b/\n", "\\#x\n[abc\n", "{a,b}\n**\n", "\\ \n!\n/\n"} {
		f.Add(s, "a/b/c.log", true)
	}
	f.Fuzz(func(t *testing.T, rules, path string, dir bool) {
		ig := ignorer{parseIgnore("", rules), parseIgnore("a", rules)}
		ig.ignored(strings.Trim(path, "/"), dir)
	})
}

func FuzzMentions(f *testing.F) {
	for _, s := range []string{"@a @\"b c\" @", "x@y @\"", "@\"\"", "é@ü @\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range mentions(text) {
			if m == "" {
				t.Errorf("mentions(%q) holds an empty path", text)
			}
		}
	})
}
