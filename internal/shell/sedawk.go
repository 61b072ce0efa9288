package shell

import (
	"strings"
)

var sedOpts = opts("EnrsuzcH"+"e:f:i::l:", "expression: file: in-place:: line-length: null-data zero-terminated quiet silent regexp-extended separate unbuffered posix debug sandbox follow-symlinks binary help version")

// sedProgram reads sed: its script (the first operand, unless -e or -f
// give it) for the commands that run programs (e, and s///e) or name
// files (r, R, w, W, and s///w), and its operands, files read, or written
// with -i.
func sedProgram(x *call) {
	var operands []int
	var scripts []arg
	inPlace, fromFile, sandbox, unsure := false, false, false, false
	sedOpts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			unsure = true
			x.filesFrom(a.i, RoleWrite)
			return false
		case a.opt == "":
			operands = append(operands, a.i)
		case a.opt == "e" || a.opt == "expression":
			scripts = append(scripts, a)
		case (a.opt == "f" || a.opt == "file") && a.has:
			x.file(a.vi, a.val, RoleRead)
			fromFile = true
		case a.opt == "i" && !a.long || a.opt == "in-place":
			inPlace = true
		case a.opt == "sandbox":
			sandbox = true
		}
		return true
	})
	if unsure {
		x.unplaced("the arguments of %s cannot be told before it runs")
		return
	}
	if len(scripts) == 0 && !fromFile && len(operands) > 0 {
		scripts = append(scripts, arg{val: x.cw[operands[0]], vi: operands[0], has: true})
		operands = operands[1:]
	}
	if fromFile {
		x.opaque("%s runs a sed script from a file, which cannot be checked")
	}
	for _, s := range scripts {
		if s.has && !sandbox {
			x.sedScript(s.vi, s.val)
		}
	}
	r := RoleRead
	if inPlace {
		r = RoleWrite
	}
	for _, i := range operands {
		x.file(i, x.cw[i], r)
	}
}

// sedScript reads the sed script src, given in the command's word cw[i].
func (x *call) sedScript(i int, src Word) {
	x.role(i, RoleCode)
	if !src.Static() {
		x.opaque("the sed script %s runs is computed at run time")
		return
	}
	for _, e := range sedEffects(src.Text) {
		switch e.kind {
		case 'e':
			if e.arg == "" {
				x.opaque("%s runs, as a command, text that sed computes at run time")
			} else {
				x.script(Word{Text: e.arg})
			}
		case 'r':
			x.file(i, Word{Text: e.arg, Tilde: strings.HasPrefix(e.arg, "~")}, RoleRead)
		case 'w':
			x.file(i, Word{Text: e.arg, Tilde: strings.HasPrefix(e.arg, "~")}, RoleWrite)
		case '?':
			x.opaque("%s has a sed script that cannot be read")
		}
	}
}

// sedEffect is a command of a sed script that reaches outside it: 'e'
// runs arg (or, empty, the pattern space) as a command, 'r' reads the file
// arg, 'w' writes it; '?' is a script that cannot be read.
type sedEffect struct {
	kind byte
	arg  string
}

// sedEffects returns the commands of the sed script s that run programs or
// name files, as GNU sed reads it; a script it cannot follow gives '?'.
func sedEffects(s string) []sedEffect {
	var out []sedEffect
	p := &sedParser{s: s}
	for p.next() {
		c := p.s[p.i]
		p.i++
		switch {
		case strings.IndexByte("{}=dDgGhHlnNpPxzFq QlL", c) >= 0:
			p.skipNumber()
		case c == ':' || c == 'b' || c == 't' || c == 'T' || c == 'v':
			p.label()
		case c == 'a' || c == 'i' || c == 'c':
			p.text()
		case c == 'r' || c == 'R':
			out = append(out, sedEffect{'r', p.line()})
		case c == 'w' || c == 'W':
			out = append(out, sedEffect{'w', p.line()})
		case c == 'e':
			out = append(out, sedEffect{'e', p.line()})
		case c == 's':
			out = append(out, p.substitute()...)
		case c == 'y':
			if !p.delimited(2) {
				return append(out, sedEffect{kind: '?'})
			}
		default:
			return append(out, sedEffect{kind: '?'})
		}
		if p.bad {
			return append(out, sedEffect{kind: '?'})
		}
	}
	if p.bad {
		out = append(out, sedEffect{kind: '?'})
	}
	return out
}

