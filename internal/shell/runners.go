package shell

import (
	"strings"
)

// findValued are find's primaries that take one value; -fprintf takes
// two.
var findValued = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true, "-regex": true,
	"-iregex": true, "-lname": true, "-ilname": true, "-type": true, "-xtype": true, "-perm": true, "-user": true,
	"-group": true, "-uid": true, "-gid": true, "-size": true, "-mtime": true, "-atime": true, "-ctime": true,
	"-mmin": true, "-amin": true, "-cmin": true, "-used": true, "-newer": true, "-anewer": true, "-cnewer": true,
	"-samefile": true, "-inum": true, "-links": true, "-maxdepth": true, "-mindepth": true, "-printf": true,
	"-fstype": true, "-context": true, "-regextype": true, "-fprint": true, "-fprint0": true, "-fls": true,
	"-files0-from": true,
}

// findProgram reads find: its options (-H, -L, -P, -D, -O, then "--"),
// its starting points, which it lists, and its
// expression, whose -exec, -execdir, -ok and -okdir run commands ({} is a
// file found: what they do to it, they do to the trees below the starting
// points), -delete removes what it finds (an rm, and a write of the
// trees), and -fprint and its kin write files.
func findProgram(x *call) {
	cw := x.cw
	i := findOptions(cw)
	var starts []int
	for ; i < len(cw); i++ {
		if findUnsure(cw[i]) {
			x.unplaced("the arguments of %s cannot be told before it runs")
			return
		}
		if t := cw[i].Text; strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")" || t == "," {
			break
		}
		starts = append(starts, i)
	}
	first := len(x.c.Files)
	for _, s := range starts {
		x.file(s, cw[s], RoleRead)
	}
	if len(starts) == 0 {
		x.file(0, Word{Text: "."}, RoleRead)
	}
	x.trees = make([]int, 0, len(x.c.Files)-first)
	for k := first; k < len(x.c.Files); k++ {
		x.trees = append(x.trees, k)
	}
	if del := findExpression(x, i); del > 0 {
		for _, k := range x.trees {
			x.c.Files[k].Role, x.c.Files[k].Tree = RoleWrite, true
			x.role(x.c.Files[k].Word-x.base, RoleWrite)
		}
	}
}

// findUnsure reports whether a word of find's may be any number of words,
// or a primary: computed without a literal start that settles it, or a
// pattern.
func findUnsure(w Word) bool {
	switch w.Kind {
	case Dynamic:
		return w.Splits || w.Prefix == "" || strings.HasPrefix(w.Prefix, "-")
	case Pattern:
		return true
	}
	return false
}

// findExpression reads find's expression from cw[i]: it returns the index
// of -delete, 0 when there is none, -1 when the expression cannot be read.
func findExpression(x *call, i int) int {
	cw := x.cw
	del := 0
	for ; i < len(cw); i++ {
		w := cw[i]
		if findUnsure(w) {
			x.unplaced("the expression of %s cannot be told before it runs")
			return -1
		}
		switch t := w.Text; {
		case t == "-exec" || t == "-execdir" || t == "-ok" || t == "-okdir":
			end := findExec(x, i+1, t == "-execdir" || t == "-okdir")
			if end < 0 {
				return -1
			}
			i = end
		case t == "-delete":
			del = i
			x.nested = append(x.nested, nested{run: true, plain: true, words: []Word{{Text: "rm"}, {Kind: Dynamic, Splits: true}},
				at: x.base + i, text: "find -delete"})
		case t == "-fprint" || t == "-fprint0" || t == "-fls" || t == "-fprintf":
			if i+1 < len(cw) {
				x.file(i+1, cw[i+1], RoleWrite)
			}
			i++
			if t == "-fprintf" {
				i++
			}
		case t == "-files0-from":
			if i+1 < len(cw) {
				x.file(i+1, cw[i+1], RoleRead)
			}
			i++
		case findValued[t] || strings.HasPrefix(t, "-newer"):
			i++
		}
	}
	return del
}

