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
	// Usage sums the tokens and cost of the session's own model calls
	// (a fork's start from its parent's log is the parent's); nil in an
	// index written before it was kept.
	Usage *contract.Totals `json:"usage,omitempty"`
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

// live makes an unfinished run that a process is writing running.
func (sum *Summary) live(dir string) {
	if sum.Outcome == OutcomeUnfinished && locked(dir) {
		sum.Outcome = OutcomeRunning
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
	if sum.Usage, err = spent(whole); err != nil {
		return Summary{}, fmt.Errorf("session: summarize %s: %w", id, err)
	}
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
			sum.Cwd, sum.Started = e.Cwd, env.Time
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
	usageType  = []byte(`"type":"` + contract.TypeModelUsage + `"`)
	forkedType = []byte(`"type":"` + contract.TypeSessionForked + `"`)
)

// spent sums the model.usage events of a log, read whole but decoding
// only those lines; the usage before session.forked (the parent's log,
// copied) is left out. A usage line is short: a line longer than the
// reader's buffer is skipped unread.
func spent(r io.Reader) (*contract.Totals, error) {
	t := &contract.Totals{}
	for line, err := range shortLines(r) {
		switch {
		case err != nil:
			return nil, err
		case bytes.Contains(line, forkedType):
			*t = contract.Totals{}
		case bytes.Contains(line, usageType):
			if env, ok := decode(line); ok {
				if u, ok := env.Data.(*contract.ModelUsage); ok {
					t.Add(u)
				}
			}
		}
	}
	return t, nil
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
		if fi, err := os.Stat(filepath.Join(s.Dir(id), logName)); err != nil || !ok || sum.Usage == nil ||
			fi.Size() != sum.Size || fi.ModTime().UnixNano() != sum.ModTime {
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
func (s *Store) Last(cwd string) (string, error) {
	here, where := Here(cwd)
	list, _, err := s.List(func(sum *Summary) bool { return here(sum) && sum.Outcome != OutcomeRunning })
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
