package composer

import (
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	pattern  string // a doublestar pattern, relative to the file's directory
	negate   bool   // "!pattern": re-include what an earlier rule excluded
	dirOnly  bool   // "pattern/": matches directories only
	anchored bool   // a slash at the start or in the middle: matched against the path from the file's directory
}

// ignoreFile is the rules of one .gitignore (or .git/info/exclude), and the
// directory they are relative to ("" for the workspace root).
type ignoreFile struct {
	base  string
	rules []ignoreRule
}

// parseIgnore reads the rules of a gitignore file whose directory is base
// (slash separated, relative to the workspace root, "" for the root), as
// git does: blank lines and "#" comments are skipped, trailing spaces are
// dropped unless escaped, "!" negates, a trailing "/" matches directories
// only, and a pattern with a slash at its start or middle is anchored to
// base.
func parseIgnore(base, text string) ignoreFile {
	f := ignoreFile{base: base}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimTrailingSpaces(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		switch {
		case strings.HasPrefix(line, "!"):
			r.negate = true
			line = line[1:]
		case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		// doublestar knows {a,b} alternatives, which gitignore does not:
		// braces there are literal.
		r.pattern = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(line)
		if !doublestar.ValidatePattern(r.pattern) {
			continue
		}
		f.rules = append(f.rules, r)
	}
	return f
}

// trimTrailingSpaces drops the spaces at the end of line, except one
// escaped with a backslash.
func trimTrailingSpaces(line string) string {
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	return line
}

// match returns whether the file's rules decide about rel (slash
// separated, relative to the workspace root), and whether they exclude it:
// the last rule that matches decides.
func (f ignoreFile) match(rel string, isDir bool) (decided, ignored bool) {
	p := rel
	if f.base != "" {
		if !strings.HasPrefix(rel, f.base+"/") {
			return false, false
		}
		p = rel[len(f.base)+1:]
	}
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := p
		if !r.anchored {
			target = path.Base(p)
		}
		if ok, _ := doublestar.Match(r.pattern, target); ok {
			return true, !r.negate
		}
	}
	return false, false
}

// ignorer is the gitignore files in force at one point of a walk, from the
// lowest precedence (.git/info/exclude, then the root's .gitignore) to the
// highest (the deepest directory's).
type ignorer []ignoreFile

// ignored reports whether rel is excluded: the file of highest precedence
// whose rules decide about it wins.
func (ig ignorer) ignored(rel string, isDir bool) bool {
	for i := len(ig) - 1; i >= 0; i-- {
		if decided, ignored := ig[i].match(rel, isDir); decided {
			return ignored
		}
	}
	return false
}
