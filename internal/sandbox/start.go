package sandbox

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
)

// startMu serialises the starts that make the process dumpable for a
// moment (see [Start]), so that one start's restore never undoes another's
// window.
var startMu sync.Mutex

// Start starts cmd, which [Wrap] may have rewritten, as cmd.Start does. A
// sandboxed command's child is made in a new user namespace, whose
// uid_map the parent writes after the clone: a child of a non-dumpable
// process (rein makes itself one, so that a tool cannot read its memory)
// has a /proc/<pid> of root's, which a parent that is not root cannot
// write, and the start fails with "permission denied". Start makes the
// process dumpable for just the start of such a command, and restores
// what it was once the child has run its exec (which makes it dumpable
// again by itself). It is safe for concurrent use; a command without a
// sandbox starts as usual. When a sandboxed command cannot start and the
// sandbox was only remembered as available ([ProbeRemembered]), the error
// says so and the memory is forgotten: the command never runs without
// its sandbox.
func Start(cmd *exec.Cmd) error {
	if !platform.needsDumpable(cmd) {
		return cmd.Start()
	}
	startMu.Lock()
	defer startMu.Unlock()
	restore, err := platform.dumpable()
	if err != nil {
		return err
	}
	defer restore()
	if err := cmd.Start(); err != nil {
		return forget(err)
	}
	return nil
}

// Process is a command started by [StartProcess].
type Process struct {
	// Pid is the process id of the command's process: a sandboxed
	// command's helper, which leads the command's process group or
	// session when cmd asked for one.
	Pid int
	cmd *exec.Cmd
	// waitAhead, for a command handed to a helper started ahead, waits
	// for its status.
	waitAhead func() (int, error)
}

// StartProcess starts cmd, which [Wrap] may have rewritten, as [Start]
// does, with ctx the context cmd was made with (exec.CommandContext's,
// or context.Background()). A sandboxed command may instead be handed to a helper
// started ahead of it for the same policy, and cmd's own process is then
// never started: wait for the command with [Process.Wait], never
// cmd.Wait. When ctx is done, cmd.Cancel is called (cmd.Process is then
// the helper's), and the helper is killed cmd.WaitDelay later, as
// exec.Cmd does.
//
// On Linux, once a sandboxed command has ended, a helper for its policy
// is started ahead, in the background, for the next command; the next
// command with the same policy, the same process attributes and its
// standard files nil or *os.File takes it, unless what the helper's
// mounts were made from (the policy as Wrap makes it now, and the
// type, device and inode of every path it names and of their parents)
// has changed since, or one of its mounts was lifted; then it is
// discarded and the command starts as [Start] starts it. [Close] ends
// the helper that waits.
func StartProcess(ctx context.Context, cmd *exec.Cmd) (*Process, error) {
	commands.started.Add(1)
	commands.running.Add(1)
	if wait, ok := startAhead(ctx, cmd); ok {
		return &Process{Pid: cmd.Process.Pid, waitAhead: wait}, nil
	}
	if err := Start(cmd); err != nil {
		commands.running.Add(-1)
		return nil, err
	}
	return &Process{Pid: cmd.Process.Pid, cmd: cmd}, nil
}

// commands counts the commands StartProcess started (a helper started
// ahead must not set up while one runs: see startNext).
var commands struct {
	started atomic.Int64 // ever
	running atomic.Int64 // now
}

// Wait waits for the command to end and returns its exit code (128+N
// when signal N killed it). It fails only when the command's end cannot
// be told.
//
// A sandboxed command that ended as the helper does when it cannot set
// the sandbox up (exit status 125; a command may end so too) has the
// machine asked again, once, when the sandbox was only remembered as
// available ([ProbeRemembered]): if it cannot sandbox after all (a
// policy that now refuses mounts in a user namespace, which the
// remembered key does not name), the memory is forgotten, so that the
// next start asks instead of failing every command. The command itself
// has run in its sandbox or not at all.
func (p *Process) Wait() (int, error) {
	if p.waitAhead != nil {
		code, err := p.waitAhead() // it ends the count of the running
		if err == nil {
			probeState.ended(code, platform.probe)
		}
		return code, err
	}
	err := p.cmd.Wait()
	commands.running.Add(-1)
	afterCommand(p.cmd)
	if p.cmd.ProcessState == nil {
		return 0, err
	}
	code := exitCodeOf(p.cmd.ProcessState)
	if platform.needsDumpable(p.cmd) { // sandboxed
		probeState.ended(code, platform.probe)
	}
	return code, nil
}

// exitCodeOf is the shell convention for how a process ended: its exit
// status, or 128+N when signal N killed it.
func exitCodeOf(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
