package sandbox

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A helper can be started ahead of its command (prestart): it makes its
// namespaces, starts up and sets up every mount that depends only on the
// policy, then waits on a socket for the command, which only rein holds
// the other end of. The command (argv, environment, working directory,
// and its standard input, output and error passed as descriptors) comes
// as one message; the helper then protects the placeholders (which must
// never sit in .git between commands), checks that no mount of its own
// was lifted meanwhile, enters the Landlock domain, runs the program as
// a helper started with it would, and reports the status before it
// exits.
//
// The helper's replies, on the same socket.
const (
	// replyReady: set up, waiting for the command.
	replyReady = 'R'
	// replyStale: a mount was lifted while it waited (a file outside
	// was replaced); the command was not run.
	replyStale = 'X'
	// replyTaken: the command was taken; its status follows.
	replyTaken = 'T'
	// replyCode: the program ran; four bytes of exit code follow,
	// little-endian.
	replyCode = 'C'
)

// maxCommand bounds the command message a waiting helper accepts.
const maxCommand = 64 << 20

// command is what a waiting helper is sent.
type command struct {
	argv []string
	env  []string
	dir  string
	// files are the descriptors of the program's standard input,
	// output and error, received close-on-exec.
	files [3]int
}

// Record keys of the command message, NUL-separated as the policy's.
const (
	keyArg = "a"
	keyEnv = "e"
	keyDir = "d"
)

// encodeCommand writes argv, env and dir as one message: a four-byte
// length, then the records.
func encodeCommand(argv, env []string, dir string) ([]byte, error) {
	var body bytes.Buffer
	add := func(k, v string) error {
		if strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("sandbox: a command's argument or environment holds a NUL byte")
		}
		if body.Len() > 0 {
			body.WriteByte(0)
		}
		body.WriteString(k + "=" + v)
		return nil
	}
	if err := add(keyDir, dir); err != nil {
		return nil, err
	}
	for _, a := range argv {
		if err := add(keyArg, a); err != nil {
			return nil, err
		}
	}
	for _, e := range env {
		if err := add(keyEnv, e); err != nil {
			return nil, err
		}
	}
	if body.Len() > maxCommand {
		return nil, fmt.Errorf("sandbox: the command is over %d bytes", maxCommand)
	}
	msg := binary.LittleEndian.AppendUint32(nil, uint32(body.Len()))
	return append(msg, body.Bytes()...), nil
}

// decodeCommand reads the records encodeCommand wrote.
func decodeCommand(body []byte) (*command, error) {
	c := &command{}
	for rec := range strings.SplitSeq(string(body), "\x00") {
		k, v, ok := strings.Cut(rec, "=")
		switch {
		case !ok:
			return nil, fmt.Errorf("decode the command: a record without a key")
		case k == keyDir:
			c.dir = v
		case k == keyArg:
			c.argv = append(c.argv, v)
		case k == keyEnv:
			c.env = append(c.env, v)
		default:
			return nil, fmt.Errorf("decode the command: unknown key %q", k)
		}
	}
	if len(c.argv) == 0 || c.dir == "" {
		return nil, errors.New("decode the command: no program or no working directory")
	}
	return c, nil
}

// receiveCommand reads the command from fd, with its three descriptors.
// It returns io.EOF-like nil, nil when rein closed the socket without
// sending one (the helper was discarded, or rein ended).
func receiveCommand(fd int) (*command, error) {
	head := make([]byte, 4)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(fd, head, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the command: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if rights, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, rights...)
			}
		}
	}
	if len(fds) != 3 {
		for _, f := range fds {
			unix.Close(f)
		}
		return nil, fmt.Errorf("read the command: %d descriptors instead of 3", len(fds))
	}
	if err := readFull(fd, head[n:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint32(head)
	if size > maxCommand {
		return nil, fmt.Errorf("read the command: %d bytes", size)
	}
	body := make([]byte, size)
	if err := readFull(fd, body); err != nil {
		return nil, err
	}
	c, err := decodeCommand(body)
	if err != nil {
		return nil, err
	}
	c.files = [3]int(fds)
	return c, nil
}

// readFull reads len(b) bytes from fd.
func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Read(fd, b)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("read the command: %w", err)
		case n == 0:
			return errors.New("read the command: the socket closed midway")
		}
		b = b[n:]
	}
	return nil
}

