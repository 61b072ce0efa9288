package shell

import (
	"path"
	"slices"
	"strings"
)

// Sweep is what a command removes or throws away as a whole, beyond the
// files it writes: the trees rm -r removes, what git reset --hard
// discards. A caller decides from it whether the command is aimed at
// something that must not go (the workspace, its repository, the home
// directory).
type Sweep struct {
	// Op names what does it, for messages: "rm -r", "find -delete",
	// "rsync --delete", "mv", "git clean", "git reset --hard",
	// "git checkout", "git restore", "git rm -r", "git switch".
	Op string
	// Paths are the words naming what it removes or overwrites, as
	// written: relative to where the command runs (or to Dir). For git,
	// pathspecs, ":/" being the top of the repository.
	Paths []Word
	// Here reports that, with no Paths, it acts on the directory it runs
	// in and everything below (git clean).
	Here bool
	// Worktree reports that it discards what changed in the whole working
	// tree of the repository it runs in, wherever in it it runs (git
	// reset --hard, git checkout -f).
	Worktree bool
	// Git reports that Paths are git's pathspecs.
	Git bool
	// Dir is the directory git -C moves to before it acts; nil when it
	// does not.
	Dir *Word
	// Dest is, for mv, where it moves its sources to: the directory of
	// -t or its last operand; nil for any other command.
	Dest *Word
	// GitDir and GitWorkTree are the repository directory and the working
	// tree git is told to use (--git-dir, --work-tree, or GIT_DIR and
	// GIT_WORK_TREE assigned before it); nil when it is not told. Told a
	// repository and no working tree, git takes the directory it runs in
	// for the top of the working tree.
	GitDir, GitWorkTree *Word
	// Ignored reports that it removes only what git ignores (git clean
	// -X without -x): build output, not the project's files.
	Ignored bool
	// Unsure reports that an argument could not be read (a computed
	// word where an option or operand could be): Paths may miss some.
	Unsure bool
}

// Sweep returns what c removes or throws away as a whole (see [Sweep]),
// or nil when it is none of the commands that do: rm -r, find with
// -delete or -exec rm where its expression removes every file it finds
// (no test that picks before it, -type aside; -name '*' picks none),
// rsync with a --delete option (its destination), mv (its
// sources), git clean with -f and -d, -x or -X, git reset --hard, git
// checkout (its pathspecs; with -f and none, the worktree), git restore of
// the worktree, git rm -r without --cached, git switch with -f or
// --discard-changes. The program is named by c's first word after its
// assignments, by base name (/bin/rm is rm); the commands a wrapper
// runs are commands of their own in the script.
func (c *Command) Sweep() *Sweep {
	cw := c.Args()
	if len(cw) == 0 || cw[0].Kind != Literal {
		return nil
	}
	switch path.Base(cw[0].Text) {
	case "rm":
		return rmSweep(cw)
	case "find":
		return findSweep(cw)
	case "rsync":
		return rsyncSweep(cw)
	case "mv":
		return mvSweep(cw)
	case "git":
		return gitSweep(cw, c.Words[:c.NAssign])
	}
	return nil
}

// scanOperands reads cw[from:] with o and returns its operands, calling
// opt for each option; unsure reports a word that could not be read.
func scanOperands(o *options, cw []Word, from int, opt func(a arg)) (ops []Word, unsure bool) {
	o.scan(cw, from, false, func(a arg) bool {
		switch {
		case a.unsure:
			unsure = true
			return false
		case a.opt == "":
			ops = append(ops, cw[a.i])
		default:
			opt(a)
		}
		return true
	})
	return ops, unsure
}

func rmSweep(cw []Word) *Sweep {
	tree := false
	ops, unsure := scanOperands(filers["rm"].opts, cw, 1, func(a arg) {
		tree = tree || has("rR recursive", a)
	})
	if !tree {
		return nil
	}
	return &Sweep{Op: "rm -r", Paths: ops, Unsure: unsure}
}

