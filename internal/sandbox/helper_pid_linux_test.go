package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The helper kills "every process of the namespace" with kill(-1), which
// means that only from PID 1 of a namespace of its own. Started any other
// way (rein sandbox-exec run by hand, or by a command), it refuses to run
// and kills nothing. The test runs it as PID 3 of a PID namespace made
// for the test, beside a sleep (PID 2) that a kill(-1) would end, with a
// lifeline already at its end, which tells the helper that rein is gone.
// The shell is root of its user namespace, with a mount namespace of its
// own, so that the helper could set its sandbox up and run the program:
// only its being PID 1 is missing.
func TestHelperKillsNothingUnlessPIDOne(t *testing.T) {
	if st := Probe(); !st.Available {
		if os.Getenv("REIN_REQUIRE_SANDBOX") != "" {
			t.Fatalf("no sandbox on this machine, and REIN_REQUIRE_SANDBOX is set: %s", st.Reason)
		}
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	policy := encodePolicy(&Policy{Mode: ModeWorkspaceWrite, Network: true, Writable: []string{t.TempDir()}, TempDir: t.TempDir()})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.Close() // the lifeline reads end of file at once
	defer r.Close()
	script := `sleep 30 & s=$!
"$0" sandbox-exec "$1" 3 -- true; echo "helper exited $?"
sleep 0.2
if kill -0 "$s" 2>/dev/null; then echo "sleep alive"; kill "$s"; else echo "sleep killed"; fi`
	cmd := exec.Command("/bin/sh", "-c", script, os.Args[0], policy)
	cmd.ExtraFiles = []*os.File{r}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"helper exited 125", "sleep alive", "PID 1"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
