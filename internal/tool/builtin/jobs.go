package builtin

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/id"
)

// The bounds of a job's output. What the model has not read yet is kept
// in memory as a head and a tail (jobUnreadHead, jobUnreadTail), whatever
// the command prints: the rest is only in the job's artifact, which holds
// everything it printed up to the artifact's cap.
const (
	jobUnreadHead = 4 << 10
	jobUnreadTail = 16 << 10

	// defaultJobArtifactBytes and defaultJobArtifactLimit are
	// JobsOptions' defaults, the tool runtime's for an invocation's
	// artifact and for all of a session's.
	defaultJobArtifactBytes = 64 << 20
	defaultJobArtifactLimit = 1 << 30
)

// JobsOptions configure a session's background jobs. The zero value keeps
// no artifact (the output is only read through job_output) and cuts no
// secret.
type JobsOptions struct {
	// ArtifactDir is the session's artifacts directory: each job's whole
	// output goes to ArtifactDir/job_….txt, which read_file may read
	// (builtin.Options.ArtifactDir). Empty means none is kept.
	ArtifactDir string
	// ArtifactBytes caps one job's artifact; past it the artifact ends
	// with a line saying how much more there was. 0 means 64 MiB, the
	// tool runtime's cap of an invocation's.
	ArtifactBytes int64
	// ArtifactLimit bounds the bytes of all the session's artifacts (the
	// tool runtime's ArtifactLimit): a job's artifact takes at most what
	// is left of it when the job starts. 0 means 1 GiB; a negative limit
	// keeps none.
	ArtifactLimit int64
	// Secrets are credentials cut out of the output before it is kept
	// anywhere, as the log cuts them (eventlog.Redactor: values shorter
	// than eventlog.MinSecret are no secrets).
	Secrets []string
}

// Jobs are the background jobs of one session: the commands bash started
// with run_in_background, which outlive the call that started them. Each
// runs as a foreground command does (the same start, sandbox, environment
// and process group, and the same rule that it dies with rein), without a
// timeout, until it ends by itself, job_kill ends it, or the session ends
// ([Jobs.EndAll]). Its output goes to its artifact as it comes, secrets cut
// out; what the model has not read yet is also kept in memory, bounded.
//
// A Jobs is safe for concurrent use. Its zero value is not usable: make
// one with [NewJobs].
type Jobs struct {
	opts   JobsOptions
	redact *eventlog.Redactor

	mu   sync.Mutex
	jobs map[string]*job
	// ended are the jobs that ended by themselves and whose end has not
	// been handed out yet (see Ended).
	ended []contract.JobFinished
	// closed says EndAll ran: no job starts any more.
	closed bool
}

// NewJobs returns the jobs of a session; opts may be nil.
func NewJobs(opts *JobsOptions) *Jobs {
	j := &Jobs{jobs: map[string]*job{}}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.ArtifactBytes <= 0 {
		j.opts.ArtifactBytes = defaultJobArtifactBytes
	}
	if j.opts.ArtifactLimit == 0 {
		j.opts.ArtifactLimit = defaultJobArtifactLimit
	}
	if dir := j.opts.ArtifactDir; dir != "" {
		// The path the model is given to read_file is absolute; a
		// directory that cannot be made so keeps no artifact.
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = ""
		}
		j.opts.ArtifactDir = abs
	}
	j.redact = eventlog.NewRedactor(j.opts.Secrets)
	return j
}

// job is one background command.
type job struct {
	id, command string
	// artifact is the artifact's path ("" when none is kept) and ref its
	// name relative to the session's directory ("artifacts/job_….txt").
	artifact, ref string
	cancel        context.CancelFunc
	// done is closed once the command has ended and its output is
	// drained and kept.
	done chan struct{}

	mu     sync.Mutex // guards what follows
	out    *jobOutput
	ending string // the outcome asked for (killed, session_end); "" while none was
	// outcome and code are how it ended, once done is closed.
	outcome string
	code    int
	err     error // why its end could not be told, if it could not
}

// Has reports whether id names a job this Jobs started.
func (js *Jobs) Has(id string) bool {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.jobs[id] != nil
}

// errJobsClosed is start's error once the session's jobs ended.
var errJobsClosed = errors.New("the session is ending: no background job starts any more")

// maxRunningJobs bounds the jobs a session runs at once: each holds a
// process (a sandbox's helper among them) and its output's buffers.
const maxRunningJobs = 16

// running returns the jobs that have not ended, the caller holding mu.
func (js *Jobs) running() []*job {
	var out []*job
	for _, j := range js.jobs {
		select {
		case <-j.done:
		default:
			out = append(out, j)
		}
	}
	return out
}

