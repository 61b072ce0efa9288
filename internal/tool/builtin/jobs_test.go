//go:build unix

package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tether/tethertest"
)

// jobWorld is a session's bash, job_output and job_kill over one Jobs,
// with what their calls reported.
type jobWorld struct {
	ws           string
	artifacts    string
	jobs         *Jobs
	bash         registry.Tool
	output, kill registry.Tool

	mu       sync.Mutex
	reported []contract.Event
}

func newJobWorld(t *testing.T, opts *JobsOptions) *jobWorld {
	t.Helper()
	ws := newWorkspace(t)
	w := &jobWorld{ws: ws.Root(), artifacts: filepath.Join(t.TempDir(), "artifacts")}
	o := JobsOptions{ArtifactDir: w.artifacts}
	if opts != nil {
		o = *opts
		if o.ArtifactDir == "" {
			o.ArtifactDir = w.artifacts
		}
	}
	w.jobs = NewJobs(&o)
	t.Cleanup(func() { w.jobs.EndAll() })
	for _, tool := range Tools(ws, &Options{Bash: &BashOptions{Jobs: w.jobs}}) {
		switch tool.Name {
		case "bash":
			w.bash = tool
		case "job_output":
			w.output = tool
		case "job_kill":
			w.kill = tool
		}
	}
	if w.output.Name == "" || w.kill.Name == "" {
		t.Fatal("Tools with Jobs offers no job_output or job_kill")
	}
	return w
}

// call runs tool with input as the runtime would (its check first) and
// returns its output.
func (w *jobWorld) call(t *testing.T, ctx context.Context, tool registry.Tool, input any) (string, error) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	if tool.Check != nil {
		if err := tool.Check(raw, state.Ledger{}); err != nil {
			return "", err
		}
	}
	var out syncWriter
	report := func(e contract.Event) (uint64, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.reported = append(w.reported, e)
		return uint64(len(w.reported)), nil
	}
	_, err = tool.Execute(ctx, &registry.Call{IntentID: "int_1", InvocationID: "inv_1", Input: raw, Output: &out, Report: report})
	return out.String(), err
}

var jobIDPattern = regexp.MustCompile(`job_[0-9A-Za-z]+`)

// background starts command as a job and returns its id.
func (w *jobWorld) background(t *testing.T, command string) string {
	t.Helper()
	out, err := w.call(t, t.Context(), w.bash, map[string]any{"command": command, "run_in_background": true})
	if err != nil {
		t.Fatalf("bash run_in_background: %v", err)
	}
	id := jobIDPattern.FindString(out)
	if id == "" || !strings.Contains(out, "job_output") {
		t.Fatalf("bash run_in_background said no job id and how to read it:\n%s", out)
	}
	return id
}

// read calls job_output on id, failing the test on an error.
func (w *jobWorld) read(t *testing.T, id string, wait int) string {
	t.Helper()
	out, err := w.call(t, t.Context(), w.output, map[string]any{"id": id, "wait_seconds": wait})
	if err != nil {
		t.Fatalf("job_output: %v", err)
	}
	return out
}

// readUntil reads id until what it printed in all holds want, and
// returns the last answer.
func (w *jobWorld) readUntil(t *testing.T, id, want string) string {
	t.Helper()
	var all strings.Builder
	for hang := time.Now().Add(hangBound); time.Now().Before(hang); time.Sleep(20 * time.Millisecond) {
		last := w.read(t, id, 0)
		all.WriteString(printed(last))
		if strings.Contains(all.String(), want) {
			return last
		}
	}
	t.Fatalf("job %s did not print %q within %s:\n%s", id, want, hangBound, all.String())
	return ""
}

// printed is what a job_output answer shows of the output: all but its
// first line, which says how the job stands (and names its command).
func printed(answer string) string {
	_, rest, _ := strings.Cut(answer, "\n")
	return rest
}

func (w *jobWorld) events() []contract.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]contract.Event(nil), w.reported...)
}

