package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/workspace"
)

// Mode is how much a sandboxed command may change.
type Mode string

// The modes of the sandbox.
const (
	// ModeWorkspaceWrite lets a command write under the writable roots
	// and the private temporary directory, but for the read-only paths
	// in them. It is the default.
	ModeWorkspaceWrite Mode = "workspace-write"
	// ModeReadOnly lets a command write nothing but the private
	// temporary directory.
	ModeReadOnly Mode = "read-only"
	// ModeOff runs commands without a sandbox.
	ModeOff Mode = "off"
)

// ParseMode reads a mode as the configuration and the command line spell
// it; the empty string is the default, [ModeWorkspaceWrite].
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.TrimSpace(s)); m {
	case "":
		return ModeWorkspaceWrite, nil
	case ModeWorkspaceWrite, ModeReadOnly, ModeOff:
		return m, nil
	}
	return "", fmt.Errorf("sandbox: unknown mode %q: want %q, %q or %q", s, ModeWorkspaceWrite, ModeReadOnly, ModeOff)
}

// Policy is what a sandboxed command may do. Paths are absolute, or start
// with ~ for the home directory (see [Expand]); Wrap expands them. A nil
// *Policy, like Mode [ModeOff], means no sandbox. Wrap only reads a
// Policy, so one may serve concurrent calls as long as nobody changes it.
type Policy struct {
	// Mode is how much a command may change; the empty Mode is
	// [ModeWorkspaceWrite].
	Mode Mode
	// Writable are the roots a command may write under in
	// [ModeWorkspaceWrite]: the workspace roots, the --add-dir roots,
	// the toolchain caches ([DefaultWritable]). Missing ones are made
	// (a cache the tool would make on first use could not be made
	// inside, its parent not being writable); those that cannot be are
	// skipped. They are ignored in [ModeReadOnly].
	Writable []string
	// ReadOnly are paths under the writable roots that stay read-only
	// ([Protected] makes the list for a workspace). A path that ends in
	// a slash names a directory: when it is missing it is created,
	// empty, so that it can be made read-only. A missing file cannot be
	// made read-only, so it is watched instead: if the command creates
	// it, it is removed when the command ends, before the call returns.
	// Paths outside the writable roots are read-only anyway and are
	// skipped.
	ReadOnly []string
	// DenyRead are paths a command cannot read: a directory looks empty
	// and cannot be listed, a file cannot be opened ([DefaultDenyRead]:
	// credential stores, rein's own configuration and sessions, the
	// sockets of programs that would run commands outside). Missing
	// ones are skipped. A writable root inside one stays reachable.
	DenyRead []string
	// Network lets a command reach the network. When it is false the
	// command gets a network of its own with nothing but a loopback:
	// servers started inside can be reached from inside, nothing else.
	Network bool
	// TempDir is the private temporary directory: always writable, and
	// TMPDIR (and GOTMPDIR when the environment sets it) point there.
	// It is created when missing. It must be set.
	TempDir string
}

// mode is p's mode with the default applied; a nil p is off.
func (p *Policy) mode() Mode {
	switch {
	case p == nil:
		return ModeOff
	case p.Mode == "":
		return ModeWorkspaceWrite
	}
	return p.Mode
}

// Record returns the policy as tool.invocation.started records it: the
// mode, the writable paths (the roots in workspace-write, and the
// temporary directory), the read-only and hidden paths, expanded, and
// whether the network is on. A nil p records nothing (nil); a policy
// that is off records only its mode.
func (p *Policy) Record() *contract.SandboxSpec {
	switch m := p.mode(); {
	case p == nil:
		return nil
	case m == ModeOff:
		return &contract.SandboxSpec{Mode: string(ModeOff)}
	default:
		spec := &contract.SandboxSpec{Mode: string(m), DenyRead: withSockets(Expand(p.DenyRead)), Network: p.Network}
		if m == ModeWorkspaceWrite {
			spec.Writable = Expand(p.Writable)
			spec.ReadOnly = Expand(p.ReadOnly)
		}
		if t := Expand([]string{p.TempDir}); len(t) == 1 && !slices.Contains(spec.Writable, t[0]) {
			spec.Writable = append(spec.Writable, t[0])
		}
		return spec
	}
}

