package kernel

import (
	_ "embed"
	"strings"
)

//go:embed child.md
var childText string

// ChildPrompt is the system prompt of a child session (a task's): what a
// subagent is and the environment, from env, then its agent's own prompt,
// then the instructions env holds, as a session's prompt holds them. The
// parent's conversation is not in it: a child starts from its brief.
func ChildPrompt(agent string, env Environment) string {
	git := "The workspace is not a git repository (or git is not available)."
	if env.Git != "" {
		git = "Git: " + env.Git
	}
	var b strings.Builder
	strings.NewReplacer("{{workspace}}", env.Workspace, "{{os}}", env.OS, "{{date}}", env.Date, "{{git}}", git).
		WriteString(&b, childText)
	b.WriteString(strings.TrimSpace(agent))
	if len(env.Instructions) > 0 {
		b.WriteString("\n\n" + systemInstructions)
		for _, f := range env.Instructions {
			b.WriteString("\n" + f.Section())
		}
	}
	return b.String()
}