// awaitCommand is the rest of a helper started ahead of its command (see
// prestart), once the mounts but the placeholders' are made: it says it
// is ready, waits for the command, and runs it. When rein closes the
// socket instead (the helper was discarded, or rein ended) it runs
// nothing and exits 0.
func awaitCommand(h *helperArgs, m *mounts, orphaned *atomic.Bool) int {
	ctl := h.await
	unix.CloseOnExec(ctl)
	rules, err := landlockRules(h.policy, m.privateShm)
	if err != nil {
		return helperError(err)
	}
	start, err := restrictedStarter(rules)
	if err != nil {
		return helperError(err)
	}
	// A mount lifted while the helper waits (a protected or hidden path
	// replaced or removed outside, which detaches the mount over it here)
	// changes the namespace's mount table, which mountinfo, open from
	// now on, reports as a priority event (see proc(5)).
	mountinfo, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return helperError(fmt.Errorf("watch the mounts: %w", err))
	}
	if _, err := unix.Write(ctl, []byte{replyReady}); err != nil {
		return helperFailed
	}
	c, err := receiveCommand(ctl)
	if c == nil {
		if err != nil {
			return helperError(err)
		}
		return 0
	}
	for i, fd := range c.files {
		if err := unix.Dup3(fd, i, 0); err != nil {
			return helperError(fmt.Errorf("take the command's standard files: %w", err))
		}
		unix.Close(fd)
	}
	if mountsChanged(mountinfo) {
		return reply(ctl, []byte{replyStale}, 0)
	}
	if _, err := unix.Write(ctl, []byte{replyTaken}); err != nil {
		return helperFailed // rein is gone: nothing to run for
	}
	os.Clearenv()
	for _, kv := range c.env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	code := runAwaited(h.policy, m, start, c, orphaned)
	return reply(ctl, binary.LittleEndian.AppendUint32([]byte{replyCode}, uint32(code)), code)
}

// mountsChanged says whether the mount table changed since fd, its
// mountinfo, was opened (or cannot be told).
func mountsChanged(fd int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	return err != nil || n != 0
}

// runAwaited protects the placeholders, enters the command's working
// directory and runs it, as the helper does for a command it was started
// with; it returns the exit code.
func runAwaited(p *Policy, m *mounts, start func(argv, env []string) (int, error), c *command, orphaned *atomic.Bool) int {
	if err := m.protectDeferred(writablePaths(p), p.DenyRead); err != nil {
		m.restore()
		return helperError(err)
	}
	if err := os.Chdir(c.dir); err != nil {
		m.restore()
		return helperError(fmt.Errorf("enter the working directory: %w", err))
	}
	if orphaned.Load() {
		m.restore()
		return 128 + int(syscall.SIGKILL)
	}
	pid, err := start(c.argv, os.Environ())
	if err != nil {
		m.restore()
		return helperError(err)
	}
	if orphaned.Load() {
		killNamespace() // rein died as the program started
	}
	code := reap(pid)
	m.restore()
	return code
}

// reply lets go of the command's standard files (so that a pipe of its
// output ends once the command's processes are gone), sends msg on ctl,
// and returns code.
func reply(ctl int, msg []byte, code int) int {
	if null, err := unix.Open(os.DevNull, unix.O_RDWR, 0); err == nil {
		for i := range 3 {
			_ = unix.Dup3(null, i, 0)
		}
		unix.Close(null)
	}
	_, _ = unix.Write(ctl, msg)
	return code
}

// prestartExe is the executable a helper is started ahead from: this
// one (a benchmark may start rein's instead).
var prestartExe = selfExe

// prestarted is a helper started ahead of its command, waiting.
type prestarted struct {
	// key is what its mounts were made from: the policy and the state
	// of the paths it names (see planKey).
	key  string
	attr syscall.SysProcAttr
	cmd  *exec.Cmd
	// ctl is rein's end of the socket the helper reads the command from.
	ctl int
	// ready is set once the helper said it is set up (awaitReady).
	ready     bool
	closeOnce sync.Once
	// exited is closed once the helper has ended and been reaped.
	exited chan struct{}
}

