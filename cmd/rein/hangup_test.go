package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// Closing the terminal (SIGHUP) while a command runs cancels the run as
// Ctrl-C does: rein kills the command's process group, records the
// invocation and the run as cancelled, and exits 129; the command never
// gets to its effect.
func TestHangupCancelsARunningCommand(t *testing.T) {
	c := &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"sleep 3; touch effect"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Done."},{"finish":"stop"}]}]}`)}
	cmd := c.command("exec", "sleep, then touch")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	started := func() bool {
		b, _ := os.ReadFile(c.logPath())
		return strings.Contains(string(b), `"`+contract.TypeInvocationStarted+`"`)
	}
	hang := time.After(30 * time.Second) // a hang, not a timing assertion
	for !started() {
		select {
		case err := <-done:
			t.Fatalf("rein ended before the command started: %v", err)
		case <-hang:
			cmd.Process.Kill()
			t.Fatal("the command never started")
		case <-time.After(5 * time.Millisecond):
		}
	}
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 129 {
			t.Errorf("exit after SIGHUP: %v, want 129", err)
		}
	case <-hang:
		cmd.Process.Kill()
		t.Fatal("rein did not end after SIGHUP")
	}
	// Past the command's sleep: a command that outlived rein would have
	// left its mark by now.
	time.Sleep(time.Until(sent.Add(5 * time.Second)))
	if _, err := os.Stat(filepath.Join(c.ws, "effect")); err == nil {
		t.Error("the command outlived rein: it touched its file after SIGHUP")
	}
	var completed *contract.InvocationCompleted
	var finished *contract.RunFinished
	b, err := os.ReadFile(c.logPath())
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		var env contract.Envelope
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		switch e := env.Data.(type) {
		case *contract.InvocationCompleted:
			completed = e
		case *contract.RunFinished:
			finished = e
		}
	}
	if completed == nil || completed.Exit != contract.ExitCancelled && completed.Exit != contract.ExitInterrupted {
		t.Errorf("tool.invocation.completed = %+v, want cancelled or interrupted\nlog:\n%s", completed, b)
	}
	if finished == nil || finished.Outcome != contract.OutcomeCancelled {
		t.Errorf("run.finished = %+v, want cancelled\nlog:\n%s", finished, b)
	}
}
