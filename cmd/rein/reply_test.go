package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// In the line mode a person answers a question with a no and what to do
// instead, on one line ("n, use ..."): the denial is recorded with their
// words (tool.permission's message), the model is told them (its next
// turn expects them in the result), and rein replay and rein why show
// them.
func TestLineModeNoSaysWhatToDoInstead(t *testing.T) {
	const calc = "package calc\n\nfunc Add(a, b int) int { return a - b }\n"
	const instead = "use the test helper instead"
	script := writeScript(t, `{"turns":[
		{"steps":[{"tool":{"index":0,"id":"c0","name":"read_file","input":{"path":"calc.go"}}},{"finish":"tool_use"}]},
		{"steps":[{"tool":{"index":0,"id":"c1","name":"edit_file","input":{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}}},{"finish":"tool_use"}]},
		{"expect":[{"tool":"edit_file","ok":false,"contains":["The user said: `+instead+`"]}],"steps":[{"text":"I will use the helper."},{"finish":"stop"}]}]}`)
	work, stateDir, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "calc.go"), []byte(calc), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+cfg, "HOME="+t.TempDir(), "NO_COLOR=1")
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(rein, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = work, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rein %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := run("n, "+instead+"\n", "--plain", "--permission-mode", "default", "--provider", "scripted", "--script", script, "fix Add")
	for _, want := range []string{
		"? rein wants to use edit_file on: calc.go",
		"(to say no and tell the model what to do instead, type it after the n: n, use the test helper)",
		"✗ deny by user: The user said no, and said what to do instead.",
		"    said: " + instead,
		"I will use the helper.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the session's output lacks %q:\n%s", want, out)
		}
	}
	var session string
	var denial *contract.ToolPermission
	for _, e := range events(t, stateDir) {
		session = e.Session
		if p, ok := e.Data.(*contract.ToolPermission); ok && p.By == "user" {
			denial = p
		}
	}
	if denial == nil || denial.Decision != contract.Deny || denial.Message != instead {
		t.Fatalf("tool.permission by user = %+v; want a deny with the message %q", denial, instead)
	}
	if b, err := os.ReadFile(filepath.Join(work, "calc.go")); err != nil || string(b) != calc {
		t.Errorf("calc.go = %q, %v; want it unchanged", b, err)
	}
	if replay := run("", "replay", session); !strings.Contains(replay, "✗ deny by user") || !strings.Contains(replay, "    said: "+instead) {
		t.Errorf("rein replay does not show what was said:\n%s", replay)
	}
	if why := run("", "why", "calc.go"); !strings.Contains(why, "    said: "+instead) {
		t.Errorf("rein why does not show what was said:\n%s", why)
	}
}
