package shell

import (
	"fmt"
	"path"
	"strings"
)

// Role says what a command does with one of its words.
type Role uint8

const (
	// RoleArg: an argument the analyser knows nothing more about.
	RoleArg Role = iota
	// RoleAssign: a variable assignment before the command.
	RoleAssign
	// RoleProgram: the word names a program the command runs: its name,
	// the program a wrapper such as sudo, env or timeout runs, and the
	// programs given to options such as find's -exec or go test's -exec.
	RoleProgram
	// RoleCode: source code the command runs: eval's arguments, the
	// script after sh -c, python3 -c's program, an awk or sed program.
	RoleCode
	// RoleRead: the word names a file the command reads, or holds its
	// name (--file=x).
	RoleRead
	// RoleWrite: the word names a file the command writes, or holds its
	// name (-o x, of=x).
	RoleWrite
)

// rank orders the roles a word can be given, so that a stronger one is
// kept: what runs over what is written over what is read.
func (r Role) rank() int {
	switch r {
	case RoleRead:
		return 1
	case RoleWrite:
		return 2
	case RoleProgram, RoleCode:
		return 3
	}
	return 0
}

// command records c, a command of the script being walked, with pos saying
// where its words are in the source (nil when they are not all there).
func (r *reader) command(c Command, pos []span) { r.commandOf(c, pos, -1, 0) }

// commandOf records c, run by the command at index parent through its word
// at (or a command of a script, parent -1), what its words make opaque, and
// the commands and scripts it runs.
func (r *reader) commandOf(c Command, pos []span, parent, at int) {
	r.commandWith(c, pos, parent, at, nested{})
}

// commandWith is commandOf for a command n describes: n.plain says that
// the program's arguments are not to be read (the rm that find -delete
// stands for has none), n.moved that it runs in another directory.
func (r *reader) commandWith(c Command, pos []span, parent, at int, n nested) {
	plain := n.plain
	if parent < 0 && r.parent >= 0 {
		// A command of a script another command runs.
		parent, at, c.Script = r.parent, r.at, true
	}
	c.Depth, c.Parent, c.At, c.Moved = r.depth, parent, at, n.moved
	c.Roles = make([]Role, len(c.Words))
	for i := range c.NAssign {
		c.Roles[i] = RoleAssign
	}
	x := &call{r: r, c: &c, pos: pos, base: c.NAssign, cw: c.Args(), roles: c.Roles[c.NAssign:], moved: n.moved}
	x.assignments(c.Words[:c.NAssign])
	switch cw := x.cw; {
	case len(cw) == 0:
	case cw[0].Kind == Dynamic:
		x.opaque("the command name in %s is computed at run time")
	case cw[0].Kind == Pattern:
		x.opaque("the command name in %s has glob or brace characters the shell would expand")
	default:
		x.roles[0] = RoleProgram
		x.shellBuiltins()
		if h := handlerOf(cw[0]); h != nil && !plain {
			h(x)
		}
	}
	r.record(x)
}

// record appends the command x read to the script, then what it runs.
func (r *reader) record(x *call) {
	c := x.c
	c.Pinned = len(c.Opaque) > 0 && x.pinned == len(c.Opaque)
	idx := len(r.s.Commands)
	r.s.Commands = append(r.s.Commands, *c)
	r.s.Opaque = append(r.s.Opaque, c.Opaque...)
	for _, n := range x.nested {
		if !n.run {
			// A nested script that does not parse is opaque, and listed
			// in Unparsed, like the script itself; the error adds nothing.
			outer, outerAt := r.parent, r.at
			r.parent, r.at = idx, n.at
			_ = r.add(n.src, r.depth+1)
			r.parent, r.at = outer, outerAt
			continue
		}
		r.nodes += len(n.words)
		if r.runs >= maxRuns || r.nodes >= maxNodes {
			msg := fmt.Sprintf("%s runs commands through too many programs to check", c.Text)
			r.s.Commands[idx].Opaque = append(r.s.Commands[idx].Opaque, msg)
			r.s.Commands[idx].Pinned = false
			r.s.Opaque = append(r.s.Opaque, msg)
			continue
		}
		r.runs++
		child := len(r.s.Commands)
		outer := r.parent
		r.parent = -1
		r.commandWith(Command{Words: n.words, NAssign: n.nAssign, Text: n.text}, n.pos, idx, n.at, n)
		r.parent = outer
		r.runs--
		if len(n.holes) > 0 {
			r.fill(idx, child, n.holes, n.trees)
		}
	}
}

