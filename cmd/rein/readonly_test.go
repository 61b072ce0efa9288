package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"
)

// readOnlyCommands are issue 25's read-only commands, each of which rein
// exec in default mode runs without a question (headless, a question
// would be a denial), in the sandbox.
var readOnlyCommands = []string{
	"ls -la", "cat README.md", "head -n 1 README.md", "tail -n 1 README.md", "wc -l README.md", "echo hi",
	"printf '%s\\n' a b", "seq 3", "pwd", "which ls", "date", "grep -n hello README.md", "rg hello",
	"find . -name '*.md'", "git status", "git diff", "git log --oneline", "git show --stat HEAD", "sort README.md",
	"uniq README.md", "cut -c1-3 README.md", "echo abc | tr a-z A-Z", "jq -n 1", "diff README.md README.md",
	"stat README.md", "file README.md", "du -sh .", "df -h .", "cat README.md | grep hello | wc -l",
}

// askingCommands are writers, runners and network programs: each still
// asks, so rein exec denies it, and it does not run.
var askingCommands = []string{
	"touch m1", "rm -f README.md", "mkdir d", "cp README.md c", "echo x > notes.txt", "sed -i s/h/H/ README.md",
	"sort -o sorted README.md", "cat README.md | tee t", "find . -name m2 -fprint m2", "find . -name '*.md' -delete",
	"make", "sh -c 'touch m3'", "python3 -c 'open(\"m4\", \"w\")'", "awk 'BEGIN{print 1}'", "env", "echo m5 | xargs touch",
	"find . -maxdepth 0 -exec touch m6 \\;", "git commit --allow-empty -m x", "git log --output=m7",
	"curl -s http://127.0.0.1:9/", "wget -q http://127.0.0.1:9/", "git fetch", "ssh localhost true", "nc 127.0.0.1 9",
}

// Reading is not a question: in default mode, in the sandbox, every
// read-only command runs without asking, its permission "allow by mode"
// with the reason "a read-only command"; every writer, runner and network
// program still asks (headless: denied), and none of them ran.
func TestExecReadOnlyCommandsRunWithoutAQuestion(t *testing.T) {
	sandboxtest.Need(t)
	work := gitWorkspace(t)
	before, _ := os.ReadFile(filepath.Join(work, "README.md"))
	var turns []string
	for _, c := range append(append([]string(nil), readOnlyCommands...), askingCommands...) {
		turns = append(turns, bashTurn(c))
	}
	script := writeScript(t, `{"turns":[`+strings.Join(turns, ",")+`,{"steps":[{"text":"done"},{"finish":"stop"}]}]}`)
	stateDir := t.TempDir()
	r := reinIn(t, work, []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + t.TempDir(), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"},
		"exec", "--permission-mode", "default", "--max-turns", "100", "--provider", "scripted", "--script", script, "look around")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var inputs []string
	var ps []*contract.ToolPermission
	for _, e := range events(t, stateDir) {
		switch d := e.Data.(type) {
		case *contract.IntentProposed:
			inputs = append(inputs, string(d.Input))
		case *contract.ToolPermission:
			ps = append(ps, d)
		}
	}
	if len(ps) != len(readOnlyCommands)+len(askingCommands) {
		t.Fatalf("%d permission events for %d commands", len(ps), len(readOnlyCommands)+len(askingCommands))
	}
	for i, p := range ps {
		if i < len(readOnlyCommands) {
			if p.Decision != contract.Allow || p.By != "mode" || !strings.Contains(p.Reason, "a read-only command") {
				t.Errorf("%s: %s by %s (%s), want allow by mode as a read-only command", inputs[i], p.Decision, p.By, p.Reason)
			}
			continue
		}
		if p.Decision != contract.Deny || p.By != "headless" || strings.Contains(p.Reason, "read-only") {
			t.Errorf("%s: %s by %s (%s), want a question, denied headless", inputs[i], p.Decision, p.By, p.Reason)
		}
	}
	for _, name := range []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "d", "c", "notes.txt", "sorted", "t"} {
		if _, err := os.Lstat(filepath.Join(work, name)); err == nil {
			t.Errorf("%s exists: a command that asks ran", name)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(work, "README.md")); string(after) != string(before) {
		t.Errorf("README.md changed: %q", after)
	}
}
