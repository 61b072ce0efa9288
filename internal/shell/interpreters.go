package shell

import (
	"strings"
)

// shells are the programs whose -c argument is a bash-like script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "rbash": true}

// shellProgram reads a shell's arguments: the script after -c is read as
// a nested one; a script file is read; with neither the shell reads its
// commands from standard input, which cannot be seen.
func shellProgram(x *call) {
	cw := x.cw
	for i := 1; i < len(cw); i++ {
		w := cw[i]
		switch t := w.Text; {
		case w.Kind == Dynamic || w.Kind == Pattern && (literalStart(t) == "" || strings.HasPrefix(t, "-")):
			x.unplaced("the script run by %s is computed at run time")
			return
		case t == "-o" || t == "+o" || t == "-O" || t == "+O":
			i++
		case t == "--rcfile" || t == "--init-file":
			if i++; i < len(cw) {
				x.file(i, cw[i], RoleRead)
			}
		case t == "--version" || t == "--help":
			return
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsRune(t, 'c'):
			if i+1 < len(cw) {
				x.code(i+1, cw[i+1])
			}
			return
		case t == "-" || t == "--" && i+1 == len(cw) || strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.ContainsAny(t, "si"):
			x.opaque("%s runs a shell that reads its commands from standard input")
			return
		case t == "--":
			x.file(i+1, cw[i+1], RoleRead)
			return
		case strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+"):
		default:
			// A script file: the shell runs that file, not code written
			// here.
			x.file(i, w, RoleRead)
			return
		}
	}
	x.opaque("%s runs a shell that reads its commands from standard input")
}

// evalProgram reads eval's arguments, joined, as a nested script.
func evalProgram(x *call) {
	if len(x.cw) < 2 {
		return
	}
	for i := 1; i < len(x.cw); i++ {
		x.role(i, RoleCode)
	}
	x.code(1, joined(x.cw[1:]))
}

// trapProgram reads trap ACTION SIGNAL...: the action is a script bash runs
// when the signal comes (or at EXIT).
func trapProgram(x *call) {
	i := 1
	for ; i < len(x.cw) && x.cw[i].Static() && strings.HasPrefix(x.cw[i].Text, "-") && x.cw[i].Text != "-"; i++ {
		if x.cw[i].Text == "--" {
			i++
			break
		}
	}
	if len(x.cw)-i < 2 {
		return // trap SIGNAL resets it; trap -p and -l print
	}
	if a := x.cw[i]; a.Static() && (a.Text == "-" || a.Text == "") {
		return
	}
	x.code(i, x.cw[i])
}

// sourceProgram reads source FILE (and . FILE): it runs the commands of a
// file, which cannot be seen here.
func sourceProgram(x *call) {
	if len(x.cw) < 2 {
		return
	}
	x.file(1, x.cw[1], RoleRead)
	x.opaque("%s runs the commands of a file, which cannot be checked")
}

// aliasProgram reads alias NAME=VALUE...: each value is a script that runs
// in place of the name.
func aliasProgram(x *call) {
	for i := 1; i < len(x.cw); i++ {
		w := x.cw[i]
		switch {
		case w.Kind == Dynamic:
			x.opaque("the alias %s defines is computed at run time")
		case strings.Contains(w.Text, "="):
			_, value, _ := strings.Cut(w.Text, "=")
			x.code(i, Word{Text: value, Kind: w.Kind})
		}
	}
}

// enableProgram and hashProgram catch the builtins that make a name run
// something else: enable -f loads a builtin from a shared library, hash -p
// makes a name run the given file.
func enableProgram(x *call) {
	optionMakesOpaque(x, 'f', "%s loads a builtin from a shared library, which cannot be checked")
}
func hashProgram(x *call) { optionMakesOpaque(x, 'p', "%s makes a command name run another file") }

func optionMakesOpaque(x *call, letter byte, why string) {
	for _, w := range x.cw[1:] {
		if !w.Static() || strings.HasPrefix(w.Text, "-") && strings.IndexByte(w.Text, letter) > 0 {
			x.opaque(why)
			return
		}
	}
}

// declProgram reads declare, export, local, readonly and typeset for the
// variables they set that hold code (see [call.assignments]).
func declProgram(x *call) {
	var assigns []Word
	for _, w := range x.cw[1:] {
		if w.Kind == Assign || w.Kind == Dynamic {
			assigns = append(assigns, w)
		}
	}
	x.assignments(assigns)
}

// busybox and toybox run the applet their first argument names.
func busybox(x *call) {
	cw := x.cw
	if len(cw) < 2 {
		return
	}
	switch w := cw[1]; {
	case !w.Static():
		x.unplaced("the applet %s runs is computed at run time")
	case w.Text == "--install":
		for i := 2; i < len(cw); i++ {
			if !strings.HasPrefix(cw[i].Text, "-") {
				x.file(i, cw[i], RoleWrite)
			}
		}
	case strings.HasPrefix(w.Text, "-"):
	default:
		x.run(1, len(cw))
	}
}

