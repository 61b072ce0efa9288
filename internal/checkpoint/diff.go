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
	// InTheWay is set by Plan only: a path on disk that is in the way of
	// writing Path and that last did not record (so it is among the
	// Conflicts): Path itself, a directory holding files last did not
	// record, or one of Path's directories, a file or link there. Restore
	// removes it (all of it) only when it is set; "" when nothing is.
	InTheWay string
}

// Entry is a file or symbolic link as a snapshot holds it. The zero Entry
// stands for none.
type Entry struct {
	// Kind is "file" or "symlink"; "" for none; "left out" for a path the
	// snapshot left out (Plan's From only: what it held is unknown).
	Kind    string
	Mode    fs.FileMode // permission bits (a link's are 0777 on Linux)
	Size    int64       // bytes of content (a link's target's length)
	Hash    string      // sha256 hex of the content (a link's target)
	ModTime time.Time
	Reason  string // why a path was left out ("holds a credential..."); "" for a file or link
}

func (e *entry) public() Entry {
	if e == nil {
		return Entry{}
	}
	if e.kind == kindLeft {
		return Entry{Kind: e.kind.String(), Reason: leftReasons[e.hash]}
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
// no change). Directories are implied by their files. A path either
// snapshot left out (a tombstone, or below one) is no change: what it
// held there is unknown. Only the trees whose hashes differ are read.
func (s *Store) Diff(from, to string) ([]Change, error) {
	pairs, err := s.diff(from, to, false)
	if err != nil {
		return nil, err
	}
	out := make([]Change, len(pairs))
	for i, p := range pairs {
		out[i] = p.change()
	}
	return out, nil
}

// diff returns the pairs that differ between from and to. With restore
// (from being what rein last recorded, to the snapshot a restore brings
// back), a path from left out but to recorded is a pair too, from being
// the tombstone: to's entry can be restored, over content unknown.
func (s *Store) diff(from, to string, restore bool) ([]pair, error) {
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
	d := differ{s: s, restore: restore}
	if err := d.trees("", a, b, &out); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(x, y pair) int { return strings.Compare(x.path, y.path) })
	return out, nil
}

// differ compares two snapshots' trees.
type differ struct {
	s       *Store
	restore bool // see Store.diff
}

// trees appends what differs between the trees a and b (either may be
// nil) of the directory prefix.
func (d *differ) trees(prefix string, a, b *tree, out *[]pair) error {
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
		if err := d.entries(path, x, y, out); err != nil {
			return err
		}
	}
	return nil
}

