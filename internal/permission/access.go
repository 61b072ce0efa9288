package permission

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/shell"
)

// class is how the policy judges one file a bash command reads or writes.
type class uint8

const (
	// harmless: a device that reads or writes nothing (/dev/null, the
	// standard streams), or a read inside the workspace roots.
	harmless class = iota
	// writeInside: a write inside the workspace roots or the writable
	// roots. It asks in default mode, as an edit does.
	writeInside
	// readOutside: a read outside the workspace roots, where the file
	// tools do not go. No prefix rule allows it.
	readOutside
	// readUnknown and writeUnknown: a file known only at run time (a
	// variable, a ~, a relative path after cd). No prefix rule allows it.
	readUnknown
	writeUnknown
	// writeOutside, writeProtected and network are what no rule allows: a
	// write outside the writable roots, a write under .git or .rein (or
	// git's hooks directory), a connection through /dev/tcp or /dev/udp.
	writeOutside
	writeProtected
	network
)

// access is one file a bash command reads or writes: the target of a
// redirection, or a file its arguments name.
type access struct {
	// part is the part of the command it comes from, quoted for messages.
	part string
	// path is the file as written; "" when it is computed.
	path  string
	write bool
	tree  bool
	// pi is where it leads; nil when it is not known.
	pi    *pathInfo
	class class
	// workspace: a writeInside is inside the workspace roots (not only
	// the writable roots beyond them).
	workspace bool
	// cmd is the index in the script's Commands of the command whose
	// words name the file; -1 for a redirection, which is the shell's,
	// and for a glob's listing.
	cmd int
	// listing: the access is the listing of the directories a glob
	// that names no file expands in.
	listing bool
}