// errStale is prestarted.run's error when the helper ran nothing: it
// was not ready (it failed or ended), or a mount was lifted meanwhile.
var errStale = errors.New("sandbox: the helper started ahead is stale")

// prestart starts a helper for np (normalized) that waits for its
// command, in a process group or session as attr says (Setsid,
// Setpgid).
func prestart(np *Policy, attr *syscall.SysProcAttr) (*prestarted, error) {
	key := planKey(np)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: make the helper's socket: %w", err)
	}
	child := os.NewFile(uintptr(fds[1]), "sandbox-await")
	defer child.Close()
	cmd := exec.Command(selfExe)
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: attr.Setsid, Setpgid: attr.Setpgid}
	if err := platform.wrap(cmd, np); err != nil {
		unix.Close(fds[0])
		return nil, err
	}
	cmd.Path = prestartExe
	cmd.Args = append(cmd.Args[:4:4], awaitArg, strconv.Itoa(3+len(cmd.ExtraFiles)))
	cmd.ExtraFiles = append(cmd.ExtraFiles, child)
	if err := Start(cmd); err != nil {
		unix.Close(fds[0])
		return nil, err
	}
	w := &prestarted{key: key, attr: *cmd.SysProcAttr, cmd: cmd, ctl: fds[0], exited: make(chan struct{})}
	return w, nil
}

// awaitReady waits until the helper has set everything up and waits for
// its command. With errStale (which closes w), it never will.
func (w *prestarted) awaitReady() error {
	if w.ready {
		return nil
	}
	var b [1]byte
	if err := readFull(w.ctl, b[:]); err != nil || b[0] != replyReady {
		w.close()
		return errStale
	}
	w.ready = true
	return nil
}

// send sends the helper its command, once it is ready, and returns once
// it has taken it. With errStale (which closes w), nothing ran.
func (w *prestarted) send(argv, env []string, dir string, files [3]*os.File) error {
	if err := w.awaitReady(); err != nil {
		return err
	}
	var b [1]byte
	msg, err := encodeCommand(argv, env, dir)
	if err != nil {
		w.close()
		return err
	}
	rights := unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd()))
	if err := sendAll(w.ctl, msg, rights); err != nil {
		w.close()
		return errStale
	}
	if err := readFull(w.ctl, b[:]); err != nil || b[0] != replyTaken {
		w.close()
		return errStale
	}
	return nil
}

// wait waits for the report of the command send sent; the caller closes
// w. A helper that ends without one (killed) has the code of how it
// ended.
func (w *prestarted) wait() (int, error) {
	var b [5]byte
	if err := readFull(w.ctl, b[:]); err != nil || b[0] != replyCode {
		w.close()
		<-w.exited
		if ps := w.cmd.ProcessState; ps != nil {
			return exitCodeOf(ps), nil
		}
		return 0, errors.New("sandbox: the helper ended without a status")
	}
	return int(binary.LittleEndian.Uint32(b[1:5])), nil
}

// sendAll sends msg on fd with the ancillary rights on its first byte.
func sendAll(fd int, msg, rights []byte) error {
	for len(msg) > 0 {
		n, err := unix.SendmsgN(fd, msg, rights, nil, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		msg, rights = msg[n:], nil
	}
	return nil
}

// close closes rein's end of the socket (a helper still waiting runs
// nothing and exits) and reaps the helper in the background. It may be
// called more than once.
func (w *prestarted) close() {
	w.closeOnce.Do(func() {
		unix.Close(w.ctl)
		go func() {
			_ = w.cmd.Wait()
			close(w.exited)
		}()
	})
}

// planKey is what a waiting helper's mounts depend on: the policy as the
// helper is given it (the hidden sockets under /tmp included), and the
// state of every path it names and of their parents: type, device and
// inode, and a link's target. A helper whose key differs when its
// command comes is stale. The placeholders' files are left out: they are
// protected when the command comes. A protected directory missing
// when the helper was started is protected then too, and made: the key
// says it is missing, so one made since makes the helper stale.
func planKey(np *Policy) string {
	var b strings.Builder
	b.WriteString(encodePolicy(np))
	seen := map[string]bool{}
	var paths []string
	paths = append(paths, np.TempDir)
	paths = append(paths, np.Writable...)
	paths = append(paths, np.DenyRead...)
	for _, ro := range np.ReadOnly {
		ro = strings.TrimSuffix(ro, "/")
		if _, ph := placeholders[filepath.Base(ro)]; ph {
			ro = filepath.Dir(ro)
		}
		paths = append(paths, ro)
	}
	for _, p := range paths {
		for d := filepath.Clean(p); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			b.WriteString("\x00" + pathState(d))
		}
	}
	return b.String()
}

