package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/tether"
)

const (
	// maxOutput bounds what is kept of a hook's stdout, and of its
	// stderr; the rest is read and dropped, so the hook never blocks.
	maxOutput = 1 << 20
	// killGrace is how long the pipes may stay open after the hook's
	// group was killed (a process that left the group may hold them).
	killGrace = time.Second
)

// hookEnv is the environment every hook runs with.
func hookEnv(o *Options, dir string) []string {
	environ := o.Environ
	if environ == nil {
		environ = os.Environ()
	}
	var env []string
	if o.Strip != nil {
		env = o.Strip(environ, o.Passthrough, o.Secrets)
	} else {
		env = basicEnv(environ)
	}
	return append(env, "CLAUDE_PROJECT_DIR="+dir, "REIN_PROJECT_DIR="+dir, "REIN_SESSION_ID="+o.Session)
}

// basicEnv keeps of environ only the variables a shell needs, for a
// runner given no Strip.
func basicEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ":
			out = append(out, kv)
		}
	}
	return out
}

// result is how one run of a hook command ended.
type result struct {
	exit     contract.Exit
	code     int // -1 when killed or not started
	stdout   string
	stderr   string
	duration time.Duration
	// err says why it did not end by itself: it could not start, it
	// timed out, the run was cancelled.
	err error
}

// run runs h's command with input on its stdin, in its own session and
// process group, killed as a group at its timeout or when ctx is done.
func (r *Runner) run(ctx context.Context, h Hook, input []byte) result {
	start := time.Now()
	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "sh", "-c", h.Command)
	cmd.Dir = r.dir
	cmd.Env = r.env
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr boundedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = killGrace
	res := result{code: -1}
	// The hook and its group die with rein, kill -9 included.
	err := tether.Wrap(cmd)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		res.exit, res.err, res.duration = contract.ExitError, fmt.Errorf("it could not start: %w", err), time.Since(start)
		return res
	}
	werr := cmd.Wait()
	// What the hook left behind (`cmd &`) goes with it. A failure means
	// the group is empty already.
	_ = killGroup(cmd.Process.Pid)
	res.duration = time.Since(start)
	res.stdout, res.stderr = stdout.String(), stderr.String()
	switch {
	case ctx.Err() != nil:
		res.exit, res.err = contract.ExitCancelled, errors.New("the run was cancelled")
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		res.exit, res.err = contract.ExitTimeout, fmt.Errorf("it did not end within its timeout of %s and was killed", h.Timeout)
	case cmd.ProcessState == nil:
		res.exit, res.err = contract.ExitError, fmt.Errorf("wait: %w", werr)
	default:
		res.code = cmd.ProcessState.ExitCode()
		res.exit = contract.ExitOK
		if res.code != 0 {
			res.exit = contract.ExitError
		}
	}
	return res
}

// killGroup kills every process of the group pgid; a group that no longer
// exists is not an error.
func killGroup(pgid int) error {
	err := syscall.Kill(-pgid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// boundedBuffer keeps the first maxOutput bytes written to it and drops
// the rest, reporting every write as whole. What it drops is not reported:
// the answer is read from the part kept, and the texts an event holds are
// cut shorter still, with a note of the length, by Runner.text.
type boundedBuffer struct {
	buf bytes.Buffer
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := maxOutput - b.buf.Len(); room < len(p) {
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *boundedBuffer) String() string { return b.buf.String() }
