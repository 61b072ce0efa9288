package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// rein -c opens the UI on the repository's latest session from any of
// its directories, its earlier conversation shown first, and goes on with
// it: a first message given with -c is its next run. Leaving a UI that
// recorded nothing names no session.
func TestUIContinueFromASubdirectory(t *testing.T) {
	s := newScreen(t, 100, 30, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "pkg/stats/stats.go": "package stats\n"},
		scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("the first question")
	s.keys("Enter")
	s.waitFor("second point")
	s.keys("C-d")
	if code := s.exited(); code != "REIN-EXITED 0" {
		t.Fatalf("rein ended with %q", code)
	}
	id := s.events()[0].Session
	if !strings.Contains(s.all(), "rein resume "+id+" -i goes on") {
		t.Errorf("the exit line does not name the session:\n%s", s.all())
	}
	s.stop() // the pane's shell sleeps

	root := s.dir
	s.dir = filepath.Join(root, "pkg", "stats")
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	s.start(100, 30, append([]string{"-c", "and a second one"}, scriptFlags(t, answerTurns)...)...)
	all := s.waitFor("the first question", "second point", "earlier conversation above", "Second answer.")
	if strings.Index(all, "the first question") > strings.Index(all, "earlier conversation above") {
		t.Errorf("the past is not shown before the composer:\n%s", all)
	}
	s.keys("C-d")
	s.exited()
	ev := s.events()
	if ev[0].Session != id || countType(ev, "user.message") != 2 {
		t.Errorf("rein -c went on with %s (%d messages), want %s with 2", ev[0].Session, countType(ev, "user.message"), id)
	}
	s.stop()

	// A UI left at once records nothing, and names no session.
	s.dir = root
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	s.start(100, 30, scriptFlags(t, answerTurns)...)
	s.ready()
	s.keys("C-d")
	s.exited()
	if all := s.all(); strings.Contains(all, "session: ") || strings.Contains(all, "goes on") {
		t.Errorf("leaving at the first prompt names a session that does not exist:\n%s", all)
	}
	if ev := s.events(); ev[0].Session != id {
		t.Errorf("leaving at the first prompt left session %s behind", ev[0].Session)
	}
}
