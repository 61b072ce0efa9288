package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Op is what happened to a path between two snapshots.
type Op string

// The ops of a Change.
const (
	Created Op = "created"
	Changed Op = "changed"
	Deleted Op = "deleted"
)

// Change is one path that differs between two snapshots.
type Change struct {
	Path     string // slash-separated, relative to Root
	Op       Op     // what happened between from and to
	From, To Entry  // the entry in each snapshot (zero when absent)
}

// Entry is a file or symbolic link as a snapshot holds it. The zero Entry
// stands for none.
type Entry struct {
	Kind    string      // "file" or "symlink"; "" for none
	Mode    fs.FileMode // permission bits (a link's are 0777 on Linux)
	Size    int64       // bytes of content (a link's target's length)
	Hash    string      // sha256 hex of the content (a link's target)
	ModTime time.Time
}

func (e *entry) public() Entry {
	if e == nil {
		return Entry{}
	}
	return Entry{Kind: e.kind.String(), Mode: e.mode, Size: e.size, Hash: e.hash, ModTime: time.Unix(0, e.mtime)}
}

// pair is a change with the entries it is between.
type pair struct {
	path     string
	from, to *entry
}

func (p pair) change() Change {
	c := Change{Path: p.path, From: p.from.public(), To: p.to.public()}
	switch {
	case p.from == nil:
		c.Op = Created
	case p.to == nil:
		c.Op = Deleted
	default:
		c.Op = Changed
	}
	return c
}

// Diff returns the files and symbolic links that differ between the
// snapshots from and to ("" for an empty one), sorted by path: created,
// deleted, or changed (content, kind, or permission bits; a time alone is
// no change). Directories are implied by their files. Only the trees whose
// hashes differ are read.
func (s *Store) Diff(from, to string) ([]Change, error) {
	pairs, err := s.diff(from, to)
	if err != nil {
		return nil, err
	}
	out := make([]Change, len(pairs))
	for i, p := range pairs {
		out[i] = p.change()
	}
	return out, nil
}

func (s *Store) diff(from, to string) ([]pair, error) {
	var a, b *tree
	var err error
	if from != "" {
		if a, err = s.snapshot(from); err != nil {
			return nil, err
		}
	}
	if to != "" {
		if b, err = s.snapshot(to); err != nil {
			return nil, err
		}
	}
	var out []pair
	if err := s.diffTrees("", a, b, &out); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(x, y pair) int { return strings.Compare(x.path, y.path) })
	return out, nil
}

// diffTrees appends what differs between the trees a and b (either may be
// nil) of the directory prefix.
func (s *Store) diffTrees(prefix string, a, b *tree, out *[]pair) error {
	var ea, eb []entry
	if a != nil {
		ea = a.entries
	}
	if b != nil {
		eb = b.entries
	}
	for len(ea) > 0 || len(eb) > 0 {
		var x, y *entry
		switch {
		case len(eb) == 0 || len(ea) > 0 && ea[0].name < eb[0].name:
			x, ea = &ea[0], ea[1:]
		case len(ea) == 0 || eb[0].name < ea[0].name:
			y, eb = &eb[0], eb[1:]
		default:
			x, y, ea, eb = &ea[0], &eb[0], ea[1:], eb[1:]
		}
		name := y
		if name == nil {
			name = x
		}
		path := name.name
		if prefix != "" {
			path = prefix + "/" + path
		}
		if err := s.diffEntries(path, x, y, out); err != nil {
			return err
		}
	}
	return nil
}

// diffEntries appends what differs between the entries x and y of path.
func (s *Store) diffEntries(path string, x, y *entry, out *[]pair) error {
	xDir, yDir := x != nil && x.kind == kindDir, y != nil && y.kind == kindDir
	if xDir && yDir {
		if x.hash == y.hash {
			return nil
		}
		return s.diffSubtrees(path, x, y, out)
	}
	if xDir || yDir {
		// A directory on one side only: its files on that side, and the
		// file or link on the other.
		dirSide, fileSide := x, y
		if yDir {
			dirSide, fileSide = y, x
		}
		var err error
		if yDir {
			err = s.diffSubtrees(path, nil, dirSide, out)
		} else {
			err = s.diffSubtrees(path, dirSide, nil, out)
		}
		if err != nil {
			return err
		}
		if fileSide != nil {
			if yDir {
				*out = append(*out, pair{path: path, from: fileSide})
			} else {
				*out = append(*out, pair{path: path, to: fileSide})
			}
		}
		return nil
	}
	if x != nil && y != nil && x.kind == y.kind && x.mode == y.mode && x.hash == y.hash {
		return nil
	}
	*out = append(*out, pair{path: path, from: x, to: y})
	return nil
}

func (s *Store) diffSubtrees(path string, x, y *entry, out *[]pair) error {
	var a, b *tree
	var err error
	if x != nil {
		if a, err = s.subtree(x); err != nil {
			return err
		}
	}
	if y != nil {
		if b, err = s.subtree(y); err != nil {
			return err
		}
	}
	return s.diffTrees(path, a, b, out)
}

