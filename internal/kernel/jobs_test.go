package kernel

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/provider"
)

// fakeJobs are background jobs whose ends a test decides.
type fakeJobs struct {
	mu    sync.Mutex
	ours  map[string]bool
	ended []contract.JobFinished
	all   []contract.JobFinished
}

func (f *fakeJobs) Ended() []contract.JobFinished {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.ended
	f.ended = nil
	return out
}

func (f *fakeJobs) EndAll() []contract.JobFinished {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append(f.ended, f.all...)
	f.ended, f.all = nil, nil
	return out
}

func (f *fakeJobs) Has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ours[id]
}

// jobsKernel is a kernel over a log that holds a session whose job_1 and
// job_2 started, with jobs.
func jobsKernel(t *testing.T, jobs *fakeJobs, reqs *[]*contract.ModelRequest) (*Kernel, *eventlog.Log) {
	t.Helper()
	store := memstore.New()
	for i, e := range []contract.Event{
		&contract.SessionStarted{Cwd: "/w"},
		&contract.JobStarted{JobID: "job_1", IntentID: "int_1", Command: "make watch", Artifact: "artifacts/job_1.txt"},
		&contract.JobStarted{JobID: "job_2", IntentID: "int_2", Command: "npm run dev"},
	} {
		if _, err := store.Append(contract.Envelope{Seq: uint64(i + 1), ID: "evt_" + string(rune('a'+i)), Session: "ses_1", Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	log := eventlog.New(store, nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(stream(reqs, nil, &contract.TextDelta{Text: "ok"}, &contract.ModelFinished{Reason: contract.FinishStop}), log,
		&Options{ProviderName: "fake", Jobs: jobs, Capabilities: provider.Capabilities{Streaming: true}, Retry: RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return k, log
}

// jobEnds returns the job.finished events of log, with their causes.
func jobEnds(t *testing.T, log *eventlog.Log) (ends []contract.JobFinished, causes []string) {
	for _, env := range durable(t, log) {
		if f, ok := env.Data.(*contract.JobFinished); ok {
			ends = append(ends, *f)
			causes = append(causes, env.Cause)
		}
	}
	return ends, causes
}

// A job that ended by itself is recorded before the next model request,
// following from its start, and that request tells the model; the jobs of
// this process are not taken for a crash's.
func TestEndedJobIsToldInTheNextRequest(t *testing.T) {
	jobs := &fakeJobs{ours: map[string]bool{"job_1": true, "job_2": true},
		ended: []contract.JobFinished{{JobID: "job_1", Outcome: contract.JobExited, ExitCode: 2, Bytes: 40}}}
	var reqs []*contract.ModelRequest
	k, log := jobsKernel(t, jobs, &reqs)
	collect(t, k.Send(t.Context(), Input{Text: "go on"}))
	ends, causes := jobEnds(t, log)
	if d := cmp.Diff([]contract.JobFinished{{JobID: "job_1", Outcome: contract.JobExited, ExitCode: 2, Bytes: 40}}, ends); d != "" {
		t.Fatalf("job.finished mismatch (-want +got):\n%s", d)
	}
	if causes[0] != "evt_b" {
		t.Errorf("job.finished follows from %q, want its job.started (evt_b)", causes[0])
	}
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	var said []string
	for _, m := range reqs[0].Messages {
		said = append(said, m.Text)
	}
	if all := strings.Join(said, "\n"); !strings.Contains(all, "[rein] Background job job_1 (`make watch`) exited with code 2") {
		t.Errorf("the request does not tell the model:\n%s", all)
	}
	if st := k.State(); st.RunningJobs() != 1 {
		t.Errorf("RunningJobs() = %d, want 1", st.RunningJobs())
	}
}

// A resume records the jobs the log left running as ended by the restart;
// the end of the session records those it ends, then nothing more.
func TestJobsEndWithTheProcessAndTheSession(t *testing.T) {
	jobs := &fakeJobs{ours: map[string]bool{}}
	k, log := jobsKernel(t, jobs, nil)
	collect(t, k.Resume(t.Context(), Resume{Text: "again"}))
	ends, causes := jobEnds(t, log)
	want := []contract.JobFinished{
		{JobID: "job_1", Outcome: contract.JobRestart, ExitCode: -1},
		{JobID: "job_2", Outcome: contract.JobRestart, ExitCode: -1},
	}
	if d := cmp.Diff(want, ends); d != "" || !cmp.Equal(causes, []string{"evt_b", "evt_c"}) {
		t.Errorf("after a resume (causes %v) (-want +got):\n%s", causes, d)
	}
	if st := k.State(); st.RunningJobs() != 0 {
		t.Errorf("RunningJobs() = %d after the resume", st.RunningJobs())
	}

	jobs2 := &fakeJobs{ours: map[string]bool{"job_1": true, "job_2": true},
		ended: []contract.JobFinished{{JobID: "job_1", Outcome: contract.JobExited, Bytes: 3}},
		all:   []contract.JobFinished{{JobID: "job_2", Outcome: contract.JobSessionEnd, ExitCode: -1, Bytes: 9}}}
	k2, log2 := jobsKernel(t, jobs2, nil)
	if err := k2.EndJobs(); err != nil {
		t.Fatal(err)
	}
	ends, causes = jobEnds(t, log2)
	want = []contract.JobFinished{
		{JobID: "job_1", Outcome: contract.JobExited, Bytes: 3},
		{JobID: "job_2", Outcome: contract.JobSessionEnd, ExitCode: -1, Bytes: 9},
	}
	if d := cmp.Diff(want, ends); d != "" || !cmp.Equal(causes, []string{"evt_b", "evt_c"}) {
		t.Errorf("at the session's end (causes %v) (-want +got):\n%s", causes, d)
	}
	if err := k2.EndJobs(); err != nil {
		t.Fatal(err)
	}
	if again, _ := jobEnds(t, log2); len(again) != 2 {
		t.Errorf("a second EndJobs recorded more: %v", again)
	}
}

// While no run is in progress, SettleJobs records the jobs that ended by
// themselves (as /jobs asks), so that the state says what is so.
func TestSettleJobsWhileIdle(t *testing.T) {
	jobs := &fakeJobs{ours: map[string]bool{"job_1": true, "job_2": true},
		ended: []contract.JobFinished{{JobID: "job_2", Outcome: contract.JobExited, ExitCode: 0, Bytes: 3}}}
	k, log := jobsKernel(t, jobs, nil)
	if st := k.State(); st.RunningJobs() != 2 {
		t.Fatalf("RunningJobs() = %d before, want 2", st.RunningJobs())
	}
	if err := k.SettleJobs(); err != nil {
		t.Fatal(err)
	}
	ends, causes := jobEnds(t, log)
	if len(ends) != 1 || ends[0].JobID != "job_2" || causes[0] == "" {
		t.Errorf("recorded %+v caused by %q", ends, causes)
	}
	if st := k.State(); st.RunningJobs() != 1 {
		t.Errorf("RunningJobs() = %d after, want 1", st.RunningJobs())
	}
	if err := k.SettleJobs(); err != nil {
		t.Fatal(err)
	}
	if ends, _ := jobEnds(t, log); len(ends) != 1 {
		t.Errorf("a second look recorded again: %+v", ends)
	}
}
