package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/rein-agent/rein/internal/tether"
)

// platform is Linux's backend: Landlock for the file system, namespaces
// for the rest.
var platform backend = linuxBackend{}

// linuxBackend sandboxes a command by re-running this executable as the
// helper (see helper_linux.go) in new user, mount and PID namespaces, and
// a new network namespace when the network is off.
type linuxBackend struct{}

// backendName is what Status.Backend says on Linux.
const backendName = "landlock+userns"

// minABI is the oldest Landlock ABI the sandbox uses: ABI 1 refuses every
// rename or link between directories, which breaks git and most builds.
const minABI = 2

// selfExe is the executable the helper is started from. /proc/self/exe
// names the image that runs (in the child, after the fork: rein's), so
// it works even when rein's file was replaced or deleted since it
// started, which os.Executable's path would not.
const selfExe = "/proc/self/exe"

// helperCaps are the capabilities the helper keeps in its namespaces
// across its exec (it runs as the user, not as root there): to mount, to
// bring the loopback up, to drop the capability bounding set, and to
// remove what a command planted in a protected place whatever its mode.
// The command itself gets none.
var helperCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER}

func (linuxBackend) probe() Status {
	abi, err := llsys.LandlockGetABIVersion()
	switch {
	case err != nil || abi < 1:
		return Status{Reason: "the kernel has no Landlock: it needs Linux 5.19 or later, started with landlock among its security modules (lsm=...)"}
	case abi < minABI:
		return Status{Reason: fmt.Sprintf("the kernel's Landlock is ABI %d (Linux 5.13 to 5.18), which refuses every rename between directories; the sandbox needs ABI %d (Linux 5.19) or later", abi, minABI)}
	}
	p, err := normalize(&Policy{Mode: ModeReadOnly, TempDir: os.TempDir()})
	if err != nil {
		return Status{Reason: err.Error()}
	}
	cmd := exec.Command(selfExe)
	cmd.Env = []string{}
	if err := (linuxBackend{}).wrap(cmd, p); err != nil {
		return Status{Reason: err.Error()}
	}
	cmd.Args, cmd.ExtraFiles = cmd.Args[:3], nil // no lifeline, no program: the helper sets up and exits
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		return Status{Reason: probeFailure(err, out.String())}
	}
	return Status{Available: true, Backend: backendName, ABI: abi}
}

// probeFailure says why the probe's helper did not run, from its error
// and its output.
func probeFailure(err error, out string) string {
	if _, exited := errors.AsType[*exec.ExitError](err); exited {
		msg := strings.TrimSpace(out)
		if msg == "" {
			msg = err.Error()
		}
		return "the sandbox helper failed: " + msg + " (a container or an AppArmor policy may forbid mounts in a user namespace)"
	}
	return fmt.Sprintf("the kernel refused to make the sandbox's namespaces (%v): unprivileged user namespaces are off "+
		"(sysctl kernel.unprivileged_userns_clone or user.max_user_namespaces, or AppArmor's "+
		"kernel.apparmor_restrict_unprivileged_userns), or a container forbids them", err)
}

func (linuxBackend) wrap(cmd *exec.Cmd, p *Policy) error {
	if cmd.Path == "" {
		return errors.New("sandbox: the command has no program")
	}
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		copied := *cmd.SysProcAttr
		attr = &copied
	}
	if attr.Chroot != "" || attr.Credential != nil || len(attr.UidMappings) > 0 || attr.Cloneflags&syscall.CLONE_NEWUSER != 0 {
		return errors.New("sandbox: the command sets its own credentials or namespaces, which the sandbox must own")
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	if !p.Network {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	// The helper runs as the user in its user namespace (so does the
	// command: `id -u` is the same inside), with the capabilities it
	// needs in the namespaces it owns kept as ambient ones.
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	attr.AmbientCaps = helperCaps
	// The helper watches rein's lifeline, to kill the command when rein
	// dies. It comes after the caller's extra files, which the program
	// does not get anyway.
	life, err := tether.Lifeline()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	fd := 3 + len(cmd.ExtraFiles)
	args := append([]string{"rein", helperArg, encodePolicy(p), strconv.Itoa(fd), "--", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args, cmd.SysProcAttr = selfExe, args, attr
	cmd.ExtraFiles = append(slices.Clip(cmd.ExtraFiles), life)
	return nil
}

// canWrite says whether the user could write path outside the sandbox
// (or create it, when it is missing): a permission error on a path the
// user cannot write anyway is not the sandbox's doing.
func canWrite(path string) bool {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		err := unix.Access(p, unix.W_OK)
		switch {
		case err == nil:
			return true
		case !errors.Is(err, unix.ENOENT) || p == "/":
			return false
		}
	}
}

// needsDumpable says whether cmd makes a new user namespace, whose
// uid_map the parent must write.
func (linuxBackend) needsDumpable(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Cloneflags&syscall.CLONE_NEWUSER != 0
}

// dumpable sets PR_SET_DUMPABLE to 1 when it is not, and returns how to
// set it back.
func (linuxBackend) dumpable() (func(), error) {
	was, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: read whether rein is dumpable (prctl PR_GET_DUMPABLE): %w", err)
	}
	if was == 1 {
		return func() {}, nil
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("sandbox: make rein dumpable to start the sandbox (prctl PR_SET_DUMPABLE): %w", err)
	}
	// Setting back 0 or 1, which the kernel just took or gave, cannot
	// fail.
	return func() { _ = unix.Prctl(unix.PR_SET_DUMPABLE, uintptr(was), 0, 0, 0) }, nil
}

// probeKey is what the probe's answer depends on: the kernel (release
// and build), its Landlock ABI, the sysctls that allow or forbid
// unprivileged user namespaces (Debian's, the limit, Ubuntu's AppArmor
// restriction), the user namespace rein runs in (another container is
// another one), the user, and rein's own executable file (device, inode,
// size, modification time: a new build may set the sandbox up
// otherwise). It costs a few reads of /proc and no process.
func (linuxBackend) probeKey() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		abi = -1
	}
	ns, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		return ""
	}
	var exe unix.Stat_t
	if unix.Stat(selfExe, &exe) != nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kernel %s %s; landlock %d; userns %s; uid %d gid %d; exe %d:%d:%d:%d.%09d",
		unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Version[:]), abi, ns,
		os.Getuid(), os.Getgid(), exe.Dev, exe.Ino, exe.Size, exe.Mtim.Sec, exe.Mtim.Nsec)
	for _, sysctl := range []string{"kernel/unprivileged_userns_clone", "user/max_user_namespaces", "kernel/apparmor_restrict_unprivileged_userns"} {
		v, err := os.ReadFile("/proc/sys/" + sysctl)
		if err != nil {
			v = []byte("-")
		}
		fmt.Fprintf(&b, "; %s %s", sysctl, strings.TrimSpace(string(v)))
	}
	return b.String()
}
