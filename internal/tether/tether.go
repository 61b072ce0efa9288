package tether

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// helperArg is the first argument that makes rein the tether's helper.
const helperArg = "tether-exec"

// lifeline is rein's end of the pipe the helpers watch: the read end,
// which the helpers get a copy of. The write end is held in lifelineW for
// as long as the process lives (a package variable: the file is never
// collected, so never closed), and only here: os.Pipe makes both ends
// close on exec, so a child holds it at most between its fork and its
// exec.
var lifeline = sync.OnceValues(func() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("tether: make the lifeline: %w", err)
	}
	lifelineW = w
	return r, nil
})

// lifelineW is the write end of the lifeline; see lifeline. It is only
// ever stored: holding it is its job (collected, its finalizer would close
// it, and every helper would take rein for dead).
//
//lint:ignore U1000 never read on purpose: the variable keeps the write end from being collected and closed.
var lifelineW *os.File

// Lifeline returns the read end of this process's lifeline, for a helper
// that supervises a child (the sandbox's) to watch with [Watch]: pass it
// in the child's ExtraFiles. It reads end of file once this process has
// ended, however it ended, and never before. The file is shared: never
// close it. It fails only when no pipe can be made. Safe for concurrent
// use.
func Lifeline() (*os.File, error) {
	return lifeline()
}

// Wrap rewrites cmd, built by exec.Command and not yet started, so that
// it dies with this process: on Linux its Path and Args start the tether's
// helper (this executable again), which runs the original program in its
// own process group and kills that group when this process ends; its
// SysProcAttr gains Setpgid unless it sets Setsid or Setpgid already, and
// its ExtraFiles gain the lifeline (after the caller's, which the program
// does not get: it gets standard input, output and error only). The
// program's exit status is the command's (128+N when signal N killed
// it); signals sent to the group reach the program as they would without
// the helper, which outlives SIGTERM, SIGINT, SIGHUP and SIGQUIT to report
// how the program ended.
//
// A command whose program cannot be found or is not executable is left
// as it is, so that its Start reports why as it would have. On other
// systems Wrap leaves cmd as it is. It fails when cmd has started, or
// when no lifeline can be made.
func Wrap(cmd *exec.Cmd) error {
	if cmd.Process != nil {
		return errors.New("tether: the command has already started")
	}
	return wrap(cmd)
}
