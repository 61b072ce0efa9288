package session

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/id"
)

// The conditions callers branch on.
var (
	// ErrNotFound: no session has that id (or id prefix).
	ErrNotFound = errors.New("session: not found")
	// ErrLocked: another process is writing the session.
	ErrLocked = errors.New("session: in use by another rein")
	// ErrNewer: the log holds events a newer rein wrote.
	ErrNewer = errors.New("session: written by a newer rein")
	// ErrGate: the session cannot continue as it is (its workspace or an
	// artifact is gone).
	ErrGate = errors.New("session: resume gate")
	// ErrChild: the session is a child, which resume and fork work on
	// only through the person's session it belongs to.
	ErrChild = errors.New("session: a child session")
)

// validID reports whether s may name a session directory: 1 to 128
// letters, digits, '_' and '-', so that an id never walks out of the root.
func validID(s string) bool { return id.ValidName(s, 128) }

// DefaultRoot returns where sessions live when nothing says otherwise:
// $XDG_STATE_HOME/rein/sessions, or ~/.local/state/rein/sessions.
func DefaultRoot() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rein", "sessions"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find where to keep sessions: set XDG_STATE_HOME or HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "rein", "sessions"), nil
}

// Options configure a [Store]. The zero value is usable.
type Options struct {
	// Logger receives warnings (a torn tail cut or skipped, a damaged
	// line skipped, a stray directory); nil means discard.
	Logger *slog.Logger
	// NoIndex keeps Close from updating the store's index: a writer of
	// many short sessions side by side (a session's children, which its
	// summary lists from their logs) would rewrite it at each.
	NoIndex bool
}

// Store is the directory that holds sessions. It is safe for concurrent
// use; the processes that share a root coordinate through each session's
// lock.
type Store struct {
	root    string
	logger  *slog.Logger
	noIndex bool
}

// NewStore returns the store rooted at root, which need not exist yet
// (writers create it). opts may be nil.
func NewStore(root string, opts *Options) *Store {
	s := &Store{root: filepath.Clean(root), logger: slog.New(slog.DiscardHandler)}
	if opts != nil && opts.Logger != nil {
		s.logger = opts.Logger
	}
	if opts != nil {
		s.noIndex = opts.NoIndex
	}
	return s
}

// Root returns the store's directory.
func (s *Store) Root() string { return s.root }

// Dir returns the directory of session id.
func (s *Store) Dir(id string) string { return filepath.Join(s.root, id) }

// LogPath returns the path of session id's log.
func (s *Store) LogPath(id string) string { return filepath.Join(s.root, id, logName) }

// logName is the log's file name in a session directory.
const logName = "events.jsonl"

// CheckpointsDir is where a session keeps the snapshots of its workspace
// (internal/checkpoint), under its directory; a task's child takes its
// snapshots in its parent's.
const CheckpointsDir = "checkpoints"

// checkFiles refuses a session whose directory or log is a symbolic link
// or another kind of file: rein writes and truncates logs, and must never
// do that to a file elsewhere that a link in its sessions directory points
// to. A missing log is left to the caller.
func (s *Store) checkFiles(id string) error {
	dir := s.Dir(id)
	fi, err := os.Lstat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: no session %s in %s", ErrNotFound, id, s.root)
		}
		return fmt.Errorf("session: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("session: %s is not a directory (a symbolic link?); rein does not follow links in its sessions directory", dir)
	}
	fi, err = os.Lstat(filepath.Join(dir, logName))
	if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("session: %s is not a regular file (a symbolic link?); rein does not follow links in its sessions directory",
			filepath.Join(dir, logName))
	}
	return nil
}

// ids returns the ids of the session directories under the root, sorted;
// a missing root holds none.
func (s *Store) ids() ([]string, error) {
	entries, err := readDir(s.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", s.root, err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && validID(e.Name()) && !strings.HasPrefix(e.Name(), tmpPrefix) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// tmpPrefix starts the name of a session directory under construction (a
// fork being copied): it is renamed into place when complete.
const tmpPrefix = "tmp-"
