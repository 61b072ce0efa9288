//go:build linux

package sandbox_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rein-agent/rein/internal/sandbox"
	"golang.org/x/sys/unix"
)

// nonDumpableEnv makes the test binary, run again by
// TestStartFromANonDumpableProcess, the non-dumpable process that starts
// a sandboxed command.
const nonDumpableEnv = "REIN_SANDBOX_TEST_NONDUMPABLE"

// A process that made itself non-dumpable, as rein does, and is not root
// can still probe the sandbox and start a sandboxed command: a child in a
// new user namespace inherits non-dumpable until its exec, and its
// uid_map is then root's to write. When the test runs as root, the
// process runs as nobody.
func TestStartFromANonDumpableProcess(t *testing.T) {
	if dir := os.Getenv(nonDumpableEnv); dir != "" {
		os.Exit(startNonDumpable(dir))
	}
	needSandbox(t)
	root, err := os.MkdirTemp("", "rein-sandbox-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "sandbox.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(root, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestStartFromANonDumpableProcess$")
	cmd.Dir = root
	cmd.Env = []string{nonDumpableEnv + "=" + tmp, "PATH=/usr/bin:/bin"}
	if os.Geteuid() == 0 {
		if err := os.Chown(tmp, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("cannot run as nobody: %v", err)
	}
	if err != nil {
		t.Fatalf("the non-dumpable process: %v\n%s", err, out)
	}
}

// startNonDumpable makes the process non-dumpable, then probes and starts
// a sandboxed true with its temporary directory under dir; it returns the
// exit code, having said what failed.
func startNonDumpable(dir string) int {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		fmt.Println("prctl:", err)
		return 1
	}
	if st := sandbox.Probe(); !st.Available {
		fmt.Println("probe:", st.Reason)
		return 1
	}
	cmd := exec.Command("/bin/true")
	cmd.Env = []string{}
	err := sandbox.Wrap(cmd, &sandbox.Policy{Mode: sandbox.ModeReadOnly, TempDir: filepath.Join(dir, "t")})
	if err == nil {
		err = sandbox.Start(cmd)
	}
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		fmt.Println("sandboxed true:", err)
		return 1
	}
	if d, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0); d != 0 {
		fmt.Println("the process is dumpable again after the start")
		return 1
	}
	return 0
}