// pathState says what path is: missing, or its type, device and inode,
// and a link's target.
func pathState(path string) string {
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	if errors.Is(err, fs.ErrNotExist) {
		return path + " -"
	}
	if err != nil {
		return path + " ?" + err.Error()
	}
	s := fmt.Sprintf("%s %o %d %d", path, st.Mode&unix.S_IFMT, st.Dev, st.Ino)
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		link, _ := os.Readlink(path)
		s += " " + link
	}
	return s
}

// ahead is the helper started ahead for the next command, if any.
var ahead struct {
	mu sync.Mutex
	w  *prestarted
	// pending counts the helpers being started ahead.
	pending sync.WaitGroup
	// started counts the sandboxed commands that started without one.
	started atomic.Int64
}

// aheadRequest is what a command Wrap rewrote asks of a helper.
type aheadRequest struct {
	np   *Policy
	argv []string
	dir  string
	attr syscall.SysProcAttr
}

// requestOf reads what cmd, as Wrap rewrote it, asks of a helper; false
// when cmd is not one a helper started ahead can run: not sandboxed, or
// with process attributes other than a session or group of its own, or
// standard files other than nil or *os.File.
func requestOf(cmd *exec.Cmd) (*aheadRequest, bool) {
	a := cmd.Args
	if (cmd.Path != selfExe && cmd.Path != prestartExe) || cmd.Err != nil || cmd.Process != nil || len(a) < 6 || a[1] != helperArg || a[4] != "--" || cmd.SysProcAttr == nil {
		return nil, false
	}
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := f.(*os.File); !ok && f != nil {
			return nil, false
		}
	}
	np, err := decodePolicy(a[2])
	if err != nil {
		return nil, false
	}
	// The attributes must be those a helper started ahead gets: the
	// session or group flags, and what wrap adds.
	want := exec.Command(selfExe)
	want.SysProcAttr = &syscall.SysProcAttr{Setsid: cmd.SysProcAttr.Setsid, Setpgid: cmd.SysProcAttr.Setpgid}
	if platform.wrap(want, np) != nil || !reflect.DeepEqual(*want.SysProcAttr, *cmd.SysProcAttr) {
		return nil, false
	}
	dir := cmd.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, false
		}
	}
	return &aheadRequest{np: np, argv: a[5:], dir: dir, attr: *cmd.SysProcAttr}, true
}

// startAhead hands cmd to the helper waiting ahead when it fits it (see
// StartProcess), and returns how to wait for the command's status; false
// when cmd must start as Start starts it.
func startAhead(ctx context.Context, cmd *exec.Cmd) (func() (int, error), bool) {
	req, ok := requestOf(cmd)
	if !ok {
		return nil, false
	}
	ahead.mu.Lock()
	w := ahead.w
	ahead.w = nil
	ahead.mu.Unlock()
	if w == nil {
		return nil, false
	}
	if !reflect.DeepEqual(w.attr, req.attr) || w.key != planKey(req.np) {
		w.close()
		return nil, false
	}
	files, err := stdFiles(cmd)
	if err != nil {
		w.close()
		return nil, false
	}
	err = w.send(req.argv, cmd.Env, req.dir, files)
	for _, f := range files {
		f.Close()
	}
	if err != nil {
		return nil, false
	}
	cmd.Process = w.cmd.Process
	stop := watchContext(ctx, cmd)
	return func() (int, error) {
		code, err := w.wait()
		stop()
		w.close()
		commands.running.Add(-1)
		startNext(req)
		return code, err
	}, true
}

