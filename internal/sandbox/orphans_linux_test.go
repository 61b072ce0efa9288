package sandbox_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/sandbox"
	"github.com/rein-agent/rein/internal/tether"
	"github.com/rein-agent/rein/internal/tether/tethertest"
)

// orphanParentEnv makes the test binary, run again by
// TestNothingOutlivesRein, the process that starts a sandboxed command
// and is then killed: its value is the policy, as JSON.
const orphanParentEnv = "REIN_SANDBOX_TEST_ORPHAN_PARENT"

// When the process that started a sandboxed command dies by SIGKILL, as
// rein may, the sandbox's helper and everything the command started (a
// background job, a double fork, a setsid daemon) die too, and what the
// command planted in protected places is removed as when it ends, though
// nobody reads what the helper says any more.
func TestNothingOutlivesRein(t *testing.T) {
	if p := os.Getenv(orphanParentEnv); p != "" {
		os.Exit(orphanParent(p))
	}
	needSandbox(t)
	w := newWorld(t)
	writeFile(t, w.ws+"/.gitmodules", "[submodule \"a\"]\n\tpath = a\n[submodule \"b\"]\n\tpath = b\n")
	w.policy.ReadOnly = sandbox.Protected([]string{w.ws}) // a/.git and b/.git among them
	policy, err := json.Marshal(w.policy)
	if err != nil {
		t.Fatal(err)
	}
	marker := tethertest.Marker()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNothingOutlivesRein$")
	cmd.Dir = w.ws
	cmd.Env = append(os.Environ(), orphanParentEnv+"="+string(policy), "MARKER="+marker)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "running") {
		cmd.Process.Kill()
		t.Fatalf("the parent said %q: %v", line, err)
	}
	if n := len(tethertest.Processes(marker)); n != 4 {
		t.Fatalf("%d processes run the command's sleeps; want 4", n)
	}
	planted := []string{w.ws + "/a/.git", w.ws + "/b/.git"}
	for _, p := range planted {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the planted file: %v", err)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if left := tethertest.WaitGone(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("after the parent's SIGKILL, left running: %v", left)
		kill(left)
	}
	// Both, though saying the first was removed met a broken pipe.
	for _, p := range planted {
		for deadline := time.Now().Add(10 * time.Second); notThere(p) != "" && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if msg := notThere(p); msg != "" {
			t.Error(msg)
		}
	}
}

// orphanParent starts a sandboxed command, under the policy in JSON, that
// plants two files in protected places and starts three sleeps besides its
// own, says "running" once all four run, and waits to be killed.
func orphanParent(policy string) int {
	var p sandbox.Policy
	if err := json.Unmarshal([]byte(policy), &p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	m := os.Getenv("MARKER")
	cmd := exec.Command("bash", "-c", fmt.Sprintf(`for d in a b; do mkdir -p $d && echo gitdir: ../evil > $d/.git; done
sleep %[1]s & (sleep %[1]s &) & setsid sleep %[1]s & exec sleep %[1]s`, m))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out bytes.Buffer // a pipe that nobody reads once this process is gone
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := sandbox.Wrap(cmd, &p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := sandbox.Start(cmd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for deadline := time.Now().Add(10 * time.Second); len(tethertest.Processes(m)) < 4 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println("running")
	select {}
}

// The sandboxed program does not get rein's lifeline, which the helper
// holds: it cannot keep the helper from hearing of rein's death by
// holding it open, nor read it.
func TestSandboxedProgramDoesNotHoldTheLifeline(t *testing.T) {
	needSandbox(t)
	r, err := tether.Lifeline()
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(r.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t)
	out, code := w.run(t, w.policy, `for f in /proc/$$/fd/*; do readlink "$f"; done; true`)
	if code != 0 || !strings.Contains(out, "pipe:[") {
		t.Fatalf("exit code %d, output %q; want the descriptors listed (the output is a pipe)", code, out)
	}
	if pipe := fmt.Sprintf("pipe:[%d]", st.Ino); strings.Contains(out, pipe) {
		t.Errorf("the sandboxed program holds the lifeline %s:\n%s", pipe, out)
	}
}
