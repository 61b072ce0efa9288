package why

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxNesting bounds how deep scripts given to bash -c, sh -c or eval are
// read.
const maxNesting = 3

// script matches every literal word of a bash command line: arguments,
// assignment values and redirection targets, in lists, pipelines,
// subshells, command and process substitutions, loops and functions, and
// in the literal scripts given to sh -c, bash -c or eval. A command that
// does not parse is split on blanks, quotes and operators instead.
func (m *matcher) script(src string, depth int) {
	if src == "" {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		m.fields(src)
		return
	}
	var visit func(syntax.Node) bool
	visit = func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Redirect:
			// The target of an output redirection is written; a here
			// document's body is text, not a word, though it may hold
			// command substitutions.
			if n.Word != nil {
				if s, ok := literal(n.Word); ok {
					m.word(s, writes(n.Op, s))
				}
				walkParts(n.Word, visit)
			}
			if n.Hdoc != nil {
				walkParts(n.Hdoc, visit)
			}
			return false
		case *syntax.Word:
			if s, ok := literal(n); ok {
				m.word(s, false)
			}
		case *syntax.CallExpr:
			if depth < maxNesting {
				if inner, ok := nested(n.Args); ok {
					m.script(inner, depth+1)
				}
			}
		}
		return true
	}
	syntax.Walk(f, visit)
}

// walkParts walks the parts of w, for the commands substituted in it,
// without taking w itself as a word.
func walkParts(w *syntax.Word, visit func(syntax.Node) bool) {
	for _, p := range w.Parts {
		syntax.Walk(p, visit)
	}
}

// writes reports whether a redirection with operator op to word writes to
// the file the word names.
func writes(op syntax.RedirOperator, word string) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		return true
	case syntax.DplOut:
		// >&2 and >&- duplicate or close a descriptor; >&file is &>file.
		return strings.Trim(word, "0123456789") != "" && word != "-"
	}
	return false
}

// nested returns the script a command runs from a literal argument: the
// argument after -c of sh, bash, dash or zsh, or eval's arguments joined.
func nested(args []*syntax.Word) (string, bool) {
	if len(args) < 2 {
		return "", false
	}
	name, ok := literal(args[0])
	if !ok {
		return "", false
	}
	switch name[strings.LastIndexByte(name, '/')+1:] {
	case "eval":
		parts := make([]string, 0, len(args)-1)
		for _, a := range args[1:] {
			s, ok := literal(a)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), true
	case "sh", "bash", "dash", "zsh":
		for i, a := range args[1 : len(args)-1] {
			if s, ok := literal(a); ok && strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "--") && strings.Contains(s, "c") {
				return literal(args[i+2])
			}
		}
	}
	return "", false
}

// literal returns the text a word stands for after quote removal, when it
// is fully literal: plain text, single quotes, $'...' without escapes, and
// double quotes without expansions. A word with a parameter, command or
// arithmetic expansion, a glob or brace pattern, or a leading tilde is not
// literal: what it names is known only when it runs.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") || !unquoted(&b, p.Value) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.ContainsRune(p.Value, '\\') {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				doubleQuoted(&b, lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unquoted writes the value of an unquoted literal, backslashes removed,
// and reports false when it holds an unescaped glob or brace character.
func unquoted(b *strings.Builder, s string) bool {
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
			}
		case '*', '?', '[', '{':
			return false
		}
		b.WriteByte(c)
	}
	return true
}

// doubleQuoted writes the value of a literal inside double quotes, where a
// backslash escapes only $, `, ", \ and a newline.
func doubleQuoted(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
			c = s[i]
		}
		b.WriteByte(c)
	}
}

// fields matches the words of a command that does not parse: its text
// split on blanks, quotes and shell operators, leaving out any word with
// expansion or glob characters.
func (m *matcher) fields(src string) {
	words := strings.FieldsFunc(src, func(r rune) bool {
		return strings.ContainsRune(" \t\n\r'\"`;&|()<>", r)
	})
	for _, w := range words {
		if !strings.ContainsAny(w, "$*?[{\\~") {
			m.word(w, false)
		}
	}
}