func findSweep(cw []Word) *Sweep {
	i := findOptions(cw)
	var starts []Word
	for ; i < len(cw); i++ {
		if t := cw[i].Text; cw[i].Kind != Dynamic && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == ",") {
			break
		}
		starts = append(starts, cw[i])
	}
	if len(starts) == 0 {
		starts = []Word{{Text: "."}}
	}
	e := &findExpr{words: cw[i:], starts: starts}
	if v := e.list(); e.bad || e.i < len(e.words) || !v.removes {
		return nil
	}
	return &Sweep{Op: "find -delete", Paths: starts}
}

// findExpr reads find's expression to tell whether it removes every file
// it finds: each part is judged by how many files it is true for, and
// whether it removes every file that reaches it. One it cannot read (a
// computed word, a primary it does not know, -quit) makes it bad, and
// the command no sweep.
type findExpr struct {
	words  []Word
	i      int
	starts []Word
	bad    bool
}

// findValue is what a part of find's expression does with the files that
// reach it.
type findValue struct {
	// truth is for how many it is true.
	truth findTruth
	// removes reports that it removes every file that reaches it.
	removes bool
}

// findTruth is for how many files a part of find's expression is true.
type findTruth uint8

const (
	// findAll: every file (-true, -print, -name '*').
	findAll findTruth = iota
	// findNone: no file (-false).
	findNone
	// findBroad: a kind of file, and its negation too is broad (-type f
	// is every file, ! -type d all but the directories).
	findBroad
	// findSome: the files a test picks (-name '*.o', -newer x).
	findSome
)

func (e *findExpr) peek() string {
	if e.i < len(e.words) && e.words[e.i].Static() {
		return e.words[e.i].Text
	}
	return ""
}

// list reads A , B: both run, B's truth is the list's.
func (e *findExpr) list() findValue {
	v := e.or()
	for !e.bad && e.peek() == "," {
		e.i++
		w := e.or()
		v = findValue{truth: w.truth, removes: v.removes || w.removes}
	}
	return v
}

// or reads A -o B: B reaches the files A is false for.
func (e *findExpr) or() findValue {
	v := e.and()
	for !e.bad && (e.peek() == "-o" || e.peek() == "-or") {
		e.i++
		w := e.and()
		removes := v.removes || w.removes && (v.truth == findNone || v.truth == findBroad)
		switch {
		case v.truth == findAll || w.truth == findAll:
			v.truth = findAll
		case v.truth == findNone && w.truth == findNone:
			v.truth = findNone
		case v.truth == findSome || w.truth == findSome:
			v.truth = findSome
		default:
			v.truth = findBroad
		}
		v.removes = removes
	}
	return v
}

// and reads A -a B, or A B: B reaches the files A is true for.
func (e *findExpr) and() findValue {
	v := e.not()
	for !e.bad {
		switch t := e.peek(); {
		case t == "-a" || t == "-and":
			e.i++
		case e.i >= len(e.words) || t == ")" || t == "," || t == "-o" || t == "-or":
			return v
		}
		w := e.not()
		removes := v.removes || w.removes && (v.truth == findAll || v.truth == findBroad)
		switch {
		case v.truth == findNone || w.truth == findNone:
			v.truth = findNone
		case v.truth == findSome || w.truth == findSome:
			v.truth = findSome
		case v.truth == findBroad || w.truth == findBroad:
			v.truth = findBroad
		}
		v.removes = removes
	}
	return v
}

// not reads ! A, -not A, ( A ) and a primary.
func (e *findExpr) not() findValue {
	switch e.peek() {
	case "!", "-not":
		e.i++
		v := e.not()
		switch v.truth {
		case findAll:
			v.truth = findNone
		case findNone:
			v.truth = findAll
		}
		return v
	case "(":
		e.i++
		v := e.list()
		if e.peek() != ")" {
			e.bad = true
		}
		e.i++
		return v
	}
	return e.primary()
}

