// Package gitignore decides, as git does, which files of a tree its ignore
// files exclude: the .gitignore files of the directories and a
// repository's info/exclude, by gitignore(5). It reads those files and
// nothing else, and runs nothing (not git: a hostile repository's
// configuration can run programs).
//
// A walker keeps the sets in force at each directory, outermost first:
// [Above] gives those of a start directory's ancestors, [Enter] adds a
// directory's own as the walk enters it, and [Ignored] judges one entry.
// The file tools' glob and grep and the checkpoint store walk with it.
package gitignore

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxFile is the most of an ignore file that is read: a pattern file
// larger than this is not one a person wrote, and its tail is ignored.
const maxFile = 1 << 20

// Set is the rules of one ignore file, relative to its directory. A nil
// *Set has no rules. A Set is immutable and safe for concurrent use.
type Set struct {
	dir   string
	rules []rule
}

// Dir returns the directory the set's patterns are relative to.
func (s *Set) Dir() string { return s.dir }

// Parse returns the rules of the ignore file text data, relative to the
// directory dir (absolute, clean); nil when it has none.
func Parse(data []byte, dir string) *Set {
	rules := parse(data)
	if len(rules) == 0 {
		return nil
	}
	return &Set{dir: dir, rules: rules}
}

// Load reads the ignore file at file, whose patterns are relative to dir;
// nil when file is "", missing, unreadable or has no rules. At most its
// first MiB is read.
func Load(file, dir string) *Set {
	if file == "" {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close() // read-only: a close error loses nothing
	data := make([]byte, 0, 512)
	var buf [4096]byte
	for len(data) < maxFile {
		n, err := f.Read(buf[:min(len(buf), maxFile-len(data))])
		data = append(data, buf[:n]...)
		if err != nil {
			break
		}
	}
	return Parse(data, dir)
}

// Enter returns the sets in force inside the directory dir, given those in
// force where it is (outermost first) and whether it holds a .git entry (a
// repository's root, where the ignore files above it stop applying and its
// info/exclude starts) and a .gitignore file. sets is not modified.
func Enter(sets []*Set, dir string, hasGit, hasIgnore bool) []*Set {
	if hasGit {
		sets = nil
		if set := Load(InfoExclude(dir), dir); set != nil {
			sets = append(sets, set)
		}
	}
	if hasIgnore {
		if set := Load(filepath.Join(dir, ".gitignore"), dir); set != nil {
			sets = append(sets[:len(sets):len(sets)], set)
		}
	}
	return sets
}

// Above returns the sets that apply to the directory start from above it:
// those of the directories from the top down to start's parent, where the
// top is the nearest repository root (a directory with a .git entry) at or
// above start but not above limit, or limit itself when there is none.
// start must be limit or below it (both absolute and clean); ignore files
// above limit are never read, apart from a repository's info/exclude
// reached through the gitdir link of a worktree's .git file.
func Above(start, limit string) []*Set {
	if !within(limit, start) {
		return nil
	}
	var chain []string // start's ancestors, nearest first, up to the top
	top := ""
	for d := start; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		if d == limit {
			break
		}
		d = filepath.Dir(d)
		chain = append(chain, d)
	}
	var sets []*Set
	for i := len(chain) - 1; i >= 0; i-- {
		d := chain[i]
		if d == top {
			if set := Load(InfoExclude(d), d); set != nil {
				sets = append(sets, set)
			}
		}
		if set := Load(filepath.Join(d, ".gitignore"), d); set != nil {
			sets = append(sets, set)
		}
	}
	return sets
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// GitDir returns the git directory of the repository whose working tree's
// root is top: top/.git when that is a directory, or where the gitdir line
// of a .git file (a worktree's, a submodule's) leads; "" when there is
// neither. Nothing but the .git file is read.
func GitDir(top string) string {
	dotGit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return dotGit
	}
	if !fi.Mode().IsRegular() || fi.Size() > 64<<10 {
		return ""
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return ""
	}
	gitDir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gitDir = strings.TrimSpace(gitDir)
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(top, gitDir)
	}
	return filepath.Clean(gitDir)
}