// A job starts and the call returns at once with its id and job.started;
// each read returns only what is new; once it ends, a read says so with
// its exit code, and the kernel's drain (Ended) hands out its end once.
func TestJobStartsAndIsReadSinceTheLastRead(t *testing.T) {
	w := newJobWorld(t, nil)
	gate := filepath.Join(w.ws, "go-on")
	id := w.background(t, "echo first; while [ ! -e "+gate+" ]; do sleep 0.02; done; echo second; exit 3")

	evs := w.events()
	if len(evs) != 1 {
		t.Fatalf("reported %v, want one job.started", evs)
	}
	started, ok := evs[0].(*contract.JobStarted)
	if !ok || started.JobID != id || started.IntentID != "int_1" || !strings.HasPrefix(started.Command, "echo first") ||
		started.Artifact != "artifacts/"+id+".txt" {
		t.Errorf("reported %#v", evs[0])
	}
	if !w.jobs.Has(id) {
		t.Errorf("Has(%q) = false", id)
	}

	first := w.readUntil(t, id, "first")
	if !strings.Contains(first, "is running") {
		t.Errorf("a read of a running job does not say it runs:\n%s", first)
	}
	if again := w.read(t, id, 0); strings.Contains(printed(again), "first") || !strings.Contains(again, "No new output") {
		t.Errorf("a second read returned old output:\n%s", again)
	}
	if got := w.jobs.Ended(); len(got) != 0 {
		t.Errorf("Ended() = %v while the job runs", got)
	}

	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	last := w.read(t, id, 60) // returns when the job ends
	for _, want := range []string{"second", "exited with code 3"} {
		if !strings.Contains(last, want) {
			t.Errorf("the last read lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(printed(last), "first") {
		t.Errorf("the last read repeats what was read:\n%s", last)
	}
	want := []contract.JobFinished{{JobID: id, Outcome: contract.JobExited, ExitCode: 3, Bytes: int64(len("first\nsecond\n"))}}
	if d := cmp.Diff(want, w.jobs.Ended()); d != "" {
		t.Errorf("Ended() mismatch (-want +got):\n%s", d)
	}
	if got := w.jobs.Ended(); len(got) != 0 {
		t.Errorf("Ended() handed out %v twice", got)
	}
	artifact, err := os.ReadFile(filepath.Join(w.artifacts, id+".txt"))
	if err != nil || string(artifact) != "first\nsecond\n" {
		t.Errorf("the artifact holds %q (%v)", artifact, err)
	}
}

// wait_seconds waits for a job that does not end, and says it still runs;
// a cancelled context stops the wait.
func TestJobOutputWaits(t *testing.T) {
	w := newJobWorld(t, nil)
	id := w.background(t, "sleep "+tethertest.Marker())
	if out := w.read(t, id, 1); !strings.Contains(out, "still running after the 1 s you waited") {
		t.Errorf("a read that waited 1 s:\n%s", out)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := w.call(t, ctx, w.output, map[string]any{"id": id, "wait_seconds": 300})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled wait returned %v", err)
		}
	case <-time.After(hangBound):
		t.Fatal("a cancelled wait did not return")
	}
}

// A command that prints 50 MB keeps no more than the unread head and
// tail in memory; the read shows them and where the rest is, and the
// artifact holds all of it.
func TestJobMemoryIsBounded(t *testing.T) {
	w := newJobWorld(t, nil)
	const size = 50_000_000
	id := w.background(t, "head -c 49999990 /dev/zero | tr '\\0' x; echo; echo last-line")
	out := w.read(t, id, 120)
	if !strings.Contains(out, "exited with code 0") {
		t.Fatalf("the job did not end:\n%.2000s", out)
	}
	j, err := w.jobs.lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	if c := cap(j.out.unread.head) + cap(j.out.unread.tail); c > 2*(jobUnreadHead+jobUnreadTail) {
		t.Errorf("the unread output holds %d bytes of memory for a 50 MB output", c)
	}
	if len(out) > jobUnreadHead+jobUnreadTail+1024 {
		t.Errorf("the read is %d bytes long", len(out))
	}
	artifact := filepath.Join(w.artifacts, id+".txt")
	for _, want := range []string{"last-line", "bytes not shown", artifact, "read_file"} {
		if !strings.Contains(out, want) {
			t.Errorf("the read lacks %q:\n%.300s\n...\n%.300s", want, out, out[max(len(out)-300, 0):])
		}
	}
	fi, err := os.Stat(artifact)
	if err != nil || fi.Size() != size+1 {
		t.Errorf("the artifact: %v, %v; want %d bytes", fi, err, size+1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use after a 50 MB job: %d KiB", ms.HeapInuse>>10)
}

// The artifact stops at its cap and says so; what is unread is still
// there.
func TestJobArtifactIsCapped(t *testing.T) {
	w := newJobWorld(t, &JobsOptions{ArtifactBytes: 1000})
	id := w.background(t, "head -c 5000 /dev/zero | tr '\\0' y; echo end")
	if out := w.read(t, id, 60); !strings.HasSuffix(out, "yyyyend\n") {
		t.Errorf("the read:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(w.artifacts, id+".txt"))
	if err != nil || !strings.HasPrefix(string(b), strings.Repeat("y", 1000)+"\n[rein: the artifact stops at 1000 bytes; 4004 more bytes") {
		t.Errorf("the artifact: %.1200q (%v)", b, err)
	}
}

// Secrets are cut out of the output before it is kept.
func TestJobOutputCutsSecrets(t *testing.T) {
	const secret = "sk-job-secret-0123456789"
	w := newJobWorld(t, &JobsOptions{Secrets: []string{secret}})
	id := w.background(t, "echo 'key: "+secret+"'")
	out := w.read(t, id, 60)
	if strings.Contains(out, secret) || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("the read:\n%s", out)
	}
	b, _ := os.ReadFile(filepath.Join(w.artifacts, id+".txt"))
	if strings.Contains(string(b), secret) {
		t.Errorf("the artifact holds the secret: %q", b)
	}
}

// job_kill ends the job's whole process group, a grandchild included,
// and reports job.finished (killed); killing it again kills nothing.
func TestJobKillEndsTheGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finding the processes reads /proc")
	}
	w := newJobWorld(t, nil)
	marker := tethertest.Marker()
	id := w.background(t, "bash -c 'sleep "+marker+" & sleep "+marker+"; wait' & wait")
	for hang := time.Now().Add(hangBound); len(tethertest.Processes(marker)) < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(hang) {
			t.Fatalf("the job's sleeps did not start: %v", tethertest.Processes(marker))
		}
	}
	out, err := w.call(t, t.Context(), w.kill, map[string]any{"id": id})
	if err != nil || !strings.Contains(out, "Killed job "+id) {
		t.Fatalf("job_kill: %v\n%s", err, out)
	}
	if left := tethertest.WaitGone(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("after job_kill, processes of the job live on: %v", left)
	}
	evs := w.events()
	want := &contract.JobFinished{JobID: id, Outcome: contract.JobKilled, ExitCode: -1}
	if d := cmp.Diff(want, evs[len(evs)-1]); d != "" {
		t.Errorf("job_kill reported (-want +got):\n%s", d)
	}
	again, err := w.call(t, t.Context(), w.kill, map[string]any{"id": id})
	if err != nil || !strings.Contains(again, "was killed") || !strings.Contains(again, "nothing to kill") {
		t.Errorf("a second job_kill: %v\n%s", err, again)
	}
	if n := len(w.events()); n != len(evs) {
		t.Errorf("a second job_kill reported again")
	}
	if got := w.jobs.Ended(); len(got) != 0 {
		t.Errorf("a killed job is among the ended ones: %v", got)
	}
}

// An id that names no job fails validation, with the ids there are.
func TestJobUnknownID(t *testing.T) {
	w := newJobWorld(t, nil)
	for _, tool := range []registry.Tool{w.output, w.kill} {
		_, err := w.call(t, t.Context(), tool, map[string]any{"id": "job_nosuch"})
		var ce *registry.CheckError
		if !errors.As(err, &ce) || ce.Code != contract.CodePreconditionFailed || !strings.Contains(ce.Message, `no background job "job_nosuch"`) ||
			!strings.Contains(ce.Message, "started none") {
			t.Errorf("%s of an unknown id: %v", tool.Name, err)
		}
	}
	id := w.background(t, "true")
	_, err := w.call(t, t.Context(), w.output, map[string]any{"id": "job_nosuch"})
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("the error does not list the session's job %s: %v", id, err)
	}
}