// findExec reads the command of -exec (and its kin) starting at cw[i], to
// its ; or to the + after a {}, records it as a command find runs, and
// returns the index of its end, or -1 when it cannot be told. inDir says
// the command runs in each file's directory.
func findExec(x *call, i int, inDir bool) int {
	cw := x.cw
	for j := i; j < len(cw); j++ {
		w := cw[j]
		if w.Kind == Dynamic && w.Splits {
			x.unplaced("the command %s runs for each file cannot be told before it runs")
			return -1
		}
		plus := w.Static() && w.Text == "+" && j > i && cw[j-1].Static() && cw[j-1].Text == "{}"
		if !(w.Static() && w.Text == ";") && !plus {
			continue
		}
		if j > i {
			edit := replaced("{}")
			if plus {
				edit = func(w Word) Word {
					if w = replaced("{}")(w); w.Kind == Dynamic {
						w.Splits = true
					}
					return w
				}
			}
			x.runEdited(i, i, j, edit)
			// -execdir runs the command in each file's directory.
			x.nested[len(x.nested)-1].moved = x.moved || inDir
		}
		return j
	}
	return len(cw)
}

var makeOpts = opts("bBdeiknpqrRsStvwLhj::l::O::C:f:I:o:W:E:", "always-make directory: debug:: environment-overrides eval: file: makefile: ignore-errors include-dir: jobs:: keep-going load-average:: max-load:: check-symlink-times just-print dry-run recon assume-old: old-file: output-sync:: print-data-base question no-builtin-rules no-builtin-variables silent quiet no-silent stop touch trace version print-directory no-print-directory what-if: new-file: assume-new: warn-undefined-variables shuffle:: jobserver-auth: jobserver-style: help")

// makeProgram reads make: its targets run the makefile's recipes, which is
// what a rule allowing make allows; a makefile named with -f or found with
// -C is read (outside the workspace, that is a read outside); --eval adds
// make code, and a variable set on the command line (CC=..., SHELL=...)
// changes what the recipes run.
func makeProgram(x *call) {
	makeOpts.scan(x.cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("the arguments of %s cannot be told before it runs")
			return false
		case a.opt == "" && isAssignWord(x.cw[a.i]):
			x.opaque("%s sets a variable of the makefile, which can change what its recipes run")
		case !a.has:
		case a.opt == "f" || a.opt == "file" || a.opt == "makefile" || a.opt == "I" || a.opt == "include-dir":
			x.file(a.vi, a.val, RoleRead)
		case a.opt == "C" || a.opt == "directory":
			x.file(a.vi, a.val, RoleRead)
			x.move()
		case a.opt == "E" || a.opt == "eval":
			x.foreign(a.vi, a.val, "make")
		}
		return true
	})
}

// npmProgram reads npm, pnpm and yarn for the subcommands that run a
// package's program (npm exec, npm x, pnpm dlx, yarn dlx...), start a
// package to make a project (npm init NAME), or change the configuration
// every later run uses (npm config set).
func npmProgram(x *call) {
	cw := x.cw
	sub := -1
	for i := 1; i < len(cw) && sub < 0; i++ {
		switch t := cw[i].Text; {
		case !cw[i].Static():
			x.unplaced("the subcommand of %s cannot be told before it runs")
			return
		case t == "--prefix" || t == "-C" || t == "--dir" || t == "--cwd" || t == "--filter" || t == "-w" || t == "--workspace":
			if t != "--filter" && t != "-w" && t != "--workspace" {
				x.move()
			}
			i++
		case strings.HasPrefix(t, "--prefix=") || strings.HasPrefix(t, "--dir=") || strings.HasPrefix(t, "--cwd="):
			x.move()
		case !strings.HasPrefix(t, "-"):
			sub = i
		}
	}
	if sub < 0 {
		return
	}
	switch cw[sub].Text {
	case "exec", "x", "exe", "dlx":
		packageRun(x, sub+1)
	case "init", "create", "innit":
		if p := subcommand(cw, sub+1); p > 0 && cw[p].Static() {
			x.runWords(p, append([]Word{{Text: "create-" + strings.TrimPrefix(cw[p].Text, "create-")}}, cw[p+1:]...))
		}
	case "config", "c":
		if p := subcommand(cw, sub+1); p > 0 && cw[p].Static() {
			switch cw[p].Text {
			case "set", "delete", "edit", "fix":
				x.file(p, Word{Text: "~/.npmrc", Tilde: true}, RoleWrite)
			}
		}
	}
}

