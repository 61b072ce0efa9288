package session

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/state"
)

// Session is a session opened for writing: its log, the state folded from
// it, and what the fold noticed. It holds the session's lock until Close.
type Session struct {
	// ID is the session's id, and Dir its directory.
	ID, Dir string
	// Log is the session's event log.
	Log *eventlog.Log
	// State is the fold of the log as it was opened.
	State state.State
	// Facts are what the open noticed in the log.
	Facts Facts

	store  *Store
	unlock func() error
	// created says this process made the session (Create).
	created bool
	closed  bool
}

// Facts are what reading a log noticed besides the state.
type Facts struct {
	// Versions are the rein versions that wrote the log (session.started,
	// session.resumed), oldest first, without repeats.
	Versions []string
	// Unknown are the events of types this version does not know, from a
	// newer rein: the first few of them.
	Unknown []Unknown
	// Artifacts are the artifact references of the log's observations,
	// relative to the session directory.
	Artifacts []string
}

// Unknown names an event of a type this version does not know.
type Unknown struct {
	Seq  uint64
	Type string
}

// maxUnknown bounds Facts.Unknown.
const maxUnknown = 8

// note records what env says beyond the state.
func (f *Facts) note(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.SessionStarted:
		f.version(e.Version)
	case *contract.SessionResumed:
		f.version(e.Version)
	case *contract.ToolObservation:
		if e.ArtifactRef != "" {
			f.Artifacts = append(f.Artifacts, e.ArtifactRef)
		}
	case *contract.Unknown:
		if len(f.Unknown) < maxUnknown {
			f.Unknown = append(f.Unknown, Unknown{Seq: env.Seq, Type: e.Type})
		}
	}
}

func (f *Facts) version(v string) {
	if v != "" && !slices.Contains(f.Versions, v) {
		f.Versions = append(f.Versions, v)
	}
}

// Newer returns an error wrapping ErrNewer when the log holds events this
// version does not know, naming them and the newest version that wrote the
// log; nil otherwise.
func (f *Facts) Newer(id, version string) error {
	if len(f.Unknown) == 0 {
		return nil
	}
	writer := "a newer rein"
	if n := len(f.Versions); n > 0 && f.Versions[n-1] != version {
		writer = "rein " + f.Versions[n-1]
	}
	var types []string
	for _, u := range f.Unknown {
		types = append(types, fmt.Sprintf("%s at seq %d", u.Type, u.Seq))
	}
	return fmt.Errorf("%w: session %s holds events this rein (%s) does not know: %s; it was written by %s: resume it with that version (`rein replay %s` shows it here)",
		ErrNewer, id, version, strings.Join(types, ", "), writer, id)
}

// WriteOptions configure opening a session for writing. The zero value is
// usable.
type WriteOptions struct {
	// Secrets are cut out of every line written to the log; see
	// eventlog.FileOptions.Secrets.
	Secrets []string
}

// Create opens a new session id for writing. Its directory, log and lock
// are made when the first event is appended, so a session that never
// records anything (rein left at its first prompt, even by a signal)
// leaves nothing behind; the store's root is made, and checked to be
// writable, at once, so that a sessions directory rein cannot use is said
// before anything is asked. An id whose directory exists already is an
// error. opts may be nil.
func (s *Store) Create(id string, opts *WriteOptions) (*Session, error) {
	if !validID(id) {
		return nil, fmt.Errorf("session: create: %q is not a session id", id)
	}
	if err := os.MkdirAll(s.root, 0o700); err != nil {
		return nil, fmt.Errorf("session: create the sessions directory: %w", err)
	}
	if err := writable(s.root); err != nil {
		return nil, err
	}
	dir := s.Dir(id)
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			err = fs.ErrExist
		}
		return nil, fmt.Errorf("session: create %s: %w", dir, err)
	}
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	x := &Session{ID: id, Dir: dir, store: s, unlock: func() error { return nil }, created: true}
	x.Log = eventlog.New(&pending{make: func() (eventlog.Store, error) { return x.materialize(o) }}, &eventlog.Options{Logger: s.logger})
	return x, nil
}

