package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rein-agent/rein/internal/gitignore"
	"github.com/rein-agent/rein/internal/workspace"
)

// Default budgets for ignored files.
const (
	DefaultIgnoredBudget  = 50 << 20
	DefaultIgnoredMaxFile = 5 << 20
)

// Options configures a [Store].
type Options struct {
	// Root is the workspace root: absolute, its symbolic links resolved.
	Root string
	// Dir is the store's directory (<session dir>/checkpoints), absolute;
	// made on the first Take. A Dir inside Root is never recorded.
	Dir string
	// IgnoredBudget is the most bytes of ignored files a snapshot records,
	// in walk order; 0 means DefaultIgnoredBudget (50 MB), a negative
	// value none.
	IgnoredBudget int64
	// IgnoredMaxFile is the size over which an ignored file is left out; 0
	// means DefaultIgnoredMaxFile (5 MB).
	IgnoredMaxFile int64
	// Secrets are the credentials of rein's environment (the models'
	// keys...): a file that holds one is left out, never copied into the
	// store, and a snapshot says so. Values shorter than 8 bytes are
	// ignored.
	Secrets []string
}

// Store is the snapshots of one workspace in one directory. It is safe for
// concurrent use: Take, Base, Restore and Keep run one at a time; Diff,
// Open and Plan read only objects, and may run beside them (beside a Keep,
// only on snapshots it keeps). Several Stores may share a Dir, but only one
// should Keep.
type Store struct {
	root    string
	dir     string
	budget  int64
	maxFile int64
	obj     *objects

	// repository: top is the root of the git repository Root is in ("" when
	// none), gitDir its git directory, prefix Root's path below top.
	top, gitDir, prefix string

	mu        sync.Mutex // held by Take, Base, Restore and Keep
	made      bool       // the store's directories exist
	base      *tree      // the stat cache: the last snapshot taken or based on
	baseTaken time.Time  // when base was taken; zero when unknown
	indexKey  indexKey   // the index file tracked was parsed from
	tracked   *tracked

	cacheMu sync.Mutex
	cache   map[string]*tree // decoded trees by hash
	cached  int              // the entries of the trees in cache, and one a tree

	reads atomic.Int64 // files and links read by Takes, for the tests
}

// Snapshot says what a Take recorded.
type Snapshot struct {
	ID        string // sha256 hex of the root tree
	Files     int    // files (and links) recorded
	Bytes     int64  // their total size
	New       int    // objects this snapshot wrote (0 when nothing changed; a file whose time alone changed rewrites the trees on its path)
	NewBytes  int64  // bytes it wrote to disk (content + trees): the disk use of this checkpoint
	Left      []Left // what was left out: at most 20, in walk order
	LeftCount int    // how many files and directories were left out
	LeftBytes int64  // the size of the files left out (a directory left out is not measured)
}

// Left is one file or directory a snapshot left out.
type Left struct {
	Path   string // slash-separated, relative to Root
	Reason string // a short phrase: "ignored dependency directory", "ignored file over 5 MB", ...
}

// maxLeft is how many Left entries a Snapshot lists.
const maxLeft = 20

// Open returns the store of the workspace o.Root in o.Dir. It writes
// nothing; the first Take makes the directory.
func Open(o Options) (*Store, error) {
	if !filepath.IsAbs(o.Root) || !filepath.IsAbs(o.Dir) {
		return nil, fmt.Errorf("checkpoint: root %q and dir %q must be absolute", o.Root, o.Dir)
	}
	root, dir := filepath.Clean(o.Root), filepath.Clean(o.Dir)
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("checkpoint: %s is not a directory", root)
	}
	s := &Store{
		root: root, dir: dir,
		budget:  cmpOr(o.IgnoredBudget, DefaultIgnoredBudget),
		maxFile: cmpOr(o.IgnoredMaxFile, DefaultIgnoredMaxFile),
		obj:     newObjects(dir, secretBytes(o.Secrets)),
		cache:   map[string]*tree{},
	}
	if s.budget < 0 {
		s.budget = 0
	}
	if top, ok := workspace.Repository(root); ok {
		s.top = top
		s.gitDir = gitignore.GitDir(top)
		if top != root {
			rel, err := filepath.Rel(top, root)
			if err != nil {
				return nil, fmt.Errorf("checkpoint: %w", err)
			}
			s.prefix = filepath.ToSlash(rel)
		}
	}
	return s, nil
}

func cmpOr(v, def int64) int64 {
	if v == 0 {
		return def
	}
	return v
}

// Take records the workspace as it is now, incrementally against the base
// (the last snapshot this Store took or was based on): a file whose lstat
// is as the base recorded it is not read again. The snapshot becomes the
// base. It fails when ctx is done, when Root cannot be read, or when the
// store cannot be written; files that vanish or cannot be read while it
// runs are left out.
func (s *Store) Take(ctx context.Context) (Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	start := time.Now()
	if err := s.mkdirs(); err != nil {
		return Snapshot{}, err
	}
	if err := s.obj.begin(); err != nil {
		return Snapshot{}, err
	}
	w := s.newWalker(ctx)
	root, err := w.run()
	if err == nil {
		err = s.finish(root, &w.snap)
	}
	if endErr := s.obj.end(err == nil); err == nil {
		err = endErr
	}
	if err != nil {
		// The trees remembered are of a pack that is gone.
		s.cacheMu.Lock()
		clear(s.cache)
		s.cached = 0
		s.cacheMu.Unlock()
		return Snapshot{}, err
	}
	w.snap.ID = root.hash
	if err := s.writeTaken(root.hash, start); err != nil {
		return Snapshot{}, err
	}
	s.base, s.baseTaken = root, start
	return w.snap, nil
}

