package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

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
func (w *walker) dir(ctx context.Context, abs, rel string, entries []fs.DirEntry, rules []*ignoreSet) error {
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
	if hasGit {
		// A repository's root: the ignore files above it belong to another
		// repository (or none) and do not apply inside it.
		rules = nil
		if set := loadIgnoreSet(gitInfoExclude(abs), abs); set != nil {
			rules = append(rules, set)
		}
	}
	if hasIgnore {
		if set := loadIgnoreSet(filepath.Join(abs, ".gitignore"), abs); set != nil {
			rules = append(rules[:len(rules):len(rules)], set)
		}
	}
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
			if isIgnored(rules, childAbs, name, true) {
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
			if isIgnored(rules, childAbs, name, false) {
				continue
			}
			if err := w.visit(walkedFile{abs: childAbs, rel: childRel}); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0:
			fi, err := os.Stat(childAbs)
			if err != nil || !fi.Mode().IsRegular() || isIgnored(rules, childAbs, name, false) {
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
func (w *walker) ancestorRules(start string) []*ignoreSet {
	root := ""
	for _, r := range w.ws.Roots() {
		if pathWithin(r, start) && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return nil
	}
	var chain []string // start's ancestors, nearest first, up to the top
	top := ""
	for d := start; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		if d == root {
			break
		}
		d = filepath.Dir(d)
		chain = append(chain, d)
	}
	var rules []*ignoreSet
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		if d == top {
			if set := loadIgnoreSet(gitInfoExclude(d), d); set != nil {
				rules = append(rules, set)
			}
		}
		if set := loadIgnoreSet(filepath.Join(d, ".gitignore"), d); set != nil {
			rules = append(rules, set)
		}
	}
	return rules
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

// gitInfoExclude returns the path of the info/exclude file of the
// repository rooted at top, following the gitdir (and commondir) link when
// .git is a file, as in a worktree or a submodule.
func gitInfoExclude(top string) string {
	dotGit := filepath.Join(top, ".git")
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return filepath.Join(dotGit, "info", "exclude") // a directory, or nothing
	}
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(top, gitDir)
	}
	if common, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		gitDir = c
	}
	return filepath.Join(gitDir, "info", "exclude")
}

// ignoreSet is the rules of one ignore file, relative to the directory dir.
type ignoreSet struct {
	dir   string
	rules []ignoreRule
}

// loadIgnoreSet reads the ignore file at file, whose patterns are relative
// to dir; nil when it is missing, unreadable or has no rules.
func loadIgnoreSet(file, dir string) *ignoreSet {
	if file == "" {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	rules := parseIgnore(data)
	if len(rules) == 0 {
		return nil
	}
	return &ignoreSet{dir: dir, rules: rules}
}

// isIgnored reports whether git would ignore the file or directory abs
// (named name) under rules, outermost first: the last matching rule of the
// innermost set that has one decides.
func isIgnored(rules []*ignoreSet, abs, name string, isDir bool) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		set := rules[i]
		var parts []string
		for j := len(set.rules) - 1; j >= 0; j-- {
			r := &set.rules[j]
			if r.dirOnly && !isDir {
				continue
			}
			var ok bool
			if r.anchored {
				if parts == nil {
					rel := strings.TrimLeft(strings.TrimPrefix(abs, set.dir), string(filepath.Separator))
					parts = strings.Split(filepath.ToSlash(rel), "/")
				}
				ok = matchSegments(r.segs, parts)
			} else {
				ok = r.segs[0].match(name)
			}
			if ok {
				return !r.negate
			}
		}
	}
	return false
}

// ignoreRule is one pattern line of an ignore file.
type ignoreRule struct {
	// segs are the pattern's /-separated parts. An unanchored pattern (no
	// slash but a trailing one) has one and matches a name at any depth;
	// an anchored one matches the whole path from the ignore file's
	// directory.
	segs     []globSegment
	anchored bool
	negate   bool // "!pattern": re-include
	dirOnly  bool // "pattern/": directories only
}

// globSegment is one path element of an ignore pattern.
type globSegment struct {
	pattern string // for path.Match, "[!" spelled "[^"
	literal bool   // no metacharacters: compare as a string
	anyDirs bool   // "**": zero or more directories
}

func (s globSegment) match(name string) bool {
	if s.literal {
		return s.pattern == name
	}
	ok, err := path.Match(s.pattern, name)
	return ok && err == nil
}

// parseIgnore parses the text of a .gitignore (or info/exclude) file by
// gitignore(5): blank lines and "#" comments skipped, trailing spaces
// trimmed unless escaped, "!" negates, a trailing "/" matches directories
// only, a slash elsewhere anchors the pattern to the file's directory, and
// "**" as a whole element matches any number of directories. Malformed
// patterns are dropped.
func parseIgnore(data []byte) []ignoreRule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var rules []ignoreRule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		r.anchored = strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		if line == "" {
			continue
		}
		valid := true
		for _, p := range strings.Split(line, "/") {
			seg, ok := newGlobSegment(p)
			valid = valid && ok
			r.segs = append(r.segs, seg)
		}
		if valid {
			rules = append(rules, r)
		}
	}
	return rules
}

func newGlobSegment(p string) (globSegment, bool) {
	if p == "**" {
		return globSegment{anyDirs: true}, true
	}
	if !strings.ContainsAny(p, `*?[\`) {
		return globSegment{pattern: p, literal: true}, true
	}
	// path.Match negates a class with "^" only; git also takes "!".
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		b.WriteByte(c)
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteByte(p[i])
		case c == '[' && i+1 < len(p) && p[i+1] == '!':
			i++
			b.WriteByte('^')
		}
	}
	s := globSegment{pattern: b.String()}
	_, err := path.Match(s.pattern, "")
	return s, err == nil
}

// matchSegments reports whether an anchored pattern's segments match the
// path parts. A "**" matches zero or more parts, except at the end, where
// it matches one or more ("dir/**" is what is inside dir, not dir).
func matchSegments(segs []globSegment, parts []string) bool {
	for len(segs) > 0 {
		s := segs[0]
		if s.anyDirs {
			if len(segs) == 1 {
				return len(parts) > 0
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegments(segs[1:], parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !s.match(parts[0]) {
			return false
		}
		segs, parts = segs[1:], parts[1:]
	}
	return len(parts) == 0
}
