package shell

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Kind says how far a word's text can be trusted.
type Kind uint8

const (
	// Literal: the text is exactly what the command receives.
	Literal Kind = iota
	// Pattern: the word has unquoted glob or brace characters, so the
	// shell may turn it into other words; the text is the word without
	// its quotes.
	Pattern
	// Assign: NAME=value or NAME+=value with a literal value.
	Assign
	// Dynamic: the word depends on run-time values (parameter expansion,
	// command substitution, $'...' with escapes); its text is empty.
	Dynamic
)

// Word is a shell word after quote removal. The zero Word is an empty
// literal.
type Word struct {
	// Text is the word as the command receives it, for a Literal; see
	// [Kind] for the others.
	Text string
	Kind Kind
	// Tilde reports an unquoted leading ~, which the shell replaces with a
	// home directory: the text is then not the path the word names.
	Tilde bool
	// Prefix is, for a Dynamic word, its literal start before the first
	// expansion, quotes removed ("-count=" in -count=$N, "/dev/tcp/" in
	// /dev/tcp/$host/80): enough, often, to tell an option from an
	// operand. For a Dynamic assignment it starts with NAME=.
	Prefix string
	// Splits reports, for a Dynamic word, an unquoted parameter expansion,
	// command substitution or extended glob: the shell may make several
	// words of it, or none, so that even its position among the
	// arguments is not known.
	Splits bool
	// Anchor is, for a Dynamic word that starts with the home directory
	// ($HOME, ${HOME}), the directory the shell is in ($PWD, ${PWD},
	// $(pwd), `pwd -P`, $(realpath .), $(readlink -f .)) or the top of
	// the git repository it is in ($(git rev-parse --show-toplevel)),
	// quoted or not, "HOME", "PWD" or "TOP", when all that follows is
	// literal: Rest, quotes removed. A caller that knows what they hold
	// knows the word ("$PWD"/ is the directory). "" otherwise.
	Anchor, Rest string
}

// Static reports whether w is known before the script runs: a literal
// without a leading tilde.
func (w Word) Static() bool { return w.Kind == Literal && !w.Tilde }

// decode reads w as the shell would, without running anything. A word
// with a brace expansion, across its parts ({r'm',x}), is a Pattern.
func decode(w *syntax.Word) Word {
	out := decodeParts(w)
	if out.Kind == Literal {
		if _, ok := braces(w); ok {
			out.Kind = Pattern
		}
	}
	return out
}

// maxBraces is the most words the analyser lets one brace expansion make:
// past it the word is computed, as if it were known only at run time.
const maxBraces = 64

// braces returns the words brace expansion makes of w, the empty ones
// left out as bash leaves them out, and whether w has a brace expansion
// at all; nil and true when it makes more than maxBraces.
func braces(w *syntax.Word) ([]*syntax.Word, bool) {
	if w == nil {
		return nil, false
	}
	split := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(split) {
		return nil, false
	}
	if braceCount(split.Parts) > maxBraces {
		// Counted first, so that the expansion is bounded.
		return nil, true
	}
	var out []*syntax.Word
	for _, parts := range expandBraces(split.Parts) {
		if x := (&syntax.Word{Parts: parts}); !emptyWord(x) {
			out = append(out, x)
		}
	}
	return out, true
}

// expandBraces returns the words, as their parts, that the brace
// expansions in parts make, left to right as bash makes them; braceCount
// has bounded how many. (mvdan.cc/sh/v3/expand does the same, but brings
// os/exec with it, and this package only reads text.)
func expandBraces(parts []syntax.WordPart) [][]syntax.WordPart {
	out := [][]syntax.WordPart{nil}
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range out {
				out[i] = append(out[i], p)
			}
			continue
		}
		var alts [][]syntax.WordPart
		if br.Sequence {
			for _, v := range sequence(br) {
				alts = append(alts, []syntax.WordPart{&syntax.Lit{Value: v}})
			}
		} else {
			for _, e := range br.Elems {
				alts = append(alts, expandBraces(e.Parts)...)
			}
		}
		next := make([][]syntax.WordPart, 0, len(out)*len(alts))
		for _, o := range out {
			for _, a := range alts {
				next = append(next, slices.Concat(o, a))
			}
		}
		out = next
	}
	return out
}

// braceCount returns how many words the brace expansions in parts make,
// or some number over maxBraces when they make more.
func braceCount(parts []syntax.WordPart) int {
	n := 1
	for _, p := range parts {
		br, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		m := 0
		if br.Sequence {
			m = sequenceCount(br)
		} else {
			for _, e := range br.Elems {
				if m += braceCount(e.Parts); m > maxBraces {
					break
				}
			}
		}
		if n *= max(m, 1); n > maxBraces {
			return maxBraces + 1
		}
	}
	return n
}

