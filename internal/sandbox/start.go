package sandbox

import (
	"os/exec"
	"sync"
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
