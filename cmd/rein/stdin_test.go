package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// The prompt of rein exec from standard input, as Codex and Claude Code
// take it: piped alone, after "-", or added to a prompt argument as
// context. The user.message the log records is what the model was sent.
func TestExecPromptFromStdin(t *testing.T) {
	script := writeScript(t, `{"turns":[{"steps":[{"text":"Read it."},{"finish":"stop"}]}]}`)
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"piped", nil, "fix the failing test\n", "fix the failing test"},
		{"dash", []string{"-"}, "fix the failing test\n", "fix the failing test"},
		{"prompt and piped context", []string{"why does this fail?"}, "--- FAIL: TestMean (0.00s)\n", "why does this fail?\n\n<stdin>\n--- FAIL: TestMean (0.00s)\n</stdin>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stateDir := t.TempDir()
			cmd := exec.Command(rein, append([]string{"exec", "--provider", "scripted", "--script", script}, tc.args...)...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir())
			cmd.Stdin = strings.NewReader(tc.stdin)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rein exec: %v", err)
			}
			if string(out) != "Read it.\n" {
				t.Errorf("stdout %q", out)
			}
			var got []string
			for _, env := range events(t, stateDir) {
				if m, ok := env.Data.(*contract.UserMessage); ok {
					got = append(got, m.Text)
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("user messages %q, want [%q]", got, tc.want)
			}
		})
	}
	// Nothing on stdin and no prompt: what is missing, and where to look.
	r := reinIn(t, t.TempDir(), []string{"XDG_STATE_HOME=" + t.TempDir()}, "exec", "--provider", "scripted", "--script", script)
	if r.code != 2 || !strings.Contains(r.stderr, "exec needs a prompt") || !strings.Contains(r.stderr, "rein exec --help") {
		t.Errorf("rein exec with no prompt: exit %d, stderr %q", r.code, r.stderr)
	}
}
