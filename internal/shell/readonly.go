package shell

import (
	"path"
	"strings"
)

// readOnlyProgram describes a program that only reads: it writes nothing but its
// standard output and standard error, runs no program and no code but
// its own, and reaches no network, as long as the options its check
// refuses are not given.
type readOnlyProgram struct {
	// strict: some of the program's options write, run a program or
	// read files named elsewhere (sort -o, rg --pre, git --output,
	// printf -v), so an argument that could expand to an option (a glob
	// such as *, a computed word) keeps it from being read-only: a file
	// named -ofoo in the directory would be one.
	strict bool
	// ownCode: the code the command's words hold is the program's own
	// language, read by the analyser (a sed script): its role does not
	// keep the command from being read-only.
	ownCode bool
	// check, when set, reports whether the arguments after the name
	// keep the program read-only.
	check func(cw []Word) bool
}

// readOnlyPrograms are the programs that only read, as far as their arguments
// show: what their words name is in [Command.Files], where a caller judges
// where it leads. A program absent here is not read-only, whatever it
// does: awk and the interpreters run code, env, xargs, time and the other
// wrappers run programs, less, more and man run pagers (and commands from
// them), tee and the editors write, curl and ssh reach the network.
var readOnlyPrograms = map[string]readOnlyProgram{
	// Programs that name no file: what they print is made of their
	// arguments, the environment (stripped of credentials) and the
	// system.
	"echo": {}, "true": {}, "false": {}, ":": {}, "test": {}, "[": {}, "pwd": {}, "which": {}, "type": {},
	"basename": {}, "dirname": {}, "seq": {}, "yes": {}, "tr": {}, "expr": {}, "id": {}, "whoami": {},
	"uname": {}, "nproc": {}, "sleep": {}, "printenv": {},
	// cd changes where the commands after it run: the paths they name
	// are then known only at run time, which a caller judges.
	"cd": {},
	// printf -v NAME sets a variable (PATH, so that ls runs ./x/ls).
	"printf": {strict: true, check: refuse("v")},
	// date -s and an operand that is not a +FORMAT set the clock.
	"date": {strict: true, check: dateReadOnly},
	// Programs whose operands are files read.
	"cat": {}, "tac": {}, "nl": {}, "head": {}, "tail": {}, "cut": {}, "paste": {}, "comm": {}, "join": {},
	"fold": {}, "fmt": {}, "expand": {}, "unexpand": {}, "rev": {}, "column": {}, "od": {}, "hexdump": {},
	"strings": {}, "base64": {}, "base32": {}, "cmp": {}, "diff": {}, "stat": {}, "readlink": {}, "realpath": {},
	"ls": {}, "df": {}, "grep": {}, "egrep": {}, "fgrep": {},
	// --files0-from reads the names of the files to read from a file,
	// which the analysis does not open. A glob that expands to it
	// (wc -l * in a directory holding a file so named) is let through:
	// what it reveals is counts and sizes, and the sandbox hides the
	// credential stores anyway.
	"wc": {check: refuse("", "files0-from")},
	"du": {check: refuse("", "files0-from")},
	// sort -o and -T write, --compress-program runs a program (both in
	// the command's roles); --files0-from reads files named elsewhere.
	"sort": {strict: true, check: refuse("", "files0-from")},
	// uniq IN OUT and xxd IN OUT write OUT (in the command's files).
	"uniq": {strict: true}, "xxd": {strict: true},
	// file -C compiles a magic file and writes it; -f reads the names of
	// the files to look at from a file.
	"file": {strict: true, check: refuse("Cf", "compile", "files-from")},
	// tree -o writes (in the files); -R writes a listing in every
	// directory.
	"tree": {strict: true, check: refuse("R")},
	// A checksum program's -c reads the files a list names.
	"md5sum": {strict: true, check: refuse("c", "check")}, "sha1sum": {strict: true, check: refuse("c", "check")},
	"sha224sum": {strict: true, check: refuse("c", "check")}, "sha256sum": {strict: true, check: refuse("c", "check")},
	"sha384sum": {strict: true, check: refuse("c", "check")}, "sha512sum": {strict: true, check: refuse("c", "check")},
	"b2sum": {strict: true, check: refuse("c", "check")}, "cksum": {strict: true, check: refuse("c", "check")},
	// find's -exec, -ok and -delete run programs and -fprint writes (in
	// the command's roles and files); a glob among its words is opaque.
	"find": {check: findReadOnly},
	// rg --pre and --hostname-bin run programs (in the command's roles).
	"rg": {strict: true},
	// jq's filter is jq's own language, which reads nothing but its
	// input, unless it imports modules: import, include, -L and -f read
	// files the analysis does not see (anywhere, through ..).
	"jq": {check: jqReadOnly},
	// sed's script is read by the analyser: w, s///w and -i write, e runs
	// a command, r reads a file (in the command's files and roles); -f
	// takes the script from a file (opaque).
	"sed": {strict: true, ownCode: true},
	// git, for the subcommands that only read the repository.
	"git": {strict: true, check: gitReadOnly},
}

