//go:build linux

package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/workspace"
)

// sandboxed returns the bash tool of a fresh workspace (with a
// repository) whose commands run under the session's usual policy, the
// policy, and a directory outside the writable roots. It skips t where
// this machine cannot sandbox, saying why.
func sandboxed(t *testing.T) (registry.Tool, *sandbox.Policy, *workspace.Workspace, string) {
	t.Helper()
	sandboxtest.Need(t)
	ws := newWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws.Root(), ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Root(), ".git", "config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := &sandbox.Policy{
		Writable: []string{ws.Root()}, ReadOnly: sandbox.Protected([]string{ws.Root()}),
		DenyRead: sandbox.DefaultDenyRead(), TempDir: t.TempDir(),
	}
	return Bash(ws, &BashOptions{Sandbox: p}), p, ws, outside
}

// TestBashSandboxDenialIsExplained checks that a command the sandbox
// refused fails with its exit code, the explanation after its output and
// before the exit code, and the explanation on the Result; and that a
// command the sandbox allows shows nothing of it.
func TestBashSandboxDenialIsExplained(t *testing.T) {
	t.Parallel()
	tool, _, ws, outside := sandboxed(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name, command, want string
		code                int
	}{
		{"write outside", "echo x > " + outside + "/f", "the sandbox refused a write to " + outside + "/f: outside the writable roots", 1},
		{"git hook", "echo x > .git/hooks/pre-commit", "the sandbox refused a write to .git/hooks/pre-commit: .git/hooks is read-only inside the sandbox", 1},
		{"git config", "echo '[core] fsmonitor = x' >> .git/config", "the sandbox refused a write to .git/config: .git/config is read-only inside the sandbox", 1},
		{"rein config", "mkdir -p .rein && echo x > .rein/config.toml", "the sandbox refused a write to .rein/config.toml: .rein is read-only inside the sandbox", 1},
		{"a listener on the host's loopback", fmt.Sprintf("cat < /dev/tcp/127.0.0.1/%d", port),
			"the sandbox refused a network connection to a server outside it: the network is off", 1},
		{"allowed", "echo x > notes.txt && echo done", "", 0},
		{"failed for its own reasons", "echo nope; exit 3", "", 3},
	}
	// The group returns once its parallel cases have all run.
	t.Run("cases", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				got, o := run(t, tool, tt.command, 0)
				if o.err != nil || o.res.ExitCode != tt.code {
					t.Fatalf("Execute() = %+v, %v; output %q", o.res, o.err, got)
				}
				if tt.want == "" {
					if o.res.SandboxDenied != "" || strings.Contains(got, "the sandbox") {
						t.Errorf("Result.SandboxDenied = %q, output %q; want no word of the sandbox", o.res.SandboxDenied, got)
					}
					return
				}
				if !strings.HasPrefix(o.res.SandboxDenied, tt.want) {
					t.Errorf("Result.SandboxDenied = %q, want it to start with %q", o.res.SandboxDenied, tt.want)
				}
				if end := o.res.SandboxDenied + fmt.Sprintf("\nexit code: %d\n", tt.code); !strings.HasSuffix(got, end) {
					t.Errorf("output = %q, want it to end with %q", got, end)
				}
			})
		}
	})
	t.Run("effects", func(t *testing.T) {
		for _, f := range []string{".git/hooks/pre-commit", ".rein/config.toml"} {
			if _, err := os.Stat(filepath.Join(ws.Root(), f)); err == nil {
				t.Errorf("%s was written", f)
			}
		}
		if b, err := os.ReadFile(filepath.Join(ws.Root(), ".git", "config")); err != nil || string(b) != "[core]\n" {
			t.Errorf(".git/config holds %q (%v), want it unchanged", b, err)
		}
		if err := l.(*net.TCPListener).SetDeadline(time.Now()); err != nil {
			t.Fatal(err)
		}
		// A connection that was made is queued already: none must be.
		if c, err := l.Accept(); err == nil {
			c.Close()
			t.Error("the listener outside got a connection from the sandbox")
		}
	})
}

// TestBashSandboxStops checks that a timeout and a cancel still stop a
// sandboxed command: SIGTERM reaches the shell (its trap runs), and a
// shell that ignores it is killed after the grace.
func TestBashSandboxStops(t *testing.T) {
	t.Parallel()
	tool, _, _, _ := sandboxed(t)
	tests := []struct {
		name     string
		command  string
		cancel   bool
		wantCode int
		wantErr  error
		wantOut  string
	}{
		{"timeout, trap runs", "trap 'echo bye; exit 3' TERM; echo started; sleep 1000 & wait", false, 3,
			context.DeadlineExceeded, "bye\nkilled: the command ran past its timeout of 300ms\nexit code: 3\n"},
		{"timeout, SIGTERM ignored", "trap '' TERM; echo started; sleep 1000", false, 128 + int(syscall.SIGKILL),
			context.DeadlineExceeded, "killed: the command ran past its timeout of 300ms\nexit code: 137\n"},
		{"cancel", "echo started; (sleep 1000 &); sleep 1000", true, 128 + int(syscall.SIGTERM),
			context.Canceled, "killed: the command was cancelled\nexit code: 143\n"},
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
			if !errors.Is(o.err, tt.wantErr) || o.res.ExitCode != tt.wantCode || !strings.HasSuffix(got, tt.wantOut) {
				t.Errorf("Execute() = %+v, %v; output %q; want exit code %d, %v, output ending %q", o.res, o.err, got, tt.wantCode, tt.wantErr, tt.wantOut)
			}
		})
	}
}

