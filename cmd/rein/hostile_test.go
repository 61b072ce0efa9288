package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 12, item 6: a hostile model proposes about 300 KB of nested
// parentheses, which once overflowed the parser's stack, killed rein, and
// killed rein resume again. Headless exec denies it, with the reason, and
// goes on; rein resume --last opens the session that holds it, and a
// model proposing it again is denied again.
func TestDeeplyNestedCommandIsDeniedAndTheSessionResumes(t *testing.T) {
	huge := strings.Repeat("(", 150<<10) + "ls" + strings.Repeat(")", 150<<10)
	denied := `{"expect":[{"ok":false,"contains":["Blocked","longer than 65536 bytes"]}],"steps":[{"text":"I may not."},{"finish":"stop"}]}`
	first := writeScript(t, `{"turns":[`+bashTurn(huge)+`,`+denied+`]}`)
	// The scripted model counts the conversation's turns: the resumed
	// session's two come first.
	second := writeScript(t, `{"turns":[`+bashTurn(huge)+`,`+denied+`,`+bashTurn(huge)+`,`+denied+`]}`)
	ws, state, cfg := t.TempDir(), t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + cfg}

	r := reinIn(t, ws, env, "exec", "--permission-mode", "default", "--provider", "scripted", "--script", first, "clean up")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\nstderr:\n%s", r.code, tail(r.stderr))
	}
	log := sessionLog(t, result{state: state})
	if lineOf(log, "tool.permission", `"decision":"deny"`, `"by":"headless"`, "longer than 65536 bytes") == nil {
		t.Fatalf("no headless denial naming the limit in the log:\n%s", tail(string(log)))
	}

	r = reinIn(t, ws, env, "resume", "--last", "--permission-mode", "default", "--provider", "scripted", "--script", second, "go on")
	if r.code != 0 {
		t.Fatalf("rein resume --last: exit %d\nstderr:\n%s", r.code, tail(r.stderr))
	}
	log = sessionLog(t, result{state: state})
	if n := strings.Count(string(log), `"type":"run.finished"`); n != 2 || lineOf(log, "session.resumed") == nil {
		t.Errorf("%d runs finished after the resume, want 2 and a session.resumed:\n%s", n, tail(string(log)))
	}
	if strings.Count(string(log), `"by":"headless"`) != 2 {
		t.Errorf("the command proposed again was not denied again:\n%s", tail(string(log)))
	}
	if entries, _ := os.ReadDir(ws); len(entries) != 0 {
		t.Errorf("the workspace changed: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(ws, ".rein")); err == nil {
		t.Errorf("a rule was saved")
	}
}

// tail returns the end of a long text, for messages: the log holds the
// 300 KB command.
func tail(s string) string {
	const keep = 4000
	if len(s) > keep {
		return "…" + s[len(s)-keep:]
	}
	return s
}