// start starts a job of command: it makes the job's id and artifact, and
// has run start the command's process with the job's context (done when
// the job is to end), whose output it then keeps until the process ends.
func (js *Jobs) start(command string, run func(ctx context.Context) (*bashProcess, error)) (*job, error) {
	js.mu.Lock()
	closed, running := js.closed, len(js.running())
	js.mu.Unlock()
	if closed {
		return nil, errJobsClosed
	}
	if running >= maxRunningJobs {
		return nil, fmt.Errorf("%d background jobs run already, the most a session runs at once: end one with job_kill first", running)
	}
	// The command is shown in job_output's answers: without the secrets,
	// as the log holds it.
	j := &job{id: id.New("job"), command: js.redact.String(command), done: make(chan struct{})}
	out, err := js.output(j)
	if err != nil {
		return nil, err
	}
	j.out = out
	ctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	p, err := run(ctx)
	if err != nil {
		cancel()
		out.close()
		return nil, err
	}
	js.mu.Lock()
	if js.closed {
		// EndAll ran while the command started: it ends now, as the
		// others did.
		j.ending = contract.JobSessionEnd
		cancel()
	}
	js.jobs[j.id] = j
	js.mu.Unlock()
	go js.keep(j, p)
	return j, nil
}

// output makes the output of j: its artifact, when the session keeps
// them and there is room left for one.
func (js *Jobs) output(j *job) (*jobOutput, error) {
	out := &jobOutput{cut: js.redact.Stream()}
	out.unread.headSize, out.unread.tailSize = jobUnreadHead, jobUnreadTail
	dir := js.opts.ArtifactDir
	if dir == "" || js.opts.ArtifactLimit < 0 {
		return out, nil
	}
	used, err := dirBytes(dir)
	if err != nil {
		return nil, fmt.Errorf("bash: measure the artifacts in %s: %w", dir, err)
	}
	// What the running jobs may still write counts as used: jobs started
	// together do not each get the whole room.
	js.mu.Lock()
	for _, r := range js.running() {
		if r.out != nil && r.out.room > 0 {
			used += r.out.room
		}
	}
	js.mu.Unlock()
	room := min(js.opts.ArtifactBytes, js.opts.ArtifactLimit-used)
	if room <= 0 {
		out.room = -1 // no room: said when the output is read
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("bash: make the artifacts directory: %w", err)
	}
	name := j.id + ".txt"
	j.artifact = filepath.Join(dir, name)
	j.ref = filepath.ToSlash(filepath.Join(filepath.Base(dir), name))
	f, err := os.OpenFile(j.artifact, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("bash: create the job's artifact: %w", err)
	}
	out.file, out.room = f, room
	return out, nil
}

// keep waits for p to end, its output kept, and records how it ended.
func (js *Jobs) keep(j *job, p *bashProcess) {
	code, err := p.wait(j.out)
	j.out.close()
	j.mu.Lock()
	j.code, j.err = code, err
	j.outcome = j.ending
	if j.outcome == "" {
		j.outcome = contract.JobExited
	}
	fin := j.finishedLocked()
	j.mu.Unlock()
	j.cancel()
	if fin.Outcome == contract.JobExited {
		js.mu.Lock()
		js.ended = append(js.ended, fin)
		js.mu.Unlock()
	}
	close(j.done)
}

// finishedLocked is j's job.finished, once it ended; j.mu is held.
func (j *job) finishedLocked() contract.JobFinished {
	code := j.code
	if j.outcome != contract.JobExited || j.err != nil {
		code = -1
	}
	return contract.JobFinished{JobID: j.id, Outcome: j.outcome, ExitCode: code, Bytes: j.out.total()}
}

// lookup returns the job id names, or an error that says which jobs there
// are.
func (js *Jobs) lookup(id string) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j := js.jobs[id]; j != nil {
		return j, nil
	}
	ids := make([]string, 0, len(js.jobs))
	for k := range js.jobs {
		ids = append(ids, k)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("there is no background job %q: this session started none (bash with run_in_background starts one)", id)
	}
	return nil, fmt.Errorf("there is no background job %q; this session's jobs are %s", id, joinQuoted(ids))
}

// Ended returns the jobs that ended by themselves since the last call, in
// the order they ended, and forgets them: the kernel records each as
// job.finished (exited) and the model is told in its next request. A job
// that job_kill or EndAll ended is not among them; its end is told where
// it is made.
func (js *Jobs) Ended() []contract.JobFinished {
	js.mu.Lock()
	defer js.mu.Unlock()
	out := js.ended
	js.ended = nil
	return out
}