// TestBashSandboxKillsEscapees checks that a setsid daemon that holds the
// output pipe neither outlives a sandboxed call nor keeps it waiting.
func TestBashSandboxKillsEscapees(t *testing.T) {
	t.Parallel()
	tool, _, _, _ := sandboxed(t)
	arg := fmt.Sprintf("1000.%d", os.Getpid())
	got, o := run(t, tool, "setsid sleep "+arg+" & echo left", 0)
	if o.err != nil || o.res.ExitCode != 0 || got != "left\nexit code: 0\n" {
		t.Fatalf("Execute() = %+v, %v; output %q", o.res, o.err, got)
	}
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cmdlines {
		if b, err := os.ReadFile(f); err == nil && string(b) == "sleep\x00"+arg+"\x00" {
			t.Errorf("the daemon lives on as %s", f)
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL) // it escaped: the test cleans up
			}
		}
	}
}

// TestBashRecordsItsSandbox checks the tool's Sandbox hook: the policy's
// record for a sandboxed tool, nothing for one without a sandbox.
func TestBashRecordsItsSandbox(t *testing.T) {
	ws := newWorkspace(t)
	p := &sandbox.Policy{Writable: []string{ws.Root()}, TempDir: "/tmp/t", Network: true}
	tool := Bash(ws, &BashOptions{Sandbox: p})
	if tool.Sandbox == nil {
		t.Fatal("the sandboxed bash tool has no Sandbox hook")
	}
	want := &contract.SandboxSpec{Mode: "workspace-write", Writable: []string{ws.Root(), "/tmp/t"}, Network: true}
	got := tool.Sandbox(json.RawMessage(`{"command":"true"}`))
	// The sockets under this machine's /tmp are hidden whatever the
	// policy says (see sandbox.Policy.Record): not this test's.
	got.DenyRead = slices.DeleteFunc(got.DenyRead, func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode()&fs.ModeSocket != 0
	})
	if len(got.DenyRead) == 0 {
		got.DenyRead = nil
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Sandbox() mismatch (-want +got):\n%s", d)
	}
	if Bash(ws, nil).Sandbox != nil {
		t.Error("the bash tool without a sandbox has a Sandbox hook")
	}
}

func TestOutputSample(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"small", []string{"a", "b"}, "ab\n"},
		{"head and tail", []string{strings.Repeat("h", sampleHead), "x", strings.Repeat("t", sampleTail)},
			strings.Repeat("h", sampleHead) + "\n" + strings.Repeat("t", sampleTail)},
		{"ring wraps", []string{strings.Repeat("h", sampleHead), strings.Repeat("a", sampleTail-1), "bc", "d"},
			strings.Repeat("h", sampleHead) + "\n" + strings.Repeat("a", sampleTail-3) + "bcd"},
		{"one big write", []string{strings.Repeat("h", sampleHead) + strings.Repeat("m", 3*sampleTail) + "end"},
			strings.Repeat("h", sampleHead) + "\n" + strings.Repeat("m", sampleTail-3) + "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o outputSample
			for _, w := range tt.writes {
				if n, err := o.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write() = %d, %v", n, err)
				}
			}
			if got := o.String(); got != tt.want {
				t.Errorf("String() = %d bytes ending %q, want %d bytes ending %q", len(got), tail(got), len(tt.want), tail(tt.want))
			}
		})
	}
}

func tail(s string) string { return s[max(0, len(s)-8):] }

// TestBashSandboxIdentity checks that commands run as the user, with
// TMPDIR the private temporary directory, writable, and that a fake
// private key in a temporary home cannot be read.
func TestBashSandboxIdentity(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("fake key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tool, p, _, _ := sandboxed(t)
	got, o := run(t, tool, `id -u; echo "$TMPDIR"; echo x > "$TMPDIR/f" && echo written`, 0)
	want := fmt.Sprintf("%d\n%s\nwritten\nexit code: 0\n", os.Getuid(), p.TempDir)
	if o.err != nil || got != want {
		t.Errorf("Execute() = %+v, %v; output %q, want %q", o.res, o.err, got, want)
	}
	got, o = run(t, tool, "cat ~/.ssh/id_ed25519", 0)
	if strings.Contains(got, "fake key") || !strings.Contains(o.res.SandboxDenied, "the sandbox refused a read of ~/.ssh/id_ed25519: credential stores") {
		t.Errorf("Execute() = %+v, %v; output %q; want the key refused and explained", o.res, o.err, got)
	}
}
