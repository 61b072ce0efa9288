package session

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/workspace"
)

// The outcomes a summary shows besides run.finished's.
const (
	// OutcomeRunning: a process holds the session's lock now.
	OutcomeRunning = "running"
	// OutcomeUnfinished: the last run started and never finished, and
	// nobody is writing the session: the process ended (`rein resume`
	// finishes it).
	OutcomeUnfinished = "unfinished"
	// OutcomeIdle: no run ever started.
	OutcomeIdle = "idle"
)

// Summary is one line of `rein sessions`.
type Summary struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	// Started is session.started's time; LastActivity the last event's.
	Started      time.Time `json:"started"`
	LastActivity time.Time `json:"last_activity"`
	// Outcome is the last run's (completed, failed, cancelled, max_turns,
	// needs_user), or unfinished, running or idle.
	Outcome string `json:"outcome"`
	// FirstPrompt is the session's first user message.
	FirstPrompt string `json:"first_prompt"`
	// Events is the last seq: how many events the log holds.
	Events uint64 `json:"events"`
	// Usage sums the tokens and cost of the session's tree: its own
	// model calls and its children's (task.finished's usage, or, for a
	// child that has none, being run or killed, what its own log says).
	// A fork's start, copied from its parent's log, is the parent's. nil
	// in an index written before it was kept.
	Usage *contract.Totals `json:"usage,omitempty"`
	// Parent is what session.started says the session is the child of;
	// nil for a person's session.
	Parent *contract.ParentRef `json:"parent,omitempty"`
	// Task is how the parent's log says the child ended (task.finished's
	// outcome: completed, failed, timeout...); "" for a person's session,
	// and for a child whose task has not finished (see Outcome).
	Task string `json:"task,omitempty"`
	// Children are the summaries of the sessions its task calls started,
	// in the order they started, each with its own children.
	Children []Summary `json:"children,omitempty"`
	// Size and ModTime are the log's, when the summary was made; the
	// index uses them to tell a stale entry.
	Size    int64 `json:"size"`
	ModTime int64 `json:"mod_time_ns"`
}

// headBytes and tailBytes are how much of a log Summarize reads from each
// end; it reads the whole log only when the tail holds no run event.
const (
	headBytes = 64 << 10
	tailBytes = 256 << 10
)

// live makes an unfinished run that a process is writing running, the
// children's too (dir is the session's directory).
func (sum *Summary) live(dir string) {
	if sum.Outcome == OutcomeUnfinished && locked(dir) {
		sum.Outcome = OutcomeRunning
	}
	for i := range sum.Children {
		sum.Children[i].live(filepath.Join(dir, tasksName, sum.Children[i].ID))
	}
}

