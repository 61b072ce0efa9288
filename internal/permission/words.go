package permission

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// wordKind says how far a shell word's text can be trusted.
type wordKind uint8

const (
	// kindLiteral: the text is exactly what the command receives.
	kindLiteral wordKind = iota
	// kindPattern: the word has unquoted glob or brace characters, so the
	// shell may turn it into other words; text is the word without quotes.
	kindPattern
	// kindAssign: NAME=value or NAME+=value with a literal value.
	kindAssign
	// kindDynamic: the word depends on run-time values (variables,
	// substitutions, $'...'); text is meaningless.
	kindDynamic
)

// word is a shell word after quote removal.
type word struct {
	text string
	kind wordKind
}

// wordOf decodes w as the shell would, without running anything.
func wordOf(w *syntax.Word) word {
	if w == nil {
		return word{kind: kindLiteral}
	}
	var b strings.Builder
	kind := kindLiteral
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if unescapeUnquoted(&b, p.Value) {
				kind = kindPattern
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.ContainsRune(p.Value, '\\') {
				return word{kind: kindDynamic}
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{kind: kindDynamic}
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return word{kind: kindDynamic}
				}
				unescapeDouble(&b, lit.Value)
			}
		default:
			return word{kind: kindDynamic}
		}
	}
	return word{text: b.String(), kind: kind}
}

// unescapeUnquoted writes the value of an unquoted literal and reports
// whether it holds unescaped glob or brace syntax: * or ?, or a [ or {
// closed later in the literal (a lone [ is the test command).
func unescapeUnquoted(b *strings.Builder, s string) (pattern bool) {
	var openBracket, openBrace bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				c = s[i]
			}
		case '*', '?':
			pattern = true
		case '[':
			openBracket = true
		case ']':
			pattern = pattern || openBracket
		case '{':
			openBrace = true
		case '}':
			pattern = pattern || openBrace
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

// assignWord turns an assignment into a word: NAME=value.
func assignWord(a *syntax.Assign) word {
	if a.Name == nil {
		// A naked declare argument: an option or a name given as a word.
		return wordOf(a.Value)
	}
	if a.Index != nil || a.Array != nil {
		return word{kind: kindDynamic}
	}
	if a.Naked {
		return word{text: a.Name.Value, kind: kindLiteral}
	}
	v := wordOf(a.Value)
	if v.kind == kindDynamic {
		return v
	}
	op := "="
	if a.Append {
		op = "+="
	}
	return word{text: a.Name.Value + op + v.text, kind: kindAssign}
}

// callWords returns a simple command's words, its assignments first.
func callWords(c *syntax.CallExpr) (words []word, nAssign int) {
	words = make([]word, 0, len(c.Assigns)+len(c.Args))
	for _, a := range c.Assigns {
		words = append(words, assignWord(a))
	}
	for _, w := range c.Args {
		words = append(words, wordOf(w))
	}
	return words, len(c.Assigns)
}

var plainWord = lazyRegexp(`^[A-Za-z0-9_@%+=:,./-]+$`)

// render writes w back as shell source that reads as the same word.
func (w word) render() string {
	switch w.kind {
	case kindLiteral:
		return quote(w.text)
	case kindAssign:
		i := strings.IndexByte(w.text, '=')
		return w.text[:i+1] + quote(w.text[i+1:])
	default:
		// A pattern keeps its glob characters unquoted; its text has no
		// quotes left, so quote what the shell would otherwise split.
		var b strings.Builder
		for _, c := range w.text {
			if strings.ContainsRune(" \t\n'\"\\$`;&|<>()#", c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
}

func quote(s string) string {
	if s != "" && plainWord.MatchString(s) {
		return s
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		// Only a NUL byte cannot be quoted, and no command word holds one.
		return "'" + s + "'"
	}
	return q
}

var number = lazyRegexp(`^(0[xX][0-9a-fA-F]+|[0-9]+|[0-9]+#[0-9A-Za-z@_]+)$`)

// plainArithm reports whether an arithmetic expression uses only number
// literals. Bash evaluates the value of a variable named in an arithmetic
// context as an expression in turn, and an array subscript there can run a
// command substitution: x='a[$(rm -rf ~)]'; echo $((x)) runs rm. So any
// name, expansion or substitution makes the expression impossible to check.
func plainArithm(x syntax.ArithmExpr) bool {
	switch e := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		return number.MatchString(e.Lit())
	case *syntax.BinaryArithm:
		return plainArithm(e.X) && plainArithm(e.Y)
	case *syntax.UnaryArithm:
		return plainArithm(e.X)
	case *syntax.ParenArithm:
		return plainArithm(e.X)
	default:
		return false
	}
}

// lazyRegexp is a regular expression compiled on first use, so that
// starting rein (rein version) does not pay for the ones it never needs.
type lazyRegexp string

var compiled sync.Map // lazyRegexp -> *regexp.Regexp

func (l lazyRegexp) MatchString(s string) bool {
	if re, ok := compiled.Load(l); ok {
		return re.(*regexp.Regexp).MatchString(s)
	}
	re, _ := compiled.LoadOrStore(l, regexp.MustCompile(string(l)))
	return re.(*regexp.Regexp).MatchString(s)
}
