package builtin

import (
	"fmt"
	"path/filepath"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// use is what a tool does with the path it names.
type use uint8

const (
	// forRead: the tool only reads (read_file, list_dir, grep, glob); the
	// session's artifacts directory and read roots are in reach too.
	forRead use = iota
	// forWrite: the tool may change the file (write_file, edit_file); the
	// artifacts directory is refused, wherever it is, and a read root
	// outside the workspace.
	forWrite
)

// scope is where the file and search tools of one session may go: inside
// the workspace, and, for the tools that only read, in a few directories
// outside it too (readRoot): the session's artifacts directory, which
// holds the whole outputs of earlier tool calls (an observation elided
// from the prompt names its artifact by absolute path), and the read
// roots the session names (Options.ReadRoots: the skills' directories).
// The workspace is not widened: nothing else outside it comes in reach,
// no tool writes in a read root outside the workspace, and no tool writes
// in the artifacts directory, even where it lies inside the workspace. A
// path is resolved once, as the workspace resolves it (every symbolic
// link followed, ".." after the link), and it is where it leads that is
// judged, so a link or a ".." in a read root cannot lead a read out of
// it.
type scope struct {
	ws *workspace.Workspace
	// reads are the read roots, the artifacts directory first when there
	// is one; each absolute, its links resolved when the scope was made
	// (see realDirs).
	reads []readRoot
	// hidden are the paths the walkers do not enter (Options.Hidden),
	// resolved as reads are.
	hidden []string
}

// hide adds places to those the walkers do not enter: where each leads,
// or would lead were it made ([workspace.Place].Reach). A relative one
// names no place and is left out.
func (s *scope) hide(places []workspace.Place) {
	for _, pl := range places {
		if filepath.IsAbs(pl.Path) {
			s.hidden = append(s.hidden, pl.Reach)
		}
	}
}

// hiddenFrom returns a function that reports whether a walk from start
// skips abs, a resolved path: it lies in a hidden path that does not hold
// start (a walk that starts in one, asked about, or in a read root there,
// walks it).
func (s *scope) hiddenFrom(start string) func(abs string) bool {
	var hidden []string
	for _, h := range s.hidden {
		if !pathWithin(h, start) {
			hidden = append(hidden, h)
		}
	}
	return func(abs string) bool {
		for _, h := range hidden {
			if pathWithin(h, abs) {
				return true
			}
		}
		return false
	}
}

// readRoot is a directory outside the workspace that the tools that only
// read may read.
type readRoot struct {
	dir string
	// artifacts marks the session's artifacts directory, where no tool
	// writes even where it lies inside the workspace.
	artifacts bool
}

// newScope returns the scope of ws, the artifacts directory dir ("" for
// none) and the read roots reads; a relative directory is taken from the
// current directory, and one that is not there (nor its parent) is left
// out.
func newScope(ws *workspace.Workspace, dir string, reads ...string) *scope {
	s := &scope{ws: ws}
	if dir != "" {
		reads = append([]string{dir}, reads...)
	}
	for i, real := range realDirs(reads) {
		if real != "" {
			s.reads = append(s.reads, readRoot{dir: real, artifacts: dir != "" && i == 0})
		}
	}
	return s
}

// realDirs returns each of dirs, absolute, with its links resolved; one
// that does not exist yet (the runtime makes the artifacts directory
// with the first artifact) as where its parent leads with its name
// appended; "" where neither exists. The directories are resolved
// together. Resolved once, here: a link put in place of a directory later
// (by a command) cannot move it elsewhere. A path resolved by the
// workspace has no links left, so when it lies below one of these it is
// really in the directory there.
func realDirs(dirs []string) []string {
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		abs[i], _ = filepath.Abs(d) // "" when it fails, which resolves to ""
	}
	out := make([]string, len(dirs))
	var r workspace.Resolver
	for i, d := range abs {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if out[i] = r.Real(d); out[i] == "" {
			if parent := r.Real(filepath.Dir(d)); parent != "" {
				out[i] = filepath.Join(parent, filepath.Base(d))
			}
		}
	}
	return out
}

// locate returns where path leads for a tool that makes u of it. A path
// that leads outside the workspace, and not in a read root for a read, is
// a *workspace.OutsideError, as [workspace.Workspace.Resolve] returns it;
// a write in the artifacts directory, or in a read root outside the
// workspace, is a precondition_failed *registry.CheckError; a path that
// cannot be resolved, the workspace's error.
func (s *scope) locate(path string, u use) (string, error) {
	abs, root, err := s.ws.Locate(path)
	if err != nil {
		return "", err
	}
	r, in := s.readRootOf(abs)
	switch {
	case in && r.artifacts && u == forWrite:
		return "", &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf(
			"%s is in this session's artifacts directory (%s), which keeps the whole outputs of earlier tool calls to be read; no tool writes there",
			path, r.dir)}
	case in && r.artifacts, root >= 0:
		return abs, nil
	case in && u == forWrite:
		return "", &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf(
			"%s is in %s, outside the workspace, which the file tools may read but not change", path, r.dir)}
	case in:
		return abs, nil
	}
	return "", &workspace.OutsideError{Path: path, Resolved: abs, Roots: s.ws.Roots()}
}

// readRootOf returns the read root abs, a path with its links resolved,
// is or lies below, the artifacts directory first.
func (s *scope) readRootOf(abs string) (readRoot, bool) {
	for _, r := range s.reads {
		if pathWithin(r.dir, abs) {
			return r, true
		}
	}
	return readRoot{}, false
}

// readOnly reports whether abs, a path with its links resolved, is where
// no tool writes: in the artifacts directory, or in a read root outside
// the workspace.
func (s *scope) readOnly(abs string) bool {
	r, in := s.readRootOf(abs)
	if !in || r.artifacts {
		return in
	}
	_, root, err := s.ws.Locate(abs)
	return err != nil || root < 0
}