// fill moves what the command at index child does to its words at the
// indexes holes (find's {}: the files found) to the parent's files at the
// indexes trees (find's starting points): reading them is reading the
// trees below; writing them, writing the trees.
func (r *reader) fill(parent, child int, holes, trees []int) {
	c := &r.s.Commands[child]
	kept, worst := c.Files[:0], RoleArg
	for _, f := range c.Files {
		hole := false
		for _, h := range holes {
			hole = hole || f.Word == h
		}
		if !hole {
			kept = append(kept, f)
		} else if f.Role.rank() > worst.rank() {
			worst = f.Role
		}
	}
	c.Files = kept
	if worst == RoleArg {
		return
	}
	p := &r.s.Commands[parent]
	for _, k := range trees {
		f := &p.Files[k]
		f.Tree = true
		if worst.rank() > f.Role.rank() {
			f.Role = worst
		}
		if p.Roles[f.Word].rank() < worst.rank() {
			p.Roles[f.Word] = worst
		}
	}
}

// call is one command being read: its program's words and roles, and what
// is learnt of them.
type call struct {
	r *reader
	c *Command
	// cw and roles are the command's words and roles from its name on;
	// base is the index of cw[0] in c.Words.
	cw    []Word
	roles []Role
	base  int
	// pos says where c's words are in the source; nil when unknown.
	pos []span
	// nested are the commands and scripts the command runs, in order.
	nested []nested
	// pinned counts the entries of c.Opaque that are code written out in
	// the command's own words.
	pinned int
	// trees are the indexes in c.Files of the trees a run's edited
	// words stand for files below (find's starting points, for {}).
	trees []int
	// moved: the command has moved to another directory (git -C, env
	// -C): the relative paths it records from now on, and those of the
	// commands it runs, start there.
	moved bool
}

// move records that the command moves to another directory before it
// acts on the files named after: their relative paths, and those of the
// commands and scripts it runs, are not relative to where it runs.
func (x *call) move() { x.moved = true }

// nested is a script a command runs, or a command it runs through a
// program argument.
type nested struct {
	run bool
	// src is the script.
	src string
	// words, nAssign, at, text and pos describe the command.
	words   []Word
	nAssign int
	at      int
	text    string
	pos     []span
	// plain: the program's arguments are not read.
	plain bool
	// holes are the indexes in words of the ones a parent fills in at run
	// time with files it found (find's {}), below the parent's Files at
	// the indexes trees.
	holes, trees []int
	// moved: the command runs in another directory (see call.moved).
	moved bool
}

// handler reads the arguments of one program, x.cw[0] naming it.
type handler func(x *call)

// handlerOf returns what reads the arguments of the program w names, by
// its base name (/usr/bin/git is git, python3.12 is python), or nil.
func handlerOf(w Word) handler {
	if w.Kind != Literal {
		return nil
	}
	name := path.Base(w.Text)
	if h, ok := programs[name]; ok {
		return h
	}
	for _, alias := range versioned {
		if rest, ok := strings.CutPrefix(name, alias); ok && rest != "" && strings.Trim(rest, "0123456789.-") == "" {
			return programs[alias]
		}
	}
	return nil
}

// versioned are programs also installed under a versioned name
// (python3.12, perl5.36, node18).
var versioned = []string{"python", "pypy", "perl", "ruby", "node", "php", "lua", "bash", "zsh", "tclsh", "pip"}

// opaque records, as a sentence formatted with the command's text first,
// something the command's words hold that cannot be seen through.
func (x *call) opaque(format string, args ...any) {
	x.c.Opaque = append(x.c.Opaque, fmt.Sprintf(format, append([]any{x.c.Text}, args...)...))
}

// unplaced records that the command runs a program the analyser cannot
// place, which is opaque too.
func (x *call) unplaced(format string, args ...any) {
	x.c.Unplaced = true
	x.opaque(format, args...)
}

// role gives cw[i] the role r, unless it has a stronger one.
func (x *call) role(i int, r Role) {
	if r.rank() > x.roles[i].rank() {
		x.roles[i] = r
	}
}

// file records that the command reads or writes the file p, named by (or
// in) its word cw[i].
func (x *call) file(i int, p Word, r Role) { x.addFile(i, p, r, false) }

// filesFrom records each word from cw[from] on as a file the command
// reads or writes with role r: what is left when rein cannot tell which
// of them is what (a word it cannot read, an editor's operands).
func (x *call) filesFrom(from int, r Role) {
	for i := from; i < len(x.cw); i++ {
		x.file(i, x.cw[i], r)
	}
}

// tree records that the command reads or writes everything below p.
func (x *call) tree(i int, p Word, r Role) { x.addFile(i, p, r, true) }

func (x *call) addFile(i int, p Word, r Role, tree bool) {
	x.role(i, r)
	x.c.Files = append(x.c.Files, File{Word: x.base + i, Path: p, Role: r, Tree: tree, Moved: x.moved})
}

