//go:build unix

package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// hangBound bounds every wait for a call to return. It is not a timing
// assertion: the calls take well under a second (three for the SIGTERM
// grace), and the bound only turns a hang into a failure.
const hangBound = 30 * time.Second

func newWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// bashInputJSON encodes a bash input.
func bashInputJSON(t testing.TB, command string, timeoutMS int) json.RawMessage {
	t.Helper()
	in := map[string]any{"command": command, "description": "a test"}
	if timeoutMS > 0 {
		in["timeout_ms"] = timeoutMS
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outcome is how a call ended.
type outcome struct {
	res registry.Result
	err error
}

// start runs the tool with input in a goroutine writing to out, and
// returns a function that waits for the end, failing the test if the call
// hangs past hangBound.
func start(t *testing.T, ctx context.Context, tool registry.Tool, input json.RawMessage, out *syncWriter) func() outcome {
	t.Helper()
	done := make(chan outcome, 1)
	go func() {
		res, err := tool.Execute(ctx, &registry.Call{IntentID: "int_1", InvocationID: "inv_1", Input: input, Output: out})
		done <- outcome{res, err}
	}()
	return func() outcome {
		t.Helper()
		select {
		case o := <-done:
			return o
		case <-time.After(hangBound):
			t.Fatalf("the call did not return within %s (output so far: %q)", hangBound, out.String())
			return outcome{}
		}
	}
}

// run runs command to its end and returns its output.
func run(t *testing.T, tool registry.Tool, command string, timeoutMS int) (string, outcome) {
	t.Helper()
	out := &syncWriter{}
	o := start(t, t.Context(), tool, bashInputJSON(t, command, timeoutMS), out)()
	return out.String(), o
}

// syncWriter is an output the test may read while the tool writes. It
// signals the first newline written on firstLine.
type syncWriter struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	firstLine chan struct{}
	signalled bool
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.firstLine != nil && !w.signalled && bytes.IndexByte(w.buf.Bytes(), '\n') >= 0 {
		w.signalled = true
		close(w.firstLine)
	}
	return len(p), nil
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// echoGroup is a command that prints the shell's process group, the one
// the bash tool made for the command (its leader is the tether's helper,
// or the sandbox's, where the shell is not the leader).
const echoGroup = "echo $(ps -o pgid= -p $$)"

// pgidOf reads the process group the command printed as its first line
// (with echoGroup).
func pgidOf(t *testing.T, output string) int {
	t.Helper()
	first, _, _ := strings.Cut(output, "\n")
	pgid, err := strconv.Atoi(first)
	if err != nil || pgid <= 1 {
		t.Fatalf("the first line of the output is not a pid: %q", output)
	}
	return pgid
}

// waitGroupGone fails the test unless no live process is left in group
// pgid. SIGKILL is delivered asynchronously, so it polls, up to hangBound
// (a bound on a hang, not a timing assertion).
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(hangBound)
	for groupAlive(t, pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has live processes after the call returned", pgid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupAlive says whether a process of group pgid is alive. On Linux it
// reads /proc and ignores zombies, which only wait for a reaper (PID 1 in
// a container may never reap them); elsewhere it asks kill(-pgid, 0).
func groupAlive(t *testing.T, pgid int) bool {
	t.Helper()
	if runtime.GOOS != "linux" {
		return !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the process ended meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) >= 3 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" && fields[0] != "X" {
			return true
		}
	}
	return false
}

func TestBashExitCode(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), nil)
	tests := []struct {
		name    string
		command string
		want    int
	}{
		{"success", "true", 0},
		{"failure", "exit 1", 1},
		{"chosen code", "exit 42", 42},
		{"command not found", "no-such-command-for-rein-tests", 127},
		{"killed by SIGKILL", "kill -KILL $$", 128 + int(syscall.SIGKILL)},
		{"killed by SIGTERM", "kill -TERM $$", 128 + int(syscall.SIGTERM)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, o := run(t, tool, tt.command, 0)
			if o.err != nil {
				t.Fatalf("Execute() error = %v, want nil (a non-zero exit is not an error)", o.err)
			}
			if o.res.ExitCode != tt.want {
				t.Errorf("ExitCode = %d, want %d", o.res.ExitCode, tt.want)
			}
			if want := fmt.Sprintf("exit code: %d\n", tt.want); !strings.HasSuffix(out, want) {
				t.Errorf("output = %q, want it to end with %q", out, want)
			}
		})
	}
}

