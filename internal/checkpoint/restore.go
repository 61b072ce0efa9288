package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"
)

// ErrOutside is wrapped by the error for a path Restore refuses because
// writing it would leave Root (a "..", an absolute path, a symbolic link
// in place of one of its directories) or touch .git.
var ErrOutside = errors.New("checkpoint: path leads outside the workspace")

// Restore writes snapshot target's content back for exactly the paths of
// changes (their Op and entries are not trusted: target decides): a path
// target holds is written (a file atomically, a temporary file in its
// directory renamed over it, with target's permission bits and time; a
// symbolic link as a link), making its missing directories; a path target
// does not hold is removed, and so are the directories that leaves empty
// which target does not have; a path target left out is left alone. What
// a change's InTheWay names is removed, all of it; nothing else that is
// in the way is (a directory someone made where a removed file was stays
// unless empty). Removals come first, deepest first, so a file can replace
// a directory and a directory a file.
//
// It checks first, and writes nothing when a check fails: a path that
// would leave Root (ErrOutside: a "..", an absolute path, a symbolic link
// in place of one of its directories) or touch .git, something in the way
// of a write that no InTheWay names, an object of target that is missing
// or corrupt. The error joins every failure found. The next Take is
// correct after it: a rewritten file has a new inode, so it is read again.
func (s *Store) Restore(target string, changes []Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.snapshot(target)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	defer root.Close() // the writes are done or failed by then
	r := &restorer{s: s, t: t, root: root, clear: map[string]bool{}}
	var writes, removes []string
	removing := map[string]bool{}
	for _, c := range changes {
		p := c.Path
		if !validPath(p) || c.InTheWay != "" && !validPath(c.InTheWay) {
			r.fail(fmt.Errorf("%w: %q", ErrOutside, p))
			continue
		}
		e, err := s.lookup(t, p)
		switch {
		case err != nil:
			r.fail(err)
			continue
		case e != nil && e.kind == kindLeft:
			continue // target left it out: there is nothing to bring back
		case e == nil || e.kind == kindDir:
			removes = append(removes, p)
			removing[p] = true
		default:
			writes = append(writes, p)
		}
		if c.InTheWay != "" {
			r.clear[c.InTheWay] = true
		}
	}
	slices.Sort(writes)
	for _, p := range writes {
		r.check(p, removing)
	}
	if len(r.errs) > 0 {
		return errors.Join(r.errs...)
	}
	// Deepest first: a directory's files before it.
	slices.SortFunc(removes, func(a, b string) int { return strings.Compare(b, a) })
	for _, p := range removes {
		r.remove(p)
	}
	for _, p := range writes {
		r.write(p)
	}
	return errors.Join(r.errs...)
}

// check fails when writing target's entry of p would: one of p's
// directories a link or a file that is neither removed first nor in the
// way (cleared), p a directory that the removals do not empty and that is
// not cleared, or target's object of p missing or corrupt (read whole).
func (r *restorer) check(p string, removing map[string]bool) {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := r.root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			i = len(parts) // made when written
		case err != nil:
			r.fail(fmt.Errorf("checkpoint: restore %s: %w", p, err))
			return
		case fi.IsDir():
			continue
		case removing[dir] || r.clear[dir]:
			i = len(parts) // removed first
		case fi.Mode()&fs.ModeSymlink != 0:
			r.fail(fmt.Errorf("%w: %s: %s is a symbolic link", ErrOutside, p, dir))
			return
		default:
			r.fail(fmt.Errorf("checkpoint: restore %s: %s is not a directory", p, dir))
			return
		}
	}
	if fi, err := r.root.Lstat(p); err == nil && fi.IsDir() && !r.clear[p] {
		budget := maxEmptied
		if !emptied(r.root, p, removing, &budget) {
			r.fail(fmt.Errorf("checkpoint: restore %s: a directory holding files rein did not record is in its place", p))
			return
		}
	}
	e, err := r.s.lookup(r.t, p)
	if err != nil {
		r.fail(err)
		return
	}
	src, err := r.s.obj.open(e.hash)
	if err == nil {
		_, err = io.Copy(io.Discard, src) // the verifier fails at the end on a corrupt object
		src.Close()                       // read-only: a close error loses nothing
	}
	if err != nil {
		r.fail(fmt.Errorf("checkpoint: restore %s: %w", p, err))
	}
}

// validPath reports whether p is a clean, relative, slash-separated path
// that stays below the root and out of .git.
func validPath(p string) bool {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || strings.Contains(p, "\x00") {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." || part == ".git" {
			return false
		}
	}
	return true
}

type restorer struct {
	s     *Store
	t     *tree
	root  *os.Root
	clear map[string]bool // what Plan found in the way, which may go
	errs  []error
}

func (r *restorer) fail(err error) { r.errs = append(r.errs, err) }

