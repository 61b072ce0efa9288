package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a person sees of task calls, through the binary against a Chat
// server that answers each conversation by its brief.

// surveyScripts are a parent that hands two searches to explore children
// at once, and the children, each of which reads a file and answers.
func surveyScripts() map[string][]step {
	child := func(answer string) []step {
		return []step{{calls: []call{{name: "read_file", args: map[string]string{"path": "auth.go"}}}}, {text: answer}}
	}
	return map[string][]step{
		"survey": {
			{text: "I will ask two explorers.", calls: []call{
				taskArgs("explore", "find login", "brief A: find Login"),
				taskArgs("explore", "find logout", "brief B: find Logout"),
			}},
			{text: "Both reported."},
		},
		"brief A": child("Login is at auth.go:3."),
		"brief B": child("There is no Logout."),
	}
}

func writeAuth(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "auth.go"), []byte("package auth\n\nfunc Login() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rein exec's trace indents each child's lines under its task and ends
// each task with how its child ended.
func TestExecTraceIndentsChildren(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeAuth(t, dir)
	srv := newBriefServer(t, surveyScripts(), "brief A", "brief B")
	r := reinIn(t, dir, chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m", "survey the auth code")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if testing.Verbose() {
		t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	for _, want := range []string{
		"● task explore · find login\n",
		"  ↳ explore · find login · session ses_",
		"    ● read_file auth.go\n",
		"    Login is at auth.go:3.\n",
		"  ↳ explore · find logout · done · 2 turns · 1 tool call",
		"  │ [task explore, completed: 2 turns, 1 tool call, 1 file read",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the trace lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\n● read_file") || strings.Contains(r.stderr, "brief A") {
		t.Errorf("a child's call is not indented, or its brief is shown:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "Both reported.") || strings.Contains(r.stdout, "Login is at") {
		t.Errorf("stdout holds a child's answer, or not the parent's:\n%s", r.stdout)
	}
}

// In the UI, each child has its card: one that finished shows its answer,
// one still working its live line; Esc stops it, its card says cancelled
// and nothing is left running.
func TestUITaskCardsAndEsc(t *testing.T) {
	scripts := surveyScripts()
	srv := newBriefServer(t, scripts)
	srv.hold("brief B", 1) // the second child waits on its model until the run ends
	s := newScreen(t, 100, 40, map[string]string{"auth.go": "package auth\n\nfunc Login() {}\n"},
		"--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m")
	s.ready()
	s.text("survey the auth code")
	s.keys("Enter")
	screen := s.waitFor("● task explore · find login\n  ⎿ done · 2 turns · 1 tool call", "Login is at auth.go:3.",
		"● task explore · find logout", "waiting for the model · turn 2 · 1 tool call")
	if testing.Verbose() {
		t.Logf("while one child works:\n%s", screen)
	}
	s.keys("Escape")
	screen = s.waitFor("● task explore · find logout\n  ⎿ cancelled")
	s.waitGone("esc to interrupt")
	if testing.Verbose() {
		t.Logf("after Esc:\n%s", screen)
	}
	if v := s.visible(); strings.Contains(v, "waiting for the model") {
		t.Errorf("a card still runs after Esc:\n%s", v)
	}
}

// A child's question names the child; answered, the child goes on.
func TestUIChildAsks(t *testing.T) {
	srv := newBriefServer(t, map[string][]step{
		"make": {
			{calls: []call{taskArgs("general", "make the marker", "brief M: make the marker file")}},
			{text: "Done."},
		},
		"brief M": {
			{calls: []call{{name: "bash", args: map[string]string{"command": "touch marker"}}}},
			{text: "Made it."},
		},
	})
	s := newScreen(t, 100, 40, nil, "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "m")
	s.ready()
	s.text("make a marker")
	s.keys("Enter")
	screen := s.waitVisible("general · make the marker wants to run a command:")
	if !strings.Contains(screen, "waiting for your approval: bash touch marker") {
		t.Errorf("the card does not say its child waits:\n%s", screen)
	}
	s.answer("y")
	s.waitFor("● task general · make the marker\n  ⎿ done", "Made it.")
	if _, err := os.Stat(filepath.Join(s.dir, "marker")); err != nil {
		t.Errorf("the child's command did not run once allowed: %v", err)
	}
}
