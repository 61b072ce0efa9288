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
	// and the program a wrapper such as sudo, env or timeout runs.
	RoleProgram
	// RoleCode: shell source the command runs: eval's arguments, the
	// script after sh -c.
	RoleCode
	// RoleRead: the word names a file the command reads.
	RoleRead
	// RoleWrite: the word names a file the command writes.
	RoleWrite
)

// command records c, what it makes opaque, and the script it runs.
func (r *reader) command(c Command) {
	c.Depth = r.depth
	c.Roles = make([]Role, len(c.Words))
	for i := range c.NAssign {
		c.Roles[i] = RoleAssign
	}
	cw, roles := c.Args(), c.Roles[c.NAssign:]
	if len(cw) == 0 {
		r.s.Commands = append(r.s.Commands, c)
		return
	}
	if cw[0].Kind == Dynamic || cw[0].Kind == Pattern {
		r.s.Commands = append(r.s.Commands, c)
		if cw[0].Kind == Dynamic {
			r.s.Opaque = append(r.s.Opaque, fmt.Sprintf("the command name in %s is computed at run time", c.Text))
		} else {
			r.s.Opaque = append(r.s.Opaque, fmt.Sprintf("the command name in %s has glob or brace characters the shell would expand", c.Text))
		}
		return
	}
	programs(cw, roles)
	script, from, to, found, ok := findNested(cw)
	for j := from; j < to; j++ {
		roles[j] = RoleCode
	}
	r.s.Commands = append(r.s.Commands, c)
	switch cw[0].Text {
	case "cd", "pushd", "popd":
		r.s.ChangesDir = true
	}
	for _, w := range nameArgs(cw) {
		if codeInName(w) {
			r.s.Opaque = append(r.s.Opaque, fmt.Sprintf("%s takes variable names, and a computed name or an array subscript can run code", c.Text))
			break
		}
	}
	switch {
	case !found:
	case !ok:
		r.s.Opaque = append(r.s.Opaque, fmt.Sprintf("the script run by %s is computed at run time", c.Text))
	case r.depth >= MaxNesting:
		r.s.Opaque = append(r.s.Opaque, fmt.Sprintf("%s nests scripts too deep to check", c.Text))
	default:
		// A nested script that does not parse is opaque, and listed in
		// Unparsed, like the script itself; the error adds nothing.
		_ = r.add(script, r.depth+1)
	}
}

// findNested returns the script that cw runs as shell code, looked for at
// any position after a wrapper (sudo bash -c '...', xargs sh -c '...'),
// and the words cw[from:to] that hold it. found reports whether cw runs
// such a script; ok whether its script is literal.
func findNested(cw []Word) (script string, from, to int, found, ok bool) {
	for i := range cw {
		if i > 0 && !IsWrapper(cw[0]) {
			break
		}
		script, from, to, found, ok = nestedScript(cw[i:])
		if found {
			return script, i + from, i + to, true, ok
		}
	}
	return "", 0, 0, false, false
}

// shells are the programs whose -c argument is a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// nestedScript returns the script that the command ws runs as shell code:
// eval's arguments, or the argument of a shell's -c, and the words
// ws[from:to] that hold it. found reports whether ws is such a command; ok
// whether its script is literal.
func nestedScript(ws []Word) (script string, from, to int, found, ok bool) {
	if ws[0].Kind != Literal {
		return "", 0, 0, false, false
	}
	switch name := path.Base(ws[0].Text); {
	case name == "eval":
		parts := make([]string, 0, len(ws)-1)
		for _, w := range ws[1:] {
			if w.Kind != Literal {
				return "", 1, len(ws), true, false
			}
			parts = append(parts, w.Text)
		}
		return strings.Join(parts, " "), 1, len(ws), true, true
	case shells[name]:
		return shellScript(ws)
	}
	return "", 0, 0, false, false
}

