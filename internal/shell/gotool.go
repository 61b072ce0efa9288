package shell

import (
	"strings"
)

// goValued are the go command's flags that take a value (go build, go
// test and the test binary's, go vet, go list), so that the next word is
// that value, not a package.
var goValued = map[string]bool{
	"C": true, "p": true, "asmflags": true, "buildmode": true, "buildvcs": true, "compiler": true, "gccgoflags": true,
	"gcflags": true, "installsuffix": true, "ldflags": true, "mod": true, "modfile": true, "overlay": true, "pgo": true,
	"pkgdir": true, "tags": true, "toolexec": true, "o": true, "covermode": true, "coverpkg": true, "exec": true,
	"vettool": true, "bench": true, "benchtime": true, "blockprofile": true, "blockprofilerate": true, "count": true,
	"coverprofile": true, "cpu": true, "cpuprofile": true, "fuzz": true, "fuzzcachedir": true, "fuzzminimizetime": true,
	"fuzztime": true, "list": true, "memprofile": true, "memprofilerate": true, "mutexprofile": true,
	"mutexprofilefraction": true, "outputdir": true, "parallel": true, "run": true, "shuffle": true, "skip": true,
	"timeout": true, "trace": true, "vet": true, "f": true, "debug-actiongraph": true, "debug-trace": true,
	"debug-runtime-trace": true, "testlogfile": true, "gocoverdir": true,
}

// goWrites are the flags whose value is a file (or, for outputdir and
// pkgdir, a directory) the go command or the test binary writes.
var goWrites = map[string]bool{
	"o": true, "coverprofile": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true,
	"trace": true, "outputdir": true, "pkgdir": true, "modfile": true, "debug-actiongraph": true, "debug-trace": true,
	"debug-runtime-trace": true, "testlogfile": true, "gocoverdir": true, "fuzzcachedir": true,
}

// goProgram reads the go command: -C reads another module; go env -w
// changes the configuration every later go command uses; the build flags
// of go build, test, run, vet, install, generate and list name programs
// it runs (-exec, -toolexec, -vettool, an external linker) and files it
// writes (-o, the profiles, -outputdir).
func goProgram(x *call) {
	cw := x.cw
	i := 1
	if i < len(cw) && cw[i].Static() && (cw[i].Text == "-C" || cw[i].Text == "--C") && i+1 < len(cw) {
		x.file(i+1, cw[i+1], RoleRead)
		x.move()
		i += 2
	} else if i < len(cw) && cw[i].Static() && strings.HasPrefix(strings.TrimLeft(cw[i].Text, "-"), "C=") && strings.HasPrefix(cw[i].Text, "-") {
		_, dir, _ := strings.Cut(cw[i].Text, "=")
		x.file(i, Word{Text: dir, Tilde: strings.HasPrefix(dir, "~")}, RoleRead)
		x.move()
		i++
	}
	if i >= len(cw) {
		return
	}
	if !cw[i].Static() {
		x.unplaced("the subcommand of %s cannot be told before it runs")
		return
	}
	switch sub := cw[i].Text; sub {
	case "env":
		for _, w := range cw[i+1:] {
			if !w.Static() || w.Text == "-w" || w.Text == "-u" || w.Text == "--w" || w.Text == "--u" {
				x.file(i, Word{Kind: Dynamic}, RoleWrite)
				return
			}
		}
	case "build", "test", "run", "vet", "install", "generate", "list", "get", "clean", "fix":
		goFlags(x, i+1, sub)
	}
}

