// Package workspace is the scope of rein's file tools: the workspace root
// and the roots the user added, kept with their symbolic links resolved,
// and the resolution of a path through its links to the root that holds
// it, or to the outside ([ErrOutside]). The file tools refuse what
// [Workspace.Resolve] puts outside; the permission policy asks where
// [Workspace.Locate] says a path leads.
//
// [Places] resolves a list of paths together (a [Resolver], which looks
// at each directory once), for those who need them resolved: the paths
// the sandbox hides are resolved once, at a session's start, for both the
// permission policy and the search tools, and again, as they are then,
// at each sandboxed command's start.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is matched (errors.Is) by the [*OutsideError] that
// [Workspace.Resolve] returns for a path that leads outside every root of
// the workspace.
var ErrOutside = errors.New("workspace: path outside the workspace")

// Workspace is the set of directories rein's file tools may touch: the
// workspace root and the roots the user added. Roots are kept with their
// symbolic links resolved, so a root reached through a link works, and a
// path is inside when, links followed, it is a root or lies below one.
//
// A Workspace is immutable and safe for concurrent use.
type Workspace struct {
	roots []string // absolute, cleaned, symlinks resolved; roots[0] is the root
}

// New returns the workspace rooted at root with the extra roots more. Each
// must be an existing directory; a relative one is taken from the current
// directory.
func New(root string, more ...string) (*Workspace, error) {
	w := &Workspace{}
	for _, r := range append([]string{root}, more...) {
		if r == "" {
			return nil, errors.New("workspace: empty root")
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("workspace: root %s: %w", r, err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("workspace: root: %w", err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("workspace: root: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("workspace: root %s is not a directory", r)
		}
		w.roots = append(w.roots, real)
	}
	return w, nil
}

// Root returns the workspace root, symlinks resolved.
func (w *Workspace) Root() string { return w.roots[0] }

// Roots returns the root and then the added roots, symlinks resolved.
func (w *Workspace) Roots() []string { return append([]string(nil), w.roots...) }

// Resolve returns the absolute path that path leads to, every symbolic link
// followed. A relative path starts at the workspace root. For a path that
// does not exist yet (a file about to be written), the links of its longest
// existing prefix are followed and the rest is appended. A path that leads
// outside every root is refused with an [*OutsideError], which names the
// path and the roots and matches [ErrOutside]; other errors (a permission denied on the
// way, an empty path) are returned wrapped.
func (w *Workspace) Resolve(path string) (string, error) {
	abs, inside, err := w.Locate(path)
	if err != nil {
		return "", err
	}
	if inside < 0 {
		return "", w.outside(path, abs)
	}
	return abs, nil
}

// outside is the error for path, which leads to abs outside every root.
func (w *Workspace) outside(path, abs string) error {
	return &OutsideError{Path: path, Resolved: abs, Roots: w.Roots()}
}

// OutsideError is the error for a path that leads outside the workspace.
// It matches [ErrOutside] with errors.Is.
type OutsideError struct {
	Path     string   // as given
	Resolved string   // where it leads, links followed
	Roots    []string // the workspace's roots
}

// Error says where the path leads and which roots it is outside of.
func (e *OutsideError) Error() string {
	where := "the workspace " + e.Roots[0]
	if len(e.Roots) > 1 {
		where = "the workspace roots " + strings.Join(e.Roots, ", ")
	}
	if e.Resolved != filepath.Clean(e.Path) {
		return fmt.Sprintf("workspace: %s leads to %s, outside %s", e.Path, e.Resolved, where)
	}
	return fmt.Sprintf("workspace: %s is outside %s", e.Path, where)
}

// Is reports whether target is [ErrOutside].
func (e *OutsideError) Is(target error) bool { return target == ErrOutside }

// Locate returns where path leads, as [Workspace.Resolve] finds it, and
// the index in [Workspace.Roots] of the root that holds it, -1 for none: a
// path outside is not an error here. An empty path, one with a NUL byte
// and one whose links cannot be followed are.
func (w *Workspace) Locate(path string) (abs string, root int, err error) {
	if path == "" {
		return "", -1, errors.New("workspace: empty path")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", -1, fmt.Errorf("workspace: path %q has a NUL byte", path)
	}
	p := path
	if !filepath.IsAbs(p) {
		// Not filepath.Join, which would clean "link/.." lexically; the
		// system resolves ".." after following link, and so does
		// EvalSymlinks.
		p = w.roots[0] + string(filepath.Separator) + p
	}
	abs, err = evalLongestPrefix(p)
	if err != nil {
		return "", -1, fmt.Errorf("workspace: resolve %s: %w", path, err)
	}
	return abs, w.rootOf(abs), nil
}

// rootOf returns the index of the root holding abs, -1 for none.
func (w *Workspace) rootOf(abs string) int {
	for i, r := range w.roots {
		if within(r, abs) {
			return i
		}
	}
	return -1
}

// within reports whether p is root or lies below it; both are clean and
// absolute.
func within(root, p string) bool {
	if p == root {
		return true
	}
	if strings.HasSuffix(root, string(filepath.Separator)) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// evalLongestPrefix follows the symbolic links of p. When p does not exist,
// it follows those of the longest prefix that does and appends the rest,
// cleaned.
func evalLongestPrefix(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	sep := string(filepath.Separator)
	parts := strings.Split(p, sep)
	for i := len(parts) - 1; i > 0; i-- {
		prefix := strings.Join(parts[:i], sep)
		if prefix == "" {
			prefix = sep
		}
		real, err := filepath.EvalSymlinks(prefix)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		// A dangling link in the prefix made EvalSymlinks fail on the
		// whole path; refuse to guess where it would lead once created.
		if fi, lerr := os.Lstat(strings.Join(parts[:i+1], sep)); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link to a missing file", strings.Join(parts[:i+1], sep))
		}
		return filepath.Join(real, filepath.Join(parts[i:]...)), nil
	}
	return filepath.Clean(p), nil
}
