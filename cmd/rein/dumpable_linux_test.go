package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// dumpableChild names the variable that makes the test binary, started
// again by TestNonDumpableKeepsProcSelf, be the non-dumpable process.
const dumpableChild = "REIN_TEST_NON_DUMPABLE_CHILD"

// Once non-dumpable, rein still reads its own /proc/self (its executable,
// for a helper it starts again; its descriptors, status and environment)
// and can exec itself through /proc/self/exe. The check runs in a child
// process, so this test's own process stays as it was.
func TestNonDumpableKeepsProcSelf(t *testing.T) {
	if os.Getenv(dumpableChild) == "1" {
		nonDumpableChild(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNonDumpableKeepsProcSelf$", "-test.v")
	cmd.Env = append(os.Environ(), dumpableChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "non-dumpable child: ok") {
		t.Fatalf("the non-dumpable child failed: %v\n%s", err, out)
	}
}

// nonDumpableChild is the child's side of TestNonDumpableKeepsProcSelf.
func nonDumpableChild(t *testing.T) {
	if err := nonDumpable(); err != nil {
		t.Fatal(err)
	}
	if d, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_DUMPABLE, 0, 0); errno != 0 || d != 0 {
		t.Fatalf("PR_GET_DUMPABLE = %d (%v), want 0", d, errno)
	}
	exe, err := os.Executable()
	if err != nil || exe == "" {
		t.Fatalf("os.Executable() = %q, %v", exe, err)
	}
	for _, f := range []string{"/proc/self/status", "/proc/self/environ", "/proc/self/maps"} {
		if _, err := os.ReadFile(f); err != nil {
			t.Errorf("read %s: %v", f, err)
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err != nil || len(fds) == 0 {
		t.Errorf("list /proc/self/fd: %d entries, %v", len(fds), err)
	}
	// The child started again is dumpable (exec resets it), and runs.
	out, err := exec.Command("/proc/self/exe", "-test.run=^$").CombinedOutput()
	if err != nil {
		t.Errorf("exec /proc/self/exe: %v\n%s", err, out)
	}
	t.Log("non-dumpable child: ok")
}
