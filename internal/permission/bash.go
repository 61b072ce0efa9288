package permission

import (
	"fmt"
	"path"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// shellCommand is one simple command of a script.
type shellCommand struct {
	words   []word // assignments first, then the command name and arguments
	nAssign int
	text    string // as written, for messages
}

// fileWrite is an output redirection to a file.
type fileWrite struct {
	target word
	text   string // the redirection as written, for messages
}

// analysis is what a bash script would run, found without running it.
type analysis struct {
	cmds   []shellCommand
	writes []fileWrite
	// opaque lists, as sentences, what cannot be checked: a script that
	// does not parse, a command whose name is computed at run time,
	// arithmetic on variables. Nothing opaque is ever allowed by a rule.
	opaque []string
	// chdir is set when the script changes directory (cd, pushd, popd), so
	// relative redirection targets no longer start at the workspace root.
	chdir bool
}

// maxNesting bounds how deep scripts given to eval or bash -c are read.
const maxNesting = 4

// maxQuoted bounds the command text quoted in a reason.
const maxQuoted = 160

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// analyzeBash parses script and lists every simple command anywhere in it:
// in lists, pipelines, subshells, groups, command and process
// substitutions, here-documents, conditionals, loops and function bodies,
// and in the literal scripts given to eval, sh -c or bash -c.
func analyzeBash(script string) *analysis {
	a := &analysis{}
	a.add(script, 0)
	return a
}

func (a *analysis) add(script string, depth int) {
	p := parsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(script), "")
	parsers.Put(p)
	if err != nil {
		a.opaque = append(a.opaque, fmt.Sprintf("the command cannot be parsed (%v)", err))
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		a.visit(n, script, depth)
		return true
	})
}

func source(script string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(script) || start > end {
		return ""
	}
	return clip(script[start:end])
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func (a *analysis) visit(n syntax.Node, script string, depth int) {
	switch n := n.(type) {
	case *syntax.Stmt:
		for _, r := range n.Redirs {
			a.redirect(r, script)
		}
	case *syntax.CallExpr:
		words, nAssign := callWords(n)
		a.command(shellCommand{words: words, nAssign: nAssign, text: source(script, n)}, depth)
	case *syntax.DeclClause:
		a.decl(n, script, depth)
	case *syntax.LetClause:
		a.command(shellCommand{words: []word{{text: "let"}, {kind: kindDynamic}}, text: source(script, n)}, depth)
		for _, x := range n.Exprs {
			a.arithm(x, script, n)
		}
	case *syntax.ArithmCmd:
		a.arithm(n.X, script, n)
	case *syntax.ArithmExp:
		a.arithm(n.X, script, n)
	case *syntax.CStyleLoop:
		a.arithm(n.Init, script, n)
		a.arithm(n.Cond, script, n)
		a.arithm(n.Post, script, n)
	case *syntax.Assign:
		a.arithm(n.Index, script, n)
	case *syntax.ArrayElem:
		a.arithm(n.Index, script, n)
	case *syntax.ParamExp:
		a.param(n, script)
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			x, _ := n.X.(*syntax.Word)
			y, _ := n.Y.(*syntax.Word)
			if x == nil || y == nil || !number.MatchString(x.Lit()) || !number.MatchString(y.Lit()) {
				a.opaque = append(a.opaque, fmt.Sprintf("%s compares values as arithmetic, which can run code held in a variable", source(script, n)))
			}
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			if w, ok := n.X.(*syntax.Word); !ok || !syntax.ValidName(w.Lit()) {
				a.opaque = append(a.opaque, fmt.Sprintf("%s evaluates an array subscript, which can run code", source(script, n)))
			}
		}
	}
}

func (a *analysis) arithm(x syntax.ArithmExpr, script string, n syntax.Node) {
	if !plainArithm(x) {
		a.opaque = append(a.opaque, fmt.Sprintf("%s uses arithmetic on names or expansions, which bash evaluates as code", source(script, n)))
	}
}

// safeParamOps are the ${x@OP} transformations that cannot run code (@P
// expands a prompt string, command substitutions included).
var safeParamOps = map[string]bool{"Q": true, "E": true, "A": true, "K": true, "a": true, "U": true, "u": true, "L": true, "k": true}

func (a *analysis) param(p *syntax.ParamExp, script string) {
	switch {
	case p.Excl && p.Names == 0 && !allElements(p.Index):
		a.opaque = append(a.opaque, fmt.Sprintf("%s expands a variable named by another variable, which can run code", source(script, p)))
	case p.Index != nil && !allElements(p.Index) && !plainArithm(p.Index):
		a.opaque = append(a.opaque, fmt.Sprintf("%s has an array subscript bash evaluates as code", source(script, p)))
	case p.Slice != nil && (!plainArithm(p.Slice.Offset) || !plainArithm(p.Slice.Length)):
		a.opaque = append(a.opaque, fmt.Sprintf("%s has offsets bash evaluates as arithmetic, which can run code", source(script, p)))
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && (p.Exp.Word == nil || !safeParamOps[p.Exp.Word.Lit()]):
		a.opaque = append(a.opaque, fmt.Sprintf("%s transforms a value in a way that can run code", source(script, p)))
	}
}