// parents checks that the directories of p below the root are directories,
// not links nor files, making those that are missing (with target's
// modes) when mk is set. It reports whether they are all there.
func (r *restorer) parents(p string, mk bool) (bool, error) {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := r.root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !mk {
				return false, nil
			}
			mode := fs.FileMode(0o755)
			if e, _ := r.s.lookup(r.t, dir); e != nil && e.kind == kindDir {
				mode = e.mode
			}
			if err := r.root.Mkdir(dir, mode|0o700); err != nil {
				return false, fmt.Errorf("checkpoint: restore %s: %w", p, err)
			}
			if err := r.root.Chmod(dir, mode); err != nil {
				return false, fmt.Errorf("checkpoint: restore %s: %w", p, err)
			}
		case err != nil:
			return false, fmt.Errorf("checkpoint: restore %s: %w", p, err)
		case mk && !fi.IsDir() && r.clear[dir]:
			// In the way, as Plan found: it goes (a link itself, never
			// what it leads to), and the directory is made.
			if err := r.root.Remove(dir); err != nil {
				return false, fmt.Errorf("checkpoint: restore %s: %w", p, err)
			}
			i--
		case fi.Mode()&fs.ModeSymlink != 0:
			return false, fmt.Errorf("%w: %s: %s is a symbolic link", ErrOutside, p, dir)
		case !fi.IsDir():
			return false, fmt.Errorf("checkpoint: restore %s: %s is not a directory", p, dir)
		}
	}
	return true, nil
}

// remove removes p, and then its directories that it leaves empty and that
// target does not have.
func (r *restorer) remove(p string) {
	ok, err := r.parents(p, false)
	if err != nil && !r.targetHasDirs(p) {
		// A file or link where p's directory was, and target has no
		// directory there either (one it wrote already): p is gone, and
		// nothing is removed through a link.
		return
	}
	if err != nil {
		r.fail(err)
		return
	}
	if !ok {
		return // a directory of it is gone: so is it
	}
	if e, _ := r.s.lookup(r.t, p); e != nil && e.kind == kindDir {
		// Target has a directory here: what goes is a file or link in its
		// place, not a directory already there.
		if fi, err := r.root.Lstat(p); err != nil || fi.IsDir() {
			return
		}
	}
	if err := r.root.Remove(p); errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return // a directory someone made where the file was: it stays
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		r.fail(fmt.Errorf("checkpoint: restore %s: %w", p, err))
		return
	}
	for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
		if e, _ := r.s.lookup(r.t, dir); e != nil && e.kind == kindDir {
			return
		}
		if r.root.Remove(dir) != nil {
			return // not empty (or not there): it stays
		}
	}
}

// targetHasDirs reports whether target has every directory of p.
func (r *restorer) targetHasDirs(p string) bool {
	dir := path.Dir(p)
	if dir == "." {
		return true
	}
	e, err := r.s.lookup(r.t, dir)
	return err == nil && e != nil && e.kind == kindDir
}

// write writes target's entry of p over whatever is there.
func (r *restorer) write(p string) {
	e, err := r.s.lookup(r.t, p)
	if err != nil {
		r.fail(err)
		return
	}
	if _, err := r.parents(p, true); err != nil {
		r.fail(err)
		return
	}
	tmp := path.Join(path.Dir(p), ".rein-restore-"+randomName())
	if e.kind == kindLink {
		err = r.link(tmp, e)
	} else {
		err = r.file(tmp, e)
	}
	if err == nil {
		if fi, lerr := r.root.Lstat(p); lerr == nil && fi.IsDir() {
			// A directory left where the file goes: empty, or in the way
			// as Plan found (check refused any other).
			if r.clear[p] {
				err = r.root.RemoveAll(p)
			} else {
				err = r.root.Remove(p)
			}
		}
	}
	if err == nil {
		err = r.root.Rename(tmp, p)
	}
	if err != nil {
		// The temporary file is ours; failing to remove it leaves a
		// stray file beside p, and the first error says what failed.
		_ = r.root.Remove(tmp)
		r.fail(fmt.Errorf("checkpoint: restore %s: %w", p, err))
	}
}

func (r *restorer) link(tmp string, e *entry) error {
	target, err := r.s.obj.read(e.hash, 1<<20)
	if err != nil {
		return err
	}
	return r.root.Symlink(string(target), tmp)
}

func (r *restorer) file(tmp string, e *entry) error {
	src, err := r.s.obj.open(e.hash)
	if err != nil {
		return err
	}
	defer src.Close() // read-only: a close error loses nothing
	f, err := r.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, src) // the verifier fails at the end on a corrupt object
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.root.Chmod(tmp, e.mode)
	}
	if err == nil {
		mt := time.Unix(0, e.mtime)
		err = r.root.Chtimes(tmp, mt, mt)
	}
	return err
}

func randomName() string {
	var b [8]byte
	rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