// EndAll ends what runs (session_end), hands out what ended by itself
// and was not told yet (exited), and lets no job start after it.
func TestJobsEndAll(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finding the processes reads /proc")
	}
	w := newJobWorld(t, nil)
	quick := w.background(t, "echo done")
	w.read(t, quick, 60)
	marker := tethertest.Marker()
	slow := w.background(t, "sleep "+marker)
	ends := w.jobs.EndAll()
	want := []contract.JobFinished{
		{JobID: quick, Outcome: contract.JobExited, ExitCode: 0, Bytes: 5},
		{JobID: slow, Outcome: contract.JobSessionEnd, ExitCode: -1},
	}
	if d := cmp.Diff(want, ends); d != "" {
		t.Errorf("EndAll() mismatch (-want +got):\n%s", d)
	}
	if left := tethertest.WaitGone(marker, 10*time.Second); len(left) > 0 {
		t.Errorf("after EndAll, processes of a job live on: %v", left)
	}
	if _, err := w.call(t, t.Context(), w.bash, map[string]any{"command": "true", "run_in_background": true}); err == nil ||
		!strings.Contains(err.Error(), "session is ending") {
		t.Errorf("a job started after EndAll: %v", err)
	}
	if again := w.jobs.EndAll(); len(again) != 0 {
		t.Errorf("a second EndAll() = %v", again)
	}
}

