package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// prestartWorld is a workspace with a repository, a hidden file beside
// it, and the policy a session would give its commands.
type prestartWorld struct {
	ws, secret string
	policy     *Policy
}

func newPrestartWorld(t testing.TB) *prestartWorld {
	t.Helper()
	if st := Probe(); !st.Available {
		if os.Getenv("REIN_REQUIRE_SANDBOX") != "" {
			t.Fatal("no sandbox here: " + st.Reason)
		}
		t.Skip("no sandbox here: " + st.Reason)
	}
	root := t.TempDir()
	w := &prestartWorld{ws: root + "/ws", secret: root + "/secret"}
	for _, d := range []string{w.ws + "/.git/hooks"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(w.ws+"/.git/config", []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.secret, []byte("token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w.policy = &Policy{Writable: []string{w.ws}, ReadOnly: Protected([]string{w.ws}), DenyRead: []string{w.secret}, TempDir: root + "/tmp"}
	return w
}

// normalized is w's policy as Wrap would give it to a helper now.
func (w *prestartWorld) normalized(t testing.TB) *Policy {
	t.Helper()
	np, err := normalize(w.policy)
	if err != nil {
		t.Fatal(err)
	}
	return np
}

// run sends the helper its command and waits for its report: the
// program's exit code. With errStale, nothing ran.
func (w *prestarted) run(argv, env []string, dir string, files [3]*os.File) (int, error) {
	if err := w.send(argv, env, dir, files); err != nil {
		return 0, err
	}
	defer w.close()
	return w.wait()
}

// runIn runs command through h and returns its output and exit code.
func runIn(t *testing.T, h *prestarted, dir, command string) (string, int, error) {
	t.Helper()
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	out := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	code, err := h.run([]string{"/bin/sh", "-c", command}, []string{"PATH=/usr/bin:/bin"}, dir, [3]*os.File{null, wr, wr})
	wr.Close()
	return <-out, code, err
}

// exited waits for h's helper to have ended and been reaped.
func exited(t *testing.T, h *prestarted) {
	t.Helper()
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting helper is still running")
	}
}

// A helper started ahead runs the command it is sent, sandboxed as one
// started with it: its output, its status, the hidden file hidden, the
// protected config read-only, and the placeholders gone when it ends.
func TestPrestartedRunsTheCommand(t *testing.T) {
	w := newPrestartWorld(t)
	if err := os.Remove(w.ws + "/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	h, err := prestart(w.normalized(t), &syscall.SysProcAttr{Setsid: true})
	if err != nil {
		t.Fatal(err)
	}
	out, code, err := runIn(t, h, w.ws, "pwd; cat "+w.secret+" || echo hidden; echo x >> .git/config || echo ro; touch .git/hooks/pre-commit || echo hooks ro; ls .git; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 {
		t.Errorf("exit code %d, want 3; output:\n%s", code, out)
	}
	for _, want := range []string{w.ws + "\n", "hidden\n", "ro\n", "hooks ro\n", "commondir\n", "config.worktree\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	exited(t, h)
	for _, ph := range []string{"commondir", "config.worktree"} {
		if _, err := os.Lstat(w.ws + "/.git/" + ph); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the placeholder %s is left in .git: %v", ph, err)
		}
	}
}

// While a helper waits, it makes nothing in the workspace: git outside
// sees no placeholder, and a missing protected directory is not made.
func TestPrestartedLeavesNoPlaceholder(t *testing.T) {
	w := newPrestartWorld(t)
	if err := os.Remove(w.ws + "/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	h, err := prestart(w.normalized(t), &syscall.SysProcAttr{Setsid: true})
	if err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	if err := readFull(h.ctl, b[:]); err != nil || b[0] != replyReady {
		t.Fatalf("the helper is not ready: %v %q", err, b)
	}
	for _, p := range []string{".git/commondir", ".git/config.worktree", ".git/hooks", ".rein"} {
		if _, err := os.Lstat(w.ws + "/" + p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the waiting helper made %s: %v", p, err)
		}
	}
	h.close()
	exited(t, h)
	if code := h.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("a helper closed while waiting exited %d", code)
	}
}

// A waiting helper's plan goes stale when what it was made from changes:
// a credential store made since (hidden only when it exists), a .git
// made in the workspace, a hidden file replaced.
func TestPlanKeyChanges(t *testing.T) {
	w := newPrestartWorld(t)
	w.policy.Writable = append(w.policy.Writable, w.ws+"/sub")
	w.policy.ReadOnly = append(w.policy.ReadOnly, Protected([]string{w.ws + "/sub"})...)
	before := planKey(w.normalized(t))
	if again := planKey(w.normalized(t)); again != before {
		t.Fatal("the key of an unchanged plan changed")
	}
	// A credential store made since: hidden now, so the plan differs.
	// (The sockets under /tmp are found once per process, tmpSockets:
	// the policy a helper gets holds them, so would the key.)
	store := filepath.Dir(w.secret) + "/store"
	w.policy.DenyRead = append(w.policy.DenyRead, store)
	if planKey(w.normalized(t)) != before {
		t.Fatal("a missing hidden path changed the plan's key")
	}
	if err := os.WriteFile(store, []byte("token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := planKey(w.normalized(t))
	if sock == before {
		t.Error("a hidden path made since leaves the plan's key as it was")
	}
	if err := os.MkdirAll(w.ws+"/sub/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	w.policy.ReadOnly = Protected([]string{w.ws, w.ws + "/sub"})
	gitKey := planKey(w.normalized(t))
	if gitKey == before || gitKey == sock {
		t.Error("a .git made in the workspace leaves the plan's key as it was")
	}
	if err := os.WriteFile(w.secret+".new", []byte("new token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(w.secret+".new", w.secret); err != nil {
		t.Fatal(err)
	}
	if planKey(w.normalized(t)) == gitKey {
		t.Error("a hidden file replaced leaves the plan's key as it was")
	}
}

// A hidden file replaced outside while a helper waits lifts the mount
// that hid it in the helper's namespace: the helper sees it, runs
// nothing, and says so.
func TestPrestartedStaleWhenAMountIsLifted(t *testing.T) {
	w := newPrestartWorld(t)
	h, err := prestart(w.normalized(t), &syscall.SysProcAttr{Setsid: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.awaitReady(); err != nil {
		t.Fatalf("the helper is not ready: %v", err)
	}
	if err := os.WriteFile(w.secret+".new", []byte("new token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(w.secret+".new", w.secret); err != nil {
		t.Fatal(err)
	}
	out, code, err := runIn(t, h, w.ws, "cat "+w.secret)
	if !errors.Is(err, errStale) {
		t.Fatalf("run: code %d, error %v, output %q; want errStale", code, err, out)
	}
	if out != "" {
		t.Errorf("the stale helper ran the command: %q", out)
	}
	exited(t, h)
}

// prestartKilledEnv makes the test binary, run again by
// TestPrestartedDiesWithRein, a rein that starts a helper ahead, says its
// pid, and waits to be killed.
const prestartKilledEnv = "REIN_SANDBOX_TEST_PRESTART_KILLED"

// When rein dies, however it dies, a helper waiting for its command
// ends: it runs nothing and nothing is left.
func TestPrestartedDiesWithRein(t *testing.T) {
	if os.Getenv(prestartKilledEnv) != "" {
		w := newPrestartWorld(t)
		h, err := prestart(w.normalized(t), &syscall.SysProcAttr{Setsid: true})
		if err != nil {
			t.Fatal(err)
		}
		var b [1]byte
		if err := readFull(h.ctl, b[:]); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString(strconv.Itoa(h.cmd.Process.Pid) + "\n")
		time.Sleep(time.Minute)
		return
	}
	newPrestartWorld(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestPrestartedDiesWithRein$")
	cmd.Env = append(os.Environ(), prestartKilledEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var line [32]byte
	n, _ := out.Read(line[:])
	pid, err := strconv.Atoi(strings.TrimSpace(string(line[:n])))
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no helper pid from the child: %q", line[:n])
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the waiting helper %d is not running: %v", pid, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// The helper was the killed process's child: reparented, it is reaped
	// by init (or the test's subreaper); it must be gone soon.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the waiting helper %d outlived the rein that started it", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkStartProcessTrue measures `bash -c true` run to its end by
// StartProcess and Wait, bare, sandboxed as the first command (no helper
// waiting), and sandboxed with a helper started ahead and ready (the
// common case: the commands of a session). The policy is
// BenchmarkStartTrue's. REIN_BENCH_HELPER starts a rein binary as the
// helper, as for BenchmarkStartTrue:
//
//	go build -o /tmp/rein ./cmd/rein
//	REIN_BENCH_HELPER=/tmp/rein go test ./internal/sandbox -run '^$' -bench StartProcessTrue -count 5
func BenchmarkStartProcessTrue(b *testing.B) {
	const settle = 50 * time.Millisecond
	helper := os.Getenv("REIN_BENCH_HELPER")
	if helper != "" {
		prestartExe = helper
		defer func() { prestartExe = selfExe }()
	}
	w := newPrestartWorld(b)
	w.policy.Writable = append(w.policy.Writable, DefaultWritable()...)
	w.policy.DenyRead = append(w.policy.DenyRead, DefaultDenyRead()...)
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	defer Close()
	run := func(b *testing.B, p *Policy) {
		cmd := exec.Command("bash", "-c", "true")
		cmd.Dir, cmd.Env = w.ws, []string{"PATH=" + os.Getenv("PATH")}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := Wrap(cmd, p); err != nil {
			b.Fatal(err)
		}
		if helper != "" && p != nil {
			cmd.Path = helper
		}
		proc, err := StartProcess(context.Background(), cmd)
		if err != nil {
			b.Fatal(err)
		}
		if code, err := proc.Wait(); err != nil || code != 0 {
			b.Fatalf("code %d, %v", code, err)
		}
	}
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			time.Sleep(20 * time.Millisecond)
			b.StartTimer()
			run(b, nil)
		}
	})
	b.Run("sandboxed, first command", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			Close()
			// Let the namespaces of the helper discarded settle: the
			// first command of a session has none to share the CPU with.
			time.Sleep(20 * time.Millisecond)
			b.StartTimer()
			run(b, w.policy)
		}
	})
	// The overhead, paired: each round runs a bare command and a
	// sandboxed one with a helper ahead, in turns first, each after the
	// machine settled (the namespaces of a helper that ended are torn
	// down in the background, as the next helper sets up: between a
	// session's commands, not before one), so that the load of a shared
	// machine weighs on both alike. The metrics are medians.
	b.Run("overhead, helper ahead", func(b *testing.B) {
		run(b, w.policy) // a process's first sandboxed command starts none ahead
		run(b, w.policy)
		var diffs, bares, boxed []time.Duration
		timed := func(p *Policy) time.Duration {
			time.Sleep(settle)
			t0 := time.Now()
			run(b, p)
			return time.Since(t0)
		}
		i := 0
		for b.Loop() {
			b.StopTimer()
			if waiting() == 0 { // startNext installs a helper once it is ready
				b.Fatal("no helper started ahead")
			}
			var bare, box time.Duration
			if i%2 == 0 {
				bare = timed(nil)
				box = timed(w.policy)
			} else {
				box = timed(w.policy)
				bare = timed(nil)
			}
			i++
			diffs, bares, boxed = append(diffs, box-bare), append(bares, bare), append(boxed, box)
			b.StartTimer()
		}
		for _, m := range []struct {
			d    []time.Duration
			name string
		}{{diffs, "overhead-ms"}, {bares, "bare-ms"}, {boxed, "sandboxed-ms"}} {
			slices.Sort(m.d)
			b.ReportMetric(float64(m.d[len(m.d)/2].Microseconds())/1000, m.name)
		}
	})
	b.Run("sandboxed, helper ahead", func(b *testing.B) {
		run(b, w.policy) // a process's first sandboxed command starts none ahead
		run(b, w.policy)
		for b.Loop() {
			b.StopTimer()
			if waiting() == 0 { // startNext installs a helper once it is ready
				b.Fatal("no helper started ahead")
			}
			time.Sleep(20 * time.Millisecond)
			b.StartTimer()
			run(b, w.policy)
		}
	})
}

// startAndWait runs command through StartProcess under p, and returns
// the pid of the process that ran it (a helper's) and its exit code.
func startAndWait(t *testing.T, w *prestartWorld, p *Policy, command string) (int, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", command)
	cmd.Dir, cmd.Env = w.ws, []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := Wrap(cmd, p); err != nil {
		t.Fatal(err)
	}
	proc, err := StartProcess(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	code, err := proc.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return proc.Pid, code
}

// waiting is the pid of the helper started ahead, once it is started;
// 0 when none is.
func waiting() int {
	ahead.pending.Wait()
	ahead.mu.Lock()
	defer ahead.mu.Unlock()
	if ahead.w == nil {
		return 0
	}
	return ahead.w.cmd.Process.Pid
}

// gone says whether process pid has ended and been reaped.
func gone(pid int) bool {
	return syscall.Kill(pid, 0) != nil
}

// A command ends, a helper is started ahead for its policy, and the next
// command with the same policy runs in it; one with another policy does
// not, and the waiting one is discarded. Close leaves nothing running.
func TestStartProcessUsesTheHelperStartedAhead(t *testing.T) {
	w := newPrestartWorld(t)
	t.Cleanup(Close)
	// A process's first sandboxed command starts no helper ahead (a
	// headless run with one command would never use it): this one is
	// at least the process's second.
	startAndWait(t, w, w.policy, "true")
	first, code := startAndWait(t, w, w.policy, "exit 4")
	if code != 4 {
		t.Fatalf("exit code %d, want 4", code)
	}
	next := waiting()
	if next == 0 || next == first {
		t.Fatalf("no helper was started ahead after the first command (%d, %d)", first, next)
	}
	pid, code := startAndWait(t, w, w.policy, "kill -TERM $$")
	if pid != next {
		t.Errorf("the second command ran in %d, not in the helper started ahead, %d", pid, next)
	}
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	next = waiting()
	other := *w.policy
	other.Network = true
	pid, _ = startAndWait(t, w, &other, "true")
	if pid == next {
		t.Error("a command with another policy ran in the helper started ahead for the first")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !gone(next) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !gone(next) {
		t.Errorf("the helper discarded for another policy, %d, still runs", next)
	}
	last := waiting()
	if last == 0 {
		t.Fatal("no helper was started ahead after the third command")
	}
	Close()
	if !gone(last) {
		t.Errorf("the helper started ahead, %d, outlived Close", last)
	}
	if waiting() != 0 {
		t.Error("a helper waits after Close")
	}
}

// A helper started ahead is not used when a hidden path appeared since:
// the command starts as without one, and the file is hidden from it.
func TestStartProcessDiscardsAStalePlan(t *testing.T) {
	w := newPrestartWorld(t)
	t.Cleanup(Close)
	store := filepath.Dir(w.secret) + "/store"
	w.policy.DenyRead = append(w.policy.DenyRead, store)
	startAndWait(t, w, w.policy, "true")
	next := waiting()
	if next == 0 {
		t.Fatal("no helper was started ahead")
	}
	if err := os.WriteFile(store, []byte("token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pid, code := startAndWait(t, w, w.policy, "cat "+store)
	if pid == next {
		t.Error("the helper started ahead ran a command whose plan changed since")
	}
	if code == 0 {
		t.Error("the command read a hidden path")
	}
	os.Remove(store)
	if err := os.MkdirAll(w.ws+"/sub/.git", 0o755); err != nil {
		t.Fatal(err)
	}
	next = waiting()
	w.policy.ReadOnly = Protected([]string{w.ws, w.ws + "/sub"})
	if pid, _ := startAndWait(t, w, w.policy, "true"); pid == next {
		t.Error("the helper started ahead ran a command after a .git was made in the workspace")
	}
}

// A command handed to a helper started ahead stops when its context is
// done as exec.Cmd's own would: Cancel is called (here SIGTERM to the
// group, whose trap runs), and the helper is killed WaitDelay later when
// the command ignores it.
func TestStartProcessAheadIsCancelled(t *testing.T) {
	w := newPrestartWorld(t)
	t.Cleanup(Close)
	for _, tt := range []struct {
		command string
		want    int
	}{
		{"trap 'exit 3' TERM; sleep 1000 & wait", 3},
		{"trap '' TERM; sleep 1000", 128 + int(syscall.SIGKILL)},
	} {
		startAndWait(t, w, w.policy, "true")
		next := waiting()
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", tt.command)
		cmd.Dir, cmd.Env = w.ws, []string{"PATH=/usr/bin:/bin"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
		cmd.WaitDelay = 200 * time.Millisecond
		if err := Wrap(cmd, w.policy); err != nil {
			t.Fatal(err)
		}
		proc, err := StartProcess(ctx, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if proc.Pid != next {
			t.Errorf("%q did not run in the helper started ahead", tt.command)
		}
		code, err := proc.Wait()
		cancel()
		if err != nil || code != tt.want {
			t.Errorf("%q: code %d, %v; want %d", tt.command, code, err, tt.want)
		}
	}
}

// A helper never sets up while a command runs: what it hides is made from
// the files as they are while it sets up, so a command running meanwhile
// could move a hidden path's folder away and back and have the command
// after it take a helper that hides nothing there. One started while a
// command runs, or that sees a command start before it is ready, is
// discarded; once the command has ended, the next is started as usual.
func TestAHelperNeverSetsUpWhileACommandRuns(t *testing.T) {
	w := newPrestartWorld(t)
	t.Cleanup(Close)
	startAndWait(t, w, w.policy, "true") // the process's first, at least
	Close()

	cmd := exec.CommandContext(t.Context(), "/bin/sh", "-c", "sleep 0.3")
	cmd.Dir, cmd.Env = w.ws, []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := Wrap(cmd, w.policy); err != nil {
		t.Fatal(err)
	}
	req, ok := requestOf(cmd)
	if !ok {
		t.Fatal("no request for a wrapped command")
	}
	proc, err := StartProcess(t.Context(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	startNext(req) // while the command runs
	if pid := waiting(); pid != 0 {
		t.Errorf("a helper, %d, was set up while a command ran", pid)
	}
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	if waiting() == 0 {
		t.Error("no helper was started ahead once the command had ended")
	}
	Close()

	// A command that starts while a helper sets up (it takes
	// milliseconds; the command starts at once).
	startNext(req)
	cmd = exec.CommandContext(t.Context(), "/bin/sh", "-c", "sleep 0.3")
	cmd.Dir, cmd.Env = w.ws, []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := Wrap(cmd, w.policy); err != nil {
		t.Fatal(err)
	}
	if proc, err = StartProcess(t.Context(), cmd); err != nil {
		t.Fatal(err)
	}
	if pid := waiting(); pid != 0 {
		t.Errorf("a helper, %d, that was setting up when a command started waits", pid)
	}
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
}
