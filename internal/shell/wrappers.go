package shell

import (
	"path"
	"strings"
)

// wrapper describes a program that runs the command given in its
// arguments (sudo make install, timeout 10 go test, env A=1 make).
type wrapper struct {
	opts *options
	// operands is how many operands before the program are the wrapper's
	// own (timeout DURATION, chroot DIR, flock FILE).
	operands int
	// assigns: NAME=value words before the program are its own (env).
	assigns bool
	// shell: with no program it runs a shell that reads its commands from
	// standard input (chroot DIR, unshare, su).
	shell bool
	// option, when set, reads one of the wrapper's own options, and says
	// what it does to the program's reading.
	option func(x *call, a arg) effect
	// operand, when set, reads one of the wrapper's own operands.
	operand func(x *call, i int)
}

// effect is what a wrapper's option does to the command it runs.
type effect uint8

const (
	// keep: nothing; read on.
	keep effect = iota
	// noProgram: the wrapper runs no program given here (command -v,
	// sudo -l, flock -c, which the option itself recorded).
	noProgram
	// viaShell: the wrapper joins the program and its arguments into a
	// script for a shell (sudo -s, su -c, watch without -x).
	viaShell
)

// wrappers run the command given in their arguments. IsWrapper reports
// their names.
var wrappers = map[string]*wrapper{
	"sudo": {opts: opts("+AbEeHiKklnPSsVvg:h::p:R:r:t:T:U:u:C:D:", "askpass background close-from: chdir: preserve-env:: edit group: set-home help host: login remove-timestamp reset-timestamp list non-interactive preserve-groups prompt: chroot: role: stdin shell type: command-timeout: other-user: user: validate version"),
		option: sudoOption},
	"doas":     {opts: opts("+nSsC:u:a:", ""), option: doasOption},
	"env":      {opts: opts("+0ivu:C:S:", "ignore-environment null unset: chdir: split-string: debug block-signal:: default-signal:: ignore-signal:: list-signal-handling help version"), assigns: true, option: envOption},
	"nohup":    {opts: opts("+", "help version")},
	"nice":     {opts: opts("+n:", "adjustment: help version")},
	"ionice":   {opts: opts("+c:n:p:P:u:t", "class: classdata: pid: pgid: uid: ignore help version"), option: pidOption("p", "P", "u")},
	"timeout":  {opts: opts("+k:s:fpv", "kill-after: signal: foreground preserve-status verbose help version"), operands: 1},
	"time":     {opts: opts("+apqvVf:o:", "append format: output: portability quiet verbose help version"), option: outputOption("o", "output")},
	"stdbuf":   {opts: opts("+i:o:e:", "input: output: error: help version")},
	"setsid":   {opts: opts("+cfw", "ctty fork wait help version")},
	"chroot":   {opts: opts("+", "groups: userspec: skip-chdir help version"), operands: 1, shell: true, operand: readOperand},
	"unbuffer": {opts: opts("+p", "")},
	"flock":    {opts: opts("+sexunow:E:c:", "shared exclusive unlock nonblock timeout: conflict-exit-code: close no-fork command: verbose help version")},
	"xargs": {opts: opts("+0a:d:E:e::I:i::L:l::n:P:prs:tx", "null arg-file: delimiter: eof:: replace:: max-lines:: max-args: max-procs: interactive no-run-if-empty max-chars: verbose exit show-limits process-slot-var: open-tty help version"),
		option: xargsOption},
	"watch":            {opts: opts("+bCcd::egn:pq:rtwx", "beep color no-color differences:: errexit chgexit interval: precise equexit: no-rerun no-title no-wrap exec help version")},
	"command":          {opts: opts("+pvV", ""), option: commandOption},
	"builtin":          {opts: opts("+", "")},
	"exec":             {opts: opts("+cla:", "")},
	"chrt":             {opts: opts("+abdefiormpRT:P:D:v", "all-tasks batch deadline fifo idle other rr reset-on-fork max pid sched-runtime: sched-period: sched-deadline: verbose help version"), operands: 1, option: pidOption("p")},
	"taskset":          {opts: opts("+acp", "all-tasks cpu-list pid help version"), operands: 1, option: pidOption("p")},
	"strace":           {opts: opts("+cdfhiqrtTvVwxyzCDFkZa:b:e:I:o:O:p:P:s:S:u:E:X:", "output: attach: env: user: trace: signal:"), option: straceOption},
	"ltrace":           {opts: opts("+bcCfhiLrStVa:A:D:e:F:l:n:o:p:s:u:x:", "output: library:"), option: straceOption},
	"valgrind":         {opts: opts("+hqv", "log-file: xml-file: tool: help version")},
	"unshare":          {opts: opts("+imnpuUCrfcT:R:w:S:G:", "mount:: uts:: ipc:: net:: pid:: user:: cgroup:: time:: fork kill-child:: mount-proc:: map-root-user map-current-user propagation: setgroups: root: wd: setuid: setgid: boottime: monotonic:"), shell: true},
	"nsenter":          {opts: opts("+aimnpuUCTFrwZS:G:t:", "all target: mount:: uts:: ipc:: net:: pid:: cgroup:: user:: time:: setuid: setgid: preserve-credentials root:: wd:: no-fork follow-context"), shell: true},
	"setpriv":          {opts: opts("+d", "dump no-new-privs ruid: euid: rgid: egid: reuid: regid: clear-groups keep-groups init-groups groups: inh-caps: ambient-caps: bounding-set: securebits: pdeathsig: selinux-label: apparmor-profile: reset-env")},
	"runuser":          {opts: opts("flmpPc:g:G:s:u:w:", "command: session-command: group: supp-group: login shell: whitelist-environment: pty")},
	"su":               {opts: opts("flmpPc:g:G:s:w:", "command: session-command: group: supp-group: login shell: whitelist-environment: pty")},
	"pkexec":           {opts: opts("+", "user: disable-internal-agent help version"), shell: true},
	"fakeroot":         {opts: opts("+ul:s:i:b:", "lib: faked: unknown-is-real")},
	"faketime":         {opts: opts("+fm", "exclude-monotonic"), operands: 1},
	"firejail":         {opts: opts("+", "")},
	"xvfb-run":         {opts: opts("+ae:f:n:l:p:s:w:", "auto-servernum error-file: auth-file: server-num: listen-tcp xauth-protocol: server-args: wait:")},
	"torsocks":         {opts: opts("+diqa:P:u:p:", "")},
	"proxychains":      {opts: opts("+qf:", "")},
	"proxychains4":     {opts: opts("+qf:", "")},
	"dbus-run-session": {opts: opts("+", "config-file: dbus-daemon: help version")},
	"systemd-run":      {opts: opts("+GhqrtPSu:p:E:M:H:", "unit: property: description: slice: scope user system service-type: uid: gid: nice: working-directory: same-dir setenv: pty pipe wait collect quiet on-active: on-boot: on-calendar: timer-property: host: machine: shell")},
	"caffeinate":       {opts: opts("+dimsuw:t:", "")},
	"catchsegv":        {opts: opts("+", "")},
	"prlimit":          {opts: opts("+p:o:", "pid: output: noheadings raw verbose")},
	"numactl":          {opts: opts("+aslHC:N:m:p:i:P:", "all interleave: preferred: membind: cpunodebind: physcpubind: localalloc show hardware")},
	"entr":             {opts: opts("+acdnprsz", "")},
}