// summarize reads the summary of session id from its log alone, as the
// index keeps it: the first events (session.started, the first
// user.message) and the last ones (the last activity, how the last run
// ended). It writes nothing; [Summary.live] adds what the lock says.
func (s *Store) summarize(id string) (Summary, error) {
	if err := s.checkFiles(id); err != nil {
		return Summary{}, err
	}
	dir := s.Dir(id)
	f, err := openRead(filepath.Join(dir, logName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Summary{}, fmt.Errorf("%w: the session directory %s has no %s: rein stopped while creating it, and it holds nothing",
				ErrNotFound, dir, logName)
		}
		return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
	}
	sum := Summary{ID: id, Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	head := make([]byte, min(fi.Size(), headBytes))
	if _, err := io.ReadFull(f, head); err != nil {
		return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
	}
	sum.beginning(lines(head, false))
	tail, off := head, int64(0)
	if fi.Size() > headBytes {
		off = max(0, fi.Size()-tailBytes)
		tail = make([]byte, fi.Size()-off)
		if _, err := f.ReadAt(tail, off); err != nil && !errors.Is(err, io.EOF) {
			return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
		}
	}
	if !sum.ending(lines(tail, off > 0)) && off > 0 {
		// A run longer than the tail: read it all.
		whole := make([]byte, fi.Size())
		if _, err := f.ReadAt(whole, 0); err != nil && !errors.Is(err, io.EOF) {
			return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
		}
		sum.ending(lines(whole, false))
	}
	// The head holds a short log whole: no second read.
	var whole io.Reader = io.NewSectionReader(f, 0, fi.Size())
	if int64(len(head)) == fi.Size() {
		whole = bytes.NewReader(head)
	}
	sp, err := spent(whole)
	if err != nil {
		return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
	}
	if sp.delegated {
		sum.Children = s.children(id)
	}
	sum.Usage = sp.tree(sum.Children)
	switch {
	case fi.Size() == 0:
		return Summary{}, fmt.Errorf("%w: %s is empty: rein stopped before it recorded anything", ErrNotFound, filepath.Join(dir, logName))
	case sum.Events == 0:
		return Summary{}, fmt.Errorf("%w: %s holds no event that can be read (`rein replay %s` says what is wrong)", ErrNotFound, filepath.Join(dir, logName), id)
	}
	return sum, nil
}

// beginning fills the working directory, the start and the first prompt
// from the first lines of a log.
func (sum *Summary) beginning(lines [][]byte) {
	for _, line := range lines {
		env, ok := decode(line)
		if !ok {
			continue
		}
		switch e := env.Data.(type) {
		case *contract.SessionStarted:
			sum.Cwd, sum.Started, sum.Parent = e.Cwd, env.Time, e.Parent
		case *contract.UserMessage:
			sum.FirstPrompt = e.Text
		}
		if sum.FirstPrompt != "" {
			return
		}
	}
}

// ending fills the last activity, the event count and the outcome from
// the last lines of a log, decoding from the end only as far as it must,
// and reports whether they said how the last run ended (or that none
// started).
func (sum *Summary) ending(lines [][]byte) bool {
	sum.Outcome = OutcomeIdle
	first := true
	for _, line := range slices.Backward(lines) {
		env, ok := decode(line)
		if !ok {
			continue
		}
		if first {
			sum.LastActivity, sum.Events, first = env.Time, env.Seq, false
		}
		switch e := env.Data.(type) {
		case *contract.RunFinished:
			sum.Outcome = string(e.Outcome)
			return true
		case *contract.RunStarted:
			sum.Outcome = OutcomeUnfinished
			return true
		case *contract.SessionStarted:
			return true // the whole log was read: no run ever started
		}
	}
	return false
}

// The markers of the lines spent decodes: every other line is skipped
// undecoded. Inside a string of JSON (a tool's output quoting a log) the
// quotes are escaped, so only an envelope's own type matches.
var (
	usageType    = []byte(`"type":"` + contract.TypeModelUsage + `"`)
	forkedType   = []byte(`"type":"` + contract.TypeSessionForked + `"`)
	startedType  = []byte(`"type":"` + contract.TypeTaskStarted + `"`)
	finishedType = []byte(`"type":"` + contract.TypeTaskFinished + `"`)
)

// spending is what a log says was spent: its own model calls, and the
// tasks that finished, by child session; delegated says a task started
// (so the session may have children).
type spending struct {
	own       contract.Totals
	tasks     map[string]*contract.TaskFinished
	delegated bool
}

// spent sums the model.usage events of a log and keeps its task.finished
// events, read whole but decoding only those lines; what comes before
// session.forked (the parent's log, copied) is left out. These lines are
// short: a longer one than the reader's buffer is skipped unread (a
// task.finished listing many files: its child's own log then says what
// it cost).
func spent(r io.Reader) (*spending, error) {
	sp := &spending{}
	for line, err := range shortLines(r) {
		switch {
		case err != nil:
			return nil, err
		case bytes.Contains(line, forkedType):
			*sp = spending{}
		case bytes.Contains(line, usageType):
			if env, ok := decode(line); ok {
				if u, ok := env.Data.(*contract.ModelUsage); ok {
					sp.own.Add(u)
				}
			}
		case bytes.Contains(line, startedType):
			sp.delegated = true
		case bytes.Contains(line, finishedType):
			if env, ok := decode(line); ok {
				if f, ok := env.Data.(*contract.TaskFinished); ok && f.Child != "" {
					if sp.tasks == nil {
						sp.tasks = map[string]*contract.TaskFinished{}
					}
					sp.tasks[f.Child] = f
				}
			}
		}
	}
	return sp, nil
}

// tree returns the usage of the session and its children, as the
// state's fold counts it (task.finished's usage) and beyond: a child
// whose task did not finish (running, or killed with its parent) counts
// what its own log says. It marks each child with its task's outcome.
func (sp *spending) tree(children []Summary) *contract.Totals {
	t := sp.own
	counted := map[string]bool{}
	for i := range children {
		c := &children[i]
		if f, ok := sp.tasks[c.ID]; ok {
			c.Task = f.Outcome
			if f.Usage != nil {
				counted[c.ID] = true
				t.Merge(f.Usage)
				continue
			}
		}
		if c.Usage != nil {
			t.Merge(c.Usage)
		}
		counted[c.ID] = true
	}
	for _, child := range slices.Sorted(maps.Keys(sp.tasks)) {
		if f := sp.tasks[child]; !counted[child] && f.Usage != nil {
			t.Merge(f.Usage) // a child whose directory is gone
		}
	}
	return &t
}

// shortLines yields the complete lines of r, without their newlines, that
// fit in a 16 KiB buffer: a longer line is skipped unread (the events
// looked for this way are short), and a last line without its newline (a
// torn tail) is left out. A read error is the last pair yielded. The
// line is valid only until the next one.
func shortLines(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		br := bufio.NewReaderSize(r, 16<<10)
		for {
			line, err := br.ReadSlice('\n')
			long := errors.Is(err, bufio.ErrBufferFull)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			switch {
			case errors.Is(err, io.EOF):
				return
			case err != nil:
				yield(nil, err)
				return
			case long:
				continue
			}
			if !yield(bytes.TrimSuffix(line, []byte("\n")), nil) {
				return
			}
		}
	}
}