// materialize makes the directory of a session Create opened, takes its
// lock and opens its log. On failure nothing is left on disk.
func (x *Session) materialize(o WriteOptions) (eventlog.Store, error) {
	if err := os.MkdirAll(x.store.root, 0o700); err != nil {
		return nil, fmt.Errorf("session: create %s: %w", x.Dir, err)
	}
	if err := os.Mkdir(x.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: create %s: %w", x.Dir, err)
	}
	unlock, err := lock(x.Dir)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(x.Dir))
	}
	store, err := eventlog.OpenFile(x.Dir, &eventlog.FileOptions{Logger: x.store.logger, Secrets: o.Secrets})
	if err != nil {
		return nil, errors.Join(err, unlock(), os.RemoveAll(x.Dir))
	}
	x.unlock = unlock
	return store, nil
}

// pending is the store of a session not yet on disk: empty until the
// first Append, which makes the real store and goes on with it. Like any
// store it is used by one Log, which serialises its calls.
type pending struct {
	make  func() (eventlog.Store, error)
	store eventlog.Store
}

var _ eventlog.Store = (*pending)(nil)

func (p *pending) LastSeq() uint64 {
	if p.store == nil {
		return 0
	}
	return p.store.LastSeq()
}

func (p *pending) Append(env contract.Envelope) (contract.Envelope, error) {
	if p.store == nil {
		s, err := p.make()
		if err != nil {
			return contract.Envelope{}, err
		}
		p.store = s
	}
	return p.store.Append(env)
}

func (p *pending) Sync() error {
	if p.store == nil {
		return nil
	}
	return p.store.Sync()
}

func (p *pending) Events(from uint64) iter.Seq2[contract.Envelope, error] {
	if p.store == nil {
		return func(func(contract.Envelope, error) bool) {}
	}
	return p.store.Events(from)
}

func (p *pending) Close() error {
	if p.store == nil {
		return nil
	}
	return p.store.Close()
}

// Open opens the existing session id for writing: it takes the lock (an
// error wrapping ErrLocked if another process holds it), cuts a torn last
// line (with a warning), and verifies and folds the whole log in one pass.
// Damage a crash cannot cause (a bad line before the last one) is an
// error naming the file and line; the log is left as it is. opts may be
// nil.
func (s *Store) Open(id string, opts *WriteOptions) (*Session, error) {
	if !validID(id) {
		return nil, fmt.Errorf("%w: %q is not a session id", ErrNotFound, id)
	}
	if err := s.checkFiles(id); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(s.Dir(id), logName)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: no session %s in %s (its directory has no %s)", ErrNotFound, id, s.root, logName)
	}
	return s.open(id, opts)
}

func (s *Store) open(id string, opts *WriteOptions) (*Session, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	dir := s.Dir(id)
	unlock, err := lock(dir)
	if err != nil {
		return nil, err
	}
	x := &Session{ID: id, Dir: dir, store: s, unlock: unlock}
	fold := func(env contract.Envelope) error {
		x.State.Apply(env)
		x.Facts.note(env)
		return nil
	}
	store, err := eventlog.OpenFile(dir, &eventlog.FileOptions{Logger: s.logger, Secrets: o.Secrets, Visit: fold})
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			err = fmt.Errorf("%w\nThe log is damaged in a way a crash does not cause, so nothing was written to it. "+
				"`rein replay %s` shows every event it can read; `rein fork %s --at SEQ` starts a new session from the intact part", err, id, id)
		}
		return nil, errors.Join(err, unlock())
	}
	x.Log = eventlog.New(store, &eventlog.Options{Logger: s.logger})
	return x, nil
}

// Close closes the log, updates the session's index entry if the log
// grew, and releases the lock. A session Create made that recorded
// nothing was never written to disk, or is removed: no empty session is
// left behind. Closing twice is not an error.
func (x *Session) Close() error {
	if x.closed {
		return nil
	}
	x.closed = true
	last := x.Log.LastSeq()
	empty := last == 0 && x.created
	err := x.Log.Close()
	if err == nil && empty {
		err = os.RemoveAll(x.Dir)
	}
	if err == nil && last > x.State.LastSeq && !x.store.noIndex {
		x.store.remember(x.ID)
	}
	if uerr := x.unlock(); uerr != nil && err == nil && !empty {
		err = fmt.Errorf("session: unlock %s: %w", x.Dir, uerr)
	}
	return err
}