// sequenceCount returns how many words a sequence expansion ({1..9},
// {a..z}, {0..100..5}) makes, at most maxBraces+1.
func sequenceCount(br *syntax.BraceExp) int {
	from, to, step, _, _ := sequenceOf(br)
	// In uint64, to-from and |step| are right even where int64 overflows.
	span, by := uint64(to)-uint64(from), uint64(step)
	if to < from {
		span = uint64(from) - uint64(to)
	}
	if step < 0 {
		by = -by
	}
	if span/by >= maxBraces {
		return maxBraces + 1
	}
	return int(span/by) + 1
}

// sequenceOf reads a sequence expansion as bash does: its ends, numbers or
// single characters, its step (never 0), whether its ends are characters,
// and the width its numbers are padded to when an end has a leading zero.
func sequenceOf(br *syntax.BraceExp) (from, to, step int64, chars bool, width int) {
	a, b := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.ParseInt(a, 10, 64)
	to, err2 := strconv.ParseInt(b, 10, 64)
	switch {
	case (err1 != nil || err2 != nil) && (a == "" || b == ""):
		// SplitBraces makes no such sequence; read it as one word.
		return 0, 0, 1, false, 0
	case err1 != nil || err2 != nil:
		chars = true
		from, to = int64(a[0]), int64(b[0])
	case zeros(a) || zeros(b):
		width = max(len(a), len(b))
	}
	step = 1
	if len(br.Elems) > 2 {
		if n, err := strconv.ParseInt(br.Elems[2].Lit(), 10, 64); err == nil && n != 0 {
			step = n
		}
	}
	return from, to, step, chars, width
}

// zeros reports whether a number is written with a leading zero (01, -05).
func zeros(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// sequence returns the words of a sequence expansion that sequenceCount
// has bounded.
func sequence(br *syntax.BraceExp) []string {
	from, to, step, chars, width := sequenceOf(br)
	if step < 0 {
		step = -step
	}
	if to < from {
		step = -step
	}
	var out []string
	for n, i := from, 0; i < maxBraces && (step > 0 && n <= to || step < 0 && n >= to); n, i = n+step, i+1 {
		switch {
		case chars:
			out = append(out, string(rune(n)))
		case width > 0:
			out = append(out, fmt.Sprintf("%0*d", width, n))
		default:
			out = append(out, strconv.FormatInt(n, 10))
		}
		if step > 0 && n > math.MaxInt64-step || step < 0 && n < math.MinInt64-step {
			break
		}
	}
	return out
}

// emptyWord reports whether w is made of nothing but empty literals: an
// unquoted empty word, which the shell drops.
func emptyWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if lit, ok := p.(*syntax.Lit); !ok || lit.Value != "" {
			return false
		}
	}
	return true
}

// expandWord returns the words the shell makes of an argument w by brace
// expansion, each decoded (one, decoded, when it has none); one Dynamic
// word that splits when the expansion makes too many.
func expandWord(w *syntax.Word) []Word {
	words, ok := braces(w)
	switch {
	case !ok:
		return []Word{decodeParts(w)}
	case words == nil && len(w.Parts) > 0:
		if out := decodeParts(w); out.Kind == Dynamic {
			return []Word{out}
		}
		return []Word{{Kind: Dynamic, Splits: true}}
	}
	out := make([]Word, 0, len(words))
	for _, x := range words {
		out = append(out, decodeParts(x))
	}
	return out
}

// decodeParts is decode without the brace expansion across parts.
func decodeParts(w *syntax.Word) Word {
	if w == nil {
		return Word{}
	}
	var b strings.Builder
	out := Word{}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				out.Tilde = true
			}
			if unescapeUnquoted(&b, p.Value) {
				out.Kind = Pattern
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.ContainsRune(p.Value, '\\') {
				return dynamic(&b, w.Parts[i:])
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return dynamic(&b, w.Parts[i:])
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return anchored(dynamic(&b, w.Parts[i:]), w.Parts[i:])
				}
				unescapeDouble(&b, lit.Value)
			}
		default:
			return anchored(dynamic(&b, w.Parts[i:]), w.Parts[i:])
		}
	}
	out.Text = b.String()
	return out
}

