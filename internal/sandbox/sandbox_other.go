//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
)

// platform is the backend of a system without one: nothing can be
// sandboxed. A macOS backend (sandbox-exec with a profile made of the
// policy) would take this file's place there.
var platform backend = noBackend{}

// backendName is what Status.Backend would say: here no backend ever
// says the sandbox is available, so nothing is remembered.
const backendName = ""

// noBackend says the sandbox is unavailable, and why.
type noBackend struct{}

func (noBackend) probe() Status {
	return Status{Reason: "rein has no sandbox for " + runtime.GOOS + " yet (only Linux, with Landlock and user namespaces)"}
}

func (noBackend) wrap(*exec.Cmd, *Policy) error {
	return errors.New("sandbox: no sandbox on " + runtime.GOOS)
}

func (noBackend) helper([]string) int {
	return helperError(errors.New("no sandbox on " + runtime.GOOS))
}

// canWrite cannot tell here: a permission error is taken for the
// sandbox's.
func canWrite(string) bool { return true }

func (noBackend) needsDumpable(*exec.Cmd) bool { return false }

func (noBackend) dumpable() (func(), error) { return func() {}, nil }

// probeKey is empty: the answer here costs nothing, so it is not
// remembered.
func (noBackend) probeKey() string { return "" }

// startAhead has no helper to hand a command to here.
func startAhead(context.Context, *exec.Cmd) (func() (int, error), bool) { return nil, false }

// afterCommand starts nothing ahead here.
func afterCommand(*exec.Cmd) {}

// Close has nothing to end here.
func Close() {}
