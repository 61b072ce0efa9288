package composer

import (
	"strings"
	"testing"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"
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

// Any sequence of keys and pastes leaves the composer consistent: it never
// panics, a placeholder's paste is never lost while the placeholder is
// there, and what is sent expands every placeholder left.
func FuzzKeys(f *testing.F) {
	f.Add([]byte("ab\x00\x01\x02cd\x03\x04\x05\x06"))
	f.Add([]byte("@m\x07\x08\x09\x0a/he\x0b\x0c"))
	names := []string{"enter", "shift+enter", "backspace", "delete", "up", "down", "left", "right", "home", "end",
		"tab", "esc", "ctrl+w", "ctrl+k", "ctrl+u", "alt+d", "alt+left", "alt+right", "ctrl+j"}
	f.Fuzz(func(t *testing.T, script []byte) {
		root := t.TempDir()
		tree(t, root, map[string]string{"main.go": "package main\n", "a b/c.txt": "x"})
		h, err := OpenHistory(root + "/h.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		_ = h.Add("old\nentry") // an error here is the test's disk, not the composer
		c := New(Options{Width: 20, Workspace: root, History: h, Commands: testCommands})
		for _, b := range script {
			var sub *Submission
			switch {
			case b < byte(len(names)):
				sub = press(t, c, names[b])
			case b < 0x20:
				sub = feed(t, c, tea.PasteMsg{Content: strings.Repeat("pasted line\n", int(b))})
			default:
				sub = typeText(t, c, string(rune(b)))
			}
			if sub != nil && strings.Contains(sub.Text, "[pasted ") {
				t.Fatalf("sent a placeholder unexpanded: %q", sub.Text)
			}
			c.View()
		}
	})
}
