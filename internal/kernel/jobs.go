package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
)

// Jobs are a session's background jobs (bash's run_in_background) as the
// kernel tells their ends; *builtin.Jobs has them. The tools report each
// job's start (job.started) and a job_kill's end themselves; the kernel
// records the others: a job that ended by itself before each model
// request, the jobs the session's end ends, and, on a resume, the jobs
// the log left running, which ended with the process that ran them.
type Jobs interface {
	// Ended returns the jobs that ended by themselves since the last
	// call, and forgets them.
	Ended() []contract.JobFinished
	// EndAll ends every job still running, waits for them, and returns
	// the ends not yet told: Ended's, then its own (session_end).
	EndAll() []contract.JobFinished
	// Has reports whether id names a job of this process.
	Has(id string) bool
}

// endedJobs records job.finished for each job that ended by itself since
// the last look, before the model is asked, so that the request tells the
// model (the state turns each into a note). It returns the id of the last
// event appended, else cause.
func (r *run) endedJobs(cause string) string {
	if r.k.opts.Jobs == nil || r.err != nil {
		return cause
	}
	for _, fin := range r.k.opts.Jobs.Ended() {
		env, err := r.emit(&fin, r.jobStart(fin.JobID, cause))
		if err != nil {
			return cause
		}
		cause = env.ID
	}
	return cause
}

// jobStart is the id of job's job.started, what its end follows from;
// cause when the state has none.
func (r *run) jobStart(job, cause string) string {
	st := r.state()
	for _, j := range st.Jobs {
		if j.ID == job && j.Started != "" {
			return j.Started
		}
	}
	return cause
}

// restartJobs records, for each job the log shows running that no process
// of this kernel's started, that it ended with the rein process that ran
// it (contract.JobRestart): no job survives a resume. Its error is the
// run's runtime failure.
func (r *run) restartJobs() error {
	st := r.state()
	for _, j := range st.Jobs {
		if !j.Running || r.k.opts.Jobs != nil && r.k.opts.Jobs.Has(j.ID) {
			continue
		}
		fin := &contract.JobFinished{JobID: j.ID, Outcome: contract.JobRestart, ExitCode: -1, Bytes: r.k.artifactSize(j.Artifact)}
		if _, err := r.emit(fin, j.Started); err != nil {
			return err
		}
	}
	return nil
}

// artifactSize is the size of the artifact ref names in the session's
// directory: what a job printed up to its end, when its process could
// not say; 0 when it is not there.
func (k *Kernel) artifactSize(ref string) int64 {
	if ref == "" || k.opts.SessionDir == "" || !filepath.IsLocal(ref) {
		return 0
	}
	fi, err := os.Stat(filepath.Join(k.opts.SessionDir, ref))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// EndJobs ends the session's background jobs, their process groups
// included, and records how each ended (job.finished: session_end, or
// exited for one that ended by itself and was not told yet), then syncs
// the log. The end of a session calls it (and of a headless run, which is
// its session's end) before the log closes; it waits for the jobs to end
// (a job that ignores SIGTERM is killed two seconds later). Without jobs,
// or none started, it records nothing.
func (k *Kernel) EndJobs() error {
	if k.opts.Jobs == nil {
		return nil
	}
	ends := k.opts.Jobs.EndAll()
	if len(ends) == 0 {
		return nil
	}
	st := k.State()
	started := map[string]string{}
	for _, j := range st.Jobs {
		started[j.ID] = j.Started
	}
	var errs []error
	for _, fin := range ends {
		_, err := k.append(contract.Envelope{ID: id.New("evt"), Time: k.opts.Now().UTC(), Session: k.session, Run: st.Run, Turn: st.Turn,
			Cause: started[fin.JobID], Data: &fin})
		if err != nil {
			errs = append(errs, fmt.Errorf("kernel: append %s: %w", fin.EventType(), err))
			break
		}
	}
	if err := k.log.Sync(); err != nil {
		errs = append(errs, fmt.Errorf("kernel: sync: %w", err))
	}
	return errors.Join(errs...)
}

// SettleJobs records the end of each background job that ended by itself
// since the last look, when no run is in progress (a run records them
// before its next request), so that what a person asks of the jobs
// (/jobs) is so. A run in progress, or no jobs, records nothing.
func (k *Kernel) SettleJobs() error {
	if k.opts.Jobs == nil || !k.busy.CompareAndSwap(false, true) {
		return nil
	}
	defer k.busy.Store(false)
	st := k.State()
	if st.Session == "" {
		return nil
	}
	ends := k.opts.Jobs.Ended()
	if len(ends) == 0 {
		return nil
	}
	for _, fin := range ends {
		cause := ""
		for _, j := range st.Jobs {
			if j.ID == fin.JobID {
				cause = j.Started
			}
		}
		if _, err := k.append(contract.Envelope{ID: id.New("evt"), Time: k.opts.Now().UTC(), Session: k.session, Run: st.Run, Turn: st.Turn,
			Cause: cause, Data: &fin}); err != nil {
			return fmt.Errorf("kernel: append %s: %w", fin.EventType(), err)
		}
	}
	return k.log.Sync()
}