// interpreter describes a program that runs code in another language,
// given inline (python3 -c, node -e) or in a script file.
type interpreter struct {
	lang string
	opts *options
	// code lists the options whose value is code: letters, and long names
	// after a space.
	code string
	// ends lists the options after which the rest are arguments of what
	// they run (python -m module).
	ends string
	// more: the code options may be given several times (perl -e), and
	// operands after them are files the code reads.
	more bool
	// files lists the letters whose value is a script file (php -f).
	files string
	// stdin: with neither code nor a script it reads code from standard
	// input.
	stdin bool
}

// interpreters run code in a language the analyser does not read.
var interpreters = map[string]*interpreter{
	"python": {lang: "Python", opts: opts("+bBdEhiIOPqsSuvVxc:m:W:X:", "check-hash-based-pycs: help version"), code: "c", ends: "m", stdin: true},
	"pypy":   {lang: "Python", opts: opts("+bBdEhiIOPqsSuvVxc:m:W:X:", "help version"), code: "c", ends: "m", stdin: true},
	"node": {lang: "JavaScript", opts: opts("+ie:p:r:C:hv", "eval: print: require: import: loader: experimental-loader: conditions: env-file: input-type: title: inspect:: inspect-brk:: test interactive check help version"),
		code: "e p eval print", stdin: true},
	"perl":      {lang: "Perl", opts: opts("+aclnpsStTuUvwWXe:E:I:M:m:x::i::l::0::C::d::D::F::", "help version"), code: "eE", more: true, stdin: true},
	"ruby":      {lang: "Ruby", opts: opts("+acdlnpsSvwWyhe:I:r:C:E:F::x::W::0::", "help version"), code: "e", more: true, stdin: true},
	"php":       {lang: "PHP", opts: opts("+aCHhilmnqsvwr:B:R:E:F:f:c:d:z:t:S:", "help version"), code: "rBRE", files: "fF", stdin: true},
	"lua":       {lang: "Lua", opts: opts("+ivEWe:l:", ""), code: "e", more: true, stdin: true},
	"luajit":    {lang: "Lua", opts: opts("+ivEe:l:b:j:O::", ""), code: "e", more: true, stdin: true},
	"Rscript":   {lang: "R", opts: opts("+e:", "help version verbose default-packages: vanilla"), code: "e", more: true},
	"osascript": {lang: "AppleScript", opts: opts("+e:l:is:", ""), code: "e", more: true, stdin: true},
	"julia":     {lang: "Julia", opts: opts("+ie:E:L:J:p:O::g::", "eval: print: load: project:: threads: help version"), code: "eE eval print"},
	"expect":    {lang: "Tcl", opts: opts("+bdDinNvc:f:", ""), code: "c", files: "f", more: true, stdin: true},
	"tclsh":     {lang: "Tcl", opts: opts("+", ""), stdin: true},
	"fish":      {lang: "fish", opts: opts("+ilnPpC:c:d:f:", "command: init-command: login interactive no-config private help version"), code: "cC command init-command", stdin: true},
}

// interpret reads an interpreter's arguments: inline code is opaque (its
// text pinned in the command's words), a script file is read, and with
// neither, code comes from standard input.
func (in *interpreter) interpret(x *call) {
	seen := false
	in.opts.scan(x.cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("what %s runs cannot be told before it runs")
			seen = true
			return false
		case a.opt != "" && in.isCode(a):
			seen = true
			if a.has {
				x.foreign(a.vi, a.val, in.lang)
			}
			return in.more
		case a.opt != "" && !a.long && a.has && strings.Contains(in.files, a.opt):
			x.file(a.vi, a.val, RoleRead)
			seen = true
			return false
		case a.opt != "" && (!a.long && strings.Contains(in.ends, a.opt) || a.opt == "version" || a.opt == "help" || a.opt == "V" && !a.long):
			seen = true
			return false
		case a.opt != "":
			return true
		case seen:
			// Files the code given with -e reads (perl -ne '...' f).
			x.file(a.i, x.cw[a.i], RoleRead)
			return true
		case x.cw[a.i].Static() && x.cw[a.i].Text == "-":
			return false
		}
		x.file(a.i, x.cw[a.i], RoleRead)
		seen = true
		return false
	})
	if !seen && in.stdin {
		x.opaque("%s runs " + in.lang + " code it reads from standard input")
	}
}

// isCode reports whether a is one of the options whose value is code.
func (in *interpreter) isCode(a arg) bool {
	short, long, _ := strings.Cut(in.code, " ")
	if a.long {
		for _, n := range strings.Fields(long) {
			if a.opt == n {
				return true
			}
		}
		return false
	}
	return strings.Contains(short, a.opt)
}

