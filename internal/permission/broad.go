package permission

import (
	"path"
	"strings"
)

// breadth is how far a program's arguments can take it.
type breadth uint8

const (
	// runsAnyCode: the program runs whatever code or command its arguments
	// (or its input) give it: shells, interpreters, the wrappers that run
	// a program, find, xargs, awk, sed, the package runners.
	runsAnyCode breadth = iota + 1
	// anyFile: the program changes any file its arguments name, or reaches
	// any host.
	anyFile
)

// broadPrograms are the programs whose arguments can take them anywhere:
// the one list both for what a project's configuration may not allow by
// any prefix ([Rule.AllowsArbitraryCode]) and for what an "always" answer
// never saves a prefix for.
var broadPrograms = map[string]breadth{
	"bash": runsAnyCode, "sh": runsAnyCode, "zsh": runsAnyCode, "dash": runsAnyCode, "fish": runsAnyCode,
	"ksh": runsAnyCode, "mksh": runsAnyCode, "ash": runsAnyCode, "csh": runsAnyCode, "tcsh": runsAnyCode,
	"rbash": runsAnyCode, "python": runsAnyCode, "pypy": runsAnyCode, "node": runsAnyCode, "nodejs": runsAnyCode,
	"deno": runsAnyCode, "bun": runsAnyCode, "bunx": runsAnyCode, "perl": runsAnyCode, "ruby": runsAnyCode,
	"php": runsAnyCode, "lua": runsAnyCode, "luajit": runsAnyCode, "Rscript": runsAnyCode, "julia": runsAnyCode,
	"pwsh": runsAnyCode, "powershell": runsAnyCode, "osascript": runsAnyCode, "tclsh": runsAnyCode,
	"expect": runsAnyCode, "eval": runsAnyCode, "exec": runsAnyCode, "command": runsAnyCode,
	"builtin": runsAnyCode, "source": runsAnyCode, ".": runsAnyCode, "trap": runsAnyCode, "alias": runsAnyCode,
	"env": runsAnyCode, "xargs": runsAnyCode, "find": runsAnyCode, "parallel": runsAnyCode, "sudo": runsAnyCode,
	"doas": runsAnyCode, "su": runsAnyCode, "runuser": runsAnyCode, "pkexec": runsAnyCode, "nohup": runsAnyCode,
	"timeout": runsAnyCode, "nice": runsAnyCode, "ionice": runsAnyCode, "time": runsAnyCode, "watch": runsAnyCode,
	"setsid": runsAnyCode, "stdbuf": runsAnyCode, "chroot": runsAnyCode, "unshare": runsAnyCode,
	"nsenter": runsAnyCode, "flock": runsAnyCode, "script": runsAnyCode, "strace": runsAnyCode,
	"ltrace": runsAnyCode, "chrt": runsAnyCode, "taskset": runsAnyCode, "busybox": runsAnyCode,
	"toybox": runsAnyCode, "npx": runsAnyCode, "pnpx": runsAnyCode, "uvx": runsAnyCode, "pipx": runsAnyCode,
	"awk": runsAnyCode, "gawk": runsAnyCode, "mawk": runsAnyCode, "nawk": runsAnyCode, "sed": runsAnyCode,
	"gsed": runsAnyCode, "gdb": runsAnyCode, "lldb": runsAnyCode, "vi": runsAnyCode, "vim": runsAnyCode,
	"nvim": runsAnyCode, "ex": runsAnyCode, "ed": runsAnyCode, "emacs": runsAnyCode, "ssh": runsAnyCode,
	"rm": anyFile, "dd": anyFile, "chmod": anyFile, "chown": anyFile, "mv": anyFile, "cp": anyFile,
	"ln": anyFile, "curl": anyFile, "wget": anyFile, "scp": anyFile, "rsync": anyFile,
}

// breadthOf returns how far the program named (by its base name; a
// version after it, python3.12 or perl5, left out) can go, 0 for a
// program not in [broadPrograms].
func breadthOf(name string) breadth {
	name = path.Base(name)
	if b, ok := broadPrograms[name]; ok {
		return b
	}
	return broadPrograms[strings.TrimRight(name, "0123456789.-")]
}

// broad reports whether the program named runs what its arguments say:
// code, other commands, any file operation.
func broad(name string) bool { return breadthOf(name) != 0 }

// runsCode reports whether the program named runs any code its arguments
// give it.
func runsCode(name string) bool { return breadthOf(name) == runsAnyCode }

// AllowsArbitraryCode reports whether the rule lets commands run any code
// without asking: a bash rule without a pattern, or a bash prefix rule
// whose program (by base name, assignments before it left out) runs
// whatever its arguments say: a shell, an interpreter, env, xargs, find,
// sudo, eval, exec, source, busybox, nohup, timeout, watch, npx, awk,
// sed... An exact rule allows one command as written, and is not one.
// A project's configuration may not hold such a rule: a cloned repository
// would run anything it likes.
func (r Rule) AllowsArbitraryCode() bool {
	if r.tool != bashTool {
		return false
	}
	if r.any() {
		return true
	}
	return r.prefix && r.nAssign < len(r.words) && runsCode(r.words[r.nAssign].Text)
}
