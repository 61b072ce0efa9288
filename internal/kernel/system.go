package kernel

import (
	_ "embed"
	"strings"
	"sync"
	"text/template"
)

//go:embed system.md
var systemText string

// systemTemplate is parsed on first use, not at start-up.
var systemTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("system").Parse(systemText))
})

// Environment is what the system prompt tells the model about where it
// works. The zero value gives a prompt with the fields left blank.
type Environment struct {
	// Workspace is the workspace root.
	Workspace string
	// OS is the operating system and architecture ("linux/amd64").
	OS string
	// Date is today's date (2006-01-02).
	Date string
	// Git summarises the repository: branch and changed files; empty
	// means not a repository.
	Git string
	// Instructions is the text of the repository's AGENTS.md, and
	// InstructionsFile its name; empty means there is none.
	Instructions, InstructionsFile string
	// Skills lists the skills the model may use, one a line, as
	// skill.Prompt makes them (name, path of its SKILL.md, description);
	// empty means none, and the prompt has no section on skills.
	Skills string
}

// SystemPrompt returns rein's system prompt for env. The text lives in
// system.md beside this file.
func SystemPrompt(env Environment) string {
	var b strings.Builder
	if err := systemTemplate().Execute(&b, env); err != nil {
		// The template is ours and its data plain strings: it cannot fail.
		panic("kernel: system prompt: " + err.Error())
	}
	return b.String()
}
