package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"
	"github.com/rein-agent/rein/internal/tether/tethertest"
)

var jobID = regexp.MustCompile(`job_[0-9A-Z]+`)

// jobEvents returns the job.started and job.finished events of the one
// session log under stateDir.
func jobEvents(t *testing.T, stateDir string) (started []*contract.JobStarted, finished []*contract.JobFinished) {
	t.Helper()
	for _, env := range events(t, stateDir) {
		switch e := env.Data.(type) {
		case *contract.JobStarted:
			started = append(started, e)
		case *contract.JobFinished:
			finished = append(finished, e)
		}
	}
	return started, finished
}

// Through the binary, over HTTP: a background job returns at once (its
// command runs for a thousand seconds), its output is read later with
// job_output, and after the headless run's end no process of it is left;
// its start and end (session_end) are in the log, its output an artifact.
func TestBackgroundJobThroughTheBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finding the job's processes reads /proc")
	}
	marker := tethertest.Marker()
	stateDir := t.TempDir()
	printed := func() {
		// The job's first line is in its artifact, so job_output has it:
		// the model reads it only then.
		for hang := time.Now().Add(30 * time.Second); time.Now().Before(hang); time.Sleep(10 * time.Millisecond) {
			arts, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "*", "artifacts", "job_*.txt"))
			for _, a := range arts {
				if b, _ := os.ReadFile(a); strings.Contains(string(b), "hello-from-the-job") {
					return
				}
			}
		}
	}
	srv := serveChat(t, []chatTurn{
		{text: "Starting the server.", tool: "bash", args: `{"command":"echo hello-from-the-job; sleep ` + marker + `","run_in_background":true}`},
		{expect: []string{"Started background job", "job_output"}, text: "Reading it.", tool: "job_output", before: printed,
			argsOf: func(last string) string {
				b, _ := json.Marshal(map[string]string{"id": jobID.FindString(last)})
				return string(b)
			}},
		{expect: []string{"is running", "hello-from-the-job"}, text: "The server runs."},
	})
	cmd := exec.Command(rein, "exec", "--provider", "openai", "--model", "m", "--base-url", srv.URL+"/v1", "--permission-mode", "yolo", "start it")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "OPENAI_API_KEY=sk-jobs-test-key", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	srv.mu.Lock()
	for _, p := range srv.problems {
		t.Error(p)
	}
	srv.mu.Unlock()
	if left := tethertest.WaitGone(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("after the run, processes of its job live on:\n%s", strings.Join(commandLines(left), "\n"))
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	started, finished := jobEvents(t, stateDir)
	if len(started) != 1 || len(finished) != 1 || finished[0].JobID != started[0].JobID || finished[0].Outcome != contract.JobSessionEnd {
		t.Fatalf("job events: started %+v, finished %+v", started, finished)
	}
	logs, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "ses_*"))
	if b, err := os.ReadFile(filepath.Join(logs[0], filepath.FromSlash(started[0].Artifact))); err != nil || string(b) != "hello-from-the-job\n" {
		t.Errorf("the job's artifact: %q, %v", b, err)
	}
}

// kill -9 of rein while a background job runs (and a foreground command
// keeps the run busy) leaves no process of the job, sandboxed or not; the
// resume that follows records the job as ended by the restart, and the
// model is told.
func TestKill9EndsBackgroundJobs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has the helpers that kill what rein started, and /proc to look for it")
	}
	for _, tc := range []struct {
		name      string
		args      []string
		sandboxed bool
	}{
		{name: "sandboxed", sandboxed: true},
		{name: "without a sandbox", args: []string{"--sandbox", "off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sandboxed {
				sandboxtest.Need(t)
			}
			job, busy := tethertest.Marker(), tethertest.Marker()
			background := `{"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"sleep ` + job + `","run_in_background":true}}},{"finish":"tool_use"}]}`
			script := writeScript(t, `{"turns":[`+background+`,`+bashTurn("sleep "+busy)+`,
				{"steps":[{"text":"resumed"},{"finish":"stop"}]},
				{"steps":[{"text":"again"},{"finish":"stop"}]}]}`)
			ws, stateDir := t.TempDir(), t.TempDir()
			env := append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "TMPDIR="+t.TempDir(), "NO_COLOR=1")
			run := func(args ...string) *exec.Cmd {
				cmd := exec.Command(rein, append(append(args, "--provider", "scripted", "--script", script, "--permission-mode", "yolo"), tc.args...)...)
				cmd.Dir, cmd.Env = ws, env
				return cmd
			}
			cmd := run("exec", "go")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			for hang := time.After(30 * time.Second); len(tethertest.Processes(job)) == 0 || len(tethertest.Processes(busy)) == 0; {
				select {
				case err := <-done:
					t.Fatalf("rein ended before the kill: %v\n%s", err, stderr.String())
				case <-hang:
					cmd.Process.Kill()
					t.Fatalf("the job and the command did not start within 30 s\n%s", stderr.String())
				case <-time.After(5 * time.Millisecond):
				}
			}
			before := commandLines(tethertest.Mentioning(job))
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			for _, m := range []string{job, busy} {
				if left := tethertest.WaitGone(m, 10*time.Second); len(left) > 0 {
					t.Errorf("after kill -9 of rein, processes live on:\n%s\n(before the kill:\n%s)",
						strings.Join(commandLines(left), "\n"), strings.Join(before, "\n"))
					for _, pid := range left {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}

			logs, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "ses_*"))
			if len(logs) != 1 {
				t.Fatalf("%d sessions", len(logs))
			}
			if out, err := run("resume", filepath.Base(logs[0])).CombinedOutput(); err != nil {
				t.Fatalf("rein resume: %v\n%s", err, out)
			}
			started, finished := jobEvents(t, stateDir)
			if len(started) != 1 || len(finished) != 1 || finished[0].JobID != started[0].JobID || finished[0].Outcome != contract.JobRestart {
				t.Fatalf("job events after the resume: started %+v, finished %+v", started, finished)
			}
			var told bool
			for _, env := range events(t, stateDir) {
				if e, ok := env.Data.(*contract.RunFinished); ok && e.Outcome == contract.OutcomeCompleted {
					told = true
				}
			}
			if !told {
				t.Error("the resumed run did not complete")
			}
		})
	}
}
