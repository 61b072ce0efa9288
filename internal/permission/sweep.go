package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/shell"
	"github.com/rein-agent/rein/internal/workspace"
)

// ByPolicy is the policy's own refusal of what no mode, rule, hook or
// answer may allow: a command aimed at the whole workspace, its
// repository, the home directory or / (see [Policy.Decide]).
const ByPolicy = "policy"

// places are what a command must never sweep away, resolved for one
// decision: the workspace root, the repository it is in, the home
// directory, and the root of the file system, which holds them all.
type places struct {
	// roots are the workspace root as given and where its links lead.
	roots []string
	// homes are the home directory as given and where its links lead;
	// empty when it is not known.
	homes []string
	// top is the working tree of the repository git finds from the
	// workspace root, gitdirs its repository directories (its .git, and
	// the directory a .git file names); "" and none when there is none.
	top     string
	gitdirs []string
	// dotglob reports that the script may have set bash's dotglob (shopt
	// -s dotglob, GLOBIGNORE), with which * matches .git too.
	dotglob bool
}

func (p *Policy) places() *places {
	pl := &places{roots: withReal(p.ws.Root())}
	if p.home != "" {
		pl.homes = withReal(p.home)
	}
	for d := p.ws.Root(); ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		if err == nil {
			pl.top, pl.gitdirs = d, withReal(dotgit)
			if !fi.IsDir() {
				if gitdir, err := readGitfile(dotgit); err == nil {
					pl.gitdirs = append(pl.gitdirs, withReal(gitdir)...)
				}
			}
			break
		}
		parent := filepath.Dir(d)
		if parent == d || err != nil && !errors.Is(err, fs.ErrNotExist) {
			break
		}
		d = parent
	}
	if pl.top == "" {
		// A workspace that is no repository yet: .git is still where one
		// would be.
		pl.gitdirs = []string{filepath.Join(p.ws.Root(), ".git")}
	}
	return pl
}

// withReal returns p and, when it differs, where its links lead.
func withReal(p string) []string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		return []string{p, real}
	}
	return []string{p}
}

// aimed says what a path a command sweeps away is, when it is one of the
// places (or holds one): "the workspace (/w)"; "" when it is none.
func (pl *places) aimed(target string) string {
	for _, t := range withReal(target) {
		switch {
		case t == string(filepath.Separator):
			return "the root of the file system (/)"
		case slices.Contains(pl.gitdirs, t):
			return fmt.Sprintf("the workspace's git repository (%s)", t)
		case slices.Contains(pl.roots, t):
			return fmt.Sprintf("the workspace (%s)", t)
		case slices.Contains(pl.homes, t):
			return fmt.Sprintf("your home directory (%s)", t)
		case holdsAny(t, pl.roots):
			return fmt.Sprintf("%s, which holds the workspace", t)
		case holdsAny(t, pl.homes):
			return fmt.Sprintf("%s, which holds your home directory", t)
		}
	}
	return ""
}

// holdsAny reports whether the directory t holds one of dirs.
func holdsAny(t string, dirs []string) bool {
	for _, d := range dirs {
		if within(t, d) {
			return true
		}
	}
	return false
}

// refusal returns the verdict that refuses a outright when one of its
// commands sweeps away one of the places (see [shell.Command.Sweep]),
// and false when none does. cwd is followed through the script's cd
// commands while they name where they go; after one that does not, a
// relative path is not known, and not refused.
func (p *Policy) refusal(a *shell.Script, quoted string) (Verdict, bool) {
	var pl *places
	cwd := p.ws.Root()
	dotglob := false
	for i := range a.Commands {
		c := &a.Commands[i]
		args := c.Args()
		dotglob = dotglob || setsDotglob(c)
		if len(args) > 0 && args[0].Kind == shell.Literal {
			switch args[0].Text {
			case "cd", "pushd", "popd":
				cwd = p.changeDir(args, cwd)
				continue
			}
		}
		s := c.Sweep()
		if s == nil {
			continue
		}
		if pl == nil {
			pl = p.places()
		}
		pl.dotglob = dotglob
		base := cwd
		if c.Moved {
			base = ""
		}
		if s.Dir != nil {
			base = p.place(*s.Dir, base)
		}
		what, verb := p.swept(s, base, pl)
		if what == "" {
			continue
		}
		reason := fmt.Sprintf("rein refuses %s: `%s` %s %s. That cannot be undone, so it is never allowed: not in any mode (yolo included), "+
			"not by a rule, a hook or an answer. Do not try another way to do it; remove or reset only what you mean, by name "+
			"(a build directory, a file), or ask the user to do it themselves.", quoted, c.Text, verb, what)
		return Verdict{Decision: contract.Deny, By: ByPolicy, Reason: reason}, true
	}
	return Verdict{}, false
}

