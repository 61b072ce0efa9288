package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// crashScript is a scripted session of four tool calls, each leaving a
// mark in effects.txt when it runs; the second one runs long enough to be
// killed inside. The resumed model picks its turn by the conversation, so
// it goes on from wherever the log stops.
const crashScript = `{"model":"crash","chunk_delay_ms":1,"turns":[
 {"steps":[{"text":"Step a."},{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"echo a >> effects.txt"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Step b, "},{"text":"the long one."},{"tool":{"index":0,"id":"c2","name":"bash","input":{"command":"echo b >> effects.txt; touch inside-b; sleep 0.15; echo b-done >> effects.txt"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Step c."},{"tool":{"index":0,"id":"c3","name":"write_file","input":{"path":"c.txt","content":"c\n"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Step d."},{"tool":{"index":0,"id":"c4","name":"bash","input":{"command":"echo d >> effects.txt"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"All four steps are done."},{"finish":"stop"}]}]}`

// crashRun is one run of the crash test's session: its directories and
// how to run rein there.
type crashRun struct {
	t                      *testing.T
	ws, state, script, cfg string
}

func newCrashRun(t *testing.T) *crashRun {
	return &crashRun{t: t, ws: t.TempDir(), state: t.TempDir(), cfg: t.TempDir(), script: writeScript(t, crashScript)}
}

func (c *crashRun) command(args ...string) *exec.Cmd {
	args = append(args, "--provider", "scripted", "--script", c.script, "--permission-mode", "yolo")
	cmd := exec.Command(rein, args...)
	cmd.Dir = c.ws
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+c.state, "XDG_CONFIG_HOME="+c.cfg, "NO_COLOR=1")
	return cmd
}

// logPath returns the session's log, once its directory exists.
func (c *crashRun) logPath() string {
	logs, _ := filepath.Glob(filepath.Join(c.state, "rein", "sessions", "ses_*", "events.jsonl"))
	if len(logs) == 1 {
		return logs[0]
	}
	return ""
}

// lines counts the complete lines of the log.
func (c *crashRun) lines() int {
	p := c.logPath()
	if p == "" {
		return 0
	}
	b, _ := os.ReadFile(p)
	return bytes.Count(b, []byte("\n"))
}