// shellScript is nestedScript for a shell.
func shellScript(ws []Word) (script string, from, to int, found, ok bool) {
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case w.Kind == Dynamic:
			return "", 0, 0, true, false
		case w.Text == "-o" || w.Text == "+o" || w.Text == "-O" || w.Text == "+O" || w.Text == "--rcfile" || w.Text == "--init-file":
			i++
		case strings.HasPrefix(w.Text, "-") && !strings.HasPrefix(w.Text, "--") && strings.ContainsRune(w.Text, 'c'):
			if i+1 >= len(ws) {
				return "", 0, 0, true, true
			}
			return ws[i+1].Text, i + 1, i + 2, true, ws[i+1].Kind == Literal
		case strings.HasPrefix(w.Text, "-") || strings.HasPrefix(w.Text, "+"):
		default:
			// A script file: the shell runs that file, not code written
			// here.
			return "", 0, 0, false, false
		}
	}
	return "", 0, 0, false, false
}

// wrapper describes a program that runs the command in its arguments.
type wrapper struct {
	// valued lists the short options that take a value as the next word.
	valued string
	// operands is how many words before the program are its own (timeout
	// DURATION, chroot DIR).
	operands int
	// assigns: NAME=value words before the program are its own (env).
	assigns bool
}

// wrappers run the command given in their arguments.
var wrappers = map[string]wrapper{
	"sudo": {valued: "ugCDhpRrtTU"}, "doas": {valued: "uC"}, "env": {valued: "uCS", assigns: true},
	"command": {}, "builtin": {}, "exec": {valued: "a"}, "nohup": {}, "nice": {valued: "n"},
	"ionice": {valued: "cnp"}, "timeout": {valued: "sk", operands: 1}, "time": {valued: "fo"},
	"stdbuf": {valued: "ioe"}, "setsid": {}, "xargs": {valued: "aEeIiLlnPsd"}, "watch": {valued: "nd"},
	"chroot": {operands: 1}, "unbuffer": {}, "flock": {valued: "wEc", operands: 1},
}

// IsWrapper reports whether w names, by its base name, a program that runs
// the command given in its arguments: sudo, doas, env, command, builtin,
// exec, nohup, nice, ionice, timeout, time, stdbuf, setsid, xargs, watch,
// chroot, unbuffer, flock.
func IsWrapper(w Word) bool {
	_, ok := wrappers[path.Base(w.Text)]
	return w.Kind == Literal && ok
}

// programs marks, in roles, the words of cw that name a program: the
// command's name and, through wrappers, what each runs. It is a best
// guess at the wrappers' options: it stops at a word it cannot place.
func programs(cw []Word, roles []Role) {
	for i := 0; i < len(cw); {
		roles[i] = RoleProgram
		spec, ok := wrappers[path.Base(cw[i].Text)]
		if !ok || cw[i].Kind != Literal {
			fileArgs(cw[i:], roles[i:])
			return
		}
		next, ok := wrapped(cw, i+1, spec)
		if !ok {
			return
		}
		i = next
	}
}

// wrapped returns the index of the program a wrapper with spec runs, its
// arguments starting at cw[i]; ok is false when there is none or it
// cannot be told.
func wrapped(cw []Word, i int, spec wrapper) (int, bool) {
	operands := spec.operands
	for ; i < len(cw); i++ {
		w := cw[i]
		switch {
		case w.Kind == Dynamic || w.Kind == Pattern:
			return 0, false
		case w.Text == "--":
		case strings.HasPrefix(w.Text, "-") && len(w.Text) > 1:
			if !strings.HasPrefix(w.Text, "--") && strings.ContainsRune(spec.valued, rune(w.Text[len(w.Text)-1])) {
				i++
			}
		case spec.assigns && strings.ContainsRune(w.Text, '='):
		case operands > 0:
			operands--
		default:
			return i, true
		}
	}
	return 0, false
}

// writers are programs whose every operand names a file they write.
var writers = map[string]bool{"tee": true, "touch": true}

// fileArgs marks, in roles, the words of the program cw that name files it
// reads or writes, for the programs whose operands are known to.
func fileArgs(cw []Word, roles []Role) {
	if cw[0].Kind != Literal || !writers[path.Base(cw[0].Text)] {
		return
	}
	options := true
	for i := 1; i < len(cw); i++ {
		switch t := cw[i].Text; {
		case options && t == "--":
			options = false
		case options && strings.HasPrefix(t, "-") && len(t) > 1:
		default:
			roles[i] = RoleWrite
		}
	}
}