// kill ends j, its whole process group (in a sandbox, its namespace), as
// outcome (killed, session_end), and waits for it to end. It reports
// false when j had ended already: its end is not kill's to tell.
func (j *job) kill(outcome string) (contract.JobFinished, bool) {
	j.mu.Lock()
	select {
	case <-j.done:
		fin := j.finishedLocked()
		j.mu.Unlock()
		return fin, false
	default:
	}
	first := j.ending == ""
	if first {
		j.ending = outcome
	}
	j.mu.Unlock()
	// The group gets SIGTERM, and SIGKILL once the shell is gone or
	// after bashKillGrace (see bashTool.start).
	j.cancel()
	<-j.done
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.finishedLocked(), first
}

// EndAll ends every job still running, and their process groups, and
// waits for them; no job starts after it. It returns the end of each job
// the kernel has not been told of: those that ended by themselves since
// the last Ended (exited), then those it ended (session_end). It is what
// the end of a session (and of a headless run) calls; a second call
// returns nothing.
func (js *Jobs) EndAll() []contract.JobFinished {
	js.mu.Lock()
	js.closed = true
	running := make([]*job, 0, len(js.jobs))
	for _, j := range js.jobs {
		running = append(running, j)
	}
	js.mu.Unlock()
	// In the order they started: an id begins with its time stamp.
	slices.SortFunc(running, func(a, b *job) int { return cmp.Compare(a.id, b.id) })
	type end struct {
		fin  contract.JobFinished
		told bool
	}
	ends := make([]end, len(running))
	var wg sync.WaitGroup
	for i, j := range running {
		wg.Go(func() {
			fin, ok := j.kill(contract.JobSessionEnd)
			ends[i] = end{fin, ok}
		})
	}
	wg.Wait()
	out := js.Ended()
	for _, e := range ends {
		if e.told {
			out = append(out, e.fin)
		}
	}
	return out
}

// dirBytes sums the sizes of the regular files in dir; a missing dir
// holds none.
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}

// jobOutput is where a job's output goes: secrets cut out, then its
// artifact (up to its room) and the unread head and tail. It is safe for
// concurrent use: the job writes while job_output reads.
type jobOutput struct {
	mu  sync.Mutex
	cut eventlog.StreamRedactor
	// file is the artifact, nil when none is kept; room is what it may
	// still take (-1: there was no room for one at all).
	file     *os.File
	room     int64
	written  int64
	overflow int64
	fileErr  error
	// unread is what was printed since the last read; printed counts
	// every byte (after the cut).
	unread  outputSample
	printed int64
}

// Write keeps p; it never fails, so the command is never stopped by its
// own output.
func (o *jobOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.keep(o.cut.Write(string(p)))
	return len(p), nil
}

// keep stores s, secrets already cut; o.mu is held.
func (o *jobOutput) keep(s string) {
	if s == "" {
		return
	}
	o.printed += int64(len(s))
	// outputSample.Write never fails.
	_, _ = o.unread.Write([]byte(s))
	if o.file == nil || o.fileErr != nil {
		return
	}
	if int64(len(s)) > o.room-o.written {
		o.overflow += int64(len(s)) - (o.room - o.written)
		s = s[:o.room-o.written]
	}
	if s == "" {
		return
	}
	n, err := o.file.WriteString(s)
	o.written += int64(n)
	o.fileErr = err
}

// close keeps what the cut held back and closes the artifact, with a last
// line saying what did not fit in it.
func (o *jobOutput) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.keep(o.cut.Flush())
	if o.file == nil {
		return
	}
	if o.overflow > 0 && o.fileErr == nil {
		// A failed write of the marker leaves an artifact that ends at
		// its cap, which the read says.
		_, _ = fmt.Fprintf(o.file, "\n[rein: the artifact stops at %d bytes; %d more bytes of output were not kept]\n", o.room, o.overflow)
	}
	if err := o.file.Close(); err != nil && o.fileErr == nil {
		o.fileErr = err
	}
}

// total is the number of bytes the job printed.
func (o *jobOutput) total() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.printed
}

// read returns what was printed since the last read, bounded: its head
// and its tail, and how many bytes between them were left out; and
// forgets it.
func (o *jobOutput) read() (head, tail []byte, omitted int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	head, tail, omitted = o.unread.parts()
	o.unread.reset()
	return head, tail, omitted
}

// kept says where the whole output is, for a read that left some out.
func (o *jobOutput) kept(path string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.room < 0:
		return "the session's artifacts are over their limit (max_artifact_bytes), so the whole output was not kept"
	case o.file == nil:
		return "the whole output was not kept"
	case o.fileErr != nil:
		return "the whole output could not be kept (" + o.fileErr.Error() + ")"
	case o.overflow > 0:
		return fmt.Sprintf("its first %d bytes are in %s, which read_file reads (with offset and limit)", o.room, path)
	}
	return "the whole output is in " + path + ", which read_file reads (with offset and limit)"
}
