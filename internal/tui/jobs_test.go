package tui

import (
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
)

// /jobs lists the session's jobs from the state, and the status line
// counts those running.
func TestJobsCommandAndStatus(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 120, rt)
	h.typeText("/jobs")
	h.key("enter")
	if screen := h.screenText(); !strings.Contains(screen, "no background jobs") || strings.Contains(h.m.statusLine(), "job") {
		t.Errorf("without jobs:\n%s", screen)
	}
	rt.jobs = []state.Job{
		{ID: "job_1", Command: "npm run dev\n# and more", Running: true},
		{ID: "job_2", Command: "make", Outcome: contract.JobExited, ExitCode: 2, Bytes: 1500},
		{ID: "job_3", Command: "sleep 9", Outcome: contract.JobKilled, ExitCode: -1, Bytes: 3},
	}
	h.typeText("/jobs")
	h.key("enter")
	screen := h.screenText()
	for _, want := range []string{"job_1  running", "npm run dev …", "job_2  exited 2 · 1.5 KB", "job_3  killed · 3 B"} {
		if !strings.Contains(screen, want) {
			t.Errorf("/jobs lacks %q:\n%s", want, screen)
		}
	}
	if s := h.m.statusLine(); !strings.Contains(s, "1 job") {
		t.Errorf("the status line does not count the running job: %q", s)
	}
	if len(rt.sent) != 0 {
		t.Errorf("/jobs was sent to the model: %q", rt.sent)
	}
}