// sedParser walks a sed script.
type sedParser struct {
	s   string
	i   int
	bad bool
}

// next skips blanks, separators, comments and an address, and reports
// whether a command follows.
func (p *sedParser) next() bool {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == ';':
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			p.address()
			for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '!') {
				p.i++
			}
			return p.i < len(p.s) && !p.bad
		}
	}
	return false
}

// address skips an address or a range of two.
func (p *sedParser) address() {
	for n := 0; n < 2; n++ {
		switch c := p.s[p.i]; {
		case c >= '0' && c <= '9' || c == '$' || c == '+' || c == '~':
			p.i++
			for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '~') {
				p.i++
			}
		case c == '/':
			p.i++
			p.until('/')
		case c == '\\' && p.i+1 < len(p.s):
			d := p.s[p.i+1]
			p.i += 2
			p.until(d)
		default:
			return
		}
		for p.i < len(p.s) && (p.s[p.i] == 'I' || p.s[p.i] == 'M') {
			p.i++
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' || n == 1 {
			return
		}
		p.i++
		if p.i >= len(p.s) {
			p.bad = true
			return
		}
	}
}

// until skips to just after the next unescaped d (a newline in the text
// is allowed, as GNU sed allows it escaped).
func (p *sedParser) until(d byte) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\\':
			p.i++
		case c == d:
			return
		}
	}
	p.bad = true
}

// delimited skips n delimited parts after the delimiter at p.i (s/a/b/ is
// two after s).
func (p *sedParser) delimited(n int) bool {
	if p.i >= len(p.s) || p.s[p.i] == '\n' || p.s[p.i] == '\\' {
		return false
	}
	d := p.s[p.i]
	p.i++
	for range n {
		p.until(d)
		if p.bad {
			return false
		}
	}
	return true
}

// substitute reads s/re/replacement/flags: the e flag runs the pattern
// space, the w flag writes the file named to the end of the line.
func (p *sedParser) substitute() []sedEffect {
	if !p.delimited(2) {
		p.bad = true
		return nil
	}
	var out []sedEffect
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == 'e':
			out = append(out, sedEffect{kind: 'e'})
			p.i++
		case c == 'w':
			p.i++
			return append(out, sedEffect{'w', p.line()})
		case strings.IndexByte("gpiImM0123456789", c) >= 0:
			p.i++
		default:
			return out
		}
	}
	return out
}

// line returns the rest of the line, blanks before it skipped: a file name
// or a command.
func (p *sedParser) line() string {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	end := strings.IndexByte(p.s[p.i:], '\n')
	if end < 0 {
		end = len(p.s) - p.i
	}
	text := p.s[p.i : p.i+end]
	p.i += end
	return text
}

// label skips a label, which ends at a newline or a semicolon.
func (p *sedParser) label() {
	for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != ';' {
		p.i++
	}
}

// text skips the text of a, i or c: to the end of the line, a backslash
// before the newline going on to the next.
func (p *sedParser) text() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
}

// skipNumber skips the number some commands take (q5, l 40).
func (p *sedParser) skipNumber() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		p.i++
	}
}

var awkOpts = opts("bcCdghMNOPrSstVyzD::e:E:f:F:i:l:L::o::p::v:W:", "file: field-separator: assign: source: include: load: exec: pretty-print:: profile:: dump-variables:: debug:: lint:: sandbox characters-as-bytes traditional posix re-interval non-decimal-data optimize no-optimize use-lc-numeric help version copyright")