// anchored returns the Dynamic word d with its Anchor and Rest set when
// the word's parts are an anchor (see [Word.Anchor]), quoted or not,
// then literal text only.
func anchored(d Word, parts []syntax.WordPart) Word {
	if d.Prefix != "" || len(parts) == 0 {
		return d
	}
	rest := parts[1:]
	first := parts[0]
	if dq, ok := first.(*syntax.DblQuoted); ok && !dq.Dollar && len(dq.Parts) > 0 {
		// "$PWD/x" y: the quoted rest comes first.
		first = dq.Parts[0]
		rest = append([]syntax.WordPart{&syntax.DblQuoted{Parts: dq.Parts[1:]}}, rest...)
	}
	name := anchorOf(first)
	if name == "" {
		return d
	}
	tail := decodeParts(&syntax.Word{Parts: rest})
	if tail.Kind == Dynamic || tail.Tilde {
		return d
	}
	d.Anchor, d.Rest = name, tail.Text
	return d
}

// anchorOf returns "HOME", "PWD" or "TOP" for a part that expands to the
// home directory, the shell's directory or the top of its repository, ""
// for any other.
func anchorOf(part syntax.WordPart) string {
	switch p := part.(type) {
	case *syntax.ParamExp:
		if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 {
			return ""
		}
		if p.Param.Value == "HOME" || p.Param.Value == "PWD" {
			return p.Param.Value
		}
	case *syntax.CmdSubst:
		if len(p.Stmts) != 1 {
			return ""
		}
		st := p.Stmts[0]
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
			return ""
		}
		args := make([]string, len(call.Args))
		for i, a := range call.Args {
			if args[i] = a.Lit(); args[i] == "" {
				return ""
			}
		}
		return printedDir(args)
	}
	return ""
}

// printedDir returns "PWD" for a command that prints the directory it
// runs in (pwd, pwd -P, realpath ., readlink -f .), "TOP" for one that
// prints the top of the repository it runs in (git rev-parse
// --show-toplevel), "" for any other. args are its words, all literal.
func printedDir(args []string) string {
	// flags reports whether every word of ws is an option among letters
	// (a cluster, -eP) or longs, and which letters and names it saw.
	flags := func(ws []string, letters string, longs ...string) (string, bool) {
		seen := ""
		for _, w := range ws {
			switch {
			case strings.HasPrefix(w, "--") && slices.Contains(longs, w[2:]):
				seen += w[2:] + " "
			case len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.Trim(w[1:], letters) == "":
				seen += w[1:] + " "
			default:
				return "", false
			}
		}
		return seen, true
	}
	switch last := args[len(args)-1]; {
	case args[0] == "pwd":
		if _, ok := flags(args[1:], "LP"); ok {
			return "PWD"
		}
	case args[0] == "git" && len(args) == 3 && args[1] == "rev-parse" && last == "--show-toplevel":
		return "TOP"
	case len(args) < 2 || last != "." && last != "./":
		return ""
	case args[0] == "realpath":
		if _, ok := flags(args[1:len(args)-1], "emsLPq", "canonicalize-existing", "canonicalize-missing", "strip", "no-symlinks",
			"logical", "physical", "quiet"); ok {
			return "PWD"
		}
	case args[0] == "readlink":
		// Without -f, -e or -m it prints nothing for a directory.
		seen, ok := flags(args[1:len(args)-1], "femnqsv", "canonicalize", "canonicalize-existing", "canonicalize-missing",
			"no-newline", "quiet", "silent", "verbose")
		if ok && strings.ContainsAny(seen, "fem") {
			return "PWD"
		}
	}
	return ""
}

// dynamic is the Dynamic word whose literal start is in b and whose
// remaining parts, from the first that is not literal, are rest.
func dynamic(b *strings.Builder, rest []syntax.WordPart) Word {
	if dq, ok := rest[0].(*syntax.DblQuoted); ok && !dq.Dollar {
		for _, q := range dq.Parts {
			lit, ok := q.(*syntax.Lit)
			if !ok {
				break
			}
			unescapeDouble(b, lit.Value)
		}
	}
	return Word{Kind: Dynamic, Prefix: b.String(), Splits: splits(rest)}
}