// findPrimaries are find's primaries other than -exec and its like: how
// many words they take after them, and for how many files they are true
// (-name, -path and -regex are judged by their pattern).
var findPrimaries = map[string]struct {
	args  int
	truth findTruth
}{
	"-depth": {0, findAll}, "-d": {0, findAll}, "-xdev": {0, findAll}, "-mount": {0, findAll}, "-noleaf": {0, findAll}, "-follow": {0, findAll},
	"-ignore_readdir_race": {0, findAll}, "-noignore_readdir_race": {0, findAll}, "-warn": {0, findAll}, "-nowarn": {0, findAll},
	"-daystart": {0, findAll}, "-true": {0, findAll}, "-false": {0, findNone}, "-print": {0, findAll}, "-print0": {0, findAll},
	"-ls": {0, findAll}, "-prune": {0, findAll}, "-mindepth": {1, findAll}, "-maxdepth": {1, findAll}, "-regextype": {1, findAll},
	"-printf": {1, findAll}, "-fprint": {1, findAll}, "-fprint0": {1, findAll}, "-fls": {1, findAll}, "-fprintf": {2, findAll},
	"-type": {1, findBroad}, "-xtype": {1, findBroad},
	"-nouser": {0, findSome}, "-nogroup": {0, findSome}, "-empty": {0, findSome}, "-readable": {0, findSome}, "-writable": {0, findSome},
	"-executable": {0, findSome}, "-lname": {1, findSome}, "-ilname": {1, findSome}, "-newer": {1, findSome}, "-anewer": {1, findSome},
	"-cnewer": {1, findSome}, "-mtime": {1, findSome}, "-atime": {1, findSome}, "-ctime": {1, findSome}, "-mmin": {1, findSome},
	"-amin": {1, findSome}, "-cmin": {1, findSome}, "-used": {1, findSome}, "-size": {1, findSome}, "-perm": {1, findSome},
	"-user": {1, findSome}, "-group": {1, findSome}, "-uid": {1, findSome}, "-gid": {1, findSome}, "-links": {1, findSome},
	"-inum": {1, findSome}, "-samefile": {1, findSome}, "-fstype": {1, findSome}, "-context": {1, findSome},
	"-name": {1, findSome}, "-iname": {1, findSome}, "-path": {1, findSome}, "-ipath": {1, findSome}, "-wholename": {1, findSome},
	"-iwholename": {1, findSome}, "-regex": {1, findSome}, "-iregex": {1, findSome},
}

func (e *findExpr) primary() findValue {
	t := e.peek()
	if t == "" {
		e.bad = true
		return findValue{}
	}
	e.i++
	switch t {
	case "-delete":
		return findValue{truth: findAll, removes: true}
	case "-exec", "-execdir", "-ok", "-okdir":
		// -exec rm ... {} ;: what it finds goes. -ok asks on the
		// terminal first, and -exec of another program is a test.
		rm := e.i < len(e.words) && e.words[e.i].Kind == Literal && path.Base(e.words[e.i].Text) == "rm"
		for ; e.i < len(e.words) && !(e.words[e.i].Static() && (e.words[e.i].Text == ";" || e.words[e.i].Text == "+")); e.i++ {
		}
		if e.i >= len(e.words) {
			e.bad = true
		}
		e.i++
		if rm && (t == "-exec" || t == "-execdir") {
			return findValue{truth: findAll, removes: true}
		}
		return findValue{truth: findSome}
	}
	p, ok := findPrimaries[t]
	if strings.HasPrefix(t, "-newer") && len(t) == len("-newerXY") {
		p, ok = findPrimaries["-newer"]
	}
	if !ok || e.i+p.args > len(e.words) {
		e.bad = true
		return findValue{}
	}
	args := e.words[e.i : e.i+p.args]
	e.i += p.args
	for _, a := range args {
		if !a.Static() {
			e.bad = true
		}
	}
	if p.args == 1 && e.matchesAll(t, args[0].Text) {
		return findValue{truth: findAll}
	}
	return findValue{truth: p.truth}
}

