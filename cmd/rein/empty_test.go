package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Ctrl-C at the first idle prompt leaves no session behind: a session is
// on disk once it records an event, and an interactive rein that was only
// waiting for its first line recorded none.
func TestInterruptAtTheFirstPromptLeavesNoSession(t *testing.T) {
	script := writeScript(t, `{"turns":[{"steps":[{"finish":"stop"}]}]}`)
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "--provider", "scripted", "--script", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The banner names the session; then the prompt waits for a line.
	if line, err := bufio.NewReader(stderr).ReadString('\n'); err != nil || !strings.Contains(line, "session ses_") {
		t.Fatalf("banner %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if dirs, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "*")); len(dirs) != 0 {
		t.Errorf("Ctrl-C at the first prompt left %v", dirs)
	}
}

// rein sessions never shows a row without a readable log, and says how
// many directories it skipped and why.
func TestSessionsSaysWhatItSkipped(t *testing.T) {
	c, id, _ := recorded(t)
	root := filepath.Join(c.state, "rein", "sessions")
	for name, log := range map[string]string{"ses_01EMPTY": "", "ses_01GARBAGE": "\x00\x01 not json\n"} {
		os.Mkdir(filepath.Join(root, name), 0o700)
		os.WriteFile(filepath.Join(root, name, "events.jsonl"), []byte(log), 0o600)
	}
	os.Mkdir(filepath.Join(root, "ses_01NOLOG"), 0o700)
	r := reinIn(t, c.ws, []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg}, "sessions", "--all")
	if r.code != 0 {
		t.Fatalf("rein sessions --all: exit %d\n%s", r.code, r.stderr)
	}
	rows := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(rows) != 2 || !strings.HasPrefix(rows[1], id) {
		t.Errorf("rows:\n%s\nwant the header and %s only", r.stdout, id)
	}
	for _, want := range []string{"skipped 3 session directories without a readable log", "ses_01EMPTY/events.jsonl is empty",
		"ses_01GARBAGE/events.jsonl holds no event that can be read", "ses_01NOLOG has no events.jsonl"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\x00") {
		t.Errorf("stderr holds raw control bytes: %q", r.stderr)
	}
}
