package composer

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// keys are the key presses the tests name, as a terminal reports them.
var keys = map[string]tea.KeyPressMsg{
	"enter":         {Code: tea.KeyEnter},
	"shift+enter":   {Code: tea.KeyEnter, Mod: tea.ModShift},
	"alt+enter":     {Code: tea.KeyEnter, Mod: tea.ModAlt},
	"ctrl+j":        {Code: 'j', Mod: tea.ModCtrl},
	"tab":           {Code: tea.KeyTab},
	"esc":           {Code: tea.KeyEscape},
	"up":            {Code: tea.KeyUp},
	"down":          {Code: tea.KeyDown},
	"left":          {Code: tea.KeyLeft},
	"right":         {Code: tea.KeyRight},
	"home":          {Code: tea.KeyHome},
	"end":           {Code: tea.KeyEnd},
	"backspace":     {Code: tea.KeyBackspace},
	"delete":        {Code: tea.KeyDelete},
	"alt+backspace": {Code: tea.KeyBackspace, Mod: tea.ModAlt},
	"alt+left":      {Code: tea.KeyLeft, Mod: tea.ModAlt},
	"alt+right":     {Code: tea.KeyRight, Mod: tea.ModAlt},
	"ctrl+left":     {Code: tea.KeyLeft, Mod: tea.ModCtrl},
	"ctrl+right":    {Code: tea.KeyRight, Mod: tea.ModCtrl},
	"ctrl+a":        {Code: 'a', Mod: tea.ModCtrl},
	"ctrl+e":        {Code: 'e', Mod: tea.ModCtrl},
	"ctrl+k":        {Code: 'k', Mod: tea.ModCtrl},
	"ctrl+u":        {Code: 'u', Mod: tea.ModCtrl},
	"ctrl+w":        {Code: 'w', Mod: tea.ModCtrl},
	"alt+d":         {Code: 'd', Mod: tea.ModAlt},
}

// press sends the named keys and returns the last submission any of them
// made (their commands run, as the program would run them).
func press(t *testing.T, c *Composer, names ...string) *Submission {
	t.Helper()
	var sub *Submission
	for _, n := range names {
		k, ok := keys[n]
		if !ok {
			t.Fatalf("no key %q in the test's table", n)
		}
		if s := feed(t, c, k); s != nil {
			sub = s
		}
	}
	return sub
}

// typeText types s, one key press per character.
func typeText(t *testing.T, c *Composer, s string) *Submission {
	t.Helper()
	var sub *Submission
	for _, r := range s {
		k := tea.KeyPressMsg{Code: r, Text: string(r)}
		if r == ' ' {
			k.Code = tea.KeySpace
		}
		if s := feed(t, c, k); s != nil {
			sub = s
		}
	}
	return sub
}

// feed gives msg to the composer, runs the commands it returns as the
// program would, gives their messages back, and returns the submission
// that came of it, if any.
func feed(t *testing.T, c *Composer, msg tea.Msg) *Submission {
	t.Helper()
	sub, cmd := c.Update(msg)
	if s := drain(t, c, cmd); s != nil {
		sub = s
	}
	return sub
}

// drain runs cmd and gives the composer's own messages (a file walk, read
// attachments) back to it; it returns the submission that came of it.
func drain(t *testing.T, c *Composer, cmd tea.Cmd) *Submission {
	t.Helper()
	if cmd == nil {
		return nil
	}
	var sub *Submission
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, cmd := range msg {
			if s := drain(t, c, cmd); s != nil {
				sub = s
			}
		}
	case filesMsg, attachedMsg:
		if s := feed(t, c, msg); s != nil {
			sub = s
		}
	}
	return sub
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/tui/composer -update writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("View() differs from %s (-want +got):\n%s", path, d)
	}
}

// tree makes the files under root, each path to its content; a path
// ending in "/" is a directory.
func tree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lines is n numbered lines, newline terminated.
func lines(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte('\n')
	}
	return b.String()
}