// pwshProgram reads PowerShell's single-dash, case-insensitive options:
// -Command and -EncodedCommand (and their abbreviations) give it code.
func pwshProgram(x *call) {
	for i := 1; i < len(x.cw); i++ {
		t := strings.ToLower(x.cw[i].Text)
		switch {
		case !x.cw[i].Static():
			x.unplaced("what %s runs cannot be told before it runs")
			return
		case t == "-c" || strings.HasPrefix("-command", t) && len(t) > 2 || strings.HasPrefix(t, "-e") || strings.HasPrefix(t, "-ec"):
			if i+1 < len(x.cw) {
				x.foreign(i+1, x.cw[i+1], "PowerShell")
			}
			return
		case t == "-f" || strings.HasPrefix("-file", t) && len(t) > 2:
			if i+1 < len(x.cw) {
				x.file(i+1, x.cw[i+1], RoleRead)
			}
			return
		case !strings.HasPrefix(t, "-"):
			x.file(i, x.cw[i], RoleRead)
			return
		}
	}
	x.opaque("%s runs PowerShell code it reads from standard input")
}

// denoProgram reads deno's subcommands: eval runs inline code, repl reads
// it from standard input.
func denoProgram(x *call) {
	sub := subcommand(x.cw, 1)
	switch {
	case sub < 0:
	case x.cw[sub].Text == "eval":
		if c := subcommand(x.cw, sub+1); c > 0 {
			x.foreign(c, x.cw[c], "JavaScript")
		}
	case x.cw[sub].Text == "repl":
		x.opaque("%s runs JavaScript code it reads from standard input")
	}
}

// bunProgram reads bun: -e and -p run inline code; bun x (bunx) runs a
// package's program.
func bunProgram(x *call) {
	cw := x.cw
	for i := 1; i < len(cw); i++ {
		switch t := cw[i].Text; {
		case !cw[i].Static():
			x.unplaced("what %s runs cannot be told before it runs")
			return
		case t == "-e" || t == "--eval" || t == "-p" || t == "--print":
			if i+1 < len(cw) {
				x.foreign(i+1, cw[i+1], "JavaScript")
			}
			return
		case strings.HasPrefix(t, "--eval=") || strings.HasPrefix(t, "--print="):
			_, v, _ := strings.Cut(t, "=")
			x.foreign(i, Word{Text: v}, "JavaScript")
			return
		case t == "x":
			packageRun(x, i+1)
			return
		case !strings.HasPrefix(t, "-"):
			return
		}
	}
}

// debugger reads gdb and lldb, which run the debugger commands they are
// given (shell rm -rf x is one) or read them from standard input.
func debugger(x *call) {
	for _, w := range x.cw[1:] {
		if w.Static() && (w.Text == "--version" || w.Text == "--help") {
			return
		}
	}
	x.opaque("%s runs debugger commands, which cannot be checked")
}

// subcommand returns the index of the first word of cw from i on that is
// not an option, or -1.
func subcommand(cw []Word, i int) int {
	for ; i < len(cw); i++ {
		if !strings.HasPrefix(cw[i].Text, "-") || cw[i].Kind != Literal {
			return i
		}
	}
	return -1
}

// codeVars are variables whose value is a script or a command line that
// programs run: git runs GIT_SSH_COMMAND and GIT_PAGER, less runs LESSOPEN,
// make and go's cgo run CC. Their literal values are read as nested
// scripts.
var codeVars = map[string]bool{
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_PAGER": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_PROXY_COMMAND": true, "PAGER": true,
	"EDITOR": true, "VISUAL": true, "MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true, "SYSTEMD_PAGER": true,
	"CC": true, "CXX": true, "LD": true, "AR": true, "CPP": true, "PROMPT_COMMAND": true,
}

// hiddenVars make programs run code the analyser cannot see: a file of
// commands bash reads first (BASH_ENV), git configuration that names
// programs, libraries loaded into every program, options that add code.
var hiddenVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "LD_PRELOAD": true, "LD_AUDIT": true, "LD_LIBRARY_PATH": true, "DYLD_INSERT_LIBRARIES": true,
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
	"GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true, "GOFLAGS": true, "NODE_OPTIONS": true, "PERL5OPT": true,
	"RUBYOPT": true, "PYTHONSTARTUP": true, "PYTHONINSPECT": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
	"PS1": true, "PS0": true,
}

// assignments reads the variables words set (NAME=value, as assignments
// before a command, given to env or to export) for code: the value of a
// variable programs run as a script is read as one, and a variable that
// makes them run code the analyser cannot see is opaque.
func (x *call) assignments(words []Word) {
	for _, w := range words {
		text := w.Text
		if w.Kind == Dynamic {
			text = w.Prefix
		}
		name, value, ok := strings.Cut(text, "=")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "+")
		switch {
		case codeVars[name] && w.Kind == Dynamic:
			x.opaque("the command that %s sets in " + name + " is computed at run time")
		case codeVars[name]:
			x.script(Word{Text: value})
		case hiddenVars[name] || strings.HasPrefix(name, "GIT_CONFIG_"):
			x.opaque("%s sets " + name + ", which makes programs run code that cannot be checked")
		}
	}
}