// InfoExclude returns the path of the info/exclude file of the repository
// rooted at top, following the gitdir (and commondir) link when .git is a
// file, as in a worktree or a submodule; "" when top has no .git.
func InfoExclude(top string) string {
	gitDir := GitDir(top)
	if gitDir == "" {
		// Nothing (or nothing readable) at top/.git: a directory is what
		// git would make there.
		return filepath.Join(top, ".git", "info", "exclude")
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

// Ignored reports whether git would ignore the file or directory abs
// (named name, its last element) under sets, outermost first: the last
// matching rule of the innermost set that has one decides.
func Ignored(sets []*Set, abs, name string, isDir bool) bool {
	for i := len(sets) - 1; i >= 0; i-- {
		set := sets[i]
		if set == nil {
			continue
		}
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

// rule is one pattern line of an ignore file.
type rule struct {
	// segs are the pattern's /-separated parts. An unanchored pattern (no
	// slash but a trailing one) has one and matches a name at any depth;
	// an anchored one matches the whole path from the ignore file's
	// directory.
	segs     []segment
	anchored bool
	negate   bool // "!pattern": re-include
	dirOnly  bool // "pattern/": directories only
}

// segment is one path element of an ignore pattern.
type segment struct {
	pattern string // for path.Match, "[!" spelled "[^"
	literal bool   // no metacharacters: compare as a string
	anyDirs bool   // "**": zero or more directories
}

func (s segment) match(name string) bool {
	if s.literal {
		return s.pattern == name
	}
	ok, err := path.Match(s.pattern, name)
	return ok && err == nil
}

// parse parses the text of a .gitignore (or info/exclude) file by
// gitignore(5): blank lines and "#" comments skipped, trailing spaces
// trimmed unless escaped, "!" negates, a trailing "/" matches directories
// only, a slash elsewhere anchors the pattern to the file's directory, and
// "**" as a whole element matches any number of directories. Malformed
// patterns are dropped.
func parse(data []byte) []rule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var rules []rule
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		var r rule
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
			if p == "**" && len(r.segs) > 0 && r.segs[len(r.segs)-1].anyDirs {
				continue // "**/**" matches what "**" does, as in git
			}
			seg, ok := newSegment(p)
			valid = valid && ok
			r.segs = append(r.segs, seg)
		}
		if valid {
			rules = append(rules, r)
		}
	}
	return rules
}

func newSegment(p string) (segment, bool) {
	if p == "**" {
		return segment{anyDirs: true}, true
	}
	if !strings.ContainsAny(p, `*?[\`) {
		return segment{pattern: p, literal: true}, true
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
	s := segment{pattern: b.String()}
	_, err := path.Match(s.pattern, "")
	return s, err == nil
}

// matchSegments reports whether an anchored pattern's segments match the
// path parts. A "**" matches zero or more parts, except at the end, where
// it matches one or more ("dir/**" is what is inside dir, not dir).
func matchSegments(segs []segment, parts []string) bool {
	m := matcher{segs: segs, parts: parts}
	return m.match(0, 0)
}

// matcher matches segments against parts, remembering which (segment,
// part) pairs failed: without it a pattern of many "**" separated by
// names takes time exponential in their number (each "**" tries every
// split of what is left), with it at most len(segs)×len(parts) pairs are
// tried, each once.
type matcher struct {
	segs   []segment
	parts  []string
	failed map[[2]int]bool
	steps  int // pairs tried, for the tests
}

func (m *matcher) match(si, pi int) bool {
	for si < len(m.segs) {
		m.steps++
		s := m.segs[si]
		if s.anyDirs {
			if si == len(m.segs)-1 {
				return pi < len(m.parts)
			}
			key := [2]int{si, pi}
			if m.failed[key] {
				return false
			}
			for i := pi; i <= len(m.parts); i++ {
				if m.match(si+1, i) {
					return true
				}
			}
			if m.failed == nil {
				m.failed = map[[2]int]bool{}
			}
			m.failed[key] = true
			return false
		}
		if pi == len(m.parts) || !s.match(m.parts[pi]) {
			return false
		}
		si, pi = si+1, pi+1
	}
	return pi == len(m.parts)
}
