package shell

import (
	"path"
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
	// Ignored reports that it removes only what git ignores (git clean
	// -X without -x): build output, not the project's files.
	Ignored bool
	// Unsure reports that an argument could not be read (a computed
	// word where an option or operand could be): Paths may miss some.
	Unsure bool
}

// Sweep returns what c removes or throws away as a whole (see [Sweep]),
// or nil when it is none of the commands that do: rm -r, find with
// -delete or -exec rm and no test that picks what it finds (-type
// aside), rsync with a --delete option (its destination), mv (its
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
		return gitSweep(cw)
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

// findKeeps are find's primaries that do not pick which files it acts
// on (or barely: -type f is every file): with only these, find -delete
// removes the whole trees it starts from.
var findKeeps = map[string]bool{"-depth": true, "-d": true, "-xdev": true, "-mount": true, "-noleaf": true, "-follow": true,
	"-ignore_readdir_race": true, "-noignore_readdir_race": true, "-warn": true, "-nowarn": true, "-print": true, "-print0": true,
	"-true": true, "-delete": true, "-type": true, "-xtype": true, "-mindepth": true, "-maxdepth": true, "-regextype": true, "-daystart": true}

func findSweep(cw []Word) *Sweep {
	i := 1
	for ; i < len(cw) && cw[i].Static(); i++ {
		if t := cw[i].Text; t == "-D" {
			i++
		} else if t != "-H" && t != "-L" && t != "-P" && !strings.HasPrefix(t, "-O") {
			break
		}
	}
	if i < len(cw) && cw[i].Static() && cw[i].Text == "--" {
		i++
	}
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
	removes := false
	for ; i < len(cw); i++ {
		w := cw[i]
		if !w.Static() {
			return nil
		}
		switch t := w.Text; {
		case t == "-delete":
			removes = true
		case t == "-exec" || t == "-execdir":
			// -exec rm ... {} ;: what it finds goes.
			if i+1 >= len(cw) || cw[i+1].Kind != Literal || path.Base(cw[i+1].Text) != "rm" {
				return nil
			}
			removes = true
			for i++; i < len(cw) && !(cw[i].Static() && (cw[i].Text == ";" || cw[i].Text == "+")); i++ {
			}
		case t == "-type" || t == "-xtype" || t == "-mindepth" || t == "-maxdepth" || t == "-regextype":
			i++
		case !findKeeps[t]:
			return nil
		}
	}
	if !removes {
		return nil
	}
	return &Sweep{Op: "find -delete", Paths: starts}
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
	target := false
	ops, unsure := scanOperands(filers["mv"].opts, cw, 1, func(a arg) {
		target = target || has("t target-directory", a)
	})
	if !target && len(ops) > 0 {
		ops = ops[:len(ops)-1]
	}
	if len(ops) == 0 {
		return nil
	}
	return &Sweep{Op: "mv", Paths: ops, Unsure: unsure}
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

func gitSweep(cw []Word) *Sweep {
	var dir *Word
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
		case a.opt == "git-dir" || a.opt == "work-tree":
			unsure = true
			return false
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
	s := &Sweep{Op: "git " + name, Git: true, Dir: dir, Unsure: unsure}
	if !s.of(name, flags, ops, dashes) {
		return nil
	}
	if !s.Worktree && !s.Here && len(s.Paths) == 0 {
		return nil
	}
	return s
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
