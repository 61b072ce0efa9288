package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// code records the places where bash evaluates text as code behind the
// scenes: arithmetic on names, subscripts, indirection, transformations.
func (r *reader) code(n syntax.Node) {
	switch n := n.(type) {
	case *syntax.ArithmCmd:
		r.arithm(n.X, n)
	case *syntax.ArithmExp:
		r.arithm(n.X, n)
	case *syntax.CStyleLoop:
		r.arithm(n.Init, n)
		r.arithm(n.Cond, n)
		r.arithm(n.Post, n)
	case *syntax.Assign:
		r.arithm(n.Index, n)
	case *syntax.ArrayElem:
		r.arithm(n.Index, n)
	case *syntax.ParamExp:
		r.param(n)
	case *syntax.BinaryTest:
		switch n.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			x, _ := n.X.(*syntax.Word)
			y, _ := n.Y.(*syntax.Word)
			if x == nil || y == nil || !isNumber(x.Lit()) || !isNumber(y.Lit()) {
				r.opaque("%s compares values as arithmetic, which can run code held in a variable", n)
			}
		}
	case *syntax.UnaryTest:
		if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
			if w, ok := n.X.(*syntax.Word); !ok || !syntax.ValidName(w.Lit()) {
				r.opaque("%s evaluates an array subscript, which can run code", n)
			}
		}
	}
}

func (r *reader) arithm(x syntax.ArithmExpr, n syntax.Node) {
	if !plainArithm(x) {
		r.opaque("%s uses arithmetic on names or expansions, which bash evaluates as code", n)
	}
}

// safeParamOps are the ${x@OP} transformations that cannot run code (@P
// expands a prompt string, command substitutions included).
var safeParamOps = map[string]bool{"Q": true, "E": true, "A": true, "K": true, "a": true, "U": true, "u": true, "L": true, "k": true}

func (r *reader) param(p *syntax.ParamExp) {
	switch {
	case p.Excl && p.Names == 0 && !allElements(p.Index):
		r.opaque("%s expands a variable named by another variable, which can run code", p)
	case p.Index != nil && !allElements(p.Index) && !plainArithm(p.Index):
		r.opaque("%s has an array subscript bash evaluates as code", p)
	case p.Slice != nil && (!plainArithm(p.Slice.Offset) || !plainArithm(p.Slice.Length)):
		r.opaque("%s has offsets bash evaluates as arithmetic, which can run code", p)
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && (p.Exp.Word == nil || !safeParamOps[p.Exp.Word.Lit()]):
		r.opaque("%s transforms a value in a way that can run code", p)
	}
}

func allElements(x syntax.ArithmExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && (w.Lit() == "@" || w.Lit() == "*")
}

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
		return isNumber(e.Lit())
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

// nameArgs returns the words of the simple command cw that bash reads as
// variable names, where a subscript (a[$(rm -rf x)]) is evaluated as code.
func nameArgs(cw []Word) []Word {
	switch cw[0].Text {
	case "read", "mapfile", "readarray", "unset", "getopts", "wait":
		return cw[1:]
	case "printf", "test", "[":
		// printf -v NAME, test -v NAME, test -R NAME, and any word after
		// one computed at run time, which may turn out to be -v.
		var out []Word
		for i := 1; i+1 < len(cw); i++ {
			if cw[i].Text == "-v" || cw[i].Text == "-R" && cw[0].Text != "printf" || cw[i].Kind == Dynamic {
				out = append(out, cw[i+1])
			}
		}
		return out
	}
	return nil
}

func codeInName(w Word) bool {
	return w.Kind == Dynamic || strings.ContainsRune(w.Text, '[') && strings.ContainsAny(w.Text, "$`")
}

// decl handles declare, typeset, local, export, readonly and nameref: a
// command of their own, whose names are checked like nameArgs, and whose
// values bash evaluates as arithmetic (-i) or as a variable name (-n).
func (r *reader) decl(n *syntax.DeclClause) {
	words := []Word{{Text: n.Variant.Value}}
	flags := ""
	for _, arg := range n.Args {
		w := decodeAssign(arg)
		words = append(words, w)
		if arg.Naked && arg.Name == nil {
			if codeInName(w) {
				r.opaque("%s takes a name or an option computed at run time, which can run code", n)
			} else if strings.HasPrefix(w.Text, "-") {
				flags += w.Text
			}
		}
	}
	for _, arg := range n.Args {
		if arg.Naked || arg.Value == nil {
			continue
		}
		v := arg.Value.Lit()
		if strings.ContainsRune(flags, 'i') && !isNumber(v) || strings.ContainsRune(flags, 'n') && !syntax.ValidName(v) {
			r.opaque("%s evaluates its values as arithmetic or as variable names, which can run code", n)
			break
		}
	}
	r.command(Command{Words: words, Text: r.text(n)}, nil)
}
