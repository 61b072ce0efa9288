package tui

import (
	"strings"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// The commands that show the session's extensions: what is loaded, from
// which file, and what failed.

func (m *model) mcp(string) tea.Cmd {
	return m.extensions("mcp", "MCP servers", "no MCP servers: add one with rein mcp add, or a project's .mcp.json")
}

func (m *model) hooks(string) tea.Cmd {
	return m.extensions("hooks", "Hooks", "no hooks: [[hooks.PreToolUse]] in config.toml, or a trusted project's .claude/settings.json")
}

func (m *model) skills(string) tea.Cmd {
	return m.extensions("skills", "Skills", "no skills: rein reads each directory holding a SKILL.md under the project's "+
		".rein/skills/, .claude/skills/ and .codex/skills/, then your ~/.config/rein/skills/, ~/.claude/skills/ and ~/.codex/skills/")
}

func (m *model) agents(string) tea.Cmd {
	return m.extensions("agents", "Agents", "no agents: rein reads the *.md (Claude Code's format) and *.toml (Codex's) files under the project's "+
		".rein/agents/, .claude/agents/ and .codex/agents/, then your ~/.config/rein/agents/, ~/.claude/agents/ and ~/.codex/agents/")
}

// extensions prints the lines of kind under title, or none when there
// are none. A line whose key starts with "!" is a problem, shown as a
// warning.
func (m *model) extensions(kind, title, none string) tea.Cmd {
	var facts []Fact
	if m.sess.Extensions != nil {
		facts = m.sess.Extensions(kind)
	}
	if len(facts) == 0 {
		m.print(transcript.Note("info", none, m.width, m.theme))
		return m.flushPrint()
	}
	var b strings.Builder
	for _, f := range facts {
		if problem, ok := strings.CutPrefix(f.Key, "!"); ok {
			b.WriteString(transcript.Note("warn", problem+": "+f.Value, m.width, m.theme) + "\n")
			continue
		}
		b.WriteString(row(m.width, 22, "  "+printable.Line(f.Key), printable.Line(f.Value), m.theme) + "\n")
	}
	m.print(m.theme.Bold.Render(title) + "\n" + strings.TrimSuffix(b.String(), "\n"))
	return m.flushPrint()
}
