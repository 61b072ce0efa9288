package tether_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/tether"
	"github.com/rein-agent/rein/internal/tether/tethertest"
)

// parentEnv makes the test binary, run again by TestDiesWithRein, the
// process that starts a tethered command and is then killed.
const parentEnv = "REIN_TETHER_TEST_PARENT"

// command returns a tethered sh -c script.
func command(t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", script}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "X=from-env"}
	if err := tether.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if cmd.Path != "/proc/self/exe" {
		t.Fatalf("Wrap left the command as it was: %s %q", cmd.Path, cmd.Args)
	}
	return cmd
}

// A tethered command runs as it would without the helper: its arguments
// ($0 included), environment, working directory, input and output, and
// its exit status (128+N for a signal, as a shell says it).
func TestWrapRunsTheProgramAsItIs(t *testing.T) {
	dir := t.TempDir()
	cmd := command(t, `echo "$0 $1 $X $(pwd)"; cat; echo oops >&2; exit 3`, "name", "arg")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("input\n")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 3 {
		t.Errorf("Run() = %v, want exit status 3", err)
	}
	if want := "name arg from-env " + dir + "\ninput\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if errOut.String() != "oops\n" {
		t.Errorf("stderr %q", errOut.String())
	}

	cmd = command(t, `kill -TERM $$`)
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("a program killed by SIGTERM: %v, want exit status 143", err)
	}
}

// A signal sent to the group, as a cancel sends it, reaches the program,
// and the helper outlives it to report how the program ended. Without
// Setsid or Setpgid the command still gets a group of its own.
func TestSignalsToTheGroupReachTheProgram(t *testing.T) {
	cmd := command(t, `trap 'echo trapped; exit 5' TERM; echo ready; while :; do sleep 0.01; done`)
	if !cmd.SysProcAttr.Setpgid {
		t.Fatalf("SysProcAttr %+v: want a process group of its own", cmd.SysProcAttr)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	if line, _ := r.ReadString('\n'); line != "ready\n" {
		t.Fatalf("first line %q", line)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := r.ReadString('\n')
	err = cmd.Wait()
	if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 5 || rest != "trapped\n" {
		t.Errorf("after SIGTERM to the group: %v, output %q; want exit status 5 and trapped", err, rest)
	}
}

// The program does not get the lifeline: it cannot keep itself alive by
// holding it, nor does anything it starts.
func TestTheProgramDoesNotHoldTheLifeline(t *testing.T) {
	r, err := tether.Lifeline()
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(int(r.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	out, err := command(t, `for f in /proc/$$/fd/*; do readlink "$f"; done; true`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if pipe := fmt.Sprintf("pipe:[%d]", st.Ino); strings.Contains(string(out), pipe) {
		t.Errorf("the program holds the lifeline %s:\n%s", pipe, out)
	}
}

// A program that cannot run is left to Start, which says why as it would
// have; a command that joins another group cannot be tethered.
func TestWrapLeavesWhatCannotRun(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "script")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []*exec.Cmd{exec.Command(filepath.Join(dir, "missing")), exec.Command(notExec), exec.Command(dir)} {
		path := cmd.Path
		if err := tether.Wrap(cmd); err != nil || cmd.Path != path {
			t.Errorf("Wrap(%s) = %v, path %s; want it left alone", path, err, cmd.Path)
		}
		if err := cmd.Start(); err == nil {
			t.Errorf("%s started", path)
		}
	}
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: os.Getpid()}
	if err := tether.Wrap(cmd); err == nil {
		t.Error("Wrap of a command that joins another group succeeded")
	}
}

// The test of the package: when the process that started a tethered
// command is killed with SIGKILL, the helper, the program and what the
// program started in its group (a background job, one that ignores
// SIGTERM) all die, soon, with no one left to ask them; also when the
// program ends by itself as the parent dies (its input ended), before the
// helper hears of the death from the lifeline.
func TestDiesWithRein(t *testing.T) {
	if dir := os.Getenv(parentEnv); dir != "" {
		os.Exit(parent(dir))
	}
	for _, tc := range []struct {
		name, script string
		sleeps       int
	}{
		{"program running", `sleep %[1]s & (trap '' TERM; sleep %[1]s) & exec sleep %[1]s`, 3},
		{"program ends with its input", `sleep %[1]s & (trap '' TERM; sleep %[1]s) & cat >/dev/null`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := tethertest.Marker()
			cmd := exec.Command(os.Args[0], "-test.run=^TestDiesWithRein$")
			cmd.Env = append(os.Environ(), parentEnv+"="+tc.script, "MARKER="+marker, "SLEEPS="+strconv.Itoa(tc.sleeps))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("the parent said %q: %v", line, err)
			}
			helper, _ := strconv.Atoi(strings.TrimSpace(line))
			if n := len(tethertest.Processes(marker)); n != tc.sleeps || !tethertest.Alive(helper) {
				t.Fatalf("before the kill: %d sleeps, helper alive %v; want %d and true", n, tethertest.Alive(helper), tc.sleeps)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			if left := tethertest.WaitGone(marker, 10*time.Second); len(left) > 0 || tethertest.Alive(helper) {
				t.Errorf("after the parent's SIGKILL, left running: %v, helper alive %v", left, tethertest.Alive(helper))
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// input is the parent's end of the script's input, held open (never
// collected) until the parent dies.
var input io.WriteCloser

// parent starts a tethered sh -c script (a format, of the marker) with
// its input a pipe from this process, says the helper's pid once the
// script's sleeps run, and waits to be killed.
func parent(script string) int {
	m := os.Getenv("MARKER")
	sleeps, _ := strconv.Atoi(os.Getenv("SLEEPS"))
	cmd := exec.Command("sh", "-c", fmt.Sprintf(script, m))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var err error
	if input, err = cmd.StdinPipe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := tether.Wrap(cmd); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for deadline := time.Now().Add(10 * time.Second); len(tethertest.Processes(m)) < sleeps && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println(cmd.Process.Pid)
	select {}
}
