package permission

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// globEntries bounds the directory entries one decision reads to expand
// the globs of a command: past it, what a glob leads to is not known.
const globEntries = 10000

// globbed is what bash reads to expand a glob pattern: the directories it
// lists (those where a component has glob characters, following links as
// bash does), and the paths the pattern expands to.
type globbed struct {
	dirs, matches []string
	// lastLiteral: the pattern's last component has no glob character, so
	// that bash looked at each match (a stat) rather than only listing.
	lastLiteral bool
}

// expandGlob expands pattern, written relative to root or absolute, as
// bash does without dotglob, nullglob or globstar: * and ? and [...] in a
// component match the names of the directory before it, a name starting
// with a dot only when the component does (. and .. too, as bash before
// 5.2 matches them). Paths come back as written: relative ones relative
// to root. ok is false when the pattern cannot be read (a brace, a bad
// bracket) or the expansion passes the budget of entries, which *budget
// holds and is spent from.
func expandGlob(root, pattern string, budget *int) (g globbed, ok bool) {
	if strings.ContainsAny(pattern, "{}") {
		return g, false
	}
	prefixes := []string{""}
	rest := pattern
	if strings.HasPrefix(pattern, "/") {
		prefixes, rest = []string{"/"}, strings.TrimLeft(pattern, "/")
	}
	comps := strings.Split(rest, "/")
	for i, comp := range comps {
		last := i == len(comps)-1
		if comp == "" {
			// a//b or a trailing slash: the same directory.
			continue
		}
		if !strings.ContainsAny(comp, "*?[") {
			for j := range prefixes {
				prefixes[j] = join(prefixes[j], comp)
			}
			g.lastLiteral = last
			continue
		}
		g.lastLiteral = false
		comp = strings.ReplaceAll(comp, "[!", "[^")
		if _, err := path.Match(comp, ""); err != nil {
			return g, false
		}
		var next []string
		for _, pre := range prefixes {
			dir := pre
			if dir == "" {
				dir = "."
			}
			g.dirs = append(g.dirs, dir)
			abs := dir
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(root, abs)
			}
			entries, err := os.ReadDir(abs)
			if err != nil {
				continue // not a directory, or unreadable: bash matches nothing there
			}
			if *budget -= len(entries); *budget < 0 {
				return g, false
			}
			names := make([]string, 0, len(entries)+2)
			if strings.HasPrefix(comp, ".") {
				names = append(names, ".", "..")
			}
			for _, e := range entries {
				names = append(names, e.Name())
			}
			for _, name := range names {
				if strings.HasPrefix(name, ".") && !strings.HasPrefix(comp, ".") {
					continue
				}
				if m, _ := path.Match(comp, name); m {
					next = append(next, join(pre, name))
				}
			}
		}
		prefixes = next
		if len(prefixes) == 0 {
			// No match: bash leaves the word as it is.
			return g, true
		}
	}
	g.matches = prefixes
	return g, true
}

func join(dir, name string) string {
	switch dir {
	case "":
		return name
	case "/":
		return "/" + name
	}
	return dir + "/" + name
}
