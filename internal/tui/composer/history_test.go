package composer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"
)

func openHistory(t *testing.T, path string) *History {
	t.Helper()
	h, err := OpenHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHistoryPath(t *testing.T) {
	ws := t.TempDir()
	sum := sha256.Sum256([]byte(ws))
	name := hex.EncodeToString(sum[:])[:16] + ".jsonl"

	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	got, err := HistoryPath(ws)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(state, "rein", "history", name); got != want {
		t.Errorf("HistoryPath() = %q, want %q", got, want)
	}

	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", home)
	got, err = HistoryPath(ws)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(home, ".local", "state", "rein", "history", name); got != want {
		t.Errorf("HistoryPath() with a relative XDG_STATE_HOME = %q, want %q", got, want)
	}
}

func TestHistoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "history", "h.jsonl")
	h := openHistory(t, path)
	if len(h.Entries()) != 0 {
		t.Fatalf("a missing file: Entries() = %q", h.Entries())
	}
	for _, e := range []string{"first", "two\nlines", "two\nlines", "  ", "", "third"} {
		if err := h.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"first", "two\nlines", "third"}
	if d := cmp.Diff(want, h.Entries()); d != "" {
		t.Errorf("Entries() mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, openHistory(t, path).Entries()); d != "" {
		t.Errorf("reopened: Entries() mismatch (-want +got):\n%s", d)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("history directory mode %v, want 0700", di.Mode().Perm())
	}
}

func TestHistorySkipsCorruptLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte("\"a\"\nnot json\n{\"x\":1}\n\"b\n\"c\"\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHistory(t, path)
	if d := cmp.Diff([]string{"a", "c"}, h.Entries()); d != "" {
		t.Errorf("Entries() mismatch (-want +got):\n%s", d)
	}
	if err := h.Add("d"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "c", "d"}, openHistory(t, path).Entries()); d != "" {
		t.Errorf("reopened after Add: mismatch (-want +got):\n%s", d)
	}
}

func TestHistoryKeepsTheNewestThousand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var b strings.Builder
	for i := range MaxHistory + 5 {
		line, _ := json.Marshal(fmt.Sprint("entry ", i))
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h := openHistory(t, path)
	if got := h.Entries(); len(got) != MaxHistory || got[0] != "entry 5" {
		t.Fatalf("Entries() holds %d, first %q; want %d from entry 5", len(got), got[0], MaxHistory)
	}
	if err := h.Add("newest"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fileLines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(fileLines) != MaxHistory || fileLines[0] != `"entry 6"` || fileLines[len(fileLines)-1] != `"newest"` {
		t.Errorf("the file holds %d lines from %s to %s; want %d from \"entry 6\" to \"newest\"", len(fileLines), fileLines[0], fileLines[len(fileLines)-1], MaxHistory)
	}
	if err := h.Add("one more"); err != nil {
		t.Fatal(err)
	}
	reopened := openHistory(t, path).Entries()
	if len(reopened) != MaxHistory || reopened[0] != "entry 7" || reopened[MaxHistory-1] != "one more" {
		t.Errorf("reopened: %d entries from %q to %q", len(reopened), reopened[0], reopened[len(reopened)-1])
	}
}

func TestHistoryWriteFailureKeepsTheEntry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "history")
	h := openHistory(t, filepath.Join(dir, "h.jsonl"))
	// The directory cannot be made: a file is in its place.
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.Add("kept"); err == nil {
		t.Error("Add under a file: no error")
	}
	if d := cmp.Diff([]string{"kept"}, h.Entries()); d != "" {
		t.Errorf("Entries() mismatch (-want +got):\n%s", d)
	}
}

func TestUpAndDownWalkTheHistory(t *testing.T) {
	h := openHistory(t, filepath.Join(t.TempDir(), "h.jsonl"))
	for _, e := range []string{"oldest", "middle\nof two lines", "newest"} {
		if err := h.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	c := New(Options{Width: 40, History: h})
	typeText(t, c, "my draft")
	steps := []struct {
		key, want string
	}{
		{"up", "newest"},
		{"up", "middle\nof two lines"},
		{"up", "middle\nof two lines"}, // the cursor goes to the first line first
		{"up", "oldest"},
		{"up", "oldest"}, // nothing older
		{"down", "middle\nof two lines"},
		{"down", "newest"},
		{"down", "my draft"},
		{"down", "my draft"},
	}
	for i, s := range steps {
		press(t, c, s.key)
		if got := c.Value(); got != s.want {
			t.Fatalf("step %d (%s): Value() = %q, want %q", i, s.key, got, s.want)
		}
	}
}

func TestUpOnALaterLineMovesTheCursor(t *testing.T) {
	h := openHistory(t, filepath.Join(t.TempDir(), "h.jsonl"))
	if err := h.Add("old"); err != nil {
		t.Fatal(err)
	}
	c := New(Options{Width: 40, History: h})
	typeText(t, c, "one")
	press(t, c, "ctrl+j")
	typeText(t, c, "two")
	press(t, c, "up")
	if got := c.Value(); got != "one\ntwo" {
		t.Fatalf("Up on the second line recalled %q", got)
	}
	typeText(t, c, "!")
	if got := c.Value(); got != "one!\ntwo" {
		t.Errorf("Up did not move to the first line: %q", got)
	}
}

func TestARecalledPasteIsSentWhole(t *testing.T) {
	h := openHistory(t, filepath.Join(t.TempDir(), "h.jsonl"))
	c := New(Options{Width: 60, History: h})
	big := lines(30)
	typeText(t, c, "look: ")
	feed(t, c, tea.PasteMsg{Content: big})
	sub := press(t, c, "enter")
	if sub == nil {
		t.Fatal("nothing sent")
	}
	if err := h.Add(sub.Display); err != nil {
		t.Fatal(err)
	}
	press(t, c, "up")
	if got := c.Value(); got != "look: [pasted 30 lines]" {
		t.Fatalf("recalled %q", got)
	}
	again := press(t, c, "enter")
	if again == nil || again.Text != "look: "+big {
		t.Errorf("the recalled message sent %+v, want the paste expanded", again)
	}
}

func TestARecalledCommandOpensNoMenu(t *testing.T) {
	h := openHistory(t, filepath.Join(t.TempDir(), "h.jsonl"))
	for _, e := range []string{"first", "/help"} {
		if err := h.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	c := New(Options{Width: 40, History: h, Commands: testCommands})
	press(t, c, "up")
	if c.Value() != "/help" || c.Completing() {
		t.Fatalf("recalled %q, Completing() = %v; want /help and no menu", c.Value(), c.Completing())
	}
	press(t, c, "up")
	if got := c.Value(); got != "first" {
		t.Errorf("the second Up gave %q, want the older entry", got)
	}
	press(t, c, "down", "backspace")
	typeText(t, c, "p")
	if !c.Completing() {
		t.Error("editing a recalled command does not open the menu")
	}
}

func TestAnEditedEntryIsANewDraft(t *testing.T) {
	h := openHistory(t, filepath.Join(t.TempDir(), "h.jsonl"))
	for _, e := range []string{"one", "two"} {
		if err := h.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	c := New(Options{Width: 40, History: h})
	press(t, c, "up", "up")
	typeText(t, c, "!")
	press(t, c, "up")
	if got := c.Value(); got != "two" {
		t.Fatalf("Up after editing gave %q, want the newest entry", got)
	}
	press(t, c, "down")
	if got := c.Value(); got != "one!" {
		t.Errorf("Down past the newest gave %q, want the edited entry back", got)
	}
}