// goFlags reads the flags of go's subcommand sub from cw[i] on. go test
// reads flags among its packages; the others stop at the first package,
// and go run's arguments after it are the program's.
func goFlags(x *call, i int, sub string) {
	cw := x.cw
	for ; i < len(cw); i++ {
		w := cw[i]
		if goUnsure(w) {
			x.unplaced("the arguments of %s cannot be told before it runs")
			return
		}
		text := w.Text
		if w.Kind == Dynamic {
			text = w.Prefix
		}
		if !strings.HasPrefix(text, "-") || text == "-" {
			if sub != "test" {
				return
			}
			continue
		}
		if text == "--" {
			return
		}
		name, value, eq := strings.Cut(strings.TrimLeft(text, "-"), "=")
		if sub == "test" && name == "args" {
			goTestArgs(x, i+1)
			return
		}
		v, vi := valueWord(w, value), i
		valued := goValued[strings.TrimPrefix(name, "test.")]
		if !eq && valued {
			if i+1 >= len(cw) {
				return
			}
			i++
			v, vi = cw[i], i
			if goUnsure(v) && v.Kind != Dynamic || v.Kind == Dynamic && v.Splits {
				x.unplaced("the arguments of %s cannot be told before it runs")
				return
			}
		} else if !eq && w.Kind == Dynamic {
			// -name$x: the flag's name itself is not known.
			x.unplaced("the arguments of %s cannot be told before it runs")
			return
		}
		goFlag(x, strings.TrimPrefix(name, "test."), v, vi, eq || valued, sub)
	}
}

// goUnsure reports whether a word given to the go command may be several
// words, or a flag the analyser cannot see: computed without a literal
// start that settles it, or a pattern that could expand to a flag.
func goUnsure(w Word) bool {
	switch w.Kind {
	case Dynamic:
		return w.Splits || w.Prefix == "" || w.Prefix == "-" || w.Prefix == "--"
	case Pattern:
		lit := literalStart(w.Text)
		return lit == "" || strings.HasPrefix(lit, "-")
	}
	return false
}

// goFlag records what one flag does; v is its value, in the word cw[vi],
// when has.
func goFlag(x *call, name string, v Word, vi int, has bool, sub string) {
	switch {
	case !has && name == "c" && sub == "test":
		x.file(vi, Word{Text: "."}, RoleWrite)
	case !has:
	case name == "exec" || name == "toolexec":
		words, ok := splitWords(v)
		if !ok || len(words) == 0 {
			x.unplaced("the program %s gives -" + name + " cannot be told before it runs")
			return
		}
		x.runWords(vi, append(words, Word{Kind: Dynamic}))
	case name == "vettool":
		if !v.Static() {
			x.unplaced("the program %s gives -vettool cannot be told before it runs")
			return
		}
		x.runWords(vi, []Word{v, {Kind: Dynamic}})
	case goWrites[name]:
		x.file(vi, v, RoleWrite)
	case name == "overlay":
		x.file(vi, v, RoleRead)
		x.opaque("%s builds files an overlay names in place of the sources, which cannot be checked")
	case name == "pgo" && v.Text != "auto" && v.Text != "off":
		x.file(vi, v, RoleRead)
	case name == "ldflags" && (!v.Static() || strings.Contains(v.Text, "extld")):
		x.opaque("%s names an external linker, which cannot be checked")
	}
}

// goTestArgs reads the arguments go test gives the test binary (after
// -args): its -test. flags that write files.
func goTestArgs(x *call, i int) {
	cw := x.cw
	for ; i < len(cw); i++ {
		w := cw[i]
		text := w.Text
		if w.Kind == Dynamic {
			if w.Splits || !strings.HasPrefix(w.Prefix, "-") {
				// The test binary reads it as it likes: it could be a flag
				// that writes a file.
				x.file(i, Word{Kind: Dynamic}, RoleWrite)
				continue
			}
			text = w.Prefix
		}
		name, value, eq := strings.Cut(strings.TrimLeft(text, "-"), "=")
		name, ok := strings.CutPrefix(name, "test.")
		if !ok || !goWrites[name] {
			continue
		}
		switch {
		case eq:
			x.file(i, valueWord(w, value), RoleWrite)
		case i+1 < len(cw):
			i++
			x.file(i, cw[i], RoleWrite)
		}
	}
}
