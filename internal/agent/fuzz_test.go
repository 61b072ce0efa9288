package agent

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/id"
)

// FuzzParse: whatever an agent file holds, parse returns either a
// definition with a good name, a one-line description and tools of
// rein's, or problems on a line of the file, and never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\ntools: Read, Agent(x, y), mcp__gh\n---\nbody\n",
		"---\nname: a\ndescription: b\ntools: [Read, Bash(ls:*)]\ndisallowedTools: Write\nmaxTurns: 3\npermissionMode: plan\n---\n",
		"---\nname: &a x\ndescription: *a\ntools: *a\n---\n",
		"---\n- a\n---\n",
		"name = \"a\"\ndescription = \"b\"\ndeveloper_instructions = \"c\"\nsandbox_mode = \"read-only\"\n",
		"\ufeff---\r\nname: x\r\ndescription: \"\\x1b[31m\"\r\n---\r\n",
	} {
		f.Add([]byte(s), strings.HasPrefix(s, "name ="))
	}
	f.Fuzz(func(t *testing.T, data []byte, codex bool) {
		format := formatClaude
		if codex {
			format = formatCodex
		}
		d, problems := parse(format, data)
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range problems {
			if p.Line < 0 || p.Line > lines+1 || p.Message == "" {
				t.Errorf("problem %+v: a line outside the file's %d lines, or no message", p, lines)
			}
		}
		if d.Name == "" {
			if len(errorsOf(problems)) == 0 {
				t.Error("no agent and no problem")
			}
			return
		}
		if !id.ValidName(d.Name, id.MaxName) || d.Description == "" || strings.ContainsAny(d.Description, "\n\r\t\x1b") || !utf8.ValidString(d.Prompt) {
			t.Errorf("parse() = %+v: a bad name, description or prompt", d)
		}
		for _, tool := range append(slices.Clone(d.Tools), d.DisallowedTools...) {
			if r, ok := toolName(tool); !ok || (r != tool && r != tool+"__*") {
				t.Errorf("tool %q is not one of rein's names", tool)
			}
		}
	})
}
