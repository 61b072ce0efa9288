package shell

import (
	"path"
	"strings"
)

// programs maps a program's base name to what reads its arguments: the
// wrappers, shells, interpreters and programs whose arguments name
// programs, code or files. A program missing here has arguments the
// analyser knows nothing about.
var programs map[string]handler

func init() {
	programs = map[string]handler{
		"eval": evalProgram, "trap": trapProgram, "source": sourceProgram, ".": sourceProgram,
		"alias": aliasProgram, "enable": enableProgram, "hash": hashProgram,
		"declare": declProgram, "typeset": declProgram, "export": declProgram, "local": declProgram,
		"readonly": declProgram, "nameref": declProgram,
		"busybox": busybox, "toybox": busybox,
		"su": su, "runuser": su, "flock": flock, "watch": watch, "xargs": xargs,
		"pwsh": pwshProgram, "powershell": pwshProgram, "deno": denoProgram, "bun": bunProgram,
		"gdb": debugger, "lldb": debugger,
		"find": findProgram, "make": makeProgram, "gmake": makeProgram,
		"npm": npmProgram, "pnpm": npmProgram, "yarn": npmProgram,
		"npx": func(x *call) { packageRun(x, 1) }, "bunx": func(x *call) { packageRun(x, 1) },
		"pnpx": func(x *call) { packageRun(x, 1) }, "uvx": func(x *call) { packageRun(x, 1) },
		"uv": uvProgram, "poetry": runSub("run"), "pipenv": runSub("run"), "pipx": runSub("run"),
		"hatch": runSub("run"), "pdm": runSub("run"), "rye": runSub("run"),
		"parallel": parallelProgram, "script": scriptProgram, "ssh": remote, "scp": remote, "sftp": remote, "mosh": remote, "telnet": remote,
		"xdg-open": desktop, "open": desktop, "gio": desktop,
		"curl": curlProgram, "wget": wgetProgram,
		"git": gitProgram, "go": goProgram,
		"tar": tarProgram, "gtar": tarProgram, "bsdtar": tarProgram, "zip": zipProgram, "unzip": unzipProgram, "rsync": rsyncProgram,
		"sed": sedProgram, "gsed": sedProgram, "awk": awkProgram, "gawk": awkProgram, "mawk": awkProgram, "nawk": awkProgram,
		"rg": rgProgram, "sort": sortProgram, "dd": dd, "jq": jqProgram, "patch": patchProgram, "mktemp": mktempProgram, "less": lessProgram,
		"vi": editor, "vim": editor, "nvim": editor, "ex": editor, "ed": editor, "emacs": editor, "nano": editor,
	}
	for name := range shells {
		programs[name] = shellProgram
	}
	for name, w := range wrappers {
		if _, ok := programs[name]; !ok {
			programs[name] = w.wrap
		}
	}
	for name, in := range interpreters {
		programs[name] = in.interpret
	}
	programs["nodejs"] = interpreters["node"].interpret
	programs["python3"] = interpreters["python"].interpret
	programs["python2"] = interpreters["python"].interpret
	for name, f := range filers {
		if _, ok := programs[name]; !ok {
			programs[name] = f.files
		}
	}
	for name := range compressors {
		programs[name] = compressor
	}
	for _, name := range outsiders {
		programs[name] = outsider
	}
	programs["systemd-run"] = func(x *call) {
		wrappers["systemd-run"].wrap(x)
		outsider(x)
	}
}

// outsiders are the programs that have a server outside the command's
// sandbox run code, or type keys, through a socket: a terminal
// multiplexer's server, systemd, cron and at, an editor's server, the
// desktop's input and its message bus.
var outsiders = []string{"tmux", "screen", "xdotool", "ydotool", "emacsclient", "systemctl", "dbus-send", "busctl",
	"gdbus", "qdbus", "at", "batch", "crontab", "kitty", "wezterm", "osascript"}

// outsider reads a program of outsiders: what it has run cannot be seen.
func outsider(x *call) {
	x.opaque("%s can have a program outside the sandbox run code, which cannot be checked")
}

// harmless are the programs and builtins that name no file, read none
// but their standard input, and run nothing: what they do is seen.
var harmless = map[string]bool{
	"echo": true, "printf": true, "true": true, "false": true, ":": true, "test": true, "[": true,
	"pwd": true, "cd": true, "pushd": true, "popd": true, "dirs": true, "sleep": true, "which": true, "type": true,
	"basename": true, "dirname": true, "seq": true, "yes": true, "tr": true, "expr": true, "exit": true,
	"return": true, "set": true, "shift": true, "unset": true, "read": true, "wait": true, "getopts": true,
	"break": true, "continue": true, "umask": true, "id": true, "whoami": true, "uname": true, "nproc": true,
	"let": true, "printenv": true,
}

// Known reports whether the analyser knows what the program w names does
// with its arguments: the programs it reads the arguments of (wrappers,
// shells, interpreters, runners, file programs), and the harmless ones
// (echo, printf, test, pwd, basename...). A program is known by its base
// name only where the shell finds it in the system's directories: a bare
// name, or a path in /bin, /usr/bin, /usr/local/bin, /sbin or /usr/sbin;
// ./cat is a file of the workspace, whatever its name.
func Known(w Word) bool {
	if !w.Static() {
		return false
	}
	if dir, _ := path.Split(w.Text); dir != "" {
		switch strings.TrimSuffix(path.Clean(dir), "/") {
		case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin":
		default:
			return false
		}
	}
	return harmless[path.Base(w.Text)] || handlerOf(w) != nil
}

// rgProgram reads ripgrep, a file program whose --pre and --hostname-bin
// name programs it runs (--pre for every file searched).
func rgProgram(x *call) {
	filers["rg"].files(x)
	filers["rg"].opts.scan(x.cw, 1, true, func(a arg) bool {
		if a.has && (a.opt == "pre" || a.opt == "hostname-bin") {
			x.runWords(a.vi, []Word{a.val, {Kind: Dynamic}})
		}
		return !a.unsure
	})
}

// sortProgram reads sort, a file program whose --compress-program names
// a program it runs (to compress its temporary files, and with -d to
// decompress them).
func sortProgram(x *call) {
	filers["sort"].files(x)
	filers["sort"].opts.scan(x.cw, 1, true, func(a arg) bool {
		if a.has && a.opt == "compress-program" {
			x.runWords(a.vi, []Word{a.val})
		}
		return !a.unsure
	})
}

// uvProgram reads uv: uv run and uv tool run run a program.
func uvProgram(x *call) {
	i := subcommand(x.cw, 1)
	switch {
	case i < 0:
	case x.cw[i].Text == "run":
		packageRun(x, i+1)
	case x.cw[i].Text == "tool":
		if j := subcommand(x.cw, i+1); j > 0 && x.cw[j].Text == "run" {
			packageRun(x, j+1)
		}
	}
}

// editor reads the editors, which write the files they open and run the
// commands they are given or read from their input (:!rm, ed's !): what
// they do cannot be checked.
func editor(x *call) {
	x.filesFrom(1, RoleWrite)
	x.opaque("%s runs an editor, whose commands cannot be checked")
}
