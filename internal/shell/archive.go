package shell

import (
	"strings"
)

var tarOpts = opts("AcdrtuxzjJZaBGhiklmMnOpPRsSUvVwWf:C:T:X:b:H:I:K:L:N:V:F:g:",
	"catenate concatenate create diff compare delete append list update extract get file: directory: files-from: exclude-from: "+
		"blocking-factor: format: use-compress-program: starting-file: tape-length: newer: after-date: newer-mtime: label: info-script: "+
		"new-volume-script: listed-incremental: to-command: checkpoint:: checkpoint-action: rsh-command: rmt-command: index-file: "+
		"force-local absolute-names transform: xform: exclude: owner: group: mode: mtime: sort: gzip gunzip bzip2 xz zstd lzip lzma lzop "+
		"compress uncompress auto-compress to-stdout keep-old-files keep-newer-files overwrite verbose totals wildcards strip-components: help version")

// tarRun is what tar's options make it do: its mode and the archives,
// directories and programs it is given.
type tarRun struct {
	mode     byte // c, r, u, A or delete (D): writes the archive; x: extracts; t, d: reads
	archive  []arg
	dir      []arg
	absolute bool
	local    bool
	operands []int
}

// tarProgram reads tar: the archive is written when tar creates or updates
// it, read otherwise; what it extracts is written under the directory it
// extracts into (-C, or where it runs), and the operands of a creation are
// read. --to-command, --use-compress-program (-I), --checkpoint-action=exec
// and the volume scripts run programs; an archive on another host (a
// colon in its name) goes through a remote shell.
func tarProgram(x *call) {
	t := &tarRun{}
	from := 1
	if len(x.cw) > 1 && x.cw[1].Static() && x.cw[1].Text != "" && !strings.HasPrefix(x.cw[1].Text, "-") {
		from = t.oldStyle(x)
	}
	ok := true
	tarOpts.scan(x.cw, from, true, func(a arg) bool {
		if a.unsure {
			x.unplaced("the arguments of %s cannot be told before it runs")
			ok = false
			return false
		}
		t.option(x, a)
		return true
	})
	if ok {
		t.finish(x)
	}
}

// oldStyle reads tar's first argument as letters without a dash (tar
// czf out.tgz dir), the values of those that take one following in order,
// and returns where the rest starts.
func (t *tarRun) oldStyle(x *call) int {
	tarOpts.init()
	next := 2
	for j := 0; j < len(x.cw[1].Text); j++ {
		c := x.cw[1].Text[j]
		a := arg{i: 1, opt: string(c)}
		if c < 128 && tarOpts.letters[c] == optValue && next < len(x.cw) {
			a.val, a.vi, a.has = x.cw[next], next, true
			next++
		}
		t.option(x, a)
	}
	return next
}

// option reads one of tar's options, or an operand.
func (t *tarRun) option(x *call, a arg) {
	switch {
	case a.opt == "":
		t.operands = append(t.operands, a.i)
	case !a.long && strings.Contains("crutxdA", a.opt):
		t.mode = a.opt[0]
	case a.long && (a.opt == "create" || a.opt == "append" || a.opt == "update" || a.opt == "catenate" || a.opt == "concatenate"):
		t.mode = 'c'
	case a.long && a.opt == "delete":
		t.mode = 'D'
	case a.long && (a.opt == "extract" || a.opt == "get"):
		t.mode = 'x'
	case a.long && (a.opt == "list" || a.opt == "diff" || a.opt == "compare"):
		t.mode = 't'
	case a.opt == "P" || a.opt == "absolute-names":
		t.absolute = true
	case a.opt == "force-local":
		t.local = true
	case !a.has:
	case a.opt == "f" || a.opt == "file":
		t.archive = append(t.archive, a)
	case a.opt == "C" || a.opt == "directory":
		t.dir = append(t.dir, a)
	case a.opt == "T" || a.opt == "files-from" || a.opt == "X" || a.opt == "exclude-from":
		x.file(a.vi, a.val, RoleRead)
	case a.opt == "g" || a.opt == "listed-incremental" || a.opt == "index-file":
		x.file(a.vi, a.val, RoleWrite)
	case a.opt == "to-command":
		x.code(a.vi, a.val)
	case a.opt == "checkpoint-action":
		if v, ok := strings.CutPrefix(a.val.Text, "exec="); ok || a.val.Kind == Dynamic {
			x.code(a.vi, Word{Text: v, Kind: a.val.Kind})
		}
	case a.opt == "I" || a.opt == "use-compress-program" || a.opt == "rsh-command" || a.opt == "rmt-command" ||
		a.opt == "F" || a.opt == "info-script" || a.opt == "new-volume-script":
		programValue(x, a)
	}
}

// finish records the archives, directories and operands tar reads or
// writes, once its mode is known.
func (t *tarRun) finish(x *call) {
	writes := t.mode == 'c' || t.mode == 'r' || t.mode == 'u' || t.mode == 'A' || t.mode == 'D'
	for _, a := range t.archive {
		if !t.local && a.val.Static() && strings.Contains(strings.SplitN(a.val.Text, "/", 2)[0], ":") {
			x.opaque("%s reaches an archive on another host, through a remote shell")
		}
		if writes {
			x.file(a.vi, a.val, RoleWrite)
		} else {
			x.file(a.vi, a.val, RoleRead)
		}
	}
	// A second -C starts from the first: only the first is where tar runs.
	role := RoleRead
	if t.mode == 'x' {
		role = RoleWrite
	}
	for k, d := range t.dir {
		if k > 0 {
			x.move()
		}
		if t.mode == 'x' || writes {
			x.tree(d.vi, d.val, role)
		}
	}
	if len(t.dir) > 0 {
		x.move()
	}
	switch {
	case t.mode == 'x' && t.absolute:
		x.file(0, Word{Kind: Dynamic}, RoleWrite)
	case t.mode == 'x' && len(t.dir) == 0:
		x.tree(0, Word{Text: "."}, RoleWrite)
	case writes:
		for _, i := range t.operands {
			x.tree(i, x.cw[i], RoleRead)
		}
	}
}