func TestBashOutput(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), nil)
	tests := []struct {
		name    string
		command string
		want    string
	}{
		{"stdout and stderr interleaved", "echo out1; echo err1 >&2; echo out2; echo err2 >&2; exit 3",
			"out1\nerr1\nout2\nerr2\nexit code: 3\n"},
		{"no output", "true", "exit code: 0\n"},
		{"no final newline", "printf abc", "abc\nexit code: 0\n"},
		{"stdin is empty", "cat; echo done", "done\nexit code: 0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, o := run(t, tool, tt.command, 0)
			if o.err != nil {
				t.Fatalf("Execute() error = %v", o.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("output mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestBashRunsInWorkspaceRoot(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t)
	got, o := run(t, Bash(ws, nil), "pwd -P", 0)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatalf("Execute() = %+v, %v; output %q", o.res, o.err, got)
	}
	if want := ws.Root() + "\nexit code: 0\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

func TestBashOwnSession(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	// Fields 5 to 7 of /proc/PID/stat are the group, the session and the
	// terminal: the command's group leads a session of its own (its
	// leader is the tether's helper, the shell's parent), with no
	// terminal.
	got, o := run(t, Bash(newWorkspace(t), nil), `sed 's/.*) //' /proc/$$/stat | cut -d' ' -f3-5`, 0)
	if o.err != nil {
		t.Fatalf("Execute() error = %v", o.err)
	}
	var pgid, sid, tty int
	if _, err := fmt.Sscanf(got, "%d %d %d\n", &pgid, &sid, &tty); err != nil {
		t.Fatalf("output %q: %v", got, err)
	}
	own, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if pgid != sid || sid == own || tty != 0 {
		t.Errorf("group %d, session %d, terminal %d; want a session of its own (not %d) led by the group, no terminal", pgid, sid, tty, own)
	}
}

func TestBashStartFailure(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "gone")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	_, o := run(t, Bash(ws, nil), "true", 0)
	if o.err == nil || !strings.Contains(o.err.Error(), dir) {
		t.Errorf("Execute() error = %v, want a start error naming %s", o.err, dir)
	}
}

func TestBashBadInput(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), nil)
	_, err := tool.Execute(t.Context(), &registry.Call{Input: json.RawMessage(`{"command": 3}`), Output: &syncWriter{}})
	if err == nil {
		t.Error("Execute() error = nil, want a decode error")
	}
}

// TestBashStopsGroup checks that a timeout or a cancel stops every process
// of the command's group, grandchildren included, however they hold on.
func TestBashStopsGroup(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), nil)
	sigterm, sigkill := 128+int(syscall.SIGTERM), 128+int(syscall.SIGKILL)
	tests := []struct {
		name     string
		command  string
		cancel   bool // cancel ctx after the first line instead of a timeout
		wantCode int
		wantErr  error
		wantLine string
	}{
		{"timeout, grandchild in a subshell", echoGroup + "; (sleep 1000 &); sleep 1000", false, sigterm,
			context.DeadlineExceeded, "killed: the command ran past its timeout of 300ms\n"},
		{"timeout, shell waiting for a background job", echoGroup + "; sleep 1000 & wait", false, sigterm,
			context.DeadlineExceeded, "killed: the command ran past its timeout of 300ms\n"},
		{"timeout, SIGTERM ignored", "trap '' TERM; " + echoGroup + "; sleep 1000 & sleep 1000", false, sigkill,
			context.DeadlineExceeded, "killed: the command ran past its timeout of 300ms\n"},
		{"cancel", echoGroup + "; (sleep 1000 &); sleep 1000 & wait", true, sigterm,
			context.Canceled, "killed: the command was cancelled\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			timeout := 300
			if tt.cancel {
				timeout = 0
			}
			out := &syncWriter{firstLine: make(chan struct{})}
			wait := start(t, ctx, tool, bashInputJSON(t, tt.command, timeout), out)
			if tt.cancel {
				select {
				case <-out.firstLine:
				case <-time.After(hangBound): // only a hang
					t.Fatal("the command printed nothing")
				}
				cancel()
			}
			o := wait()
			got := out.String()
			if !errors.Is(o.err, tt.wantErr) {
				t.Errorf("Execute() error = %v, want %v", o.err, tt.wantErr)
			}
			if o.res.ExitCode != tt.wantCode {
				t.Errorf("ExitCode = %d, want %d", o.res.ExitCode, tt.wantCode)
			}
			if want := fmt.Sprintf("%sexit code: %d\n", tt.wantLine, tt.wantCode); !strings.HasSuffix(got, want) {
				t.Errorf("output = %q, want it to end with %q", got, want)
			}
			waitGroupGone(t, pgidOf(t, got))
		})
	}
}