// splits reports whether a word's parts hold an unquoted expansion that
// the shell splits into fields or expands as a pattern: a parameter
// expansion, a command substitution or an extended glob. Arithmetic gives
// a number; a process substitution, a /dev/fd path.
func splits(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// unescapeUnquoted writes the value of an unquoted literal and reports
// whether it holds unescaped glob or brace syntax: * or ?, a [ closed later
// in the literal (a lone [ is the test command), or a { closed later with
// a comma or .. between ({a,b}, {1..3}; bash leaves {} and {x} as they
// are).
func unescapeUnquoted(b *strings.Builder, s string) (pattern bool) {
	openBracket, openBrace, braceList := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] == '\n' {
					continue
				}
				c = s[i]
				b.WriteByte(c)
				continue
			}
		case '*', '?':
			pattern = true
		case '[':
			openBracket = true
		case ']':
			pattern = pattern || openBracket
		case '{':
			openBrace, braceList = true, false
		case ',':
			braceList = braceList || openBrace
		case '.':
			braceList = braceList || openBrace && i+1 < len(s) && s[i+1] == '.'
		case '}':
			pattern = pattern || openBrace && braceList
		}
		b.WriteByte(c)
	}
	return pattern
}

// unescapeDouble writes the value of a literal inside double quotes, where a
// backslash only escapes $, `, ", \ and a newline.
func unescapeDouble(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				c = s[i]
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
}

// decodeAssign turns an assignment into a word: NAME=value.
func decodeAssign(a *syntax.Assign) Word {
	if a.Name == nil {
		// A naked declare argument: an option or a name given as a word.
		return decode(a.Value)
	}
	if a.Index != nil || a.Array != nil {
		return Word{Kind: Dynamic}
	}
	if a.Naked {
		return Word{Text: a.Name.Value}
	}
	v := decode(a.Value)
	op := "="
	if a.Append {
		op = "+="
	}
	if v.Kind == Dynamic {
		// A value is not split into fields.
		return Word{Kind: Dynamic, Prefix: a.Name.Value + op + v.Prefix}
	}
	return Word{Text: a.Name.Value + op + v.Text, Kind: Assign}
}

// callWords returns a simple command's words, its assignments first, its
// arguments brace-expanded as the shell expands them ({rm,x} is rm x),
// and with each the index in c.Args of the argument it comes from (-1 for
// an assignment).
func callWords(c *syntax.CallExpr) (words []Word, nAssign int, from []int) {
	words = make([]Word, 0, len(c.Assigns)+len(c.Args))
	from = make([]int, 0, cap(words))
	for _, a := range c.Assigns {
		words = append(words, decodeAssign(a))
		from = append(from, -1)
	}
	for i, w := range c.Args {
		for _, x := range expandWord(w) {
			words = append(words, x)
			from = append(from, i)
		}
	}
	return words, len(c.Assigns), from
}

// Source writes w back as shell source that reads as the same word,
// wherever it is in a command: a literal quoted where needed (NAME=x
// too, which would read as an assignment before the command's name), an
// assignment's value quoted, a pattern with its glob characters left
// unquoted. A Dynamic word has no source and gives "".
func (w Word) Source() string {
	switch w.Kind {
	case Literal:
		return quoteWord(w.Text)
	case Assign:
		i := strings.IndexByte(w.Text, '=')
		return w.Text[:i+1] + quoteWord(w.Text[i+1:])
	case Dynamic:
		return ""
	}
	// A pattern keeps its glob characters unquoted; its text has no
	// quotes left, so quote what the shell would otherwise split.
	var b strings.Builder
	for _, c := range w.Text {
		if strings.ContainsRune(" \t\n'\"\\$`;&|<>()#", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func quoteWord(s string) string {
	if name, _, ok := strings.Cut(s, "="); ok && Plain(s) && ValidName(name) {
		// NAME=x written bare would read as an assignment where a command
		// name is.
		return "'" + s + "'"
	}
	q, err := Quote(s)
	if err != nil {
		// Only a NUL byte cannot be quoted, and no command word holds one.
		return "'" + s + "'"
	}
	return q
}

// Quote returns s as one bash word: as it is when it is made of letters,
// digits and @%+=:,./-_ only, quoted otherwise. It fails only for a string
// holding a NUL byte, which no shell word can hold.
func Quote(s string) (string, error) {
	if Plain(s) {
		return s, nil
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "", fmt.Errorf("shell: quote: %w", err)
	}
	return q, nil
}

// Plain reports whether s is non-empty and needs no quoting in any shell:
// letters, digits and @%+=:,./-_ only.
func Plain(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_@%+=:,./-", c) >= 0) {
			return false
		}
	}
	return true
}

// isNumber reports whether s is a bash integer literal: decimal, 0x hex,
// or BASE#digits.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return allBytes(s[2:], func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' })
	}
	base, digits, found := strings.Cut(s, "#")
	if !allBytes(base, isDigit) {
		return false
	}
	return !found || allBytes(digits, func(c byte) bool {
		return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '@' || c == '_'
	})
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// allBytes reports whether s is non-empty and every byte satisfies ok.
func allBytes(s string, ok func(byte) bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}
