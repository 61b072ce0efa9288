package tether

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// selfExe is the executable the helper is started from: the image that
// runs, even when its file was replaced or deleted since.
const selfExe = "/proc/self/exe"

// survived are the signals a timeout or a cancel sends to the command's
// process group, which the helper shares with the program: the program
// gets them as it would without the helper, which lives on to pass its
// status on.
var survived = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT}

// Exit codes of the helper: it could not set itself up (as env and
// chroot use 125), it could not run the program (as a shell uses 126 and
// 127).
const (
	helperFailed   = 125
	cannotExecute  = 126
	programMissing = 127
)

// init runs the helper, and exits, when the process was started as one
// ("tether-exec FD -- PATH ARGV..."): any program that can call Wrap links
// this package, so it can be the helper too (a test binary included). It
// is an init function so that the helper starts before the rest of the
// program is initialised, which it never needs; for any other first
// argument it returns at once.
func init() {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		os.Exit(helper(os.Args[2:]))
	}
}

func wrap(cmd *exec.Cmd) error {
	if cmd.Err != nil || !executable(cmd) {
		return nil // Start says why, as it would have
	}
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		copied := *cmd.SysProcAttr
		attr = &copied
	}
	switch {
	case attr.Setpgid && attr.Pgid != 0:
		return errors.New("tether: the command joins another process group; the helper must lead one of its own")
	case !attr.Setsid && !attr.Setpgid:
		attr.Setpgid = true
	}
	r, err := lifeline()
	if err != nil {
		return err
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(slices.Clip(cmd.ExtraFiles), r)
	cmd.Args = append([]string{"rein", helperArg, strconv.Itoa(fd), "--", cmd.Path}, cmd.Args...)
	cmd.Path, cmd.SysProcAttr = selfExe, attr
	return nil
}

// executable says whether cmd's program is a file the user may execute
// (a relative path is taken from cmd.Dir, as the kernel will).
func executable(cmd *exec.Cmd) bool {
	path := cmd.Path
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) && cmd.Dir != "" {
		path = filepath.Join(cmd.Dir, path)
	}
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && unix.Access(path, unix.X_OK) == nil
}

// helper is the tether's side of a wrapped command: the leader of a
// process group of its own, it watches the lifeline, starts the program
// in its group, waits for it and exits with its status. When the
// lifeline ends (rein is gone) it kills the group, itself included.
//
// It catches the signals a cancel sends to the group only to outlive
// them, before it starts the program, so that the program is never left
// without it (the sandbox's helper does it on the side, to start sooner).
func helper(args []string) int {
	// The channel is never read: these signals are the program's.
	signal.Notify(make(chan os.Signal, 1), survived...)
	fd, argv, err := parseArgs(args)
	if err != nil {
		return failed(err)
	}
	if unix.Getpgrp() != os.Getpid() {
		return failed(errors.New("the helper must lead a process group of its own, which it kills when rein dies"))
	}
	rein := os.Getppid()
	// A failure can only mean the group is gone already.
	orphaned := func() { _ = unix.Kill(0, unix.SIGKILL) }
	if err := Watch(fd, orphaned); err != nil {
		return failed(err)
	}
	pid, err := syscall.ForkExec(argv[0], argv[1:], &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rein: cannot run %s: %v\n", argv[0], err)
		if errors.Is(err, fs.ErrNotExist) {
			return programMissing
		}
		return cannotExecute
	}
	code := wait(pid)
	// The program may have ended because rein is dying (its input ended,
	// its output broke) before the lifeline says so: rein, alive, kills
	// what the program left in the group once the helper has exited, but
	// a dying rein will not.
	if dying(fd, rein) {
		orphaned()
	}
	return code
}

// pfExiting is the flag of a task that has begun to exit (PF_EXITING in
// the kernel's sched.h), the 9th field of /proc/PID/stat.
const pfExiting = 0x4

// dying says whether process rein, the helper's parent when it started,
// is gone or on its way: the lifeline fd reads end of file, or the
// helper has another parent now, or rein's stat says it is a zombie or
// exiting. A process's files are closed after each of its threads has
// begun to exit, so a program that ended because a pipe from rein broke
// always finds rein dying here, even before the last of its files (the
// lifeline perhaps) is closed.
func dying(fd, rein int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 0); err == nil && n > 0 && fds[0].Revents&unix.POLLHUP != 0 {
		return true
	}
	if os.Getppid() != rein {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(rein) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	// pid (comm) state ppid pgrp session tty tpgid flags ...; the
	// command's name may hold spaces and parentheses.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) < 7 {
		return false
	}
	if fields[0] == "Z" || fields[0] == "X" {
		return true
	}
	flags, err := strconv.ParseUint(fields[6], 10, 64)
	return err == nil && flags&pfExiting != 0
}

// parseArgs reads the helper's arguments: the lifeline's descriptor,
// "--", the program's path and its argv.
func parseArgs(args []string) (fd int, argv []string, err error) {
	const usage = "usage: rein " + helperArg + " FD -- PATH ARGV0 [ARGS...] (rein runs this itself)"
	if len(args) < 4 || args[1] != "--" {
		return 0, nil, errors.New(usage)
	}
	fd, err = strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		return 0, nil, errors.New(usage)
	}
	return fd, args[2:], nil
}

// failed is what the helper says, and exits with, when it cannot set
// itself up.
func failed(err error) int {
	fmt.Fprintf(os.Stderr, "rein: the command could not be tethered to rein: %v\n", err)
	return helperFailed
}

// wait waits for the program pid and returns its exit code, 128+N when
// signal N killed it.
func wait(pid int) int {
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return helperFailed // no such child: cannot happen
		case ws.Signaled():
			return 128 + int(ws.Signal())
		case ws.Exited():
			return ws.ExitStatus()
		}
	}
}

// Watch is for a helper process started with the read end of a lifeline
// (see [Lifeline]) as descriptor fd. It makes fd close on exec, so that
// no program the helper starts holds it, and calls orphaned, once, from a
// goroutine of its own, when the process that made the lifeline has ended
// (the pipe reads end of file). It fails when fd is not a pipe. Only an
// end of file calls orphaned: an error reading the pipe, which cannot
// happen, ends the watch instead, so that nothing is ever killed while
// rein may still live.
func Watch(fd int, orphaned func()) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("the lifeline (descriptor %d): %w", fd, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return fmt.Errorf("the lifeline (descriptor %d) is not a pipe", fd)
	}
	unix.CloseOnExec(fd)
	go func() {
		// The pipe's file description is shared with rein and every other
		// helper, any of which may have made it non-blocking: poll first,
		// so that a read never spins on EAGAIN.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		var b [64]byte
		for {
			if _, err := unix.Poll(fds, -1); err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
			n, err := unix.Read(fd, b[:])
			switch {
			case n == 0 && err == nil:
				orphaned()
				return
			case n > 0, errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
				// Nothing is ever written; read on to the end.
			default:
				return
			}
		}
	}()
	return nil
}