// packageRun reads the arguments of a program that runs another, fetched
// as a package if need be (npx, npm exec, uvx, pipx run, uv run): options
// up to the program, then the program and its arguments, run as a command
// of their own; -c (--call) gives a script instead.
func packageRun(x *call, i int) {
	cw := x.cw
	for ; i < len(cw); i++ {
		switch t := cw[i].Text; {
		case cw[i].Kind == Dynamic || cw[i].Kind == Pattern:
			x.unplaced("the program %s runs cannot be told before it runs")
			return
		case t == "-c" || t == "--call":
			if i+1 < len(cw) {
				x.code(i+1, cw[i+1])
			}
			return
		case strings.HasPrefix(t, "--call="):
			x.code(i, Word{Text: strings.TrimPrefix(t, "--call=")})
			return
		case t == "--":
			if i+1 < len(cw) {
				x.run(i+1, len(cw))
			}
			return
		case t == "-p" || t == "--package" || t == "--from" || t == "--with" || t == "--python" || t == "-w" || t == "--workspace" ||
			t == "--registry" || t == "--spec" || t == "--index" || t == "--index-url" || t == "--env-file":
			i++
		case t == "--directory" || t == "--project":
			x.move()
			i++
		case strings.HasPrefix(t, "-"):
		default:
			x.run(i, len(cw))
			return
		}
	}
}

// runSub reads a program whose subcommand sub (uv run, poetry run, pipx
// run) runs a program named after it.
func runSub(sub string) handler {
	return func(x *call) {
		if i := subcommand(x.cw, 1); i > 0 && x.cw[i].Text == sub {
			packageRun(x, i+1)
		}
	}
}

// scriptProgram reads script: -c gives it a script; else it runs an
// interactive shell, which reads its commands from standard input. The
// file it logs to (typescript by default) is written.
func scriptProgram(x *call) {
	o := opts("aefqEIOBTtm:o:c:", "append command: echo: return flush force quiet log-in: log-out: log-io: log-timing: timing:: logging-format: output-limit: help version")
	code, file := false, false
	o.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("the arguments of %s cannot be told before it runs")
			code = true
			return false
		case a.opt == "":
			x.file(a.i, x.cw[a.i], RoleWrite)
			file = true
		case a.has && (a.opt == "c" || a.opt == "command"):
			x.code(a.vi, a.val)
			code = true
		case a.has && has("IOBT log-in log-out log-io log-timing timing", a):
			x.file(a.vi, a.val, RoleWrite)
		}
		return true
	})
	if !file {
		x.file(0, Word{Text: "typescript"}, RoleWrite)
	}
	if !code {
		x.opaque("%s runs a shell that reads its commands from standard input")
	}
}

// remote reads the programs that run commands on another host, or reach
// one with a configuration that can name local programs (ssh -o
// ProxyCommand): what they do cannot be checked here.
func remote(x *call) {
	for _, w := range x.cw[1:] {
		if w.Static() && (w.Text == "-V" || w.Text == "--version" || w.Text == "--help") {
			return
		}
	}
	x.opaque("%s reaches another host, where what runs cannot be checked")
}

// desktop reads xdg-open and open, which hand a file or address to the
// desktop's handler for it: a program the analyser cannot see.
func desktop(x *call) {
	x.opaque("%s hands a file to the desktop, which may run a program")
}

var curlOpts = opts("#0123456ABfGIijkLlMNOqRsSvVgZa"+"b:c:C:d:D:e:E:F:H:K:m:o:P:Q:r:T:u:U:w:x:X:y:Y:z:",
	"output: output-dir: remote-name remote-name-all upload-file: data: data-binary: data-raw: data-ascii: data-urlencode: json: form: form-string: config: cookie: cookie-jar: dump-header: trace: trace-ascii: stderr: libcurl: cacert: capath: cert: key: netrc-file: netrc netrc-optional write-out: etag-save: etag-compare: hsts: alt-svc: url: request: header: user: proxy: referer: user-agent: max-time: connect-timeout: retry: help version")

// curlProgram reads curl's options that name files it writes (-o, -O, the
// cookie jar, traces) or reads (an upload, @file data, a configuration,
// which can name any option and is opaque).
func curlProgram(x *call) {
	curlOpts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.filesFrom(a.i, RoleWrite)
			return false
		case a.opt == "O" || a.opt == "remote-name" || a.opt == "remote-name-all":
			x.file(a.i, Word{Text: "."}, RoleWrite)
		case a.opt == "n" || a.opt == "netrc" || a.opt == "netrc-optional":
			x.file(a.i, Word{Text: "~/.netrc", Tilde: true}, RoleRead)
		case !a.has:
		case a.opt == "K" || a.opt == "config":
			x.file(a.vi, a.val, RoleRead)
			x.opaque("%s reads its options from a file, which cannot be checked")
		case has("ocD output output-dir cookie-jar dump-header trace trace-ascii stderr libcurl etag-save hsts alt-svc", a):
			x.file(a.vi, a.val, RoleWrite)
		case has("TE upload-file cacert capath cert key netrc-file etag-compare", a):
			x.file(a.vi, a.val, RoleRead)
		case has("b cookie", a) && !strings.Contains(a.val.Text, "="):
			x.file(a.vi, a.val, RoleRead)
		case has("dFw data data-binary data-raw data-ascii data-urlencode json form write-out", a):
			if p, ok := curlDataFile(a.val); ok {
				x.file(a.vi, p, RoleRead)
			}
		}
		return true
	})
}

