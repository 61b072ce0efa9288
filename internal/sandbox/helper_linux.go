package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rein-agent/rein/internal/tether"
)

// survived are the signals a timeout or a cancel sends to the wrapped
// command's process group (the bash tool sends SIGTERM), which the helper
// shares with the program: the program gets them as it would outside,
// while the helper lives on to reap it and pass its status on.
var survived = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT}

// helper is the sandbox's side of a wrapped command. It runs as PID 1 of
// a new PID namespace, in new user and mount namespaces (and a new
// network namespace when the network is off), as the user, with the
// capabilities that wrap kept for it. It sets the mounts up, brings the
// loopback up, then on one OS thread drops every capability, sets
// no_new_privs and enters the Landlock domain, and starts the program
// from that thread, so that the program inherits all of it. Then it
// reaps: when the program exits it kills every process left in the
// namespace, undoes what the program planted in watched places, and
// exits with the program's status. When rein dies first (its lifeline,
// package tether, reads end of file) it kills every process of the
// namespace, the program included, and does the same.
//
// The program stays in the helper's process group, so a signal sent to
// the group reaches it, and whatever it started in the group, at once. The
// helper catches those signals only to outlive them; it does so on the
// side, since signal.Notify takes a third of a millisecond here (a thread
// of its own, and a round trip with it per signal): a signal that comes
// before that is done ends the helper, and with it the namespace and the
// command, at once.
func (linuxBackend) helper(args []string) int {
	go func() {
		// The channel is never read: these signals are the program's.
		signal.Notify(make(chan os.Signal, 1), survived...)
	}()
	h, err := parseHelperArgs(args)
	if err != nil {
		return helperError(err)
	}
	// Only from PID 1 of a namespace of its own is kill(-1) "every
	// process of the command": from anywhere else it is every process the
	// user may signal. Started any other way than by Wrap (rein
	// sandbox-exec typed, or run by a command), the helper runs nothing.
	if os.Getpid() != 1 {
		return helperError(errors.New("the helper runs only as PID 1 of the PID namespace Wrap makes for it, and this process is not"))
	}
	var orphaned atomic.Bool
	if err := watchLifeline(h.lifeline, &orphaned); err != nil {
		return helperError(err)
	}
	// The helper holds capabilities in the namespaces: the program, which
	// runs as the same user, must not trace it or read its memory.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return helperError(fmt.Errorf("make the helper non-dumpable: %w", err))
	}
	cwd, err := os.Getwd()
	if err != nil {
		return helperError(fmt.Errorf("find the working directory: %w", err))
	}
	// Bringing the loopback up takes a fifth of a millisecond of the
	// kernel's time: it runs beside the mounts.
	lo := make(chan error, 1)
	if h.policy.Network {
		lo <- nil
	} else {
		go func() { lo <- loopbackUp() }()
	}
	m, err := setupMounts(h.policy, h.await >= 0)
	if err == nil {
		err = <-lo
	}
	if err != nil {
		return helperError(err)
	}
	if h.await >= 0 {
		return awaitCommand(h, m, &orphaned)
	}
	// The working directory may lie under a mount made since: enter it
	// again, through the mounts.
	if err := os.Chdir(cwd); err != nil {
		return helperError(fmt.Errorf("enter the working directory again: %w", err))
	}
	rules, err := landlockRules(h.policy, m.privateShm)
	if err != nil {
		return helperError(err)
	}
	if orphaned.Load() {
		m.restore()
		return 128 + int(syscall.SIGKILL)
	}
	pid, err := startRestricted(rules, h.argv, os.Environ())
	if err != nil {
		return helperError(err)
	}
	if pid == 0 {
		return 0 // a probe: everything could be set up
	}
	if orphaned.Load() {
		killNamespace() // rein died as the program started
	}
	code := reap(pid)
	m.restore()
	return code
}

// watchLifeline watches rein's lifeline, fd (none when negative): when
// rein dies, however it dies, its lifeline ends, everything in the
// namespace is killed, orphaned is set, and the helper goes on as when
// the program ends (reap, restore, exit). The helper's check of orphaned
// after the start covers a death before it.
func watchLifeline(fd int, orphaned *atomic.Bool) error {
	if fd < 0 {
		return nil
	}
	return tether.Watch(fd, func() {
		// Nobody reads the output any more: what restore says must not
		// end the helper with SIGPIPE before it is done. No program
		// starts after this, so none inherits the ignore.
		signal.Ignore(syscall.SIGPIPE)
		orphaned.Store(true)
		killNamespace()
	})
}

