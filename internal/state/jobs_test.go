package state

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// job.started and job.finished fold into Jobs; the end of a job the model
// did not kill itself becomes a note it reads, and an earlier state keeps
// what it showed.
func TestJobsFold(t *testing.T) {
	events := envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.UserMessage{Text: "go"},
		&contract.JobStarted{JobID: "job_1", IntentID: "i1", Command: "npm run dev", Artifact: "artifacts/job_1.txt"},
		&contract.JobStarted{JobID: "job_2", IntentID: "i2", Command: "make\nmake test"},
		&contract.JobStarted{JobID: "job_3", IntentID: "i3", Command: "sleep 9"},
	)
	events[2].ID = "evt_start1"
	s := reduceSlice(events)
	if s.RunningJobs() != 3 {
		t.Fatalf("RunningJobs() = %d, want 3", s.RunningJobs())
	}
	before := s
	for i, e := range []contract.Event{
		&contract.JobFinished{JobID: "job_1", Outcome: contract.JobKilled, ExitCode: -1, Bytes: 10},
		&contract.JobFinished{JobID: "job_2", Outcome: contract.JobExited, ExitCode: 2, Bytes: 300},
		&contract.JobFinished{JobID: "job_3", Outcome: contract.JobRestart, ExitCode: -1},
		&contract.JobFinished{JobID: "job_3", Outcome: contract.JobExited}, // ended twice: ignored
		&contract.JobFinished{JobID: "job_9", Outcome: contract.JobExited}, // never started: ignored
	} {
		s = Apply(s, contract.Envelope{Seq: s.LastSeq + 1, ID: "evt_end" + string(rune('1'+i)), Data: e})
	}
	want := []Job{
		{ID: "job_1", IntentID: "i1", Command: "npm run dev", Artifact: "artifacts/job_1.txt", Started: "evt_start1",
			Outcome: contract.JobKilled, ExitCode: -1, Bytes: 10},
		{ID: "job_2", IntentID: "i2", Command: "make\nmake test", Outcome: contract.JobExited, ExitCode: 2, Bytes: 300},
		{ID: "job_3", IntentID: "i3", Command: "sleep 9", Outcome: contract.JobRestart, ExitCode: -1},
	}
	if d := cmp.Diff(want, s.Jobs); d != "" {
		t.Errorf("Jobs mismatch (-want +got):\n%s", d)
	}
	if s.RunningJobs() != 0 || before.RunningJobs() != 3 || !before.Jobs[0].Running {
		t.Errorf("running now %d, before %d: an earlier state changed", s.RunningJobs(), before.RunningJobs())
	}
	var notes []string
	for _, m := range s.Messages[1:] {
		notes = append(notes, m.Text)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "job_2 (`make …`) exited with code 2; it printed 300 bytes") ||
		!strings.Contains(notes[0], "job_output") || !strings.Contains(notes[1], "job_3") || !strings.Contains(notes[1], "when rein stopped") {
		t.Errorf("the model is told:\n%s", strings.Join(notes, "\n"))
	}
}

// After a compaction the model is told again which jobs run: the summary
// may have lost their ids.
func TestRunningJobsAreToldAfterACompaction(t *testing.T) {
	var s State
	for _, e := range envs(
		&contract.SessionStarted{Cwd: "/w"},
		&contract.JobStarted{JobID: "job_1", IntentID: "i1", Command: "npm run dev\nmore"},
		&contract.JobStarted{JobID: "job_2", IntentID: "i2", Command: "make"},
		&contract.JobFinished{JobID: "job_2", Outcome: contract.JobKilled, ExitCode: -1},
		&contract.ContextCompacted{Summary: "earlier"},
	) {
		s.Apply(e)
	}
	last := ""
	if len(s.Messages) > 0 {
		last = s.Messages[len(s.Messages)-1].Text
	}
	if !strings.Contains(last, "job_1: `npm run dev`") || strings.Contains(last, "job_2") {
		t.Errorf("the note after the compaction: %q", last)
	}
}