// code records that the command runs src, given in (or as) its word cw[i],
// as shell source: a literal script is read as a nested one.
func (x *call) code(i int, src Word) {
	x.role(i, RoleCode)
	x.scriptAt(i, src)
}

// script records that the command runs src as shell source, named by no
// word of its own (a variable's value).
func (x *call) script(src Word) { x.scriptAt(-1, src) }

// scriptAt records that the command runs src, held by its word cw[i]
// (none for i -1), as shell source.
func (x *call) scriptAt(i int, src Word) {
	at := x.base + i
	if i < 0 {
		at = len(x.c.Words)
	}
	switch {
	case !src.Static():
		x.opaque("the script run by %s is computed at run time")
	case x.r.depth >= MaxNesting:
		x.opaque("%s nests scripts too deep to check")
	default:
		if x.moved {
			// The script's redirections start elsewhere too.
			x.r.s.ChangesDir = true
		}
		x.nested = append(x.nested, nested{src: src.Text, at: at})
	}
}

// foreign records that the command runs code in lang, given in its word
// cw[i] (or in src, part of it), which the analyser does not read.
func (x *call) foreign(i int, src Word, lang string) {
	x.role(i, RoleCode)
	if !src.Static() {
		x.opaque("the " + lang + " code run by %s is computed at run time")
		return
	}
	x.opaque("%s runs " + lang + " code, which cannot be checked")
	x.pinned++
}

// run records that the words cw[i:j], followed by extra, are a command the
// command runs, cw[i] naming its program.
func (x *call) run(i, j int, extra ...Word) {
	x.runEdited(i, i, j, nil, extra...)
}

// runFrom is run for a command whose words cw[from:j] start with
// assignments (env A=1 make), cw[i] naming its program.
func (x *call) runFrom(from, i, j int, extra ...Word) {
	x.runEdited(from, i, j, nil, extra...)
}

// runEdited is runFrom with each of the words cw[i:j] passed through edit
// when it is not nil: the words a program changes before it runs them
// (find's {}, xargs -I's replacement).
func (x *call) runEdited(from, i, j int, edit func(Word) Word, extra ...Word) {
	x.role(i, RoleProgram)
	words := make([]Word, 0, j-from+len(extra))
	for _, w := range x.cw[from:i] {
		if w.Kind == Literal {
			w.Kind = Assign
		}
		words = append(words, w)
	}
	var holes []int
	for _, w := range x.cw[i:j] {
		if edit != nil {
			if e := edit(w); e != w {
				w = e
				holes = append(holes, len(words))
			}
		}
		words = append(words, w)
	}
	words = append(words, extra...)
	n := nested{run: true, words: words, nAssign: i - from, at: x.base + i, text: x.source(from, j), moved: x.moved}
	if len(x.trees) > 0 {
		n.holes, n.trees = holes, x.trees
	}
	if x.pos != nil && j > from && x.base+j <= len(x.pos) {
		n.pos = x.pos[x.base+from : x.base+j]
	}
	x.nested = append(x.nested, n)
}

// runWords records that words, made from the command's word cw[i] (a
// value split into words), are a command it runs.
func (x *call) runWords(i int, words []Word) {
	x.role(i, RoleProgram)
	parts := make([]string, 0, len(words))
	for _, w := range words {
		parts = append(parts, w.Source())
	}
	x.nested = append(x.nested, nested{run: true, words: words, at: x.base + i, text: Clip(strings.Join(parts, " ")), moved: x.moved})
}

// source returns the text of the words cw[i:j] as written, for messages.
func (x *call) source(i, j int) string {
	if x.pos != nil && i < j && x.base+j <= len(x.pos) {
		start, end := x.pos[x.base+i].start, x.pos[x.base+j-1].end
		if start >= 0 && start <= end && end <= len(x.r.src) {
			return Clip(x.r.src[start:end])
		}
	}
	parts := make([]string, 0, j-i)
	for _, w := range x.cw[i:j] {
		parts = append(parts, w.Source())
	}
	return Clip(strings.Join(parts, " "))
}

// shellBuiltins notes what bash's own builtins do to the reading of the
// script: cd changes the directory, and a variable name given to read,
// unset or printf -v can hold code.
func (x *call) shellBuiltins() {
	cw := x.cw
	switch cw[0].Text {
	case "cd", "pushd", "popd":
		x.r.s.ChangesDir = true
	}
	for _, w := range nameArgs(cw) {
		if codeInName(w) {
			x.opaque("%s takes variable names, and a computed name or an array subscript can run code")
			break
		}
	}
}