// stdFiles are copies of cmd's standard files, /dev/null for a nil one.
func stdFiles(cmd *exec.Cmd) ([3]*os.File, error) {
	var files [3]*os.File
	for i, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		var err error
		if file, ok := f.(*os.File); ok && file != nil {
			var fd int
			if fd, err = unix.FcntlInt(file.Fd(), unix.F_DUPFD_CLOEXEC, 0); err == nil {
				files[i] = os.NewFile(uintptr(fd), file.Name())
			}
		} else {
			files[i], err = os.OpenFile(os.DevNull, os.O_RDWR, 0)
		}
		if err != nil {
			for _, f := range files[:i] {
				f.Close()
			}
			return files, err
		}
	}
	return files, nil
}

// watchContext does for a command handed to a helper what exec.Cmd does
// for its own: when ctx is done it calls cmd.Cancel (or kills the
// helper), and kills the helper cmd.WaitDelay later. The function it
// returns stops the watch.
func watchContext(ctx context.Context, cmd *exec.Cmd) func() {
	if ctx == nil {
		return func() {}
	}
	var mu sync.Mutex
	var timer *time.Timer
	stopped := false
	stopCtx := context.AfterFunc(ctx, func() {
		if cmd.Cancel != nil {
			_ = cmd.Cancel()
		} else {
			_ = cmd.Process.Kill()
		}
		mu.Lock()
		defer mu.Unlock()
		if cmd.WaitDelay > 0 && !stopped {
			timer = time.AfterFunc(cmd.WaitDelay, func() { _ = cmd.Process.Kill() })
		}
	})
	return func() {
		stopCtx()
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if timer != nil {
			timer.Stop()
		}
	}
}

// afterCommand starts a helper ahead for the next command once cmd, which
// Start started, has ended, from the second such command of the process
// on.
func afterCommand(cmd *exec.Cmd) {
	req, ok := requestOf(&exec.Cmd{Path: cmd.Path, Args: cmd.Args, Dir: cmd.Dir, SysProcAttr: cmd.SysProcAttr,
		Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr})
	// A process that sandboxes one command (a headless run that calls
	// one tool) would only pay for a helper it never uses: the first
	// helper ahead comes after the second command.
	if ok && ahead.started.Add(1) >= 2 {
		startNext(req)
	}
}

// startNext starts a helper ahead for a command like req's, in the
// background, in place of the one waiting.
//
// Its set-up must not overlap a command: a helper makes its mounts from
// the files as they are while it sets up, and its plan's key from them as
// they were when it started, so a command running meanwhile (a model's
// next call, made at once) could move a hidden path's folder away and
// back, leave it unhidden in the helper's mounts, and have the command
// after it take that helper with the key unchanged. So a helper started
// while a command runs, or that saw a command start before it was set up,
// is discarded: the next command starts as Start starts it.
func startNext(req *aheadRequest) {
	ahead.pending.Add(1)
	go func() {
		defer ahead.pending.Done()
		gen := commands.started.Load()
		if commands.running.Load() != 0 {
			return
		}
		w, err := prestart(req.np, &req.attr)
		if err != nil {
			return // the next command starts as Start starts it
		}
		if w.awaitReady() != nil {
			return
		}
		ahead.mu.Lock()
		if commands.started.Load() != gen || commands.running.Load() != 0 {
			ahead.mu.Unlock()
			w.close() // a command ran while it set up
			return
		}
		old := ahead.w
		ahead.w = w
		ahead.mu.Unlock()
		if old != nil {
			old.close()
		}
	}()
}

// Close ends the helper started ahead, if one waits (it runs nothing),
// once those being started are, and waits for it to be gone. Call it
// when no more commands are to run (the session's end); a command that
// ends later starts one again.
func Close() {
	ahead.pending.Wait()
	ahead.mu.Lock()
	w := ahead.w
	ahead.w = nil
	ahead.mu.Unlock()
	if w != nil {
		w.close()
		<-w.exited
	}
}
