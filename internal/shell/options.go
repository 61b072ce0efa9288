package shell

import (
	"strings"
	"sync"
)

// optKind says what an option takes.
type optKind uint8

const (
	// optUnknown: an option the analyser does not know; read as a flag.
	optUnknown optKind = iota
	// optFlag: no value.
	optFlag
	// optValue: a value, attached (-ovalue, --out=value) or the next word.
	optValue
	// optAttached: an optional value, attached only (-i.bak,
	// --in-place=.bak).
	optAttached
)

// options describes a program's options as getopt_long reads them. short
// is an optstring: letters, a ":" after one that takes a value, "::" after
// one whose value is optional and attached; a leading "+" means options end
// at the first operand (as for a wrapper, whose program's options are not
// its own), else they may come after operands too (GNU's permutation).
// long lists the long names, space-separated, with the same ":" and "::"
// marks. A long option may be abbreviated to any prefix that names it
// alone, as getopt_long allows. The zero options knows no option. An
// options is safe for concurrent use.
type options struct {
	short, long string
	once        sync.Once
	letters     [128]optKind
	names       map[string]optKind
	stop        bool
}

func opts(short, long string) *options { return &options{short: short, long: long} }

func (o *options) init() {
	o.once.Do(func() {
		s := o.short
		if strings.HasPrefix(s, "+") {
			o.stop, s = true, s[1:]
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c >= 128 || c == ':' {
				continue
			}
			k := optFlag
			if i+1 < len(s) && s[i+1] == ':' {
				k = optValue
				if i+2 < len(s) && s[i+2] == ':' {
					k = optAttached
				}
			}
			o.letters[c] = k
		}
		o.names = map[string]optKind{}
		for _, f := range strings.Fields(o.long) {
			name, marks, _ := strings.Cut(f, ":")
			k := optFlag
			switch {
			case marks == ":":
				k = optAttached
			case strings.Contains(f, ":"):
				k = optValue
			}
			o.names[name] = k
		}
	})
}

// longName returns the long option name stands for, exactly or as the one
// option it abbreviates, and its kind; an unknown or ambiguous name comes
// back as it is, optUnknown.
func (o *options) longName(name string) (string, optKind) {
	if k, ok := o.names[name]; ok {
		return name, k
	}
	found, kind := "", optUnknown
	for n, k := range o.names {
		if strings.HasPrefix(n, name) {
			if found != "" {
				return name, optUnknown
			}
			found, kind = n, k
		}
	}
	if found == "" {
		return name, optUnknown
	}
	return found, kind
}

// arg is one argument of a program, as its option parser reads it.
type arg struct {
	// i is the index of the word it starts at.
	i int
	// opt is the option as named, without dashes for a long one ("output"
	// for --out=x) and as the letter for a short one ("o"); "" for an
	// operand. long tells which.
	opt  string
	long bool
	kind optKind
	// val is the option's value when has: attached (from the same word)
	// or the next word, whose index is vi.
	val Word
	vi  int
	has bool
	// unsure marks a word that may be an option, an operand or several
	// words, the analyser cannot tell which: computed at run time without
	// a literal start that settles it, or a pattern that could expand to
	// an option. Nothing after it is read.
	unsure bool
}

// scan reads cw[from:] as the arguments of a program with options o and
// calls f for each, in order, until f returns false. strict says that
// the program's options can run programs or write files, so that a
// pattern that could expand to an option is unsure too (a file named
// -exec=sh in the directory); otherwise a pattern is an operand.
func (o *options) scan(cw []Word, from int, strict bool, f func(a arg) bool) {
	o.init()
	operands := false // after "--", or after the first operand when o.stop
	for i := from; i < len(cw); i++ {
		w := cw[i]
		if !operands {
			if args, ok := o.option(cw, i, strict); ok {
				for _, a := range args {
					if !f(a) || a.unsure {
						return
					}
					if a.has && a.vi > i {
						i = a.vi
						if v := cw[i]; v.Kind == Dynamic && v.Splits || v.Kind == Pattern {
							// The value may be several words, the
							// rest of them arguments of their own.
							f(arg{i: i, unsure: true})
							return
						}
					}
				}
				continue
			}
			if w.Kind == Literal && w.Text == "--" {
				operands = true
				continue
			}
		}
		if w.Kind == Dynamic && w.Splits && w.Anchor == "" {
			// Even after "--", its words may be any number of operands.
			f(arg{i: i, unsure: true})
			return
		}
		if !f(arg{i: i}) {
			return
		}
		operands = operands || o.stop
	}
}

