package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"
)

// closedStdout runs rein in dir with stdout a pipe whose reader is already
// gone, as `rein log ID | head -1` leaves it once head has read its line:
// every write to stdout fails with EPIPE.
func closedStdout(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	cmd := exec.Command(rein, args...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), env...)
	var errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &errw
	err = cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stderr: errw.String()}
}

// A closed stdout ends a command quietly, as `git log | head` does: exit
// 0 and nothing on stderr, never a word about the log being damaged.
func TestClosedPipeEndsQuietly(t *testing.T) {
	c, id, _ := recorded(t)
	env := []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg}
	for _, args := range [][]string{
		{"log", id},
		{"log", id, "--json"},
		{"replay", id},
		{"replay", id, "--json"},
		{"why", "c.txt"},
		{"sessions"},
		{"sessions", "--json"},
		{"version"},
	} {
		r := closedStdout(t, c.ws, env, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("rein %v into a closed pipe: exit %d, stderr %q; want 0 and nothing", args, r.code, r.stderr)
		}
	}
	// The log is whole: nothing was cut or written by the commands above.
	if r := reinIn(t, c.ws, env, "log", id); r.code != 0 || r.stderr != "" {
		t.Errorf("rein log afterwards: exit %d, stderr %q", r.code, r.stderr)
	}
}
