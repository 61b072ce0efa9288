package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// uiRewindScript is a model whose first turn changes the workspace by a
// command (rewrites notes.txt, deletes gone.txt, creates made.txt), then
// says it is done; a second turn answers a later message.
func uiRewindScript() string {
	return `{"turns":[` + bashTurn("printf 'new\\n' > notes.txt && rm gone.txt && echo made > made.txt") + `,
		{"steps":[{"text":"Done."},{"finish":"stop"}]},
		{"steps":[{"text":"Again."},{"finish":"stop"}]}]}`
}

// uiRewindFiles is the workspace before the turn.
var uiRewindFiles = map[string]string{"notes.txt": "old\n", "gone.txt": "keep me\n"}

// checkUIRestored fails unless dir's files are as uiRewindFiles, made.txt
// gone.
func checkUIRestored(t *testing.T, dir string) {
	t.Helper()
	for name, want := range uiRewindFiles {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s is %q (%v), want %q", name, b, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt, which the command created, is still there (%v)", err)
	}
}

// Through a pipe, /rewind lists the messages numbered, asks which and
// what to restore, lists the files and asks before it writes; the files
// a command changed come back, and the log says the session was rewound.
func TestPlainRewind(t *testing.T) {
	w := newRepoWorld(t)
	writeFiles(t, w.repo, uiRewindFiles)
	input := "change the notes\n/rewind\n1\n1\ny\n/exit\n"
	r := reinFed(t, w.repo, w.env, input, "--permission-mode", "yolo", "--provider", "scripted", "--script", writeScript(t, uiRewindScript()))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Rewind to before which message?", "change the notes  · 3 files changed",
		"Rewind to before “change the notes”. Restore what?", "1  code and conversation", "2  conversation only", "3  code only",
		"It restores (3):", "revert   notes.txt", "restore  gone.txt", "remove   made.txt", "rewind? [y/n]",
		"rein: code and conversation rewound to before “change the notes” · 3 files restored:",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	checkUIRestored(t, w.repo)
	id := sessionIDs.FindString(r.stderr)
	if n := countType(w.sessionEvents(t, id), "session.rewound"); n != 1 {
		t.Errorf("%d session.rewound events, want 1", n)
	}
}

// /undo asks first when files would be restored, and n keeps them; y
// restores them; with no message left it says so.
func TestPlainUndo(t *testing.T) {
	w := newRepoWorld(t)
	writeFiles(t, w.repo, uiRewindFiles)
	input := "change the notes\n/undo\nn\n/undo\ny\n/undo\n/exit\n"
	r := reinFed(t, w.repo, w.env, input, "--permission-mode", "yolo", "--provider", "scripted", "--script", writeScript(t, uiRewindScript()))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"Undo the last turn, “change the notes”.", "Its files come back as they were before it (3):", "undo it? [y/n]",
		"rein: nothing was rewound",
		"rein: code and conversation rewound to before “change the notes” · 3 files restored",
		"rein: nothing was undone: the session has no message to rewind to",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	checkUIRestored(t, w.repo)
	id := sessionIDs.FindString(r.stderr)
	if n := countType(w.sessionEvents(t, id), "session.rewound"); n != 1 {
		t.Errorf("%d session.rewound events, want 1", n)
	}
}

// In the terminal UI, /rewind opens the picker of the messages; Enter
// picks the latest, which asks what to restore and lists the files; 1
// restores the code and the conversation: the files are back as before
// the message, one line says so, and the message is back in the
// composer.
func TestUIRewind(t *testing.T) {
	s := newScreen(t, 100, 30, uiRewindFiles, append(scriptFlags(t, uiRewindScript()), "--permission-mode", "yolo")...)
	s.ready()
	s.text("change the notes")
	s.keys("Enter")
	s.waitFor("Done.")
	s.text("/rewind")
	s.keys("Enter")
	s.waitVisible("Rewind to before a message")
	s.waitVisible("change the notes")
	s.keys("Enter")
	v := s.waitVisible("1. Restore code and conversation")
	for _, want := range []string{"Files it restores (3):", "revert    notes.txt", "restore   gone.txt", "remove    made.txt"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	s.keys("1")
	s.waitFor("code and conversation rewound to before “change the notes” · 3 files restored")
	checkUIRestored(t, s.dir)
	if n := countType(s.events(), "session.rewound"); n != 1 {
		t.Errorf("%d session.rewound events, want 1", n)
	}
	// The message is back in the composer: Enter sends it again.
	s.keys("Enter")
	deadline := time.Now().Add(uiWait)
	for {
		var sent []string
		for _, e := range s.events() {
			if m, ok := e.Data.(*contract.UserMessage); ok {
				sent = append(sent, m.Text)
			}
		}
		if len(sent) == 2 {
			if sent[1] != "change the notes" {
				t.Errorf("sent again %q, not the message rewound", sent[1])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Enter after the rewind sent nothing: %q", sent)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Esc twice on an empty composer opens the same picker; /undo rewinds
// the last turn, asking first as it restores files.
func TestUIEscEscAndUndo(t *testing.T) {
	s := newScreen(t, 100, 30, uiRewindFiles, append(scriptFlags(t, uiRewindScript()), "--permission-mode", "yolo")...)
	s.ready()
	s.text("change the notes")
	s.keys("Enter")
	s.waitFor("Done.")
	s.keys("Escape")
	s.waitVisible("press Esc again")
	s.keys("Escape")
	s.waitVisible("Rewind to before a message")
	s.keys("Escape")
	s.waitGone("Rewind to before a message")
	s.text("/undo")
	s.keys("Enter")
	v := s.waitVisible("Undo the last turn, “change the notes”?")
	if !strings.Contains(v, "remove    made.txt") {
		t.Errorf("the question does not list the files:\n%s", v)
	}
	s.keys("y")
	s.waitFor("code and conversation rewound to before “change the notes” · 3 files restored")
	checkUIRestored(t, s.dir)
	var rewound []*contract.SessionRewound
	for _, e := range s.events() {
		if r, ok := e.Data.(*contract.SessionRewound); ok {
			rewound = append(rewound, r)
		}
	}
	if len(rewound) != 1 || rewound[0].Scope != contract.RewindBoth {
		t.Errorf("rewound %+v, want one of both", rewound)
	}
}