// matchesAll reports whether the test t with pattern pat is true for
// every file, or every file below the starting points: -name '*', -path
// '*', -path '*/*', -path ./* below the one starting point ., -regex '.*'.
func (e *findExpr) matchesAll(t, pat string) bool {
	switch t {
	case "-name", "-iname":
		return pat != "" && strings.Trim(pat, "*") == ""
	case "-path", "-ipath", "-wholename", "-iwholename":
		if pat != "" && strings.Trim(pat, "*") == "" || strings.Trim(pat, "*") == "/" && pat[0] == '*' && pat[len(pat)-1] == '*' {
			// *, and */* (all but the starting points).
			return true
		}
		dir := strings.TrimRight(pat, "*")
		return len(e.starts) == 1 && e.starts[0].Kind == Literal && dir != pat && dir == strings.TrimRight(e.starts[0].Text, "/")+"/"
	case "-regex", "-iregex":
		return pat == ".*" || pat == ".+"
	}
	return false
}

func rsyncSweep(cw []Word) *Sweep {
	del := false
	ops, unsure := scanOperands(rsyncOpts, cw, 1, func(a arg) {
		del = del || a.long && strings.HasPrefix(a.opt, "del")
	})
	if !del || len(ops) < 2 {
		return nil
	}
	return &Sweep{Op: "rsync --delete", Paths: ops[len(ops)-1:], Unsure: unsure}
}

func mvSweep(cw []Word) *Sweep {
	var dest *Word
	ops, unsure := scanOperands(filers["mv"].opts, cw, 1, func(a arg) {
		if has("t target-directory", a) && a.has {
			d := a.val
			dest = &d
		}
	})
	if dest == nil && len(ops) > 0 && !unsure {
		// Past a word it could not read, where mv moves them is not
		// known, and all it read were its sources.
		dest = &ops[len(ops)-1]
		ops = ops[:len(ops)-1]
	}
	if len(ops) == 0 {
		return nil
	}
	return &Sweep{Op: "mv", Paths: ops, Dest: dest, Unsure: unsure}
}

// gitSweeps are the options of the git subcommands a Sweep knows.
var gitSweeps = map[string]*options{
	"clean":    opts("dfinqxXe:", "dry-run force interactive quiet exclude:"),
	"reset":    opts("qpNU:", "quiet patch hard soft mixed merge keep recurse-submodules:: no-recurse-submodules pathspec-from-file: pathspec-file-nul intent-to-add refresh no-refresh"),
	"checkout": opts("qfmpb:B:lt", "quiet force merge patch conflict: detach track:: no-track guess no-guess orphan: ours theirs overlay no-overlay ignore-skip-worktree-bits ignore-other-worktrees progress no-progress recurse-submodules:: pathspec-from-file: pathspec-file-nul"),
	"restore":  opts("s:pWSqm2", "source: patch worktree staged quiet merge conflict: ours theirs ignore-unmerged overlay no-overlay recurse-submodules:: no-recurse-submodules pathspec-from-file: pathspec-file-nul progress no-progress"),
	"rm":       opts("fnrq", "force dry-run cached ignore-unmatch sparse quiet pathspec-from-file: pathspec-file-nul"),
	"switch":   opts("cCdfmqt", "create: force-create: detach force discard-changes merge conflict: quiet progress no-progress track:: no-track guess no-guess orphan: ignore-other-worktrees recurse-submodules::"),
}