// awkProgram reads awk: its program (the first operand, unless -f or -e
// give it) for what makes it reach outside (system(), pipes, output
// redirections, getline from a file), and its operands, files read unless
// they are assignments (var=value).
func awkProgram(x *call) {
	var operands []int
	var programs []arg
	fromFile, sandbox := false, false
	awkOpts.scan(x.cw, 1, false, func(a arg) bool {
		switch {
		case a.unsure:
			x.unplaced("the arguments of %s cannot be told before it runs")
			fromFile = true
			return false
		case a.opt == "":
			operands = append(operands, a.i)
		case a.opt == "e" || a.opt == "source":
			programs = append(programs, a)
		case a.opt == "f" || a.opt == "file" || a.opt == "E" || a.opt == "exec" || a.opt == "i" || a.opt == "include" || a.opt == "l" || a.opt == "load" || a.opt == "D" || a.opt == "debug":
			if a.has {
				x.file(a.vi, a.val, RoleRead)
			}
			fromFile = true
		case a.opt == "o" || a.opt == "pretty-print" || a.opt == "p" || a.opt == "profile" || a.opt == "d" || a.opt == "dump-variables":
			x.file(a.i, Word{Kind: Dynamic}, RoleWrite)
		case a.opt == "sandbox":
			sandbox = true
		}
		return true
	})
	if fromFile {
		x.opaque("%s runs awk code from a file, which cannot be checked")
	}
	if len(programs) == 0 && !fromFile && len(operands) > 0 {
		programs = append(programs, arg{val: x.cw[operands[0]], vi: operands[0], has: true})
		operands = operands[1:]
	}
	for _, p := range programs {
		if p.has {
			x.awkCode(p.vi, p.val, sandbox)
		}
	}
	for _, i := range operands {
		if !isAssignWord(x.cw[i]) {
			x.file(i, x.cw[i], RoleRead)
		}
	}
}

// awkCode reads an awk program given in the command's word cw[i].
func (x *call) awkCode(i int, src Word, sandbox bool) {
	x.role(i, RoleCode)
	if !src.Static() {
		x.opaque("the awk program %s runs is computed at run time")
		return
	}
	if why := awkReaches(src.Text); why != "" && !sandbox {
		x.opaque("%s runs an awk program that " + why + ", which cannot be checked")
		x.pinned++
	}
}

// awkReaches says how the awk program s reaches outside itself (runs a
// command, writes or reads a file it names), or "": strings, regular
// expressions and comments aside, a call of system, a |, a > or >> in a
// print statement, a getline with <, or a gawk @ directive.
func awkReaches(s string) string {
	code := awkStrip(s)
	switch {
	case strings.Contains(code, "system"):
		return "calls system()"
	case strings.Contains(strings.ReplaceAll(code, "||", ""), "|"):
		return "pipes to or from a command"
	case strings.Contains(code, "@"):
		return "loads code"
	case strings.Contains(code, "getline") && strings.Contains(code, "<"):
		return "reads a file it names"
	case awkPrintRedirect(code):
		return "writes to a file it names"
	}
	return ""
}

// awkStrip returns the awk program s with its strings, regular expression
// literals and comments blanked out, so that what they hold is not taken
// for code. A / starts a regular expression unless it follows an operand
// (a name, a number, a closing bracket), where it divides.
func awkStrip(s string) string {
	b := []byte(s)
	prev := byte(' ')
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"' || c == '/' && !awkOperand(prev):
			end := awkSkip(b, i+1, c)
			for j := i + 1; j < end && j < len(b); j++ {
				b[j] = ' '
			}
			i = end
			prev = 'x'
			continue
		case c == '#':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			continue
		}
		if c != ' ' && c != '\t' {
			prev = c
		}
	}
	return string(b)
}

func awkOperand(c byte) bool {
	return c == ')' || c == ']' || c == '$' || c == '_' || c == 'x' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// awkSkip returns the index of the unescaped q that closes what starts at
// b[i] (a / inside a bracket expression does not close a regular
// expression), or len(b).
func awkSkip(b []byte, i int, q byte) int {
	bracket := false
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			i++
		case q == '/' && c == '[':
			bracket = true
		case q == '/' && c == ']':
			bracket = false
		case c == q && !bracket:
			return i
		case c == '\n' && q == '"':
			return i
		}
	}
	return len(b)
}

// awkPrintRedirect reports whether a print or printf statement of code
// (strings stripped) redirects its output: a > outside parentheses
// before the statement ends. Elsewhere > compares.
func awkPrintRedirect(code string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], "print")
		if j < 0 {
			return false
		}
		depth := 0
		for k := i + j + 5; k < len(code); k++ {
			switch c := code[k]; c {
			case '(':
				depth++
			case ')':
				depth--
			case ';', '}', '\n':
				k = len(code)
			case '>':
				if depth <= 0 {
					return true
				}
			}
		}
		i += j + 5
	}
}