// TestBashKillsLeftovers checks that what a command leaves running in the
// background dies when it exits, and does not delay the call.
func TestBashKillsLeftovers(t *testing.T) {
	t.Parallel()
	got, o := run(t, Bash(newWorkspace(t), nil), echoGroup+"; sleep 1000 & (sleep 1000 &); echo started", 0)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatalf("Execute() = %+v, %v; output %q", o.res, o.err, got)
	}
	if !strings.HasSuffix(got, "started\nexit code: 0\n") {
		t.Errorf("output = %q, want it to end with started and exit code 0", got)
	}
	waitGroupGone(t, pgidOf(t, got))
}

// TestBashEscapedHolder checks that a process that left the group and keeps
// the output pipe open cannot keep the call alive.
func TestBashEscapedHolder(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid on PATH")
	}
	ws := newWorkspace(t)
	t.Cleanup(func() {
		// It escaped on purpose, so the test kills it; it may be gone.
		if b, err := os.ReadFile(filepath.Join(ws.Root(), "pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// The escaped shell writes its pid once it has left the group; the
	// command waits for that, so the escape is done before the call kills
	// the group.
	got, o := run(t, Bash(ws, nil),
		`setsid sh -c 'echo $$ > pid; exec sleep 1000' & until [ -s pid ]; do sleep 0.01; done; echo escaped`, 0)
	if o.err != nil || o.res.ExitCode != 0 || got != "escaped\nexit code: 0\n" {
		t.Fatalf("Execute() = %+v, %v; output %q", o.res, o.err, got)
	}
}

// countingWriter counts what it is given and keeps only its tail.
type countingWriter struct {
	n    int64
	tail []byte
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 64 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-64:]...)
	}
	return len(p), nil
}

// TestBashLargeOutput checks that output is streamed: a gigabyte goes
// through while the heap grows by a bounded amount. It does not run in
// parallel, so that no other test allocates meanwhile.
func TestBashLargeOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("streams a gigabyte")
	}
	tool := Bash(newWorkspace(t), nil)
	const size = 1_000_000_000
	out := &countingWriter{tail: make([]byte, 0, 128)}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := tool.Execute(t.Context(), &registry.Call{
		Input: bashInputJSON(t, fmt.Sprintf("head -c %d /dev/zero", size), 0), Output: out,
	})
	runtime.ReadMemStats(&after)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Execute() = %+v, %v", res, err)
	}
	const trailer = "\nexit code: 0\n" // the zeros end with no newline
	if want := int64(size + len(trailer)); out.n != want {
		t.Errorf("the output was %d bytes, want %d", out.n, want)
	}
	if !strings.HasSuffix(string(out.tail), "\x00"+trailer) {
		t.Errorf("the output ends with %q", out.tail)
	}
	const bound = 64 << 20
	d := after.TotalAlloc - before.TotalAlloc
	t.Logf("streaming %d bytes allocated %d bytes", size, d)
	if d > bound {
		t.Errorf("streaming %d bytes allocated %d bytes, want at most %d", size, d, bound)
	}
}