// entries appends what differs between the entries x and y of path.
func (d *differ) entries(path string, x, y *entry, out *[]pair) error {
	xLeft, yLeft := x != nil && x.kind == kindLeft, y != nil && y.kind == kindLeft
	switch {
	case yLeft || xLeft && (!d.restore || y == nil):
		return nil // unknown on one side: no change
	case xLeft && y.kind == kindDir:
		var under []pair
		if err := d.subtrees(path, nil, y, &under); err != nil {
			return err
		}
		for _, p := range under {
			p.from = x
			*out = append(*out, p)
		}
		return nil
	case xLeft:
		*out = append(*out, pair{path: path, from: x, to: y})
		return nil
	}
	xDir, yDir := x != nil && x.kind == kindDir, y != nil && y.kind == kindDir
	if xDir && yDir {
		if x.hash == y.hash {
			return nil
		}
		return d.subtrees(path, x, y, out)
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
			err = d.subtrees(path, nil, dirSide, out)
		} else {
			err = d.subtrees(path, dirSide, nil, out)
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

func (d *differ) subtrees(path string, x, y *entry, out *[]pair) error {
	var a, b *tree
	var err error
	if x != nil {
		if a, err = d.s.subtree(x); err != nil {
			return err
		}
	}
	if y != nil {
		if b, err = d.s.subtree(y); err != nil {
			return err
		}
	}
	return d.trees(path, a, b, out)
}

// lookup returns the entry of path (slash-separated, relative to Root) in
// the tree t; nil when there is none; the tombstone of path or of one of
// its directories when t left it out.
func (s *Store) lookup(t *tree, path string) (*entry, error) {
	parts := strings.Split(path, "/")
	for i, name := range parts {
		e := t.find(name)
		if e == nil || i == len(parts)-1 || e.kind == kindLeft {
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
	if e.kind == kindLeft {
		return nil, Entry{}, fmt.Errorf("checkpoint: snapshot %s left %s out (%s): %w", short(id), path, leftReasons[e.hash], ErrLeftOut)
	}
	r, err := s.obj.open(e.hash)
	if err != nil {
		return nil, Entry{}, fmt.Errorf("checkpoint: %s in snapshot %s: %w", path, short(id), err)
	}
	return r, e.public(), nil
}

// ErrLeftOut is wrapped by the error of Open for a path the snapshot left
// out (see Snapshot.Left).
var ErrLeftOut = errors.New("checkpoint: left out of the snapshot")

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Plan is what restoring a snapshot would do.
type Plan struct {
	// Changes are the paths that differ between last and target and that
	// are not on disk as target has them already, with Op from the point
	// of view of the restore: Created, the path comes back; Changed, it is
	// rewritten; Deleted, it is removed. From is last's entry (Kind "left
	// out" for a path last left out), To target's. A path target left out
	// is never among them: it is left alone.
	Changes []Change
	// Conflicts are the paths whose content on disk a restore would lose
	// and rein did not record last: among Changes, those that differ from
	// last's entry (a file missing where last had one, or present where
	// last had none, counts), and those last left out (their content is
	// unknown); and what is in the way of one (Change.InTheWay). A rewind
	// stops on them unless forced.
	Conflicts []string
}

// Plan says what restoring the snapshot target does, last being the
// snapshot rein last recorded, and which of those paths someone changed
// since last. Only the files lstat says may differ are read.
func (s *Store) Plan(target, last string) (Plan, error) {
	pairs, err := s.diff(last, target, true)
	if err != nil {
		return Plan{}, err
	}
	racyLast, racyTarget := racyFrom(s.taken(last)), racyFrom(s.taken(target))
	var lastTree, targetTree *tree
	if last != "" {
		if lastTree, err = s.snapshot(last); err != nil {
			return Plan{}, err
		}
	}
	if targetTree, err = s.snapshot(target); err != nil {
		return Plan{}, err
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return Plan{}, fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close() // read-only: a close error loses nothing
	var plan Plan
	conflicts := map[string]bool{}
	removing := map[string]bool{}
	for _, p := range pairs {
		// On disk as target has it already (put back by hand): nothing to
		// write, nothing to lose.
		same, err := s.onDisk(root, p.path, p.to, racyTarget, true)
		if err == nil && !same && p.to == nil {
			same, err = s.dirOnDisk(root, targetTree, p.path)
		}
		if err != nil {
			return Plan{}, err
		}
		if same {
			continue
		}
		plan.Changes = append(plan.Changes, p.change())
		if p.to == nil {
			removing[p.path] = true
		}
		if p.from != nil && p.from.kind == kindLeft {
			conflicts[p.path] = true // last left it out: what is there is unknown
			continue
		}
		same, err = s.onDisk(root, p.path, p.from, racyLast, false)
		if err == nil && !same && p.from == nil {
			// A directory last had where target has a file: its files are
			// among the changes, each checked on its own.
			same, err = s.dirOnDisk(root, lastTree, p.path)
		}
		if err != nil {
			return Plan{}, err
		}
		if !same {
			conflicts[p.path] = true
		}
	}
	for i := range plan.Changes {
		c := &plan.Changes[i]
		if c.To.Kind != "file" && c.To.Kind != "symlink" {
			continue
		}
		if c.InTheWay = inTheWay(root, c.Path, removing); c.InTheWay != "" {
			conflicts[c.InTheWay] = true
		}
	}
	for p := range conflicts {
		plan.Conflicts = append(plan.Conflicts, p)
	}
	slices.Sort(plan.Conflicts)
	return plan, nil
}

// inTheWay returns what on disk would stop writing a file at p, the paths
// of removing being removed first: one of p's directories that is a file
// or link, or p itself a directory that the removals do not empty; ""
// when nothing is.
func inTheWay(root *os.Root, p string, removing map[string]bool) string {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := root.Lstat(dir)
		switch {
		case err != nil:
			return "" // missing: made, as what is below it
		case fi.IsDir():
			continue
		case removing[dir]:
			return ""
		default:
			return dir
		}
	}
	fi, err := root.Lstat(p)
	if err != nil || !fi.IsDir() {
		return "" // a file or link is replaced by the rename
	}
	budget := maxEmptied
	if emptied(root, p, removing, &budget) {
		return ""
	}
	return p
}

// maxEmptied is the most entries emptied looks at: a directory larger is
// taken for one that is in the way.
const maxEmptied = 10_000

// emptied reports whether removing the paths of removing (and then the
// directories that leaves empty) empties the directory dir on disk,
// looking at no more than *budget entries.
func emptied(root *os.Root, dir string, removing map[string]bool, budget *int) bool {
	f, err := root.Open(dir)
	if err != nil {
		return false
	}
	entries, err := f.ReadDir(-1)
	f.Close() // read-only: a close error loses nothing
	if err != nil {
		return false
	}
	for _, e := range entries {
		if *budget--; *budget < 0 {
			return false
		}
		child := dir + "/" + e.Name()
		if e.IsDir() {
			if !emptied(root, child, removing, budget) {
				return false
			}
		} else if !removing[child] {
			return false
		}
	}
	return true
}

// onDisk reports whether path on disk is as e records it (nil: absent):
// its content, and with mode a file's permission bits too. A path whose
// parent is not a directory (a link, a file) is not there.
func (s *Store) onDisk(root *os.Root, path string, e *entry, racy int64, mode bool) (bool, error) {
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
	switch {
	case e.kind == kindLink && fi.Mode()&fs.ModeSymlink != 0:
		target, err := root.Readlink(path)
		if err != nil {
			return false, nil
		}
		return sha256hex([]byte(target)) == e.hash, nil
	case e.kind == kindFile && fi.Mode().IsRegular():
		if fi.Size() != e.size || mode && fi.Mode().Perm() != e.mode {
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