// option reads cw[i] as options, one for each letter of a cluster (-rf),
// or reports that it is not one (an operand or "--").
func (o *options) option(cw []Word, i int, strict bool) ([]arg, bool) {
	w := cw[i]
	text := w.Text
	unsure := []arg{{i: i, unsure: true}}
	switch w.Kind {
	case Dynamic:
		switch {
		case w.Anchor != "":
			// $HOME/x, $PWD: an absolute path, never an option.
			return nil, false
		case w.Splits || w.Prefix == "" || w.Prefix == "-" || w.Prefix == "--":
			return unsure, true
		case !strings.HasPrefix(w.Prefix, "-"):
			return nil, false
		}
		text = w.Prefix
	case Pattern:
		lit := literalStart(text)
		if lit == "" && strict || strings.HasPrefix(lit, "-") && !strings.Contains(lit, "=") {
			return unsure, true
		}
		if !strings.HasPrefix(lit, "-") {
			return nil, false
		}
	}
	if !strings.HasPrefix(text, "-") || text == "-" || text == "--" {
		return nil, false
	}
	if strings.HasPrefix(text, "--") {
		return []arg{o.longOption(cw, i, text[2:])}, true
	}
	return o.shortOptions(cw, i, text[1:]), true
}

// longOption reads --name[=value] at cw[i]; body is the text after "--"
// (for a Dynamic word, its literal start).
func (o *options) longOption(cw []Word, i int, body string) arg {
	w := cw[i]
	name, value, eq := strings.Cut(body, "=")
	if w.Kind == Dynamic && !eq {
		// --na$x: not even the name is known.
		return arg{i: i, unsure: true}
	}
	name, kind := o.longName(name)
	a := arg{i: i, opt: name, long: true, kind: kind}
	switch {
	case eq:
		a.val, a.vi, a.has = valueWord(w, value), i, true
	case kind == optValue && i+1 < len(cw):
		a.val, a.vi, a.has = cw[i+1], i+1, true
	}
	return a
}

// shortOptions reads a cluster of short options at cw[i] (-abc, -ovalue,
// -o value); body is the text after "-". The first letter that takes a
// value takes the rest of the cluster, or the next word.
func (o *options) shortOptions(cw []Word, i int, body string) []arg {
	w := cw[i]
	var out []arg
	for j := 0; j < len(body); j++ {
		c := body[j]
		k := optUnknown
		if c < 128 {
			k = o.letters[c]
		}
		a := arg{i: i, opt: string(c), kind: k}
		switch {
		case k == optValue || k == optAttached:
			if rest := body[j+1:]; rest != "" || w.Kind == Dynamic {
				a.val, a.vi, a.has = valueWord(w, rest), i, true
			} else if k == optValue && i+1 < len(cw) {
				a.val, a.vi, a.has = cw[i+1], i+1, true
			}
			return append(out, a)
		case j == len(body)-1 && w.Kind == Dynamic:
			// -ab$x: letters to come are not known.
			return append(out, a, arg{i: i, unsure: true})
		}
		out = append(out, a)
	}
	return out
}

// valueWord is the value given in the same word as its option: the text
// after the option, or, when the word is computed, a Dynamic word.
func valueWord(w Word, text string) Word {
	switch w.Kind {
	case Dynamic:
		// A value glued to a known option is not split further than the
		// word is, and what the literal start holds of it is kept.
		return Word{Kind: Dynamic, Splits: w.Splits, Prefix: text}
	case Pattern:
		return Word{Text: text, Kind: Pattern, Tilde: strings.HasPrefix(text, "~")}
	}
	// A ~ after the = of a word that reads as an assignment (of=~/x) is
	// expanded by bash: a value starting with one is not the path it says.
	return Word{Text: text, Tilde: strings.HasPrefix(text, "~")}
}

// literalStart returns the start of a pattern's text before its first
// glob or brace character.
func literalStart(s string) string {
	if i := strings.IndexAny(s, "*?[{"); i >= 0 {
		return s[:i]
	}
	return s
}