// setsDotglob reports whether c may make bash's globs match names that
// start with a dot: shopt -s dotglob (or a computed shopt), an
// assignment of GLOBIGNORE or BASHOPTS, a command computed at run time.
func setsDotglob(c *shell.Command) bool {
	for _, w := range c.Words[:c.NAssign] {
		if strings.HasPrefix(w.Text, "GLOBIGNORE=") || strings.HasPrefix(w.Prefix, "GLOBIGNORE=") ||
			strings.HasPrefix(w.Text, "BASHOPTS=") || strings.HasPrefix(w.Prefix, "BASHOPTS=") {
			return true
		}
	}
	args := c.Args()
	if len(args) == 0 || args[0].Kind != shell.Literal {
		return len(args) > 0
	}
	switch args[0].Text {
	case "shopt":
		unset := false
		for _, w := range args[1:] {
			switch {
			case !w.Static() || w.Text == "dotglob":
				if !unset {
					return true
				}
			case w.Text == "-u":
				unset = true
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		for _, w := range args[1:] {
			if !w.Static() || strings.HasPrefix(w.Text, "GLOBIGNORE") || strings.HasPrefix(w.Text, "BASHOPTS") {
				return true
			}
		}
	}
	return false
}

// changeDir returns where cd, pushd or popd with args leaves the shell
// that was in cwd; "" when that is not known.
func (p *Policy) changeDir(args []shell.Word, cwd string) string {
	if args[0].Text == "popd" {
		return ""
	}
	var ops []shell.Word
	for _, w := range args[1:] {
		if w.Kind == shell.Literal && !w.Tilde && strings.HasPrefix(w.Text, "-") && w.Text != "-" {
			if w.Text == "--" {
				continue
			}
			if args[0].Text == "cd" && strings.Trim(w.Text, "-LPe@") == "" {
				continue
			}
			return ""
		}
		ops = append(ops, w)
	}
	switch {
	case len(ops) == 0 && args[0].Text == "cd":
		return p.home
	case len(ops) != 1 || ops[0].Kind == shell.Literal && ops[0].Text == "-":
		return ""
	}
	return p.place(ops[0], cwd)
}

// place returns the absolute, cleaned path w names when the shell is in
// cwd ("" for not known), or "" when it cannot be told: a computed word
// but the anchored ones with a literal rest ($HOME, $PWD, $(pwd), $(git
// rev-parse --show-toplevel): see [shell.Word.Anchor]); ~user, ~- (the
// previous directory).
func (p *Policy) place(w shell.Word, cwd string) string {
	text := w.Text
	switch {
	case w.Kind == shell.Dynamic && w.Anchor == "HOME" && p.home != "":
		text = p.home + "/" + w.Rest
	case w.Kind == shell.Dynamic && w.Anchor == "PWD" && cwd != "":
		text = cwd + "/" + w.Rest
	case w.Kind == shell.Dynamic && w.Anchor == "TOP" && cwd != "":
		top, ok := workspace.Repository(cwd)
		if !ok {
			return ""
		}
		text = top + "/" + w.Rest
	case w.Kind == shell.Dynamic:
		return ""
	case w.Tilde:
		// ~ and ~/x are the home directory, ~+ and ~+/x the directory
		// the shell is in ($PWD).
		name, rest, _ := strings.Cut(text[1:], "/")
		switch {
		case name == "" && p.home != "":
			text = p.home + "/" + rest
		case name == "+" && cwd != "":
			text = cwd + "/" + rest
		default:
			return ""
		}
	}
	if text == "" {
		return ""
	}
	if !filepath.IsAbs(text) {
		if cwd == "" {
			return ""
		}
		text = filepath.Join(cwd, text)
	}
	return filepath.Clean(text)
}

// swept returns what the sweep s, run in base ("" when that is not
// known), is aimed at among the places, and the verb that says what it
// does to it; "" when it is aimed at none.
func (p *Policy) swept(s *shell.Sweep, base string, pl *places) (what, verb string) {
	verb = "deletes"
	switch s.Op {
	case "rsync --delete":
		verb = "deletes, to mirror its source, everything else in"
	case "mv":
		verb = "moves away"
	case "git clean":
		verb = "deletes the untracked files of"
	case "git rm -r":
		verb = "deletes the files of"
	case "git checkout", "git restore":
		verb = "overwrites every uncommitted change in"
	case "git reset --hard", "git switch":
		verb = "discards every uncommitted change in"
	}
	if s.Ignored {
		// git clean -X: what git ignores, the build's output.
		return "", ""
	}
	if s.GitDir != nil || s.GitWorkTree != nil {
		return p.sweptTold(s, base, pl), verb
	}
	inRepo := pl.top != "" && base != "" && within(pl.top, base)
	if s.Worktree {
		if inRepo {
			return fmt.Sprintf("the working tree of the workspace's repository (%s)", pl.top), verb
		}
		return "", ""
	}
	if s.Here && base != "" {
		return pl.aimed(base), verb
	}
	for _, w := range s.Paths {
		if what := p.sweptPath(s, w, base, pl, inRepo); what != "" {
			return what, verb
		}
	}
	return "", ""
}

// sweptTold is swept for a git command told its repository or working
// tree (s.GitDir, s.GitWorkTree): when it throws away the whole working
// tree, or all of it below where it runs (git clean, git checkout -- .),
// it is refused when what it is told is in the workspace (or holds it),
// or cannot be read before it runs, git reset --hard with any working
// tree being the danger. Told only a repository, git works in the
// directory it runs in.
func (p *Policy) sweptTold(s *shell.Sweep, base string, pl *places) string {
	whole := s.Worktree || s.Here
	for _, w := range s.Paths {
		text := strings.TrimPrefix(strings.TrimPrefix(w.Text, ":(top)"), ":/")
		whole = whole || !w.Static() || strings.TrimRight(text, "/") == "." || text == "" || everything(text) ||
			slices.Contains(strings.Split(text, "/"), "..")
	}
	if !whole {
		return ""
	}
	inside := func(t string) bool {
		return holdsAny(t, pl.roots) || pl.gitdirOf(t) != "" || slices.ContainsFunc(pl.roots, func(r string) bool { return within(r, t) })
	}
	told := func(w *shell.Word, what string) string {
		if w.Kind == shell.Dynamic && w.Anchor == "" || w.Tilde && !strings.HasPrefix(w.Text, "~/") && w.Text != "~" && !strings.HasPrefix(w.Text, "~+") {
			return fmt.Sprintf("a %s rein cannot tell before it runs", what)
		}
		t := p.place(*w, base)
		if t == "" || !slices.ContainsFunc(withReal(t), inside) {
			return ""
		}
		if a := pl.aimed(t); a != "" {
			return a
		}
		return fmt.Sprintf("the %s %s, in the workspace", what, t)
	}
	wt := s.GitWorkTree
	if wt == nil {
		wt = &shell.Word{Text: "."}
	}
	if what := told(wt, "working tree"); what != "" {
		return what
	}
	if s.GitDir != nil {
		return told(s.GitDir, "repository")
	}
	return ""
}

// sweptPath is swept for one path w of s.
func (p *Policy) sweptPath(s *shell.Sweep, w shell.Word, base string, pl *places, inRepo bool) string {
	if s.Git && w.Kind != shell.Dynamic {
		text := w.Text
		switch {
		case strings.HasPrefix(text, ":!") || strings.HasPrefix(text, ":^") || strings.HasPrefix(text, ":(exclude"):
			return ""
		case strings.HasPrefix(text, ":/") || strings.HasPrefix(text, ":(top)"):
			if pl.top == "" || !inRepo {
				return ""
			}
			rest := strings.TrimPrefix(strings.TrimPrefix(text, ":(top)"), ":/")
			if rest == "" || everything(rest) {
				return pl.aimed(pl.top)
			}
			return ""
		case (s.Op == "git checkout" || s.Op == "git restore") && inRepo && (strings.TrimRight(text, "/") == "." || everything(text)):
			// Everything below where it runs: refused where that holds
			// the workspace; below it, what it overwrites is a part of
			// the workspace, which the checkpoints cover.
			if holdsAny(base, pl.roots) {
				return pl.aimed(base)
			}
			return ""
		}
	}
	if w.Kind == shell.Pattern || strings.ContainsAny(w.Rest, "*?[") && w.Anchor != "" {
		return p.sweptGlob(s, w, base, pl)
	}
	t := p.place(w, base)
	if t == "" {
		return ""
	}
	if what := pl.aimed(t); what != "" || s.Git {
		return what
	}
	return pl.inGit(t)
}

// inGit says what t is when it is a part of the workspace's repository
// directory that holds its history: a directory in it (objects, refs,
// logs...), or anything in objects/ or refs/, or packed-refs; "" for
// any other path, a lone file such as index.lock or a hook among them.
func (pl *places) inGit(t string) string {
	for _, t := range withReal(t) {
		gd := pl.gitdirOf(t)
		if gd == "" || t == gd {
			continue
		}
		if fi, err := os.Lstat(t); err == nil && fi.IsDir() || history(gd, t) {
			return fmt.Sprintf("%s, in the workspace's git repository (%s)", t, gd)
		}
	}
	return ""
}

// gitdirOf returns the workspace's repository directory that is t or
// holds it, "" for none.
func (pl *places) gitdirOf(t string) string {
	for _, gd := range pl.gitdirs {
		if within(gd, t) {
			return gd
		}
	}
	return ""
}

// history reports whether t, in the repository directory gd, is or is
// in what holds its history: objects/, refs/, packed-refs.
func history(gd, t string) bool {
	return within(filepath.Join(gd, "objects"), t) || within(filepath.Join(gd, "refs"), t) || t == filepath.Join(gd, "packed-refs")
}

// sweptGlob is swept for a glob w of s: one that matches everything in
// a directory (*, .*, ./*) sweeps that directory, but mv of everything
// in the workspace root into a directory in it (mv * src/) only
// rearranges it, and the checkpoints can undo that; one that can match
// .git where the workspace's repository is sweeps it.
func (p *Policy) sweptGlob(s *shell.Sweep, w shell.Word, base string, pl *places) string {
	text := w.Text
	if w.Kind == shell.Dynamic {
		text = w.Rest
	}
	dir, glob := ".", text
	if i := strings.LastIndexByte(text, '/'); i >= 0 {
		dir, glob = text[:i+1], text[i+1:]
	}
	if strings.ContainsAny(dir, "*?[{") {
		return ""
	}
	dw := shell.Word{Text: dir, Tilde: w.Tilde}
	if w.Kind == shell.Dynamic {
		dw = shell.Word{Kind: shell.Dynamic, Anchor: w.Anchor, Rest: dir}
	}
	d := p.place(dw, base)
	if d == "" {
		return ""
	}
	if everything(glob) && !p.movedWithin(s, d, base, pl) {
		if what := pl.aimed(d); what != "" {
			return "everything in " + what
		}
	}
	// The shell's globs match a leading dot only when they start with one
	// (unless dotglob is set).
	if ok, _ := path.Match(glob, ".git"); ok && (strings.HasPrefix(glob, ".") || pl.dotglob) && (d == p.ws.Root() || d == pl.top) {
		return pl.aimed(filepath.Join(d, ".git"))
	}
	// In the repository directory, a glob is refused when it is in
	// objects/ or refs/, or matches a directory there (as it is now).
	inGit := false
	for _, real := range withReal(d) {
		gd := pl.gitdirOf(real)
		if gd != "" && real != gd && history(gd, real) {
			return fmt.Sprintf("what %s matches, in the workspace's git repository (%s)", filepath.Join(d, glob), gd)
		}
		inGit = inGit || gd != ""
	}
	if !inGit {
		return ""
	}
	matches, _ := filepath.Glob(filepath.Join(d, glob)) // a bad pattern matches nothing
	for _, m := range matches {
		if what := pl.inGit(m); what != "" {
			return what
		}
	}
	return ""
}

// movedWithin reports whether s is mv of what is in the workspace root
// d into a directory below d.
func (p *Policy) movedWithin(s *shell.Sweep, d, base string, pl *places) bool {
	if s.Op != "mv" || s.Dest == nil || !slices.Contains(pl.roots, d) {
		return false
	}
	dest := p.place(*s.Dest, base)
	return dest != "" && dest != d && within(d, dest)
}

// everything reports whether a glob matches every name in a directory,
// or every hidden one: *, .*, *.*, **.
func everything(glob string) bool {
	return strings.Contains(glob, "*") && strings.Trim(glob, "*.") == ""
}

// undoable reports whether rein can undo what a changes: nothing in it is
// opaque, it writes or sweeps away something, and every file it writes,
// every tree it removes and every git command that throws changes away
// is inside the workspace root, which rein's checkpoints cover (not the
// other roots, nor .git).
func (p *Policy) undoable(a *shell.Script, acc []access) bool {
	if len(a.Opaque) > 0 {
		return false
	}
	changes := false
	for _, ac := range acc {
		if !ac.write || ac.class == harmless {
			continue
		}
		if ac.class != writeInside || ac.pi == nil || ac.pi.rel == "" {
			return false
		}
		changes = true
	}
	root := p.ws.Root()
	cwd := root
	for i := range a.Commands {
		c := &a.Commands[i]
		if args := c.Args(); len(args) > 0 && args[0].Kind == shell.Literal && (args[0].Text == "cd" || args[0].Text == "pushd" || args[0].Text == "popd") {
			cwd = p.changeDir(args, cwd)
			continue
		}
		s := c.Sweep()
		if s == nil || !s.Git {
			continue
		}
		base := cwd
		if c.Moved {
			base = ""
		}
		if s.Dir != nil {
			base = p.place(*s.Dir, base)
		}
		if base == "" || !within(root, base) || s.Unsure || s.GitDir != nil || s.GitWorkTree != nil || s.Ignored {
			// git clean -X removes what git ignores, which the
			// checkpoints keep only in part (node_modules/ never).
			return false
		}
		for _, w := range s.Paths {
			if t := p.place(w, base); w.Kind != shell.Pattern && !strings.HasPrefix(w.Text, ":") && (t == "" || !within(root, t)) {
				return false
			}
		}
		changes = true
	}
	return changes
}
