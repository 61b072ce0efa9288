package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Issue 28, item 6: a model that proposes rm -rf . in yolo mode, with the
// sandbox off and an allow rule for rm, is refused: the policy denies it
// by "policy" with a reason that says it cannot be undone, the model
// reads that reason in a failed observation, and no file is gone.
func TestYoloRefusesToSweepTheWorkspace(t *testing.T) {
	refused := `{"expect":[{"ok":false,"contains":["rein refuses","deletes the workspace","cannot be undone"]}],"steps":[{"text":"I will not."},{"finish":"stop"}]}`
	script := writeScript(t, `{"turns":[`+bashTurn(`r\m -rf -- "$PWD"`)+`,`+refused+`]}`)
	ws, state, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	files := []string{"main.go", "src/lib.go", ".git/HEAD"}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + cfg}
	r := reinIn(t, ws, env, "exec", "--permission-mode", "yolo", "--sandbox", "off", "--allow", "bash(rm:*)",
		"--provider", "scripted", "--script", script, "clean up")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\nstderr:\n%s", r.code, tail(r.stderr))
	}
	log := sessionLog(t, result{state: state})
	if lineOf(log, "tool.permission", `"decision":"deny"`, `"by":"policy"`, "cannot be undone") == nil {
		t.Fatalf("no refusal by the policy in the log:\n%s", tail(string(log)))
	}
	if lineOf(log, "tool.invocation.started") != nil {
		t.Errorf("the command ran:\n%s", tail(string(log)))
	}
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
