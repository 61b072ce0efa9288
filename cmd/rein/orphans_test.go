package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"
	"github.com/rein-agent/rein/internal/tether/tethertest"
)

// The kill -9 test of the issue: rein is killed with SIGKILL while a
// command of its run runs (sandboxed, and with --sandbox off), or while a
// hook runs beside an MCP server that started a child of its own. After
// it no process of the run is left, none of what carries the run's
// marker: the helper (rein sandbox-exec or tether-exec), the shell, the
// command, the hook, the server and its child. The session's temporary
// directory, which the killed rein could not remove, is removed by the
// next start.
func TestKill9LeavesNothingBehind(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has the helpers that kill what rein started, and /proc to look for it")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		// extensions runs a hook and an MCP server, and kills rein while
		// the hook runs.
		extensions bool
		sandboxed  bool
	}{
		{name: "sandboxed command", sandboxed: true},
		{name: "command without a sandbox", args: []string{"--sandbox", "off"}},
		{name: "hook and MCP server", args: []string{"--sandbox", "off"}, extensions: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sandboxed {
				sandboxtest.Need(t)
			}
			marker := tethertest.Marker()
			ws, state, cfg, tmp := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
			// Processes whose argument is the marker itself that must run
			// before the kill: the command's sleep; or the hook's sleep,
			// the server (and its helper) and the server's child.
			running := 1
			if tc.extensions {
				running = 4
				writeTestFile(t, filepath.Join(cfg, "rein", "config.toml"), `[[hooks.PreToolUse]]
matcher = "Bash"
command = "sleep `+marker+`"
timeout = 600

[mcp_servers.srv]
command = `+quote(self)+`
args = [`+quote(marker)+`]
env = { `+testServerEnv+` = "1", REIN_TEST_MCP_CHILD = `+quote(marker)+` }
`)
			}
			script := writeScript(t, `{"turns":[`+bashTurn("sleep "+marker)+`,{"steps":[{"text":"done"},{"finish":"stop"}]}]}`)
			env := append(cleanEnv(), "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+cfg, "HOME="+t.TempDir(), "TMPDIR="+tmp, "NO_COLOR=1")
			args := append(append([]string{"exec", "--provider", "scripted", "--script", script, "--permission-mode", "yolo"}, tc.args...), "sleep")
			cmd := exec.Command(rein, args...)
			cmd.Dir, cmd.Env = ws, env
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			hang := time.After(30 * time.Second) // a hang, not a timing assertion
			for len(tethertest.Processes(marker)) < running {
				select {
				case err := <-done:
					t.Fatalf("rein ended before the kill: %v\n%s", err, stderr.String())
				case <-hang:
					cmd.Process.Kill()
					t.Fatalf("only %v run the marker %s after 30 s\n%s", tethertest.Processes(marker), marker, stderr.String())
				case <-time.After(5 * time.Millisecond):
				}
			}
			before := commandLines(tethertest.Mentioning(marker))
			helper := "tether-exec"
			if tc.sandboxed {
				helper = "sandbox-exec"
			}
			if !strings.Contains(strings.Join(before, "\n"), "rein "+helper+" ") {
				t.Errorf("no %s helper among the run's processes:\n%s", helper, strings.Join(before, "\n"))
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("rein ended with %v before the kill landed", err)
			}

			if left := tethertest.WaitGone(marker, 10*time.Second); len(left) > 0 {
				t.Errorf("after kill -9 of rein, processes of its run live on:\n%s\n(before the kill:\n%s)",
					strings.Join(commandLines(left), "\n"), strings.Join(before, "\n"))
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}

			stale, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+"*"))
			if len(stale) != 1 {
				t.Fatalf("temporary directories after the kill: %v, want the session's", stale)
			}
			next := exec.Command(rein, "exec", "--provider", "scripted", "--script", writeScript(t, `{"turns":[{"steps":[{"text":"hi"},{"finish":"stop"}]}]}`), "hi")
			next.Dir, next.Env = ws, env
			if out, err := next.CombinedOutput(); err != nil {
				t.Fatalf("the next start: %v\n%s", err, out)
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) > 0 {
				t.Errorf("after the next start, the temporary directory holds %v", left)
			}
		})
	}
}

// commandLines returns the command lines of processes pids, for messages.
func commandLines(pids []int) []string {
	var out []string
	for _, pid := range pids {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		out = append(out, strconv.Itoa(pid)+": "+strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "))
	}
	return out
}