// lines returns the complete lines of b, without their newlines; partial
// says b starts in the middle of a line, which is skipped. A last line
// without its newline (a torn tail) is left out.
func lines(b []byte, partial bool) [][]byte {
	if partial {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	var out [][]byte
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return out
		}
		out = append(out, b[:i])
		b = b[i+1:]
	}
}

// decode decodes one line. A line that does not decode (damage) is left
// out of a summary, which is a glance: replay and resume say what is
// wrong.
func decode(line []byte) (contract.Envelope, bool) {
	var env contract.Envelope
	return env, env.UnmarshalJSON(line) == nil
}

// List returns the summaries of the sessions that keep says to keep (nil
// keeps all), most recently active first. It uses the index where it is
// still true of a log and reads the log otherwise; it writes nothing. A
// session it cannot read is reported in problems, not left out silently.
func (s *Store) List(keep func(*Summary) bool) (list []Summary, problems []error, err error) {
	ids, err := s.ids()
	if err != nil {
		return nil, nil, err
	}
	idx := s.readIndex()
	for _, id := range ids {
		sum, ok := idx[id]
		if !ok || !sum.fresh(s.Dir(id)) {
			var err error
			sum, err = s.summarize(id)
			if err != nil {
				problems = append(problems, err)
				continue
			}
		}
		sum.live(s.Dir(id))
		if keep == nil || keep(&sum) {
			list = append(list, sum)
		}
	}
	slices.SortFunc(list, func(a, b Summary) int {
		return cmp.Or(b.LastActivity.Compare(a.LastActivity), cmp.Compare(b.ID, a.ID))
	})
	return list, problems, nil
}

// Here returns the filter of the sessions that belong with directory
// cwd, and where they are: in a git repository (workspace.Repository),
// the sessions started anywhere in it, from any of its directories, and
// its root; outside one, those started in cwd itself, and cwd.
func Here(cwd string) (keep func(*Summary) bool, where string) {
	cwd = filepath.Clean(cwd)
	if root, ok := workspace.Repository(cwd); ok {
		return func(sum *Summary) bool { return workspace.Within(root, filepath.Clean(sum.Cwd)) }, root
	}
	return func(sum *Summary) bool { return filepath.Clean(sum.Cwd) == cwd }, cwd
}