// gitSweep is Sweep for git, run with the words cw after the assignments
// assigns.
func gitSweep(cw, assigns []Word) *Sweep {
	var dir *Word
	gitDir, workTree := gitEnv(assigns)
	// --git-dir=$G, --git-dir $G: its value, however many words it
	// makes, is the repository; what comes after it is read, so that a
	// caller can refuse what cannot be told.
	told := func(opt string) bool {
		name, _, _ := strings.Cut(strings.TrimPrefix(opt, "--"), "=")
		return strings.HasPrefix(opt, "--") && name != "" && (strings.HasPrefix("git-dir", name) || strings.HasPrefix("work-tree", name))
	}
	cw = slices.Clone(cw)
	for i, w := range cw {
		if w.Kind == Dynamic && (strings.Contains(w.Prefix, "=") && told(w.Prefix) || i > 0 && cw[i-1].Static() && told(cw[i-1].Text)) {
			cw[i].Splits = false
		}
	}
	sub := -1
	unsure := false
	gitGlobal.scan(cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			unsure = true
			return false
		case a.opt == "":
			sub = a.i
			return false
		case a.opt == "C" && a.has:
			d := a.val
			dir = &d
		case (a.opt == "git-dir" || a.opt == "work-tree") && !a.has:
			unsure = true
			return false
		case a.opt == "git-dir":
			d := a.val
			gitDir = &d
		case a.opt == "work-tree":
			d := a.val
			workTree = &d
		}
		return true
	})
	if unsure || sub < 0 || !cw[sub].Static() {
		return nil
	}
	name := cw[sub].Text
	o, ok := gitSweeps[name]
	if !ok {
		return nil
	}
	flags := map[string]bool{}
	var ops []Word
	dashes := -1
	o.scan(cw, sub+1, false, func(a arg) bool {
		switch {
		case a.unsure:
			unsure = true
			return false
		case a.opt == "":
			if dashes < 0 && a.i > 0 && cw[a.i-1].Static() && cw[a.i-1].Text == "--" {
				dashes = len(ops)
			}
			ops = append(ops, cw[a.i])
		default:
			flags[a.opt] = true
		}
		return true
	})
	s := &Sweep{Op: "git " + name, Git: true, Dir: dir, GitDir: gitDir, GitWorkTree: workTree, Unsure: unsure}
	if !s.of(name, flags, ops, dashes) {
		return nil
	}
	if !s.Worktree && !s.Here && len(s.Paths) == 0 {
		return nil
	}
	return s
}

// gitEnv returns the repository and the working tree that assigns
// (GIT_DIR=..., GIT_WORK_TREE=... before the command) give git; nil for
// one they do not give, a Dynamic word for one they give but not as
// literal text.
func gitEnv(assigns []Word) (gitDir, workTree *Word) {
	for _, w := range assigns {
		name, val, _ := strings.Cut(w.Text, "=")
		if w.Kind == Dynamic {
			name, val = strings.TrimSuffix(w.Prefix, "="), ""
		}
		told := Word{Text: val, Tilde: strings.HasPrefix(val, "~")}
		if w.Kind == Dynamic || strings.Contains(name, "=") {
			told = Word{Kind: Dynamic}
		}
		switch name {
		case "GIT_DIR":
			gitDir = &told
		case "GIT_WORK_TREE":
			workTree = &told
		}
	}
	return gitDir, workTree
}

// of fills s for git's subcommand name, given its options (flags), its
// operands and the index among them of the first after "--" (-1 for
// none); false when it sweeps nothing away.
func (s *Sweep) of(name string, flags map[string]bool, ops []Word, dashes int) bool {
	switch name {
	case "clean":
		if !(flags["f"] || flags["force"]) || !(flags["d"] || flags["x"] || flags["X"]) || flags["n"] || flags["dry-run"] || flags["i"] || flags["interactive"] {
			return false
		}
		s.Paths, s.Here = ops, len(ops) == 0
		s.Ignored = flags["X"] && !flags["x"]
	case "reset":
		if !flags["hard"] {
			return false
		}
		s.Op, s.Worktree = "git reset --hard", true
	case "checkout":
		if flags["p"] || flags["patch"] {
			return false
		}
		if dashes >= 0 {
			s.Paths = ops[dashes:]
		} else {
			s.Paths = ops
		}
		s.Worktree = (flags["f"] || flags["force"]) && dashes < 0
	case "restore":
		if flags["p"] || flags["patch"] || (flags["S"] || flags["staged"]) && !(flags["W"] || flags["worktree"]) {
			return false
		}
		s.Paths = ops
	case "rm":
		if !flags["r"] || flags["cached"] || flags["n"] || flags["dry-run"] {
			return false
		}
		s.Op, s.Paths = "git rm -r", ops
	case "switch":
		if !(flags["f"] || flags["force"] || flags["discard-changes"]) {
			return false
		}
		s.Worktree = true
	}
	return true
}