// programValue records the value of a's option as a program with its
// arguments, split as the program splits it (tar -I 'zstd -19'), that the
// command runs.
func programValue(x *call, a arg) {
	words, ok := splitWords(a.val)
	if !ok || len(words) == 0 {
		x.unplaced("the program %s runs cannot be told before it runs")
		return
	}
	x.runWords(a.vi, words)
}

var zipOpts = opts("0123456789@ADdeFfgjJklLmoqrSTuvwXyzb:i:n:O:P:t:x:Z:",
	"output-file: temp-path: unzip-command: password: suffixes: split-size: la log-append: lf: logfile-path: recurse-paths move delete help version")

// zipProgram reads zip: the archive (the first operand) is written, the
// files after it read (moved, with -m: written); -TT runs a command to
// test the archive; -@ takes the names of the files to read from standard
// input.
func zipProgram(x *call) {
	var operands []int
	move := false
	zipOpts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.filesFrom(a.i, RoleWrite)
			return false
		case a.opt == "" && a.i > 1 && x.cw[a.i-1].Static() && x.cw[a.i-1].Text == "-TT":
			// The command of -TT, read below.
		case a.opt == "":
			operands = append(operands, a.i)
		case a.opt == "m" || a.opt == "move":
			move = true
		case a.opt == "@":
			x.file(a.i, Word{Kind: Dynamic}, RoleRead)
		case a.opt == "unzip-command" && a.has:
			x.code(a.vi, a.val)
		case a.has && (a.opt == "O" || a.opt == "output-file" || a.opt == "b" || a.opt == "temp-path" || a.opt == "lf" || a.opt == "logfile-path"):
			x.file(a.vi, a.val, RoleWrite)
		}
		return true
	})
	// -TT COMMAND: two letters, so the scanner sees -T and -T.
	for i := 1; i+1 < len(x.cw); i++ {
		if x.cw[i].Text == "-TT" {
			x.code(i+1, x.cw[i+1])
		}
	}
	for k, i := range operands {
		if k == 0 || move {
			x.file(i, x.cw[i], RoleWrite)
		} else {
			x.tree(i, x.cw[i], RoleRead)
		}
	}
}

// unzipProgram reads unzip: the archive is read, and what it extracts is
// written under -d DIR (or where it runs), unless it only lists, tests or
// writes to standard output.
func unzipProgram(x *call) {
	cw := x.cw
	dir, archive, extracts := -1, -1, true
	for i := 1; i < len(cw); i++ {
		switch t := cw[i].Text; {
		case !cw[i].Static():
			x.file(i, cw[i], RoleWrite)
		case t == "-d":
			if i+1 < len(cw) {
				dir = i + 1
				i++
			}
		case t == "-x":
			i = len(cw)
		case strings.HasPrefix(t, "-"):
			if strings.ContainsAny(t[1:], "lptvzZc") {
				extracts = false
			}
		case archive < 0:
			archive = i
		}
	}
	if archive >= 0 {
		x.file(archive, cw[archive], RoleRead)
	}
	switch {
	case !extracts:
	case dir >= 0:
		x.tree(dir, cw[dir], RoleWrite)
	default:
		x.tree(0, Word{Text: "."}, RoleWrite)
	}
}

var rsyncOpts = opts("vqcaArRbudlLkKHpEXoDgtOJSnWxBCTyzhPFeims0i46M:f:T:e:",
	"verbose quiet checksum archive recursive relative backup backup-dir: suffix: update links copy-links delete delete-before delete-after "+
		"exclude: exclude-from: include: include-from: files-from: filter: rsh: rsync-path: temp-dir: partial-dir: compare-dest: copy-dest: "+
		"link-dest: log-file: log-file-format: write-batch: only-write-batch: read-batch: password-file: port: sockopts: chmod: "+
		"remote-option: dry-run list-only help version")

// rsyncProgram reads rsync: the last operand is written, the others read
// (whole trees with -r or -a); an operand on another host (host:path,
// rsync://) goes through a remote shell or a daemon, and -e names the
// shell.
func rsyncProgram(x *call) {
	var operands []int
	tree := false
	rsyncOpts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.filesFrom(a.i, RoleWrite)
			return false
		case a.opt == "":
			operands = append(operands, a.i)
		case a.opt == "r" || a.opt == "a" || a.opt == "recursive" || a.opt == "archive":
			tree = true
		case !a.has:
		case a.opt == "e" || a.opt == "rsh" || a.opt == "rsync-path" || a.opt == "M" || a.opt == "remote-option":
			x.opaque("%s names the program it reaches another host with")
		case has("T backup-dir temp-dir partial-dir log-file write-batch only-write-batch", a):
			x.file(a.vi, a.val, RoleWrite)
		case has("f exclude-from include-from files-from password-file read-batch compare-dest copy-dest link-dest", a):
			x.file(a.vi, a.val, RoleRead)
		}
		return true
	})
	for k, i := range operands {
		w := x.cw[i]
		if w.Static() && (strings.HasPrefix(w.Text, "rsync://") || strings.Contains(strings.SplitN(w.Text, "/", 2)[0], ":")) {
			x.opaque("%s reaches another host, where what runs cannot be checked")
			continue
		}
		r := RoleRead
		if k == len(operands)-1 && len(operands) > 1 {
			r = RoleWrite
		}
		x.addFile(i, w, r, tree)
	}
}
