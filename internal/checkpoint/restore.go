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
// which target does not have. Removals come first, deepest first, so a
// file can replace a directory and a directory a file. A path that would
// leave Root is refused (ErrOutside); every path is tried, and the error
// joins what failed. The next Take is correct after it: a rewritten file
// has a new inode, so it is read again.
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
	r := &restorer{s: s, t: t, root: root}
	var writes, removes []string
	for _, c := range changes {
		p := c.Path
		if !validPath(p) {
			r.fail(fmt.Errorf("%w: %q", ErrOutside, p))
			continue
		}
		e, err := s.lookup(t, p)
		if err != nil {
			r.fail(err)
			continue
		}
		if e == nil || e.kind == kindDir {
			removes = append(removes, p)
		} else {
			writes = append(writes, p)
		}
	}
	// Deepest first: a directory's files before it.
	slices.SortFunc(removes, func(a, b string) int { return strings.Compare(b, a) })
	for _, p := range removes {
		r.remove(p)
	}
	slices.Sort(writes)
	for _, p := range writes {
		r.write(p)
	}
	return errors.Join(r.errs...)
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
	s    *Store
	t    *tree
	root *os.Root
	errs []error
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
	if err := r.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
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
			// An empty directory left where the file goes (a full one is
			// an error: its files were not among the changes).
			err = r.root.Remove(p)
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