// IsWrapper reports whether w names, by its base name, a program that runs
// the command given in its arguments: sudo, doas, env, nohup, nice, timeout,
// xargs, watch, flock, command, builtin, exec and the like.
func IsWrapper(w Word) bool {
	_, ok := wrappers[path.Base(w.Text)]
	return w.Kind == Literal && ok
}

// wrap reads the command of wrapper w: its own options and operands, and
// the program it runs, recorded as a command of its own.
func (w *wrapper) wrap(x *call) {
	from, prog, via, known := w.place(x.cw, x)
	w.finish(x, from, prog, via, known)
	if known && !via && prog > 0 {
		// The programs of the wrappers after this one, so that Roles say
		// which program the command finally runs.
		if end := chainEnd(x.cw[prog:]); end > 0 {
			x.role(prog+end, RoleProgram)
		}
	}
}

// finish records what place found: the program run as a command of its
// own, or through a shell, or what cannot be told.
func (w *wrapper) finish(x *call, from, prog int, via, known bool) {
	switch {
	case !known:
		x.unplaced("the program %s runs cannot be told before it runs")
	case via && prog >= 0:
		x.code(prog, joined(x.cw[prog:]))
		for i := prog + 1; i < len(x.cw); i++ {
			x.role(i, RoleCode)
		}
	case prog >= 0:
		x.runFrom(from, prog, len(x.cw))
	case via || w.shell:
		x.opaque("%s runs a shell that reads its commands from standard input")
	}
}