// killWhen starts rein exec and kills it with SIGKILL as soon as ready
// says so. It returns the complete lines the log held when rein died, and
// whether the kill came before rein ended by itself. The log is read once
// rein is dead: between a read before the signal and the signal landing,
// rein may append (a tool's completion, say), and what resume must keep
// and finish is the log as the kill left it.
func (c *crashRun) killWhen(ready func() bool) (durable []byte, killed bool) {
	cmd := c.command("exec", "do the four steps")
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	var exited atomic.Bool
	done := make(chan error, 1)
	go func() { done <- cmd.Wait(); exited.Store(true) }()
	deadline := time.Now().Add(30 * time.Second) // a hang, not a timing assertion
	for !exited.Load() && time.Now().Before(deadline) {
		if ready() {
			killed = cmd.Process.Signal(syscall.SIGKILL) == nil
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	err := <-done
	if p := c.logPath(); p != "" {
		b, _ := os.ReadFile(p)
		durable = b[:bytes.LastIndexByte(b, '\n')+1]
	}
	if killed {
		if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			killed = false // it ended before the signal landed
		}
	}
	return durable, killed
}

// The crash test of the issue: rein is killed with SIGKILL at many points
// of a scripted session (several inside a tool), and after each kill the
// log opens, rein resume finishes the run, no tool ran twice, and every
// line that was in the log before the kill is still there.
func TestKilledAnywhereResumesWithoutRunningAToolTwice(t *testing.T) {
	ref := newCrashRun(t)
	if out, err := ref.command("exec", "do the four steps").CombinedOutput(); err != nil {
		t.Fatalf("uncut run: %v\n%s", err, out)
	}
	total := ref.lines()
	type point struct {
		name  string
		ready func(c *crashRun) func() bool
	}
	var points []point
	for k := 1; k < total; k++ {
		points = append(points, point{fmt.Sprintf("at line %d", k), func(c *crashRun) func() bool {
			return func() bool { return c.lines() >= k }
		}})
	}
	for d := 0; d < 12; d++ {
		points = append(points, point{fmt.Sprintf("inside tool b +%dms", d*10), func(c *crashRun) func() bool {
			var since time.Time
			return func() bool {
				if since.IsZero() {
					if _, err := os.Stat(filepath.Join(c.ws, "inside-b")); err == nil {
						since = time.Now()
					}
					return false
				}
				return time.Since(since) >= time.Duration(d)*10*time.Millisecond
			}
		}})
	}
	for d := 0; d < 8; d++ {
		points = append(points, point{fmt.Sprintf("after %dms", d*7), func(c *crashRun) func() bool {
			start := time.Now()
			return func() bool { return time.Since(start) >= time.Duration(d)*7*time.Millisecond }
		}})
	}
	if len(points) < 50 {
		t.Fatalf("only %d kill points; the uncut log has %d lines", len(points), total)
	}
	var kills, inside atomic.Int32
	for _, p := range points {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			c := newCrashRun(t)
			durable, killed := c.killWhen(p.ready(c))
			if !killed {
				t.Skip("rein ended before the kill point") // counted below
			}
			kills.Add(1)
			time.Sleep(200 * time.Millisecond) // let an orphaned tool command finish its sleep
			if c.resumeAndCheck(durable) {
				inside.Add(1)
			}
		})
	}
	t.Cleanup(func() {
		t.Logf("%d kill points, %d kills mid-run, %d of them inside a tool invocation", len(points), kills.Load(), inside.Load())
		if n := kills.Load(); n < 50 {
			t.Errorf("only %d of %d kill points killed rein mid-run; want 50 or more", n, len(points))
		}
		if n := inside.Load(); n < 5 {
			t.Errorf("only %d kills landed inside a tool invocation; want several", n)
		}
	})
}

// resumeAndCheck resumes the killed session and checks what the crash
// test promises. It reports whether the kill came inside a tool
// invocation (one was durably started and not completed).
func (c *crashRun) resumeAndCheck(durable []byte) (inside bool) {
	t := c.t
	logPath := c.logPath()
	if logPath == "" {
		if len(durable) > 0 {
			t.Fatal("the session directory is gone")
		}
		return false // killed before the session existed: nothing to resume
	}
	cmd := c.command("resume", filepath.Base(filepath.Dir(logPath)))
	out, err := cmd.CombinedOutput()
	if len(durable) == 0 {
		if err == nil || !strings.Contains(string(out), "holds no event") {
			t.Errorf("resume of an empty log: %v\n%s", err, out)
		}
		return false
	}
	if err != nil {
		t.Fatalf("rein resume: %v\n%s", err, out)
	}
	after, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, durable) {
		t.Errorf("lines in the log before the kill are gone after resume:\nbefore:\n%s\nafter:\n%s", durable, after)
	}
	if !bytes.Contains(after, []byte(`"outcome":"completed"`)) {
		t.Errorf("the resumed run did not complete:\n%s", out)
	}
	effects, _ := os.ReadFile(filepath.Join(c.ws, "effects.txt"))
	for _, mark := range []string{"a", "b", "d"} {
		if n := strings.Count("\n"+string(effects), "\n"+mark+"\n"); n > 1 {
			t.Errorf("tool %s ran %d times:\n%s\nrein resume said:\n%s", mark, n, effects, out)
		}
	}
	if n := bytes.Count(after, []byte(`"type":"tool.invocation.started"`)); n > 4 {
		t.Errorf("%d invocations started for 4 intents", n)
	}
	started := bytes.Count(durable, []byte(`"type":"tool.invocation.started"`))
	completed := bytes.Count(durable, []byte(`"type":"tool.invocation.completed"`))
	if started > completed && !bytes.Contains(after[len(durable):], []byte(`"exit":"interrupted"`)) {
		t.Errorf("the log stopped inside a tool invocation, and the resume did not record it interrupted:\n%s", after[len(durable):])
	}
	return started > completed
}