// refuse returns a check that refuses the options named: short letters,
// then long names, given whole or abbreviated (--comp for --compile), in
// any form (-Cm, --check=x).
func refuse(short string, long ...string) func(cw []Word) bool {
	return func(cw []Word) bool {
		for _, w := range cw[1:] {
			t := w.Text
			if w.Kind == Dynamic {
				t = w.Prefix
			}
			if t == "--" {
				return true
			}
			if name, ok := strings.CutPrefix(t, "--"); ok {
				name, _, _ = strings.Cut(name, "=")
				for _, l := range long {
					if name != "" && strings.HasPrefix(l, name) {
						return false
					}
				}
				continue
			}
			if letters, ok := strings.CutPrefix(t, "-"); ok && strings.ContainsAny(letters, short) {
				return false
			}
		}
		return true
	}
}

// dateReadOnly reports whether date only prints: no -s or --set, every
// operand a +FORMAT (date MMDDhhmm sets the clock).
func dateReadOnly(cw []Word) bool {
	ok := true
	filers["date"].opts.scan(cw, 1, true, func(a arg) bool {
		switch {
		case a.unsure, a.opt == "s", a.opt == "set":
			ok = false
		case a.opt == "" && !strings.HasPrefix(cw[a.i].Text, "+"):
			ok = false
		}
		return ok
	})
	return ok
}

// findReadOnly reports whether find's expression has none of the actions
// that run a program or write (the analyser records them as commands and
// files, but one it could not close, -exec without its ;, records
// nothing), and takes its starting points from no file.
func findReadOnly(cw []Word) bool {
	for _, w := range cw[1:] {
		switch w.Text {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
			"-files0-from": // the starting points listed in a file, anywhere
			return false
		}
	}
	return true
}

// jqReadOnly reports whether jq reads no module: no -L, --library-path,
// -f or --from-file (given alone or in a cluster: -nf), and no word that
// says import or include.
func jqReadOnly(cw []Word) bool {
	for _, w := range cw[1:] {
		t := w.Text
		if w.Kind == Dynamic {
			t = w.Prefix
		}
		if strings.Contains(t, "import") || strings.Contains(t, "include") {
			return false
		}
		if t == "-f" || jqShort(t, 'f') || jqShort(t, 'L') ||
			strings.HasPrefix(t, "--from-file") || strings.HasPrefix(t, "--library-path") {
			return false
		}
	}
	return true
}

// ReadOnly reports whether c, as the analyser reads it, only reads: its
// program, named plainly or in the system's directories, is one that
// writes nothing but its standard output, runs nothing and reaches no
// network (readOnlyPrograms), with none of the options that would make
// it do so; no assignment comes before it (LESSOPEN=..., GIT_DIR=...);
// none of its words runs a program or code, or names a file it writes;
// nothing in it is opaque; and, for a program some of whose options
// write or run (sort -o, rg --pre), no glob or computed word could put
// such an option among its arguments. The files it reads are in Files:
// whether reading them is fine (inside the workspace) is the caller's to
// judge, and so are the script's redirections and the commands it runs
// around c.
func (c *Command) ReadOnly() bool {
	if c.NAssign > 0 || len(c.Opaque) > 0 || c.Unplaced || c.Parent >= 0 {
		return false
	}
	cw := c.Args()
	if len(cw) == 0 || !Known(cw[0]) {
		return false
	}
	r, ok := readOnlyPrograms[path.Base(cw[0].Text)]
	if !ok {
		return false
	}
	for i, role := range c.Roles[c.NAssign:] {
		switch {
		case role == RoleWrite, role == RoleAssign:
			return false
		case role == RoleProgram && i > 0:
			return false
		case role == RoleCode && !r.ownCode:
			return false
		}
	}
	for _, f := range c.Files {
		if f.Role == RoleWrite {
			return false
		}
	}
	if r.strict && mayBeOption(cw) {
		return false
	}
	return r.check == nil || r.check(cw)
}

// mayBeOption reports whether an argument of cw, before a "--", could
// expand to an option: a glob whose literal start is empty or an option
// (*, -*), or a computed word that may split or start with a dash.
func mayBeOption(cw []Word) bool {
	for _, w := range cw[1:] {
		switch w.Kind {
		case Literal:
			if w.Text == "--" {
				return false
			}
		case Pattern:
			if lit := literalStart(w.Text); lit == "" || strings.HasPrefix(lit, "-") {
				return true
			}
		case Dynamic:
			if w.Splits || w.Prefix == "" || strings.HasPrefix(w.Prefix, "-") {
				return true
			}
		}
	}
	return false
}