// startRestricted starts argv on a thread of its own that it restricts
// first: no capabilities (the bounding and ambient sets emptied, so not
// even a root user's program gets any), no_new_privs, and the Landlock
// domain of rules. The program inherits that thread's restrictions; the
// helper's other threads keep theirs, for the clean-up after the
// program. The program gets env. With an empty argv it only restricts the thread (a probe) and
// returns pid 0.
func startRestricted(rules *landlockRuleset, argv, env []string) (int, error) {
	type started struct {
		pid int
		err error
	}
	done := make(chan started, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, so no
		// other goroutine ever runs restricted.
		runtime.LockOSThread()
		pid, err := restrictThreadAndStart(rules, argv, env)
		done <- started{pid, err}
	}()
	s := <-done
	return s.pid, s.err
}

// restrictedStarter restricts a thread of its own as startRestricted
// does, ahead of the program, and returns how to start the program from
// it (once). It fails as the restriction fails.
func restrictedStarter(rules *landlockRuleset) (func(argv, env []string) (int, error), error) {
	type request struct{ argv, env []string }
	type started struct {
		pid int
		err error
	}
	requests := make(chan request)
	done := make(chan started, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, so no
		// other goroutine ever runs restricted.
		runtime.LockOSThread()
		if _, err := restrictThreadAndStart(rules, nil, nil); err != nil {
			done <- started{0, err}
			return
		}
		done <- started{}
		r := <-requests
		pid, err := startProgram(r.argv, r.env)
		done <- started{pid, err}
	}()
	if s := <-done; s.err != nil {
		return nil, s.err
	}
	return func(argv, env []string) (int, error) {
		requests <- request{argv, env}
		s := <-done
		return s.pid, s.err
	}, nil
}

// restrictThreadAndStart is startRestricted's work, on the locked thread.
func restrictThreadAndStart(rules *landlockRuleset, argv, env []string) (int, error) {
	if err := dropCapabilities(); err != nil {
		return 0, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := rules.restrictThread(); err != nil {
		return 0, err
	}
	if len(argv) == 0 {
		return 0, nil
	}
	return startProgram(argv, env)
}

// startProgram starts argv with env, its standard files the helper's.
func startProgram(argv, env []string) (int, error) {
	path := argv[0]
	if lp, err := exec.LookPath(path); err == nil {
		path = lp
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	return pid, nil
}

// dropCapabilities empties the calling thread's capability sets: the
// bounding set (so that a program run as root in the namespace gets no
// capability from exec), the ambient set and the others.
func dropCapabilities() error {
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) {
				break // past the kernel's last capability
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop the capabilities: %w", err)
	}
	return nil
}

// reap waits for the program pid and reaps every other process that ends
// meanwhile (PID 1 inherits the orphans). Once the program has exited it
// kills every process left in the namespace and reaps them too, so that
// nothing the program started outlives it. It returns the program's exit
// code, 128+N when signal N killed it.
func reap(pid int) int {
	code := helperFailed
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break // no child left: cannot happen before pid is reaped
		}
		if wpid == pid {
			code = ws.ExitStatus()
			if ws.Signaled() {
				code = 128 + int(ws.Signal())
			}
			break
		}
	}
	killNamespace()
	for {
		_, err := syscall.Wait4(-1, nil, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return code
		}
	}
}

// killNamespace kills every other process of the helper's PID namespace:
// from its PID 1, kill(-1) is exactly that. From any other process it
// would be every process of the user, so it kills nothing there (the
// helper refuses to start anyway; this keeps each kill honest on its
// own).
func killNamespace() {
	if os.Getpid() != 1 {
		return
	}
	// An error means there was nothing left to kill.
	_ = syscall.Kill(-1, syscall.SIGKILL)
}

// loopbackUp brings up the loopback interface of the new network
// namespace, which starts down, so that servers a command starts can be
// reached from inside.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the loopback up: read its flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bring the loopback up: %w", err)
	}
	return nil
}
