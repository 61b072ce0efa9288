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
	var b strings.Builder
	env.fill(&b, childText)
	b.WriteString(strings.TrimSpace(agent))
	env.instructions(&b)
	return b.String()
}
