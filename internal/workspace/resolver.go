package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Resolver finds where absolute paths lead, every symbolic link
// followed, with the answers [filepath.EvalSymlinks] gives, at less cost
// for many paths: it remembers each directory it resolved, so a
// directory that several paths share is looked at once, and one that is
// missing answers for every path below it without a system call (most of
// the credential stores the sandbox hides are missing on any machine,
// several of them under the same missing directory). What it remembers is
// the filesystem as it was when it looked: use one for paths resolved
// together, never across a change that could move them. The zero
// Resolver is ready to use; it is not safe for concurrent use.
type Resolver struct {
	real map[string]string // a clean absolute path: where it leads, "" when it does not resolve
}

// Real returns where path leads, every link followed: what
// filepath.EvalSymlinks returns for it, or "" when that fails (the path or
// a directory above it is missing or cannot be searched, or a link on the
// way dangles or loops). Only a clean absolute path is remembered; any
// other (relative, from the current directory, or with a ".." that must
// come after the link before it) is left to EvalSymlinks.
func (r *Resolver) Real(path string) string {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		real, _ := filepath.EvalSymlinks(path) // "" when it fails
		return real
	}
	if real, ok := r.real[path]; ok {
		return real
	}
	real := ""
	switch dir := filepath.Dir(path); {
	case dir == path:
		real = path // the root
	default:
		// EvalSymlinks walks the path's names in order, so where the
		// directory leads is where it leads with the last name left off;
		// where the directory does not resolve, nor does the path. A
		// last name that is no link adds nothing to resolve. A link is
		// left to EvalSymlinks, over the whole path, so that its limit
		// on links followed counts them all.
		d := r.Real(dir)
		if d == "" {
			break
		}
		next := path
		if d != dir { // a link on the way: the name below where it leads
			next = filepath.Join(d, filepath.Base(path))
		}
		fi, err := os.Lstat(next)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink == 0:
			real = next
		default:
			real, _ = filepath.EvalSymlinks(path) // "" when it fails
		}
	}
	if r.real == nil {
		r.real = make(map[string]string)
	}
	r.real[path] = real
	return real
}

// Reach returns where path leads, or, where it does not resolve, where it
// would lead were it made: where its nearest ancestor that resolves
// leads, with the rest of path joined to that. A hidden or writable path
// that is missing, or below a missing directory, is named so once made
// through a linked home. path is cleaned first; a relative one is taken
// from the current directory, as EvalSymlinks takes it, and its answer
// is relative where no ancestor resolves. A dangling link is a name like
// any other: where it stands, not where it points.
func (r *Resolver) Reach(path string) string {
	path = filepath.Clean(path)
	rest := ""
	for {
		if real := r.Real(path); real != "" {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest)
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}

// Place is a path and where it leads, as [Places] found it.
type Place struct {
	// Path is the path as given, cleaned.
	Path string
	// Real is where Path leads, every link followed (see
	// [Resolver.Real]); "" when it does not resolve, and for a relative
	// Path, which names no place.
	Real string
	// Reach is where Path leads or would lead were it made (see
	// [Resolver.Reach]); "" for a relative Path.
	Reach string
}

// Places resolves paths together (see [Resolver]), and returns a Place
// for each, in order: each path that is absolute resolved, as it is
// cleaned, and where it would be; a relative one is not resolved.
func Places(paths []string) []Place {
	var r Resolver
	out := make([]Place, len(paths))
	for i, p := range paths {
		p = filepath.Clean(p)
		out[i].Path = p
		if filepath.IsAbs(p) {
			out[i].Real = r.Real(p)
			out[i].Reach = r.Reach(p)
		}
	}
	return out
}
