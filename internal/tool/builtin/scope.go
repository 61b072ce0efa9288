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
	// session's artifacts directory is in reach too.
	forRead use = iota
	// forWrite: the tool may change the file (write_file, edit_file); the
	// artifacts directory is refused, wherever it is.
	forWrite
)

// scope is where the file and search tools of one session may go: inside
// the workspace, and, for the tools that only read, in the session's
// artifacts directory too, which holds the whole outputs of earlier tool
// calls (an observation elided from the prompt names its artifact by
// absolute path). The workspace is not widened: nothing else outside it
// comes in reach, and no tool writes in the artifacts directory, even
// where it lies inside the workspace. A path is resolved once, as the
// workspace resolves it (every symbolic link followed, ".." after the
// link), and it is where it leads that is judged, so a link or a ".." in
// the artifacts directory cannot lead a read out of it.
type scope struct {
	ws *workspace.Workspace
	// artifacts is the session's artifacts directory, absolute, its links
	// resolved when the scope was made (see realDir); "" means none.
	artifacts string
}

// newScope returns the scope of ws and the artifacts directory dir ("" for
// none; a relative one is taken from the current directory).
func newScope(ws *workspace.Workspace, dir string) *scope {
	s := &scope{ws: ws}
	if dir != "" {
		s.artifacts = realDir(dir)
	}
	return s
}

// realDir returns dir, absolute, with its links resolved; when dir does
// not exist yet (the runtime makes it with the first artifact), its
// parent's links are resolved and its name appended. It is "" when neither
// exists. Resolved once, here: a link put in place of the directory later
// (by a command) cannot move it elsewhere. A path resolved by the
// workspace has no links left, so when it lies below this one it is
// really in the directory there.
func realDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(real, filepath.Base(abs))
	}
	return ""
}

// locate returns where path leads for a tool that makes u of it. A path
// that leads outside the workspace, and not in the artifacts directory
// for a read, is a *workspace.OutsideError, as
// [workspace.Workspace.Resolve] returns it; a write in the artifacts
// directory is a precondition_failed *registry.CheckError; a path that
// cannot be resolved, the workspace's error.
func (s *scope) locate(path string, u use) (string, error) {
	abs, root, err := s.ws.Locate(path)
	if err != nil {
		return "", err
	}
	artifact := s.holds(abs)
	switch {
	case artifact && u == forWrite:
		return "", &registry.CheckError{Code: "precondition_failed", Message: fmt.Sprintf(
			"%s is in this session's artifacts directory (%s), which keeps the whole outputs of earlier tool calls to be read; no tool writes there",
			path, s.artifacts)}
	case artifact, root >= 0:
		return abs, nil
	}
	return "", &workspace.OutsideError{Path: path, Resolved: abs, Roots: s.ws.Roots()}
}

// holds reports whether abs, a path with its links resolved, is the
// artifacts directory or lies below it.
func (s *scope) holds(abs string) bool {
	return s.artifacts != "" && pathWithin(s.artifacts, abs)
}
