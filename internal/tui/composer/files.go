package composer

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"
)

// MaxFiles is how many entries (files and directories) the @ completion
// lists at most: a walk stops there.
const MaxFiles = 20000

// errEnough stops a walk that has found MaxFiles entries.
var errEnough = errors.New("enough entries")

// Walk lists the files and directories under root, workspace-relative and
// slash separated, directories with a trailing "/", in the order of a
// depth-first walk by name, at most limit of them. It honours .gitignore
// files (the root's and nested ones) and .git/info/exclude, and never
// lists .git (a repository's directory, or a worktree's file). A directory it cannot read is left out; only an unreadable
// root is an error. It does I/O: the composer runs it in a tea.Cmd.
func Walk(root string, limit int) ([]string, error) {
	var out []string
	base := ignorer{}
	if data, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		base = append(base, parseIgnore("", string(data)))
	}
	// stack[i] is the ignorer in force inside the directory dirs[i].
	dirs := []string{""}
	stack := []ignorer{withIgnoreFile(base, root, "")}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		parent := parentOf(rel)
		for dirs[len(dirs)-1] != parent {
			dirs, stack = dirs[:len(dirs)-1], stack[:len(stack)-1]
		}
		ig := stack[len(stack)-1]
		isDir := d.IsDir()
		if d.Name() == ".git" || ig.ignored(rel, isDir) {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if len(out) >= limit {
			return errEnough
		}
		if isDir {
			out = append(out, rel+"/")
			dirs = append(dirs, rel)
			stack = append(stack, withIgnoreFile(ig, p, rel))
			return nil
		}
		out = append(out, rel)
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return out, fmt.Errorf("composer: list the files of %s: %w", root, err)
	}
	return out, nil
}

// parentOf is the directory of a slash-separated relative path, "" for
// the root.
func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// withIgnoreFile returns ig with the rules of dir's .gitignore, if it has
// one, on top; rel is dir relative to the root.
func withIgnoreFile(ig ignorer, dir, rel string) ignorer {
	data, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return ig
	}
	f := parseIgnore(rel, string(data))
	if len(f.rules) == 0 {
		return ig
	}
	return append(slices.Clip(ig), f)
}

// byDepth orders entries for an empty query: shallower first, then by
// name.
func byDepth(entries []string) []string {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, func(a, b string) int {
		da := strings.Count(strings.TrimSuffix(a, "/"), "/")
		db := strings.Count(strings.TrimSuffix(b, "/"), "/")
		return cmp.Or(cmp.Compare(da, db), cmp.Compare(a, b))
	})
	return out
}

// files is the workspace's file list for @ completion: walked once, on
// the first "@", and again when asked.
type files struct {
	owner   *Composer
	loaded  bool
	loading bool
	gen     int
	entries []string // in walk order
	lower   []string // entries, lower-cased, for matching
	sorted  []string // for an empty query
	err     error

	// The last query and the indexes of all its matches: a query that
	// extends it is matched against them only.
	prevQuery string
	prevIdx   []int
}

// filesMsg brings a walk's result back to the composer that asked.
type filesMsg struct {
	owner   *Composer
	gen     int
	entries []string
	err     error
}

// load returns the walk of root, as a tea.Cmd.
func (f *files) load(root string) tea.Cmd {
	f.loading = true
	f.gen++
	gen, owner := f.gen, f.owner
	return func() tea.Msg {
		entries, err := Walk(root, MaxFiles)
		return filesMsg{owner: owner, gen: gen, entries: entries, err: err}
	}
}

// set takes a walk's result, unless a newer walk was asked for since.
func (f *files) set(m filesMsg) {
	if m.gen != f.gen {
		return
	}
	f.loading, f.loaded = false, true
	f.entries, f.lower, f.sorted, f.err = m.entries, lowered(m.entries), byDepth(m.entries), m.err
	f.prevQuery, f.prevIdx = "", nil
}

// match returns the entries that match q, best first, at most maxItems;
// for an empty q, the shallowest entries. A query that extends the last
// one is matched against the last one's matches only.
func (f *files) match(q string) []item {
	var best []int
	switch {
	case q == "":
		out := make([]item, 0, min(len(f.sorted), maxItems))
		for _, e := range f.sorted[:min(len(f.sorted), maxItems)] {
			out = append(out, item{value: e})
		}
		return out
	case f.prevQuery != "" && strings.HasPrefix(q, f.prevQuery):
		best, f.prevIdx = rankMatches(f.lower, f.prevIdx, q, maxItems)
	default:
		best, f.prevIdx = rankMatches(f.lower, nil, q, maxItems)
	}
	f.prevQuery = q
	out := make([]item, 0, len(best))
	for _, i := range best {
		out = append(out, item{value: f.entries[i]})
	}
	return out
}

// RefreshFiles walks the workspace again for @ completion (after the
// model or the person changed files); the old list serves until the new
// one comes back to Update.
func (c *Composer) RefreshFiles() tea.Cmd {
	if c.ws == "" {
		return nil
	}
	return c.files.load(c.ws)
}