// Status says whether commands can be sandboxed on this machine.
type Status struct {
	// Available is true when [Wrap] can sandbox a command.
	Available bool
	// Reason says, in words for a person, why the sandbox is not
	// available; empty when it is.
	Reason string
	// Backend names what contains the commands: "landlock+userns" on
	// Linux; empty when none is available.
	Backend string
	// ABI is the Landlock ABI version in force on Linux (2 or more when
	// available); 0 elsewhere.
	ABI int
}

// Record returns the status as session.started records it.
func (s Status) Record() *contract.SandboxStatus {
	return &contract.SandboxStatus{Available: s.Available, Backend: s.Backend, Reason: s.Reason}
}

// backend is one system's way of sandboxing commands: Landlock and
// namespaces on Linux; a macOS backend would wrap the command in
// sandbox-exec with a profile made of the policy.
type backend interface {
	// probe finds out whether commands can be sandboxed here.
	probe() Status
	// wrap rewrites cmd to run under p, whose mode is not off and
	// whose paths are expanded and absolute.
	wrap(cmd *exec.Cmd, p *Policy) error
	// helper is the sandbox's side of a wrapped command, run with the
	// arguments after "sandbox-exec"; it returns the exit code.
	helper(args []string) int
	// needsDumpable says whether cmd, as wrap left it, can only start
	// from a dumpable process (see [Start]).
	needsDumpable(cmd *exec.Cmd) bool
	// dumpable makes the process dumpable, and returns how to restore
	// what it was.
	dumpable() (restore func(), err error)
	// probeKey is what probe's answer depends on, for ProbeRemembered;
	// "" when it cannot be told, and the answer is not remembered.
	probeKey() string
}

// Probe says whether commands can be sandboxed here, and if not why. On
// Linux it checks the Landlock ABI and starts the sandbox helper once, in
// the namespaces a command gets, with nothing to run. The result is
// cached for the process (what the kernel allows does not change while
// rein runs), or is [ProbeRemembered]'s when that was called first;
// Probe is safe for concurrent use.
func Probe() Status {
	probeState.once.Do(func() { probeState.status = platform.probe() })
	return probeState.status
}

// ErrUnavailable is wrapped by Wrap's error when the sandbox cannot be
// had on this machine; the error says why.
var ErrUnavailable = errors.New("sandbox: not available")

// Wrap rewrites cmd, built by exec.Command and not yet started, to run
// inside the sandbox p describes: its Path and Args start the sandbox
// helper, which runs the original program; its SysProcAttr gains the
// namespaces (what it set, such as Setsid, is kept); its Env gains TMPDIR
// (and GOTMPDIR when set) pointing at p.TempDir, which is created when
// missing; its ExtraFiles gain this process's lifeline (package tether),
// after the caller's, which the program does not get. cmd.Env must be
// set: the sandbox never inherits rein's own environment. A nil p or
// [ModeOff] leaves cmd alone.
//
// The exit code of the wrapped command is the program's (128+N when
// signal N killed it); 125 means the sandbox could not be set up, and
// the output says why. When the program exits, every process it left
// behind is killed before the wrapped command ends, so nothing outlives
// it; when this process dies first, however it dies, the program and
// everything it started are killed, and what it planted in a protected
// place removed, just the same. The program shares the wrapped command's process group: SIGTERM,
// SIGINT, SIGHUP or SIGQUIT sent to the group reach it as they would
// outside, while the helper outlives them to report how the program
// ended.
//
// Wrap fails, wrapping [ErrUnavailable], when [Probe] says the sandbox
// is unavailable, and on a policy it cannot apply.
func Wrap(cmd *exec.Cmd, p *Policy) error {
	if p.mode() == ModeOff {
		return nil
	}
	if st := Probe(); !st.Available {
		return fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
	}
	if cmd.Env == nil {
		return errors.New("sandbox: the command has no environment of its own (cmd.Env is nil), and would get rein's")
	}
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	np, err := normalize(p)
	if err != nil {
		return err
	}
	cmd.Env = tempEnv(cmd.Env, np.TempDir)
	return platform.wrap(cmd, np)
}