// place finds the program a wrapper runs in its words cw: the index of its
// name, -1 for none, and where the assignments before it start (env A=1
// make); via reports that a shell runs it; known is false when it cannot
// be told. With x nil, options and operands are only skipped.
func (w *wrapper) place(cw []Word, x *call) (from, prog int, via, known bool) {
	from, prog, known = -1, -1, true
	operands, stop := w.operands, false
	w.opts.scan(cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			known = false
		case a.opt != "":
			if x != nil && w.option != nil {
				switch w.option(x, a) {
				case noProgram:
					stop = true
				case viaShell:
					via = true
				}
			}
			return !stop
		case w.assigns && isAssignWord(cw[a.i]):
			if from < 0 {
				from = a.i
			}
			return true
		case operands > 0:
			operands--
			if x != nil && w.operand != nil {
				w.operand(x, a.i)
			}
			return true
		default:
			prog = a.i
		}
		return false
	})
	if stop || !known {
		return -1, -1, false, known
	}
	if from < 0 || prog < 0 {
		from = prog
	}
	return from, prog, via, known
}

// chainEnd returns the index in cw (cw[0] naming a program) of the program
// the command finally runs through its wrappers, or -1 when a wrapper's
// cannot be placed.
func chainEnd(cw []Word) int {
	i := 0
	for n := 0; n < maxRuns; n++ {
		w, ok := wrappers[path.Base(cw[i].Text)]
		if !ok || cw[i].Kind != Literal {
			return i
		}
		_, prog, via, known := w.place(cw[i:], nil)
		if !known || via || prog < 0 {
			return -1
		}
		i += prog
	}
	return -1
}

// isAssignWord reports whether w reads as NAME=value, as env takes it.
func isAssignWord(w Word) bool {
	text := w.Text
	if w.Kind == Dynamic {
		text = w.Prefix
	}
	name, _, ok := strings.Cut(text, "=")
	return ok && ValidName(name)
}

// ValidName reports whether s is a shell variable name: a letter or _,
// then letters, digits and _.
func ValidName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// joined returns words as the one script a shell is given when a program
// joins its arguments with blanks (sudo -s, watch, ssh): literal when
// every word is.
func joined(words []Word) Word {
	parts := make([]string, 0, len(words))
	for _, w := range words {
		if !w.Static() {
			return Word{Kind: Dynamic}
		}
		parts = append(parts, w.Text)
	}
	return Word{Text: strings.Join(parts, " ")}
}

// readOperand records a wrapper's own operand as a file it reads
// (chroot's directory).
func readOperand(x *call, i int) { x.file(i, x.cw[i], RoleRead) }

// outputOption records the option short or long, whose value is a file
// the program writes (time -o).
func outputOption(short, long string) func(x *call, a arg) effect {
	return func(x *call, a arg) effect {
		if a.has && (a.opt == short && !a.long || a.opt == long && a.long) {
			x.file(a.vi, a.val, RoleWrite)
		}
		return keep
	}
}