func allElements(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

// nameArgs returns the words of the simple command cw that bash reads as
// variable names, where a subscript (a[$(rm -rf x)]) is evaluated as code.
func nameArgs(cw []word) []word {
	switch cw[0].text {
	case "read", "mapfile", "readarray", "unset", "getopts", "wait":
		return cw[1:]
	case "printf", "test", "[":
		// printf -v NAME, test -v NAME, test -R NAME, and any word after
		// one computed at run time, which may turn out to be -v.
		var out []word
		for i := 1; i+1 < len(cw); i++ {
			if cw[i].text == "-v" || cw[i].text == "-R" && cw[0].text != "printf" || cw[i].kind == kindDynamic {
				out = append(out, cw[i+1])
			}
		}
		return out
	}
	return nil
}

func codeInName(w word) bool {
	return w.kind == kindDynamic || strings.ContainsRune(w.text, '[') && strings.ContainsAny(w.text, "$`")
}

// decl handles declare, typeset, local, export, readonly and nameref: a
// command of their own, whose names are checked like nameArgs, and whose
// values bash evaluates as arithmetic (-i) or as a variable name (-n).
func (a *analysis) decl(n *syntax.DeclClause, script string, depth int) {
	text := source(script, n)
	words := []word{{text: n.Variant.Value}}
	flags := ""
	for _, arg := range n.Args {
		w := assignWord(arg)
		words = append(words, w)
		if arg.Naked && arg.Name == nil {
			if codeInName(w) {
				a.opaque = append(a.opaque, fmt.Sprintf("%s takes a name or an option computed at run time, which can run code", text))
			} else if strings.HasPrefix(w.text, "-") {
				flags += w.text
			}
		}
	}
	for _, arg := range n.Args {
		if arg.Naked || arg.Value == nil {
			continue
		}
		v := arg.Value.Lit()
		if strings.ContainsRune(flags, 'i') && !number.MatchString(v) || strings.ContainsRune(flags, 'n') && !syntax.ValidName(v) {
			a.opaque = append(a.opaque, fmt.Sprintf("%s evaluates its values as arithmetic or as variable names, which can run code", text))
			break
		}
	}
	a.command(shellCommand{words: words, text: text}, depth)
}

func (a *analysis) command(c shellCommand, depth int) {
	a.cmds = append(a.cmds, c)
	cw := c.words[c.nAssign:]
	if len(cw) == 0 {
		return
	}
	switch cw[0].kind {
	case kindDynamic:
		a.opaque = append(a.opaque, fmt.Sprintf("the command name in %s is computed at run time", c.text))
		return
	case kindPattern:
		a.opaque = append(a.opaque, fmt.Sprintf("the command name in %s has glob or brace characters the shell would expand", c.text))
		return
	}
	name := cw[0].text
	switch name {
	case "cd", "pushd", "popd":
		a.chdir = true
	}
	for _, w := range nameArgs(cw) {
		if codeInName(w) {
			a.opaque = append(a.opaque, fmt.Sprintf("%s takes variable names, and a computed name or an array subscript can run code", c.text))
			break
		}
	}
	// Scripts handed to eval or to a shell are read too, at any position
	// after a wrapper (sudo bash -c '...', xargs sh -c '...').
	for i := range cw {
		if i > 0 && !(cw[0].kind == kindLiteral && wrappers[path.Base(cw[0].text)]) {
			break
		}
		script, found, ok := nestedScript(cw[i:])
		if !found {
			continue
		}
		switch {
		case !ok:
			a.opaque = append(a.opaque, fmt.Sprintf("the script run by %s is computed at run time", c.text))
		case depth >= maxNesting:
			a.opaque = append(a.opaque, fmt.Sprintf("%s nests scripts too deep to check", c.text))
		default:
			a.add(script, depth+1)
		}
		break
	}
}

// shells are the programs whose -c argument is a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// nestedScript returns the script that the command ws runs as shell code:
// eval's arguments, or the argument of a shell's -c. found reports whether
// ws is such a command; ok whether its script is literal.
func nestedScript(ws []word) (script string, found, ok bool) {
	if ws[0].kind != kindLiteral {
		return "", false, false
	}
	switch name := path.Base(ws[0].text); {
	case name == "eval":
		parts := make([]string, 0, len(ws)-1)
		for _, w := range ws[1:] {
			if w.kind != kindLiteral {
				return "", true, false
			}
			parts = append(parts, w.text)
		}
		return strings.Join(parts, " "), true, true
	case shells[name]:
		for i := 1; i < len(ws); i++ {
			w := ws[i]
			switch {
			case w.kind == kindDynamic:
				return "", true, false
			case w.text == "-o" || w.text == "+o" || w.text == "-O" || w.text == "+O" || w.text == "--rcfile" || w.text == "--init-file":
				i++
			case strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") && strings.ContainsRune(w.text, 'c'):
				if i+1 >= len(ws) {
					return "", true, true
				}
				if ws[i+1].kind != kindLiteral {
					return "", true, false
				}
				return ws[i+1].text, true, true
			case strings.HasPrefix(w.text, "-") || strings.HasPrefix(w.text, "+"):
			default:
				// A script file: the shell runs that file, not code
				// written here.
				return "", false, false
			}
		}
	}
	return "", false, false
}

func (a *analysis) redirect(r *syntax.Redirect, script string) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
	case syntax.DplOut:
		// >&2, >&-, 2>&1 duplicate descriptors; >&file writes a file.
		if t := r.Word.Lit(); t == "-" || number.MatchString(t) {
			return
		}
	default:
		return
	}
	a.writes = append(a.writes, fileWrite{target: wordOf(r.Word), text: source(script, r)})
}