func (s *Store) mkdirs() error {
	if s.made {
		return nil
	}
	// objects/ and tmp/ are made when a first object is too large for a
	// pack: each directory made costs as much as a file.
	if err := os.MkdirAll(s.obj.packs, 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	s.made = true
	return nil
}

// finish gives every new tree its hash, bottom up, writing those that
// differ from the tree they replace, and counts the files into snap. A
// file a hashing goroutine dropped (gone, or unreadable) is removed from
// its tree here.
func (s *Store) finish(t *tree, snap *Snapshot) error {
	kept := t.entries[:0]
	for i := range t.entries {
		e := t.entries[i]
		switch e.kind {
		case 0:
			continue
		case kindLeft:
		case kindDir:
			if err := s.finish(e.sub, snap); err != nil {
				return err
			}
			e.hash = e.sub.hash
		default:
			snap.Files++
			snap.Bytes += e.size
		}
		kept = append(kept, e)
	}
	clear(t.entries[len(kept):])
	t.entries = kept
	prev := t.prev
	t.prev = nil
	if prev != nil && sameEntries(t, prev) {
		t.hash = prev.hash
		return nil
	}
	data := t.encode()
	h, created, err := s.obj.put(data)
	if err != nil {
		return err
	}
	t.hash = h
	if created {
		snap.New++
		snap.NewBytes += int64(len(data))
	}
	s.remember(t)
	return nil
}

func sameEntries(a, b *tree) bool {
	if len(a.entries) != len(b.entries) {
		return false
	}
	for i := range a.entries {
		if !a.entries[i].same(&b.entries[i]) {
			return false
		}
	}
	return true
}

// takenFile is the name of the file, in Dir, where each Take appends a
// line "<id> <unix ns>\n": when each snapshot was last taken, for the racy
// check of a Store based on it later. Appending to it costs less than
// making a file.
const takenFile = "taken"

// maxTaken is the most of the taken file read; Keep writes it again with
// the kept snapshots only.
const maxTaken = 16 << 20

// writeTaken records that snapshot id was taken at at.
func (s *Store) writeTaken(id string, at time.Time) error {
	f, err := os.OpenFile(filepath.Join(s.dir, takenFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, err = f.WriteString(id + " " + strconv.FormatInt(at.UnixNano(), 10) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// takenTimes returns when each snapshot the taken file names was last
// taken.
func (s *Store) takenTimes() map[string]time.Time {
	data, err := readBounded(filepath.Join(s.dir, takenFile), maxTaken)
	if err != nil {
		return nil
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(string(data), "\n") {
		id, ns, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if ok && err == nil && validHash(id) {
			out[id] = time.Unix(0, n)
		}
	}
	return out
}

// taken returns when snapshot id was last taken; zero when unknown.
func (s *Store) taken(id string) time.Time {
	return s.takenTimes()[id]
}

// racyFrom returns the time (ns) from which a file's modification time
// makes it racily clean against a snapshot taken at taken: within a second
// before it, or any time when taken is unknown.
func racyFrom(taken time.Time) int64 {
	if taken.IsZero() {
		return math.MinInt64
	}
	return taken.UnixNano() - int64(time.Second)
}

// ErrUnknownSnapshot is wrapped by the error for an id the store does not
// hold.
var ErrUnknownSnapshot = errors.New("checkpoint: no such snapshot")

// Base makes the existing snapshot id the base of the next Take (a resumed
// session's last checkpoint). An unknown or unreadable id is an error and
// leaves the base as it was.
func (s *Store) Base(id string) error {
	t, err := s.snapshot(id)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base, s.baseTaken = t, s.taken(id)
	return nil
}

// snapshot returns the root tree of snapshot id; an error wrapping
// ErrUnknownSnapshot when the store has no object id.
func (s *Store) snapshot(id string) (*tree, error) {
	if !validHash(id) || !s.obj.has(id) {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSnapshot, id)
	}
	return s.loadTree(id)
}

// loadTree returns the tree h, from the cache or the store.
func (s *Store) loadTree(h string) (*tree, error) {
	s.cacheMu.Lock()
	t := s.cache[h]
	s.cacheMu.Unlock()
	if t != nil {
		return t, nil
	}
	data, err := s.obj.read(h, 1<<30)
	if err != nil {
		return nil, err
	}
	t, err = decodeTree(h, data)
	if err != nil {
		return nil, err
	}
	s.remember(t)
	return t, nil
}

// maxCached is how many entries the decoded trees of the cache may hold
// (a few hundred bytes each) before it starts again empty.
const maxCached = 200_000

func (s *Store) remember(t *tree) {
	s.cacheMu.Lock()
	if s.cached+len(t.entries) > maxCached {
		clear(s.cache)
		s.cached = 0
	}
	if _, ok := s.cache[t.hash]; !ok {
		s.cache[t.hash] = t
		s.cached += len(t.entries) + 1
	}
	s.cacheMu.Unlock()
}

// subtree returns the tree of the directory entry e.
func (s *Store) subtree(e *entry) (*tree, error) {
	if e.sub != nil {
		return e.sub, nil
	}
	return s.loadTree(e.hash)
}
