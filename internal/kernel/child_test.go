package kernel

import (
	"strings"
	"testing"
)

// A child's prompt is what a subagent is, the environment, its agent's
// own prompt and the instructions: not the session's (no skills, no
// agents, no "How to work" of the parent's).
func TestChildPrompt(t *testing.T) {
	env := Environment{Workspace: "/w", OS: "linux/amd64", Date: "2026-12-07", Git: "branch main",
		Skills: "- deploy", Agents: "- explore", Instructions: []InstructionFile{{Path: "/w/AGENTS.md", Text: "Use tabs."}}}
	p := ChildPrompt("  Review the diff.\n", env)
	for _, want := range []string{"You are a subagent of rein", "Workspace (the root of every relative path): /w", "Git: branch main",
		"# Your instructions as this agent\nReview the diff.", "Use tabs."} {
		if !strings.Contains(p, want) {
			t.Errorf("the child's prompt lacks %q:\n%s", want, p)
		}
	}
	for _, not := range []string{"- deploy", "- explore", "# How to work", "{{"} {
		if strings.Contains(p, not) {
			t.Errorf("the child's prompt holds %q:\n%s", not, p)
		}
	}
}
