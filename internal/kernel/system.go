package kernel

import (
	_ "embed"
	"fmt"
	"strings"
)

// The system prompt's text, in four files beside this one: the prompt
// itself, with {{workspace}}, {{os}}, {{date}} and {{git}} where the
// environment goes, and the sections on agents, skills and instructions,
// which follow it when there are any. A plain replacement rather than
// text/template: a template's method calls go through reflect's
// MethodByName, which makes the linker keep every exported method of every
// type in the binary.
var (
	//go:embed system.md
	systemText string
	//go:embed system_agents.md
	systemAgents string
	//go:embed system_skills.md
	systemSkills string
	//go:embed system_instructions.md
	systemInstructions string
)

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
	// Instructions are the files of instructions the prompt holds, in the
	// order they are read: the person's own first, then the repository's
	// from its root down to the working directory; nil means none, and
	// the prompt has no section on them.
	Instructions []InstructionFile
	// Skills lists the skills the model may use, one a line, as
	// skill.Prompt makes them (name, path of its SKILL.md, description);
	// empty means none, and the prompt has no section on skills.
	Skills string
	// Agents lists the agents the model may hand work to with the task
	// tool, one a line, as agent.Prompt makes them (name, description);
	// empty means none, and the prompt has no section on agents.
	Agents string
}

// InstructionFile is one file of instructions as the system prompt holds
// it: the person's own AGENTS.md, or a directory's AGENTS.md (or
// CLAUDE.md). The prompt names the file above its text.
type InstructionFile struct {
	// Path is the file, as the prompt names it.
	Path string
	// Text is what the prompt holds of the file; it may be empty when
	// the budget for instructions was spent before it (Cut says so).
	Text string
	// Cut is how many bytes of the file were left out, the budget for
	// instructions spent; 0 means the prompt holds all of it.
	Cut int
	// Own says the file is the person's own, not the repository's.
	Own bool
	// Readable says the model's read tools may read the file (it lies in
	// the workspace), so that a cut says to read the rest; false says the
	// rest is beyond the model's reach (the person's own file, a
	// repository's root above the workspace), which only the person can
	// bring within the budget, by shortening the file.
	Readable bool
}

// Section returns the file's part of the system prompt: a heading naming
// it, its text, and a note of what was cut. The prompt holds it as it is,
// so a caller may look for it in a recorded prompt.
func (f InstructionFile) Section() string {
	var b strings.Builder
	b.WriteString("## " + f.Path)
	if f.Own {
		b.WriteString(" (the user's own)")
	}
	b.WriteString("\n")
	if f.Text != "" {
		b.WriteString(f.Text + "\n")
	}
	if f.Cut > 0 {
		what := "the end of the file"
		if f.Text == "" {
			what = "all of it: the files before it took the budget"
		}
		next := "the file is outside the workspace, so read_file cannot read the rest: if you need it, tell the user, who can shorten the file"
		if f.Readable {
			next = "read the rest with read_file if you need it"
		}
		fmt.Fprintf(&b, "[cut: %d bytes of %s not included (%s), past rein's budget for instructions; %s]\n", f.Cut, f.Path, what, next)
	}
	return b.String()
}

// SystemPrompt returns rein's system prompt for env. The text lives in
// system.md, system_agents.md, system_skills.md and
// system_instructions.md beside this file.
func SystemPrompt(env Environment) string {
	var b strings.Builder
	env.fill(&b, strings.TrimSuffix(systemText, "\n"))
	if env.Agents != "" {
		b.WriteString("\n\n" + systemAgents + env.Agents)
	}
	if env.Skills != "" {
		b.WriteString("\n\n" + systemSkills + "\n" + env.Skills)
	}
	env.instructions(&b)
	return b.String()
}

// fill writes text with the environment where its placeholders are
// ({{workspace}}, {{os}}, {{date}}, {{git}}), in one pass over the text:
// what the environment holds is not read for placeholders again.
func (env *Environment) fill(b *strings.Builder, text string) {
	git := "The workspace is not a git repository (or git is not available)."
	if env.Git != "" {
		git = "Git: " + env.Git
	}
	strings.NewReplacer("{{workspace}}", env.Workspace, "{{os}}", env.OS, "{{date}}", env.Date, "{{git}}", git).WriteString(b, text)
}

// instructions writes the section of the instructions, if there are
// any.
func (env *Environment) instructions(b *strings.Builder) {
	if len(env.Instructions) > 0 {
		b.WriteString("\n\n" + systemInstructions)
		for _, f := range env.Instructions {
			b.WriteString("\n" + f.Section())
		}
	}
}