// Last returns the id of the most recently active session of cwd's
// repository, or of cwd outside one (see [Here]), that no process is
// writing, or an error wrapping ErrNotFound that says where none was.
// It is a person's session, never a child (which lives in its parent's
// directory, and is never one of List's sessions anyway).
func (s *Store) Last(cwd string) (string, error) {
	here, where := Here(cwd)
	list, _, err := s.List(func(sum *Summary) bool { return here(sum) && sum.Outcome != OutcomeRunning && sum.Parent == nil })
	if err != nil {
		return "", err
	}
	if len(list) == 0 {
		return "", fmt.Errorf("%w: no session to go on with in %s (`rein sessions --all` lists every directory's)", ErrNotFound, where)
	}
	return list[0].ID, nil
}

// indexName is the index's file name in the root.
const indexName = "index.json"

// readIndex returns the index's entries by id; a missing or unreadable
// index is an empty one (the logs say it all anyway).
func (s *Store) readIndex() map[string]Summary {
	f, err := openRead(filepath.Join(s.root, indexName))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil
	}
	var list []Summary
	if err := json.Unmarshal(b, &list); err != nil {
		s.logger.Warn("session: ignoring an unreadable index; the logs are read instead", "path", filepath.Join(s.root, indexName), "err", err)
		return nil
	}
	idx := make(map[string]Summary, len(list))
	for _, sum := range list {
		idx[sum.ID] = sum
	}
	return idx
}

// writeIndex replaces the index with list, atomically: a crash leaves the
// old index or the new one, never half of one. (A new index that may not
// survive a crash is as good as any: the index is only a cache of the
// logs.)
func (s *Store) writeIndex(list []Summary) error {
	slices.SortFunc(list, func(a, b Summary) int { return cmp.Compare(a.ID, b.ID) })
	b, err := json.Marshal(list)
	if err != nil {
		return fmt.Errorf("session: write index: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(s.root, indexName), b, 0o600); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return err
	}
	return nil
}

// remember updates the index entry of session id from its log. The index
// is an optimisation: a failure is logged, never returned, and two
// processes updating it at once can only lose an entry, which the next
// List reads from the log.
func (s *Store) remember(id string) {
	sum, err := s.summarize(id)
	if err == nil {
		idx := s.readIndex()
		if idx == nil {
			idx = map[string]Summary{}
		}
		idx[id] = sum
		for k := range idx {
			if _, serr := os.Stat(s.Dir(k)); errors.Is(serr, fs.ErrNotExist) {
				delete(idx, k)
			}
		}
		err = s.writeIndex(slices.Collect(maps.Values(idx)))
	}
	if err != nil {
		s.logger.Warn("session: could not update the index; `rein sessions` reads the log instead", "session", id, "err", err)
	}
}

// Reindex rebuilds the index from every log and returns how many sessions
// it holds, with the sessions it could not read.
func (s *Store) Reindex() (n int, problems []error, err error) {
	ids, err := s.ids()
	if err != nil {
		return 0, nil, err
	}
	list := make([]Summary, 0, len(ids))
	for _, id := range ids {
		sum, err := s.summarize(id)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		list = append(list, sum)
	}
	if err := os.MkdirAll(s.root, 0o700); err != nil {
		return 0, problems, fmt.Errorf("session: reindex: %w", err)
	}
	return len(list), problems, s.writeIndex(list)
}

// ReadInfo is what a read-only pass over a log found: how many events, and
// the torn tail and damaged lines it skipped.
type ReadInfo = eventlog.ReadInfo

// Read reads session id's log without writing anything (see
// eventlog.ReadFile): a torn tail and damaged lines are skipped with a
// warning and reported in the result, every valid event is visited.
func (s *Store) Read(id string, visit func(contract.Envelope) error) (ReadInfo, error) {
	if err := s.checkFiles(id); err != nil {
		return ReadInfo{}, err
	}
	info, err := eventlog.ReadFile(s.Dir(id), &eventlog.ReadOptions{Logger: s.logger}, visit)
	if errors.Is(err, fs.ErrNotExist) {
		return info, fmt.Errorf("%w: no session %s in %s", ErrNotFound, id, s.root)
	}
	return info, err
}