// pidOption says that the options names (-p PID) make the program act on
// a running process rather than run one.
func pidOption(names ...string) func(x *call, a arg) effect {
	return func(x *call, a arg) effect {
		for _, n := range names {
			if a.opt == n && !a.long || a.long && a.opt == "pid" {
				return noProgram
			}
		}
		return keep
	}
}

func sudoOption(x *call, a arg) effect {
	switch {
	case a.opt == "s" || a.opt == "i" || a.long && (a.opt == "shell" || a.opt == "login"):
		return viaShell
	case a.opt == "e" && !a.long || a.long && a.opt == "edit":
		x.filesFrom(a.i+1, RoleWrite)
		return noProgram
	case a.opt == "l" || a.opt == "v" || a.opt == "k" || a.opt == "K" || a.opt == "V" || a.opt == "h" && !a.has ||
		a.long && (a.opt == "list" || a.opt == "validate" || a.opt == "version" || a.opt == "help" || a.opt == "remove-timestamp"):
		return noProgram
	case a.opt == "C" || a.opt == "D" || a.long && (a.opt == "chdir" || a.opt == "chroot" || a.opt == "close-from"):
		if a.opt == "D" || a.opt == "chdir" || a.opt == "chroot" || a.opt == "R" {
			x.move()
		}
	}
	return keep
}

func doasOption(x *call, a arg) effect {
	if a.opt == "s" {
		return viaShell
	}
	return keep
}

// su and runuser run no program of their own: the arguments after the user
// go to the user's shell, where -c gives it a script; without one the
// shell reads its commands from standard input (or runs a script file).
func su(x *call) {
	w := wrappers[path.Base(x.cw[0].Text)]
	operands, code := 0, false
	w.opts.scan(x.cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("what %s runs cannot be told before it runs")
			code = true
			return false
		case a.has && (a.opt == "c" && !a.long || a.long && (a.opt == "command" || a.opt == "session-command")):
			x.code(a.vi, a.val)
			code = true
		case a.has && (a.opt == "s" && !a.long || a.long && a.opt == "shell"):
			x.file(a.vi, a.val, RoleRead)
		case a.opt == "":
			if operands++; operands > 1 && x.cw[a.i].Text != "-" {
				x.file(a.i, x.cw[a.i], RoleRead)
				code = true
			}
		}
		return true
	})
	if !code {
		x.opaque("%s runs a shell that reads its commands from standard input")
	}
}

// flock runs a program, or with -c a script, once it holds the lock on its
// file (which it creates: a write), or only locks a descriptor.
func flock(x *call) {
	w := wrappers["flock"]
	lock := -1
	code := false
	w.opts.scan(x.cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("the program %s runs cannot be told before it runs")
			code = true
			return false
		case a.has && (a.opt == "c" && !a.long || a.long && a.opt == "command"):
			x.code(a.vi, a.val)
			code = true
		case a.opt == "":
			lock = a.i
			return false
		}
		return true
	})
	if code || lock < 0 || isNumber(x.cw[lock].Text) {
		return
	}
	x.file(lock, x.cw[lock], RoleWrite)
	switch next := lock + 1; {
	case next >= len(x.cw):
	case x.cw[next].Text == "-c" || x.cw[next].Text == "--command":
		if next+1 < len(x.cw) {
			x.code(next+1, x.cw[next+1])
		}
	default:
		x.run(next, len(x.cw))
	}
}

// watch runs its arguments again and again, joined into a script for sh -c,
// or as a program with -x.
func watch(x *call) {
	w := wrappers["watch"]
	from, prog, _, known := w.place(x.cw, x)
	w.finish(x, from, prog, !watchExec(x.cw), known)
}

