package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Through the binary, against a Chat Completions server on 127.0.0.1: the
// system prompt the model receives holds the person's own AGENTS.md, then
// each directory's from the repository's root down to the working
// directory (CLAUDE.md where a directory has none), in that order, each
// named; one a budget cuts is said cut, to the model and to the person.
func TestExecReadsInstructionsInOrder(t *testing.T) {
	config := t.TempDir()
	repo := t.TempDir()
	gitInit(t, repo)
	work := filepath.Join(repo, "services", "api")
	files := map[string]string{
		filepath.Join(config, "rein", "AGENTS.md"):    "OWN: answer in British English.\n",
		filepath.Join(repo, "AGENTS.md"):              "ROOT: run make check before you finish.\n",
		filepath.Join(repo, "CLAUDE.md"):              "NOT READ: the root has an AGENTS.md.\n",
		filepath.Join(repo, "services", "CLAUDE.md"):  "SERVICES: log in JSON.\n",
		filepath.Join(work, "AGENTS.md"):              "API: the API is versioned.\n",
		filepath.Join(repo, "elsewhere", "AGENTS.md"): "NOT READ: not on the way down.\n",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ask := func() (*chatServer, string) {
		t.Helper()
		srv := serveChat(t, []chatTurn{{text: "Noted."}})
		cmd := exec.Command(rein, "exec", "--provider", "openai", "--model", "m", "--base-url", srv.URL+"/v1", "hello")
		cmd.Dir = work
		cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+config, "OPENAI_API_KEY=sk-instructions-test")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rein exec: %v\n%s", err, out)
		}
		return srv, string(out)
	}

	srv, _ := ask()
	realRepo := repoReal(t, repo)
	realWork := filepath.Join(realRepo, "services", "api")
	order := []string{
		filepath.Join(config, "rein", "AGENTS.md") + " (the user's own)", "OWN: answer in British English.",
		filepath.Join(realRepo, "AGENTS.md"), "ROOT: run make check",
		filepath.Join(realRepo, "services", "CLAUDE.md"), "SERVICES: log in JSON.",
		filepath.Join(realWork, "AGENTS.md"), "API: the API is versioned.",
	}
	at := 0
	for _, want := range order {
		i := strings.Index(srv.system[at:], want)
		if i < 0 {
			t.Fatalf("the system prompt lacks %q after offset %d (in order: %q):\n%s", want, at, order, srv.system)
		}
		at += i + len(want)
	}
	if strings.Contains(srv.system, "NOT READ") {
		t.Errorf("the system prompt holds a file it should not:\n%s", srv.system)
	}

	// The root's file past the budget: it is cut, the files after it left
	// out, and both the model and the person are told.
	big := "ROOT: run make check before you finish.\n" + strings.Repeat("A line of a long AGENTS.md that goes on.\n", 1000)
	if err := os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, out := ask()
	for _, file := range []string{filepath.Join(realRepo, "AGENTS.md"), filepath.Join(realRepo, "services", "CLAUDE.md"), filepath.Join(realWork, "AGENTS.md")} {
		if !strings.Contains(srv.system, "bytes of "+file+" not included") {
			t.Errorf("the system prompt does not say %s was cut:\n%s", file, srv.system[max(0, len(srv.system)-2000):])
		}
		if !strings.Contains(out, "bytes of "+file+" not included") {
			t.Errorf("the person is not told %s was cut:\n%s", file, out)
		}
	}
	// The root's file lies above the working directory, outside the
	// workspace, where read_file cannot read the rest: the note says who
	// can do something about it.
	if want := "bytes of " + filepath.Join(realRepo, "AGENTS.md") + " not included (the end of the file), past rein's budget for instructions; " +
		"the file is outside the workspace, so read_file cannot read the rest: if you need it, tell the user, who can shorten the file]"; !strings.Contains(srv.system, want) {
		t.Errorf("the system prompt does not say:\n%s\nit says:\n%s", want, srv.system[max(0, len(srv.system)-2000):])
	}
	if !strings.Contains(out, "shorten the file to have it read whole") {
		t.Errorf("the person is not told how to have the file read whole:\n%s", out)
	}
	if len(srv.system) > maxInstructions+8<<10 {
		t.Errorf("the system prompt has %d bytes: the budget of %d for instructions did not hold", len(srv.system), maxInstructions)
	}
	if strings.Contains(srv.system, "SERVICES:") || strings.Contains(srv.system, "API:") {
		t.Errorf("files after the cut one are in the prompt:\n%s", srv.system)
	}
}

// /status lists the files of instructions the session's prompt holds,
// with their bytes and what was cut; the cut was said before the UI.
func TestUIStatusListsInstructions(t *testing.T) {
	long := "Run make check before you finish.\n" + strings.Repeat("A line of a long AGENTS.md that goes on.\n", 1000)
	s := newScreen(t, 120, 40, map[string]string{"AGENTS.md": long}, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("/status")
	s.keys("Enter")
	screen := s.waitFor("instructions", "cut:", "bytes not included")
	ws, _ := filepath.EvalSymlinks(s.dir)
	if !strings.Contains(screen, filepath.Join(ws, "AGENTS.md")) {
		t.Errorf("/status does not name the file %s:\n%s", filepath.Join(ws, "AGENTS.md"), screen)
	}
	if !strings.Contains(s.all(), "bytes of "+filepath.Join(ws, "AGENTS.md")+" not included") {
		t.Errorf("the cut is not said at the start:\n%s", s.all())
	}
	s.keys("C-d")
	s.exited()
}