// Without the session's jobs, run_in_background fails and says what to
// do instead.
func TestBashWithoutJobs(t *testing.T) {
	tool := Bash(newWorkspace(t), nil)
	var out syncWriter
	_, err := tool.Execute(t.Context(), &registry.Call{Input: json.RawMessage(`{"command":"true","run_in_background":true}`), Output: &out})
	if err == nil || !strings.Contains(err.Error(), "without run_in_background") {
		t.Errorf("run_in_background without jobs: %v", err)
	}
}

// bash offers run_in_background only with the session's jobs; job_output
// and job_kill are reads.
func TestJobDefinitions(t *testing.T) {
	w := newJobWorld(t, nil)
	if _, err := registry.New(w.bash, w.output, w.kill); err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(w.bash.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.bash.Description, "Do not start servers") || !strings.Contains(w.bash.Description, "start it as a background job") ||
		!strings.Contains(w.bash.Description, "job_output") {
		t.Errorf("bash's description with jobs:\n%s", w.bash.Description)
	}
	if _, ok := schema.Properties["run_in_background"]; !ok || len(schema.Properties) != 4 {
		t.Errorf("bash's schema with jobs: %s", w.bash.InputSchema)
	}
	for _, tool := range []registry.Tool{w.output, w.kill} {
		if !tool.ReadOnly || tool.Risk != registry.RiskRead || tool.Description == "" {
			t.Errorf("%s: read-only %v, risk %s", tool.Name, tool.ReadOnly, tool.Risk)
		}
	}
	if got := w.output.Timeout(json.RawMessage(`{"id":"job_1","wait_seconds":1000}`)); got != (jobMaxWait+30)*time.Second {
		t.Errorf("job_output's timeout with a wait past the cap: %s", got)
	}
}

// A session runs at most 16 jobs at once, and jobs started together share
// the artifacts' room rather than each taking all of it.
func TestJobsAreBounded(t *testing.T) {
	w := newJobWorld(t, &JobsOptions{ArtifactLimit: 1 << 20, ArtifactBytes: 800 << 10})
	for i := range maxRunningJobs {
		if _, err := w.call(t, t.Context(), w.bash, map[string]any{"command": "sleep 30", "run_in_background": true}); err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
	}
	if _, err := w.call(t, t.Context(), w.bash, map[string]any{"command": "sleep 30", "run_in_background": true}); err == nil ||
		!strings.Contains(err.Error(), "job_kill") {
		t.Errorf("a 17th job: %v, want refused", err)
	}
	var rooms int64
	w.jobs.mu.Lock()
	for _, j := range w.jobs.jobs {
		if j.out.room > 0 {
			rooms += j.out.room
		}
	}
	w.jobs.mu.Unlock()
	if rooms > 1<<20 {
		t.Errorf("the jobs may write %d bytes in all, over the limit of %d", rooms, 1<<20)
	}
}
