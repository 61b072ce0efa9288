package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/gitignore"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// searchToolsIn returns the search tools over sc, glob then grep. Both
// only read, may run beside other tools, and see the files that git
// would: they skip .git and whatever the .gitignore files (and
// .git/info/exclude) of the tree ignore (and, made by Tools,
// Options.Hidden). They search the artifacts directory too, when told to.
func searchToolsIn(sc *scope) []registry.Tool {
	return []registry.Tool{globTool(sc), grepTool(sc)}
}

// searchTool declares a search tool: read-only, safe to run beside others,
// with a Check that decodes the input into T and runs check on it, and an
// Execute that decodes it and runs run.
func searchTool[T any](name, description, schema string, check func(T) error, run func(context.Context, T, io.Writer) error) registry.Tool {
	decode := func(input json.RawMessage) (T, error) {
		var in T
		if err := json.Unmarshal(input, &in); err != nil {
			return in, fmt.Errorf("%s: decode input: %w", name, err)
		}
		return in, nil
	}
	return declare(name, description, schema, registry.RiskRead,
		func(input json.RawMessage, _ state.Ledger) error {
			in, err := decode(input)
			if err != nil {
				return err
			}
			return check(in)
		},
		func(ctx context.Context, call *registry.Call) (registry.Result, error) {
			in, err := decode(call.Input)
			if err != nil {
				return registry.Result{}, err
			}
			return registry.Result{}, run(ctx, in, call.Output)
		})
}

// searchStart resolves the file or directory a search starts from: p, or
// the workspace root when p is empty; p may lead in the session's
// artifacts directory (see scope). A path outside them is a
// *registry.CheckError, so Check and Execute refuse it alike.
func searchStart(sc *scope, p string) (string, error) {
	if p == "" {
		return sc.ws.Root(), nil
	}
	abs, err := sc.locate(p, forRead)
	if errors.Is(err, workspace.ErrOutside) {
		return "", &registry.CheckError{
			Code:    "precondition_failed",
			Message: fmt.Sprintf("%s is outside the workspace roots (%s); search inside the workspace", p, strings.Join(sc.ws.Roots(), ", ")),
		}
	}
	if err != nil {
		return "", err
	}
	return abs, nil
}

// searchDisplay returns abs as the tools show it: relative to the workspace
// root with forward slashes when inside it, absolute otherwise.
func searchDisplay(ws *workspace.Workspace, abs string) string {
	rel, err := filepath.Rel(ws.Root(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return filepath.ToSlash(rel)
}

// searchWhere names the directory abs in a message.
func searchWhere(ws *workspace.Workspace, abs string) string {
	if abs == ws.Root() {
		return "the workspace root"
	}
	return searchDisplay(ws, abs)
}

// walkedFile is a file the walker found: a regular file, or a symbolic link
// to a regular file inside the workspace.
type walkedFile struct {
	abs string // absolute, the directories' links resolved; the last element may be a link
	rel string // relative to the walk's start directory, forward slashes
}

// walkFiles calls visit for every file below the directory start (resolved,
// inside ws), in lexical order directory by directory, skipping .git and
// what git would ignore. It does not descend into symbolic links to
// directories, so a link cycle cannot trap it, and skips links that lead
// outside the workspace and files that are neither regular nor links
// (a FIFO would block a reader). Unreadable directories below start are
// skipped, and so are the directories and files skip reports (nil for
// none): a link to a file is judged by where it leads. It returns ctx's
// error once ctx is done, visit's error when visit fails, or an error
// reading start.
func walkFiles(ctx context.Context, ws *workspace.Workspace, start string, skip func(abs string) bool, visit func(walkedFile) error) error {
	if skip == nil {
		skip = func(string) bool { return false }
	}
	w := &walker{ws: ws, visit: visit, skip: skip}
	entries, err := readDirSorted(start)
	if err != nil {
		return fmt.Errorf("read directory %s: %w", searchDisplay(ws, start), err)
	}
	return w.dir(ctx, start, "", entries, w.ancestorRules(start))
}

type walker struct {
	ws    *workspace.Workspace
	visit func(walkedFile) error
	skip  func(abs string) bool
}

// dir walks the directory abs, whose entries are given, under the ignore
// rules of its ancestors (outermost first).
func (w *walker) dir(ctx context.Context, abs, rel string, entries []fs.DirEntry, rules []*gitignore.Set) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	var hasGit, hasIgnore bool
	for _, e := range entries {
		switch e.Name() {
		case ".git":
			hasGit = true
		case ".gitignore":
			hasIgnore = true
		}
	}
	// At a repository's root, the ignore files above it belong to another
	// repository (or none) and do not apply inside it.
	rules = gitignore.Enter(rules, abs, hasGit, hasIgnore)
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		childAbs := filepath.Join(abs, name)
		if w.skip(childAbs) {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		switch t := e.Type(); {
		case t.IsDir():
			if gitignore.Ignored(rules, childAbs, name, true) {
				continue
			}
			sub, err := readDirSorted(childAbs)
			if err != nil {
				continue // unreadable: nothing of it to show
			}
			if err := w.dir(ctx, childAbs, childRel, sub, rules); err != nil {
				return err
			}
		case t.IsRegular():
			if gitignore.Ignored(rules, childAbs, name, false) {
				continue
			}
			if err := w.visit(walkedFile{abs: childAbs, rel: childRel}); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			fi, err := os.Stat(childAbs)
			if err != nil || !fi.Mode().IsRegular() || gitignore.Ignored(rules, childAbs, name, false) {
				continue
			}
			if real, err := w.ws.Resolve(childAbs); err != nil || w.skip(real) {
				continue
			}
			if err := w.visit(walkedFile{abs: childAbs, rel: childRel}); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDirSorted is os.ReadDir (the entries sorted by name) with the cheaper
// openNoPoll.
func readDirSorted(name string) ([]fs.DirEntry, error) {
	f, err := openNoPoll(name)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only: a close error loses nothing
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// ancestorRules returns the ignore rules that apply to start from above it:
// those of the directories from the top down to start's parent, where the
// top is the nearest repository root at or above start, or, with none, the
// workspace root that holds start. Ignore files outside the workspace are
// never read, apart from a repository's info/exclude reached through the
// gitdir link of a worktree's .git file.
func (w *walker) ancestorRules(start string) []*gitignore.Set {
	root := ""
	for _, r := range w.ws.Roots() {
		if pathWithin(r, start) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return nil
	}
	return gitignore.Above(start, root)
}

func pathWithin(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}