// xargs runs its program with the words it reads from its input appended,
// or put in place of the replacement string of -I (-i: {}).
func xargs(x *call) {
	w := wrappers["xargs"]
	replace := ""
	w.opts.scan(x.cw, 1, true, func(a arg) bool {
		switch {
		case a.long && a.opt == "replace" || a.opt == "i" && !a.long:
			replace = "{}"
			if a.has && a.val.Text != "" {
				replace = a.val.Text
			}
		case a.opt == "I" && !a.long && a.has:
			replace = a.val.Text
		}
		return a.opt != "" && !a.unsure
	})
	from, prog, _, known := w.place(x.cw, x)
	if !known || prog < 0 {
		w.finish(x, from, prog, false, known)
		return
	}
	if replace == "" {
		x.runFrom(from, prog, len(x.cw), Word{Kind: Dynamic, Splits: true})
		return
	}
	x.runEdited(from, prog, len(x.cw), replaced(replace))
}

// replaced returns an edit that makes a word holding s, which a program
// replaces at run time (find's {}, xargs -I's string), a Dynamic word.
func replaced(s string) func(Word) Word {
	return func(w Word) Word {
		if s != "" && strings.Contains(w.Text, s) {
			return Word{Kind: Dynamic}
		}
		return w
	}
}

func commandOption(x *call, a arg) effect {
	if a.opt == "v" || a.opt == "V" {
		return noProgram
	}
	return keep
}

func straceOption(x *call, a arg) effect {
	switch {
	case a.has && (a.opt == "o" || a.opt == "output"):
		x.file(a.vi, a.val, RoleWrite)
	case a.opt == "p" || a.opt == "attach":
		return noProgram
	}
	return keep
}

// watchExec reports whether watch is given -x (--exec): then it runs its
// arguments as a program, else as a script for sh -c.
func watchExec(cw []Word) bool {
	exec := false
	wrappers["watch"].opts.scan(cw, 1, false, func(a arg) bool {
		if a.opt == "x" && !a.long || a.long && a.opt == "exec" {
			exec = true
		}
		return a.opt != ""
	})
	return exec
}

func envOption(x *call, a arg) effect {
	switch {
	case a.has && (a.opt == "S" && !a.long || a.long && a.opt == "split-string"):
		envSplit(x, a)
		return noProgram
	case a.opt == "C" || a.long && a.opt == "chdir":
		if a.has {
			x.file(a.vi, a.val, RoleRead)
		}
		x.move()
	}
	return keep
}

// envSplit reads env -S STRING: the string is split into words that take
// its place among env's arguments, so env runs again over them and the
// words after it.
func envSplit(x *call, a arg) {
	words, ok := splitWords(a.val)
	if !ok {
		x.unplaced("the string %s gives env -S cannot be split before it runs")
		return
	}
	rest := make([]Word, 0, 1+len(words)+len(x.cw)-a.vi)
	rest = append(append(append(rest, x.cw[0]), words...), x.cw[a.vi+1:]...)
	x.runWords(a.vi, rest)
}

// splitWords splits a literal string into words as a shell would (quotes
// and backslashes, no expansion), for programs that split a string
// themselves (env -S, go test -exec, tar -I). ok is false when the string
// holds anything a shell would expand or treat as an operator, which the
// program would not: it cannot be told what the program makes of it.
func splitWords(w Word) (words []Word, ok bool) {
	if !w.Static() || strings.ContainsAny(w.Text, "$`;&|<>(){}*?[]~!#\n") {
		return nil, false
	}
	c, err := ParseCommand(w.Text)
	if err != nil || c.NAssign > 0 {
		return nil, false
	}
	for _, word := range c.Words {
		if word.Kind != Literal {
			return nil, false
		}
	}
	return c.Words, true
}

func xargsOption(x *call, a arg) effect {
	switch {
	case a.has && (a.opt == "a" && !a.long || a.long && a.opt == "arg-file"):
		x.file(a.vi, a.val, RoleRead)
	}
	return keep
}