// lookup returns the entry of path (slash-separated, relative to Root) in
// the tree t; nil when there is none.
func (s *Store) lookup(t *tree, path string) (*entry, error) {
	parts := strings.Split(path, "/")
	for i, name := range parts {
		e := t.find(name)
		if e == nil || i == len(parts)-1 {
			return e, nil
		}
		if e.kind != kindDir {
			return nil, nil
		}
		var err error
		if t, err = s.subtree(e); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// Open returns the content of the file or symbolic link path (its
// target) as snapshot id holds it, and its entry. The reader fails at its
// end when the object's bytes do not match its hash; the caller closes
// it.
func (s *Store) Open(id, path string) (io.ReadCloser, Entry, error) {
	t, err := s.snapshot(id)
	if err != nil {
		return nil, Entry{}, err
	}
	e, err := s.lookup(t, path)
	if err != nil {
		return nil, Entry{}, err
	}
	if e == nil || e.kind == kindDir {
		return nil, Entry{}, fmt.Errorf("checkpoint: snapshot %s has no file %s: %w", short(id), path, fs.ErrNotExist)
	}
	r, err := s.obj.open(e.hash)
	if err != nil {
		return nil, Entry{}, fmt.Errorf("checkpoint: %s in snapshot %s: %w", path, short(id), err)
	}
	return r, e.public(), nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Plan is what restoring a snapshot would do.
type Plan struct {
	// Changes are the paths that differ between last and target, with Op
	// from the point of view of the restore: Created, the path comes back;
	// Changed, it is rewritten; Deleted, it is removed. From is last's
	// entry, To target's.
	Changes []Change
	// Conflicts are the paths among Changes whose content on disk now
	// differs from last's: changed since by someone else (a file missing
	// where last had one, or present where last had none, counts).
	Conflicts []string
}

// Plan says what restoring the snapshot target does, last being the
// snapshot rein last recorded, and which of those paths someone changed
// since last. Only the files lstat says may differ are read.
func (s *Store) Plan(target, last string) (Plan, error) {
	pairs, err := s.diff(last, target)
	if err != nil {
		return Plan{}, err
	}
	racy := racyFrom(s.taken(last))
	var lastTree *tree
	if last != "" {
		if lastTree, err = s.snapshot(last); err != nil {
			return Plan{}, err
		}
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return Plan{}, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close() // read-only: a close error loses nothing
	var plan Plan
	for _, p := range pairs {
		plan.Changes = append(plan.Changes, p.change())
		same, err := s.onDisk(root, p.path, p.from, racy)
		if err == nil && !same && p.from == nil {
			// A directory last had where target has a file: its files are
			// among the changes, each checked on its own.
			same, err = s.dirOnDisk(root, lastTree, p.path)
		}
		if err != nil {
			return Plan{}, err
		}
		if !same {
			plan.Conflicts = append(plan.Conflicts, p.path)
		}
	}
	return plan, nil
}

// onDisk reports whether path on disk is as e records it (nil: absent).
// A path whose parent is not a directory (a link, a file) is not there.
func (s *Store) onDisk(root *os.Root, path string, e *entry, racy int64) (bool, error) {
	fi, err := lstatBeneath(root, path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return e == nil, nil
	}
	if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	if e == nil {
		return false, nil
	}
	mode := fi.Mode()
	switch {
	case e.kind == kindLink && mode&fs.ModeSymlink != 0:
		target, err := root.Readlink(path)
		if err != nil {
			return false, nil
		}
		return sha256hex([]byte(target)) == e.hash, nil
	case e.kind == kindFile && mode.IsRegular():
		if fi.Size() != e.size {
			return false, nil
		}
		var ino uint64
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			ino = st.Ino
		}
		if fi.ModTime().UnixNano() == e.mtime && ino == e.ino && e.mtime < racy {
			return true, nil
		}
		f, err := root.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			return false, nil
		}
		defer f.Close() // read-only: a close error loses nothing
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return false, nil
		}
		return hex.EncodeToString(h.Sum(nil)) == e.hash, nil
	}
	return false, nil
}

// dirOnDisk reports whether path is a directory on disk, as it is in the
// snapshot t.
func (s *Store) dirOnDisk(root *os.Root, t *tree, path string) (bool, error) {
	e, err := s.lookup(t, path)
	if err != nil || e == nil || e.kind != kindDir {
		return false, err
	}
	fi, err := lstatBeneath(root, path)
	return err == nil && fi.IsDir(), nil
}

// lstatBeneath lstats path below root, refusing (as fs.ErrNotExist) a
// path whose parents are not all directories: a link in place of one
// means the path is not what a snapshot recorded.
func lstatBeneath(root *os.Root, path string) (fs.FileInfo, error) {
	parts := strings.Split(path, "/")
	for i := 1; i < len(parts); i++ {
		fi, err := root.Lstat(strings.Join(parts[:i], "/"))
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, fs.ErrNotExist
		}
	}
	return root.Lstat(path)
}

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
