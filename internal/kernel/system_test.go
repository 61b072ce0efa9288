package kernel

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/agent"
	"github.com/rein-agent/rein/internal/skill"
)

// update rewrites the golden files under testdata/:
// go test ./internal/kernel -run SystemPromptGolden -update.
var update = flag.Bool("update", false, "rewrite golden files")

// The whole system prompt of a session with agents, skills and
// instructions, as the model reads it.
func TestSystemPromptGolden(t *testing.T) {
	agents, _ := agent.Prompt(append(agent.Builtins(), agent.Definition{Name: "code-reviewer",
		Description: "Expert code review specialist. Use immediately after writing or modifying code."}), 0)
	skills, _ := skill.Prompt([]skill.Skill{
		{Name: "pdf", Description: "Fill PDF forms and extract their text. Use when the user names a PDF.", Path: "/src/stats/.claude/skills/pdf/SKILL.md"},
		{Name: "release-notes", Description: "Write the release notes from the git log since the last tag.", Path: "/home/ada/.config/rein/skills/release-notes/SKILL.md"},
	}, 0)
	env := Environment{Workspace: "/src/stats", OS: "linux/amd64", Date: "2026-11-30", Git: "branch main, clean",
		Instructions: []InstructionFile{
			{Path: "/home/ada/.config/rein/AGENTS.md", Text: "Answer in British English.", Own: true},
			{Path: "/src/stats/AGENTS.md", Text: "Run make check before finishing."},
			{Path: "/src/stats/cmd/CLAUDE.md", Text: "Commands print to stderr.", Cut: 1200, Readable: true},
		}, Skills: skills, Agents: agents}
	got := SystemPrompt(env)
	golden := filepath.Join("testdata", "system_skills.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./internal/kernel -run SystemPromptGolden -update writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("SystemPrompt() mismatch (-want +got):\n%s", d)
	}
	// Each file's section is in the prompt as Section makes it: /status
	// looks for it in a recorded prompt.
	for _, f := range env.Instructions {
		if !strings.Contains(got, f.Section()) {
			t.Errorf("the prompt lacks the section of %s:\n%s", f.Path, f.Section())
		}
	}
	if again := SystemPrompt(env); again != got {
		t.Error("SystemPrompt() differs for the same environment; prompt caching needs the same bytes")
	}
}

// A cut says what was left out, and what the model can do about it: read
// the rest of a file in the workspace; ask the person, who can shorten it,
// for one outside it (read_file refuses it there).
func TestInstructionFileCut(t *testing.T) {
	for _, tc := range []struct {
		f    InstructionFile
		want string
	}{
		{InstructionFile{Path: "/src/stats/AGENTS.md", Text: "x", Cut: 12, Readable: true},
			"[cut: 12 bytes of /src/stats/AGENTS.md not included (the end of the file), past rein's budget for instructions; " +
				"read the rest with read_file if you need it]\n"},
		{InstructionFile{Path: "/home/ada/.config/rein/AGENTS.md", Text: "x", Cut: 40000, Own: true},
			"[cut: 40000 bytes of /home/ada/.config/rein/AGENTS.md not included (the end of the file), past rein's budget for instructions; " +
				"the file is outside the workspace, so read_file cannot read the rest: if you need it, tell the user, who can shorten the file]\n"},
		{InstructionFile{Path: "/src/AGENTS.md", Cut: 7},
			"[cut: 7 bytes of /src/AGENTS.md not included (all of it: the files before it took the budget), past rein's budget for instructions; " +
				"the file is outside the workspace, so read_file cannot read the rest: if you need it, tell the user, who can shorten the file]\n"},
	} {
		if got := tc.f.Section(); !strings.HasSuffix(got, tc.want) {
			t.Errorf("Section() of %s =\n%s\nwant it to end\n%s", tc.f.Path, got, tc.want)
		}
	}
}

// Without skills or agents the prompt says nothing of them.
func TestSystemPromptWithoutSkills(t *testing.T) {
	p := SystemPrompt(Environment{Workspace: "/src/stats", Instructions: []InstructionFile{{Path: "AGENTS.md", Text: "x"}}})
	if strings.Contains(p, "# Skills") || strings.Contains(p, "SKILL.md") {
		t.Errorf("prompt without skills mentions them:\n%s", p)
	}
	if strings.Contains(p, "# Agents") || strings.Contains(p, "task tool") {
		t.Errorf("prompt without agents mentions them:\n%s", p)
	}
}