// harmlessFiles are the files any command may read or write without
// reaching anything: exactly these names, or /dev/fd/N. /dev/tty is not
// one: writing it bypasses what rein shows the person, reading it takes
// what they type.
var harmlessFiles = map[string]bool{"/dev/null": true, "/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true}

// harmlessReads are devices that may be read: they hold nothing.
var harmlessReads = map[string]bool{"/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/full": true}

func isHarmless(p string, write bool) bool {
	if harmlessFiles[p] || !write && harmlessReads[p] {
		return true
	}
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// isNetwork reports whether a redirection to or from p opens a network
// connection: bash itself takes /dev/tcp/HOST/PORT and /dev/udp/... as
// sockets, whatever the file system holds.
func isNetwork(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
}

// accesses returns every file a reads or writes, as far as the analysis
// sees: the targets of its redirections, then the files its commands'
// arguments name, then the directories its other globs list (echo ~/*
// and printf %s /home/*/x read what they expand to).
func (p *Policy) accesses(a *shell.Script) []access {
	var out []access
	seen := &lookups{paths: map[string]*pathInfo{}, budget: globEntries}
	files := map[string]bool{}
	for _, r := range a.Redirects {
		if r.Role == shell.RoleRead || r.Role == shell.RoleWrite {
			ac := p.access("`"+r.Text+"`", r.Target, r.Role == shell.RoleWrite, false, true, a.ChangesDir, seen)
			ac.cmd = -1
			out = append(out, ac)
			files[r.Target.Text] = true
		}
	}
	for i := range a.Commands {
		c := &a.Commands[i]
		for _, f := range c.Files {
			ac := p.access("`"+c.Text+"`", f.Path, f.Role == shell.RoleWrite, f.Tree, false, a.ChangesDir || f.Moved, seen)
			ac.cmd = i
			out = append(out, ac)
			files[f.Path.Text] = true
		}
	}
	for _, w := range a.Words {
		if w.Kind != shell.Pattern || files[w.Text] || !strings.ContainsAny(w.Text, "*?[") {
			continue
		}
		files[w.Text] = true
		ac := access{part: "the glob `" + w.Source() + "`", path: w.Text, listing: true, cmd: -1}
		switch {
		case w.Tilde || strings.HasPrefix(w.Text, "~"), a.ChangesDir && !filepath.IsAbs(w.Text):
			ac.class = readUnknown
		default:
			ac = p.pattern(ac, seen)
		}
		out = append(out, ac)
	}
	return out
}

// lookups are what one decision has looked up: the paths resolved (a
// path named again is resolved once), and what is left of its budget of
// directory entries for globs.
type lookups struct {
	paths  map[string]*pathInfo
	budget int
}

// resolved returns the pathInfo of given, from seen when it is there.
func (p *Policy) resolved(given string, seen *lookups) *pathInfo {
	if pi, ok := seen.paths[given]; ok {
		return pi
	}
	pi := p.pathInfo(given)
	seen.paths[given] = pi
	return pi
}

// access judges one file: the word w, written (or read) by part, a
// redirection's target when redirect, the whole tree below it when tree;
// chdir says the script changes directory, so that a relative path is
// not known. seen holds what the decision looked up so far.
func (p *Policy) access(part string, w shell.Word, write, tree, redirect, chdir bool, seen *lookups) access {
	ac := access{part: part, write: write, tree: tree, path: w.Text}
	unknown := func() access {
		ac.class = readUnknown
		if write {
			ac.class = writeUnknown
		}
		return ac
	}
	switch {
	case w.Kind == shell.Dynamic:
		ac.path = ""
		if redirect && isNetwork(w.Prefix) {
			ac.path, ac.class = w.Prefix+"…", network
			return ac
		}
		return unknown()
	case w.Tilde || strings.HasPrefix(w.Text, "~"):
		return unknown()
	case w.Text == "":
		return ac
	case isHarmless(w.Text, write):
		return ac
	case redirect && isNetwork(w.Text):
		ac.class = network
		return ac
	case chdir && !filepath.IsAbs(w.Text):
		return unknown()
	case w.Kind == shell.Pattern:
		return p.pattern(ac, seen)
	}
	ac.pi = p.resolved(w.Text, seen)
	if ac.pi.abs == "" {
		return unknown()
	}
	return p.classify(ac)
}

// classify judges an access whose path resolves.
func (p *Policy) classify(ac access) access {
	pi := ac.pi
	switch {
	case !ac.write && pi.inside:
		ac.class = harmless
	case !ac.write:
		ac.class = readOutside
	case p.protected(pi, ac.tree):
		ac.class = writeProtected
	case pi.inside:
		ac.class, ac.workspace = writeInside, true
	case p.inWritable(pi.abs):
		ac.class = writeInside
	default:
		ac.class = writeOutside
	}
	return ac
}

// pattern judges an access to a glob pattern: by the directory before its
// first glob character, then by every path it expands to, resolved, as
// bash would expand it now (a link among them may lead outside: cat
// doc?/.env where docs leads out). A write to a pattern of more than one
// level, or one with .. after its glob, is not known, nor is a brace
// pattern with a / or .. in it, nor a pattern whose expansion passes the
// decision's budget; one whose pattern can match .git or .rein there is
// protected.
func (p *Policy) pattern(ac access, seen *lookups) access {
	text := ac.path
	lit := text
	if i := strings.IndexAny(text, "*?[{"); i >= 0 {
		lit = text[:i]
	}
	dir, glob := ".", text
	if i := strings.LastIndexByte(lit, '/'); i >= 0 {
		dir, glob = text[:i+1], text[i+1:]
	}
	unknown := func() access {
		ac.class = readUnknown
		if ac.write {
			ac.class = writeUnknown
		}
		return ac
	}
	// A brace can start a path of its own ({/etc,x}, {..,x}/y): where
	// one holds a / or .., the directory is not known.
	brace := strings.Contains(glob, "{") && (strings.Contains(glob, "/") || strings.Contains(glob, ".."))
	for _, part := range strings.Split(glob, "/") {
		if part == ".." || brace {
			return unknown()
		}
	}
	ac.pi = p.resolved(dir, seen)
	switch {
	case ac.pi.abs == "", ac.write && strings.Contains(glob, "/"):
		return unknown()
	case ac.write && p.globHits(ac.pi.abs, glob):
		ac.class = writeProtected
		return ac
	}
	ac = p.classify(ac)
	if ac.class != harmless && ac.class != writeInside || strings.Contains(glob, "{") {
		return ac
	}
	if ac.listing {
		return p.listed(ac, seen)
	}
	g, ok := expandGlob(p.ws.Root(), text, &seen.budget)
	if !ok {
		return unknown()
	}
	for _, m := range append(g.dirs, g.matches...) {
		mac := ac
		mac.path, mac.pi = m, p.resolved(m, seen)
		if mac.pi.abs == "" {
			if ac.write {
				return unknown()
			}
			continue
		}
		if mac = p.classify(mac); mac.class > ac.class {
			ac = mac
		}
	}
	return ac
}

// listed judges the directories a glob that names no file lists (echo
// src/*: what a command is given, not what it reads), as bash reads them
// to expand it: each directory listed, and, when the pattern ends in a
// literal name, each path looked at (a glob of names that echo shows
// reveals what is in the directories it lists).
func (p *Policy) listed(ac access, seen *lookups) access {
	g, ok := expandGlob(p.ws.Root(), ac.path, &seen.budget)
	if !ok {
		ac.class = readUnknown
		return ac
	}
	looked := g.dirs
	if g.lastLiteral {
		looked = append(looked, g.matches...)
	}
	for _, d := range looked {
		mac := ac
		mac.path, mac.pi = d, p.resolved(d, seen)
		if mac.pi.abs == "" {
			continue
		}
		if mac = p.classify(mac); mac.class > ac.class {
			ac = mac
		}
	}
	return ac
}

// globHits reports whether the glob can match, in dir, a protected
// directory that is there (or git's hooks directory): bash matches only
// what exists.
func (p *Policy) globHits(dir, glob string) bool {
	lower := strings.ToLower(glob)
	names := append([]string(nil), protectedNames...)
	for _, h := range p.hooks {
		if filepath.Dir(h) == dir {
			names = append(names, filepath.Base(h))
		}
	}
	for _, name := range names {
		if ok, _ := path.Match(lower, strings.ToLower(name)); !ok {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// never returns the first access no rule can allow, or nil.
func never(acc []access) *access {
	for i := range acc {
		if acc[i].class >= writeOutside {
			return &acc[i]
		}
	}
	return nil
}

// what says, for messages, what an access does: "`cat /x` reads /x,
// outside the workspace".
func (ac *access) what() string {
	verb, target := "reads", ac.path
	if ac.write {
		verb = "writes"
	}
	if ac.tree {
		verb += " everything in"
	}
	switch ac.class {
	case network:
		return fmt.Sprintf("%s opens a network connection through %s", ac.part, target)
	case writeProtected:
		return fmt.Sprintf("%s %s %s, under .git/ or .rein/ or git's hooks, which decide what git and rein run", ac.part, verb, target)
	case writeOutside:
		return fmt.Sprintf("%s %s %s, outside the workspace and the writable roots", ac.part, verb, target)
	case readOutside:
		return fmt.Sprintf("%s %s %s, outside the workspace", ac.part, verb, target)
	case readUnknown, writeUnknown:
		if target == "" {
			return fmt.Sprintf("%s %s a file known only at run time", ac.part, verb)
		}
		return fmt.Sprintf("%s %s %s, a path known only at run time (a ~, or a relative path after cd)", ac.part, verb, target)
	}
	return fmt.Sprintf("%s %s %s", ac.part, verb, target)
}