// normalize returns p with its mode set, its paths expanded, cleaned and
// resolved through symbolic links, the missing writable roots made (and
// dropped when they cannot be), the missing hidden paths dropped, the
// read-only paths outside the writable roots dropped, and the temporary
// directory made.
func normalize(p *Policy) (*Policy, error) {
	n := &Policy{Mode: p.mode(), Network: p.Network}
	tmp := Expand([]string{p.TempDir})
	if len(tmp) == 0 {
		return nil, errors.New("sandbox: the policy has no temporary directory (TempDir), which must be an absolute path")
	}
	if err := os.MkdirAll(tmp[0], 0o700); err != nil {
		return nil, fmt.Errorf("sandbox: create the temporary directory: %w", err)
	}
	var err error
	if n.TempDir, err = filepath.EvalSymlinks(tmp[0]); err != nil {
		return nil, fmt.Errorf("sandbox: the temporary directory: %w", err)
	}
	n.DenyRead = existing(withSockets(Expand(p.DenyRead)))
	if n.Mode == ModeWorkspaceWrite {
		w := Expand(p.Writable)
		for _, root := range w {
			// A cache that is missing is made, as the tool that uses it
			// would make it on first use: inside the sandbox it could not,
			// since its parent (the home directory) is not writable.
			// Where that fails the root is skipped.
			if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
				_ = os.MkdirAll(root, 0o755)
			}
		}
		n.Writable = existing(w)
		// The read-only paths mostly share their directories (the
		// repository's): resolved together.
		var res workspace.Resolver
		for _, ro := range Expand(p.ReadOnly) {
			r := resolveParent(&res, ro)
			if slices.ContainsFunc(n.Writable, func(w string) bool { return within(r, w) }) && !slices.Contains(n.ReadOnly, r) {
				n.ReadOnly = append(n.ReadOnly, r)
			}
		}
	}
	return n, nil
}

// withSockets returns paths and, after them, the sockets under /tmp and
// /var/tmp that it does not list (see tmpSockets): what a sandboxed
// command may not reach whatever its policy says.
func withSockets(paths []string) []string {
	out := slices.Clip(paths)
	for _, s := range tmpSockets() {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// tempEnv returns env with TMPDIR set to dir, and GOTMPDIR too when env
// sets it, in place of any earlier entries of those names.
func tempEnv(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	gotmp := false
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TMPDIR":
			continue
		case "GOTMPDIR":
			gotmp = true
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TMPDIR="+dir)
	if gotmp {
		out = append(out, "GOTMPDIR="+dir)
	}
	return out
}

// existing returns the paths that exist, resolved through symbolic links
// (filepath.EvalSymlinks: one written with a trailing slash must be a
// directory), without repeats. They are resolved together
// ([workspace.Places]): most of the hidden paths are missing, many under
// the same missing directory, and a command's start pays for each.
func existing(paths []string) []string {
	var out []string
	for i, pl := range workspace.Places(paths) {
		r := pl.Real
		if r == "" || slices.Contains(out, r) || strings.HasSuffix(paths[i], "/") && !isDir(r) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// isDir reports whether path is a directory, its links followed.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// resolveParent resolves the directory part of p through symbolic links
// (with r), leaving its last element as it is (it may be missing, or a
// link that the helper must see as such); a trailing slash is kept. A
// parent that does not exist is resolved as far as it does.
func resolveParent(r *workspace.Resolver, p string) string {
	slash := strings.HasSuffix(p, "/")
	p = filepath.Clean(p)
	dir, base := filepath.Split(p)
	real := filepath.Join(r.Reach(filepath.Clean(dir)), base)
	if slash {
		real += "/"
	}
	return real
}

// within says whether path is root or lies under it. Both are clean
// absolute paths; a trailing slash on either is ignored.
func within(path, root string) bool {
	path, root = strings.TrimSuffix(path, "/"), strings.TrimSuffix(root, "/")
	if root == "" {
		return true // "/"
	}
	return path == root || strings.HasPrefix(path, root+"/")
}
