package state

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// Job is a background job as the log tells it: bash's run_in_background
// started it (job.started), and, once job.finished says so, it ended.
type Job struct {
	ID       string `json:"id"`
	IntentID string `json:"intent_id"`
	Command  string `json:"command"`
	// Artifact is where its output is, relative to the session's
	// directory ("artifacts/job_….txt"); empty when none is kept.
	Artifact string `json:"artifact,omitempty"`
	// Started is the id of its job.started event, what its end follows
	// from.
	Started string `json:"started"`
	// Running says no job.finished was recorded yet. Outside the process
	// that started it, a running job was ended by rein's own end, which a
	// resume records (contract.JobRestart).
	Running bool `json:"running"`
	// Outcome, ExitCode and Bytes are job.finished's, once it ended.
	Outcome  string `json:"outcome,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	Bytes    int64  `json:"bytes,omitempty"`
}

// RunningJobs counts the jobs with no job.finished yet.
func (s *State) RunningJobs() int {
	n := 0
	for _, j := range s.Jobs {
		if j.Running {
			n++
		}
	}
	return n
}

// applyJobs applies job.started and job.finished: the job joins Jobs,
// then ends there. The end of a job the model did not end itself
// (job_kill) is told to it as a note. Jobs is copied before an entry
// changes, so an earlier state keeps what it showed.
func (s *State) applyJobs(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.JobStarted:
		s.Jobs = append(s.Jobs, Job{ID: e.JobID, IntentID: e.IntentID, Command: e.Command, Artifact: e.Artifact,
			Started: env.ID, Running: true})
	case *contract.JobFinished:
		i := slices.IndexFunc(s.Jobs, func(j Job) bool { return j.ID == e.JobID })
		if i < 0 || !s.Jobs[i].Running {
			return // a job the log never started, or ended twice: nothing to change
		}
		s.Jobs = slices.Clone(s.Jobs)
		j := &s.Jobs[i]
		j.Running, j.Outcome, j.ExitCode, j.Bytes = false, e.Outcome, e.ExitCode, e.Bytes
		if text := jobNote(j); text != "" {
			s.note(text, env.Seq)
		}
	case *contract.ContextCompacted:
		// The summary may not have kept their ids: the model is told again
		// which jobs run.
		if text := runningNote(s.Jobs); text != "" {
			s.note(text, env.Seq)
		}
	}
}

// runningNote tells the model which jobs still run, "" for none.
func runningNote(jobs []Job) string {
	var b strings.Builder
	for _, j := range jobs {
		if j.Running {
			line, _, _ := strings.Cut(j.Command, "\n")
			fmt.Fprintf(&b, "\n- %s: `%s`", j.ID, line)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "[rein] Background jobs still running (job_output reads them, job_kill ends them):" + b.String()
}

// jobNote is what the model is told of the end of job j; "" for one it
// killed itself, which job_kill's result told it.
func jobNote(j *Job) string {
	var how string
	switch j.Outcome {
	case contract.JobKilled:
		return ""
	case contract.JobExited:
		how = fmt.Sprintf("exited with code %d", j.ExitCode)
	case contract.JobSessionEnd:
		how = "was ended when the session ended"
	case contract.JobRestart:
		how = "was ended when rein stopped (a resumed session runs no job of before)"
	default:
		how = "ended (" + j.Outcome + ")"
	}
	line, _, more := strings.Cut(j.Command, "\n")
	if more {
		line += " …"
	}
	text := fmt.Sprintf("[rein] Background job %s (`%s`) %s; it printed %d bytes.", j.ID, line, how, j.Bytes)
	if j.Outcome == contract.JobExited {
		text += fmt.Sprintf(" job_output {\"id\": %q} returns what you have not read of it.", j.ID)
	} else if j.Artifact != "" {
		text += " Its output is in the session's " + j.Artifact + "; start it again if you still need it."
	}
	return text
}