// curlDataFile returns the file a curl data or form value reads: @file,
// name@file, name=@file or name=<file; a computed value may read one.
func curlDataFile(v Word) (Word, bool) {
	if v.Kind == Dynamic {
		return v, true
	}
	if i := strings.IndexAny(v.Text, "@<"); i >= 0 && !strings.Contains(v.Text[:i], ";") {
		return valueWord(v, v.Text[i+1:]), true
	}
	return Word{}, false
}

var wgetOpts = opts("46bcdEFhkKmNpqrSvVxa:A:B:D:e:i:I:l:O:o:P:R:t:T:U:w:X:Y:",
	"output-document: output-file: append-output: directory-prefix: input-file: post-file: body-file: load-cookies: save-cookies: execute: config: user-agent: header: tries: timeout: level: accept: reject: domains: help version")

// wgetProgram reads wget's options that name files it writes (-O, the log,
// the directory it saves into, by default the current one) or reads; -e
// and --config give it wgetrc commands, which can name any file.
func wgetProgram(x *call) {
	saved := false
	wgetOpts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.filesFrom(a.i, RoleWrite)
			return false
		case !a.has:
		case a.opt == "e" || a.opt == "execute" || a.opt == "config":
			x.foreign(a.vi, a.val, "wgetrc")
		case a.opt == "O" || a.opt == "output-document" || a.opt == "P" || a.opt == "directory-prefix":
			x.file(a.vi, a.val, RoleWrite)
			saved = true
		case a.opt == "o" || a.opt == "output-file" || a.opt == "a" || a.opt == "append-output" || a.opt == "save-cookies":
			x.file(a.vi, a.val, RoleWrite)
		case a.opt == "i" || a.opt == "input-file" || a.opt == "post-file" || a.opt == "body-file" || a.opt == "load-cookies":
			x.file(a.vi, a.val, RoleRead)
		}
		return true
	})
	if !saved {
		x.file(0, Word{Text: "."}, RoleWrite)
	}
}

var parallelOpts = opts("0kqrtuvXa:d:E:I:j:n:N:P:S:", "null keep-order quote no-run-if-empty verbose ungroup xargs arg-file: delimiter: eof: jobs: max-args: sshlogin: sshloginfile: joblog: results: tmpdir: halt: timeout: retries: delay: tag bar eta progress line-buffer group pipe block: colsep: help version")

// parallelProgram reads GNU parallel: the words before its first ::: (or
// ::::) are a command it runs through a shell, with {} and its kin
// replaced by the arguments, and the arguments appended when there is no
// replacement string; -S runs it on other hosts.
func parallelProgram(x *call) {
	cmd := -1
	ok := true
	parallelOpts.scan(x.cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure:
			ok = false
		case a.opt == "":
			cmd = a.i
		case a.opt == "S" || a.opt == "sshlogin" || a.opt == "sshloginfile":
			x.opaque("%s runs its commands on other hosts, which cannot be checked")
		case a.has && (a.opt == "a" || a.opt == "arg-file"):
			x.file(a.vi, a.val, RoleRead)
		case a.has && (a.opt == "joblog" || a.opt == "results" || a.opt == "tmpdir"):
			x.file(a.vi, a.val, RoleWrite)
		}
		return ok && cmd < 0
	})
	if !ok {
		x.unplaced("the command %s runs cannot be told before it runs")
		return
	}
	if cmd < 0 {
		return
	}
	end := cmd
	for end < len(x.cw) && !strings.HasPrefix(x.cw[end].Text, ":::") {
		end++
	}
	code := joined(x.cw[cmd:end])
	if strings.Contains(code.Text, "{") {
		code = Word{Kind: Dynamic}
	}
	x.code(cmd, code)
	for i := cmd + 1; i < end; i++ {
		x.role(i, RoleCode)
	}
}

// findOptions returns where find's starting points begin in cw: after
// its options (-H, -L, -P, -D debugopts, -Olevel) and a "--" that ends
// them.
func findOptions(cw []Word) int {
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
	return i
}
