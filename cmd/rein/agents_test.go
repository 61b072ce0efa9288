package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// reviewerDoc is Claude Code's documented code-reviewer agent, unchanged.
func reviewerDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "internal", "agent", "testdata", "code-reviewer.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rein agents lists the built-ins, the person's agents and, once trusted,
// the project's: name, description, tools, model, mode and file; a file
// that failed is a warning with its file and line, a shadowed one too.
// A project's agent files not trusted are left out, and it says so.
func TestReinAgents(t *testing.T) {
	work, cfgHome := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(work, ".claude", "agents", "code-reviewer.md"), reviewerDoc(t))
	writeTestFile(t, filepath.Join(work, ".claude", "agents", "broken.md"), "---\nname: broken\ndescription: d\nmaxTurns: many\n---\nbody\n")
	writeTestFile(t, filepath.Join(cfgHome, "rein", "agents", "scout.md"),
		"---\nname: scout\ndescription: Scouts the tree.\ntools: Read, WebFetch\nmodel: haiku\npermissionMode: plan\n---\nLook around.\n")
	writeTestFile(t, filepath.Join(cfgHome, "rein", "agents", "code-reviewer.md"), "---\nname: code-reviewer\ndescription: Mine.\n---\nMine.\n")
	env := []string{"XDG_CONFIG_HOME=" + cfgHome, "HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir()}

	r := reinIn(t, work, env, "agents")
	if r.code != 0 {
		t.Fatalf("rein agents: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	mine := filepath.Join(cfgHome, "rein", "agents")
	for _, want := range []string{
		"explore                Searches the codebase without changing it", "read-only, tools read_file, list_dir, glob, grep, bash; model inherit; mode inherit; built-in",
		"general                General-purpose agent", "all tools; model inherit; mode inherit; built-in",
		"scout                  Scouts the tree.  (tools read_file; model haiku; mode plan; " + filepath.Join(mine, "scout.md") + ")",
		"code-reviewer          Mine.  (all tools; model inherit; mode inherit; " + filepath.Join(mine, "code-reviewer.md") + ")",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("rein agents lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, want := range []string{
		"rein: warning: " + filepath.Join(work, ".claude", "agents") + ": not trusted, so its 1 agents are not offered",
		"rein: warning: " + filepath.Join(mine, "scout.md") + ":4: rein has no tool WebFetch; the agent goes without it",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("rein agents' warnings lack %q:\n%s", want, r.stderr)
		}
	}

	r = reinIn(t, work, env, "agents", "--trust-project")
	if r.code != 0 {
		t.Fatalf("rein agents --trust-project: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	project := filepath.Join(work, ".claude", "agents")
	if want := "code-reviewer          Expert code review specialist. Proactively reviews code for quality, security, and maintainability. " +
		"Use immediately after writing or modifying code.  (tools read_file, grep, glob, bash; model inherit; mode inherit; " +
		filepath.Join(project, "code-reviewer.md") + ")"; !strings.Contains(r.stdout, want) {
		t.Errorf("rein agents --trust-project lacks\n%s\nin\n%s", want, r.stdout)
	}
	for _, want := range []string{
		"rein: warning: " + filepath.Join(project, "broken.md") + ":4: front matter: maxTurns is not a whole number of turns, 1 or more; the agent is not loaded",
		"rein: warning: " + filepath.Join(mine, "code-reviewer.md") + ": agent \"code-reviewer\" is shadowed by the project agent of the same name in " +
			filepath.Join(project, "code-reviewer.md"),
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("rein agents --trust-project's warnings lack %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "Mine.") {
		t.Errorf("the shadowed agent is listed:\n%s", r.stdout)
	}
}

// The line mode's /agents lists what rein agents does, and the system
// prompt lists the agents the task tool may start.
func TestLineModeAgents(t *testing.T) {
	w := newRepoWorld(t)
	script := writeScript(t, `{"turns":[{"steps":[{"text":"unused"},{"finish":"stop"}]}]}`)
	r := reinFed(t, w.repo, w.env, "/agents\nhello\n/exit\n", "--provider", "scripted", "--script", script)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"explore ", "read-only, tools read_file, list_dir, glob, grep, bash", "general ", "all tools; model inherit"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("/agents lacks %q:\n%s", want, r.stderr)
		}
	}
	system := ""
	for _, e := range events(t, w.state) {
		if d, ok := e.Data.(*contract.SessionStarted); ok {
			system = d.System
		}
	}
	if !strings.Contains(system, "# How to work") || !strings.Contains(system, "# Agents") || !strings.Contains(system, "- explore (read-only): ") {
		t.Errorf("the system prompt does not list the agents:\n%s", system)
	}
}

// In the terminal UI a project's agent files are asked about before it
// starts, as its hooks are, and /agents shows the agents found.
func TestUIAgents(t *testing.T) {
	files := map[string]string{".claude/agents/code-reviewer.md": reviewerDoc(t)}
	s := newScreen(t, 100, 30, files, scriptFlags(t, answerTurns)...)
	s.waitFor(filepath.Join(".claude", "agents")+" would start",
		"agent code-reviewer (tools read_file, grep, glob, bash; model inherit; mode inherit)", "Trust it?")
	s.answer("y")
	s.keys("Enter")
	s.ready()
	s.text("/agents")
	s.keys("Enter")
	s.waitFor("Agents", "code-reviewer", "Expert code review specialist", "explore", "general")
	golden(t, "agents-100.txt", settle(s))
	s.keys("C-d")
	if got := s.exited(); got != "REIN-EXITED 0" {
		t.Errorf("exit: %s", got)
	}
}