func TestBashEnvironment(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), &BashOptions{
		Environ: []string{
			"PATH=" + os.Getenv("PATH"),
			"ANTHROPIC_API_KEY=sk-ant-1", "GITHUB_TOKEN=ghp-1", "CI_JOB_TOKEN=kept-1",
			"ORDINARY=plain", "INNOCENT=url://user:hunter2@host", "PAGER=less",
		},
		Passthrough: []string{"CI_JOB_TOKEN"},
		Secrets:     []string{"hunter2"},
	})
	got, o := run(t, tool, "env", 0)
	if o.err != nil || o.res.ExitCode != 0 {
		t.Fatalf("Execute() = %+v, %v; output %q", o.res, o.err, got)
	}
	env := map[string]string{}
	for _, line := range strings.Split(got, "\n") {
		if name, value, ok := strings.Cut(line, "="); ok {
			env[name] = value
		}
	}
	for _, name := range []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "INNOCENT"} {
		if v, ok := env[name]; ok {
			t.Errorf("the command sees %s=%s, want it removed", name, v)
		}
	}
	for name, want := range map[string]string{
		"CI_JOB_TOKEN": "kept-1", "ORDINARY": "plain", "REIN": "1", "PAGER": "cat",
		"GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0",
	} {
		if env[name] != want {
			t.Errorf("the command sees %s=%q, want %q", name, env[name], want)
		}
	}
}

func TestBashDefinition(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), nil)
	if _, err := registry.New(tool); err != nil {
		t.Fatalf("registry.New() error = %v", err)
	}
	if tool.Name != "bash" || tool.Risk != registry.RiskExecute || tool.Concurrency != registry.Exclusive || tool.Description == "" {
		t.Errorf("Bash() = %s, risk %s, concurrency %s, description %d bytes", tool.Name, tool.Risk, tool.Concurrency, len(tool.Description))
	}
	var schema struct {
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.AdditionalProperties == nil || *schema.AdditionalProperties || len(schema.Properties) != 3 ||
		!cmp.Equal(schema.Required, []string{"command"}) {
		t.Errorf("the schema is %s", tool.InputSchema)
	}
}

func TestBashTimeout(t *testing.T) {
	t.Parallel()
	tool := Bash(newWorkspace(t), nil)
	tests := []struct {
		name  string
		input string
		want  time.Duration
	}{
		{"default", `{"command":"true"}`, 120 * time.Second},
		{"set", `{"command":"true","timeout_ms":300}`, 300 * time.Millisecond},
		{"the most", `{"command":"true","timeout_ms":600000}`, 600 * time.Second},
		{"past the most", `{"command":"true","timeout_ms":9000000000000000000}`, 600 * time.Second},
		{"zero", `{"command":"true","timeout_ms":0}`, 120 * time.Second},
		{"undecodable", `{"command":true}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tool.Timeout(json.RawMessage(tt.input)); got != tt.want {
				t.Errorf("Timeout(%s) = %s, want %s", tt.input, got, tt.want)
			}
		})
	}
}

// BenchmarkBashTrue measures what a call costs beyond the command: a
// shell started, waited for and its group killed, for `true`.
func BenchmarkBashTrue(b *testing.B) {
	ws, err := workspace.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tool := Bash(ws, nil)
	call := &registry.Call{Input: bashInputJSON(b, "true", 0), Output: &countingWriter{}}
	for b.Loop() {
		if res, err := tool.Execute(b.Context(), call); err != nil || res.ExitCode != 0 {
			b.Fatalf("Execute() = %+v, %v", res, err)
		}
	}
}
