package shell

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rein-agent/rein/internal/excerpt"
	"mvdan.cc/sh/v3/syntax"
)

// Limits on what Parse reads, so that hostile input costs bounded time and
// memory. What goes past them is opaque.
const (
	// MaxSource is the longest script, nested ones included, that is read:
	// 64 KiB, far more than any command a person would approve, little
	// enough that reading a hostile one costs a few milliseconds.
	MaxSource = 64 << 10
	// MaxNesting is how deep scripts given to eval or sh -c are read: the
	// top-level script is depth 0, a command at MaxNesting that runs
	// another script is opaque.
	MaxNesting = 4
	// maxBrackets and maxBlocks bound the nesting of brackets and of
	// compound commands (if, while, case...) the parser is given: it
	// recurses once per level, so deep nesting costs it quadratic time
	// and, past some hundred thousand levels, its whole stack.
	maxBrackets = 1000
	maxBlocks   = 4096
	// maxOpeners and maxBlockWords bound how many brackets and block
	// keywords a script opens at all: a closer the count sees may be
	// quoted, escaped or in a comment, where the parser does not close
	// anything, so the depth count alone can be led to undercount.
	maxOpeners    = 10 * maxBrackets
	maxBlockWords = 2 * maxBlocks
	// maxNodes bounds the syntax nodes visited over a script and its
	// nested ones, and the words of the commands run through program
	// arguments.
	maxNodes = 1 << 20
	// maxRuns bounds how many commands deep a chain of commands run
	// through program arguments goes (sudo timeout xargs env nice ...):
	// each copies the words after it.
	maxRuns = 8
	// maxQuoted bounds the command text kept for messages.
	maxQuoted = 160
)

// Script is what a bash script would run, read and write, found without
// running it. Its lists are flat: the commands of scripts run by eval, sh
// -c or bash -c follow the command that runs them, with a greater Depth.
// A Script is not safe for concurrent change; reading it is.
type Script struct {
	// Commands are the simple commands anywhere in the script, in source
	// order: in lists, pipelines, subshells, groups, command and process
	// substitutions, here-documents, conditionals, loops and function
	// bodies, and in the literal scripts nested commands run. declare,
	// export, local and let are commands too.
	Commands []Command
	// Redirects are the redirections of every statement, an outer
	// statement's before those of the commands inside it.
	Redirects []Redirect
	// Words holds every word of the script but redirection targets and
	// here-document bodies, in the order met: command words, assignment
	// values, for-loop items, case subjects, [[ ]] operands and the words
	// inside expansions.
	Words []Word
	// Opaque lists, as sentences, what cannot be seen through: a script
	// that does not parse or is too large, a command whose name is
	// computed at run time, a computed script for eval or sh -c, scripts
	// nested too deep, and the places where bash evaluates text as code
	// behind the scenes (arithmetic on names, ${!x}, ${x@P}, computed or
	// subscripted variable names).
	Opaque []string
	// Unparsed holds the sources, the script itself or a nested one, that
	// were not read because they do not parse or pass the limits.
	Unparsed []string
	// ChangesDir reports a cd, pushd or popd: relative paths after it no
	// longer start where the script started.
	ChangesDir bool
}

// Command is one simple command of a script, or a command it runs
// through a program argument (the program sudo or xargs runs, find's
// -exec, go test's -exec): such a command follows the one that runs it in
// [Script.Commands], at the same Depth, with Parent set.
type Command struct {
	// Words are the command's words, its variable assignments first.
	Words []Word
	// NAssign is how many of Words are assignments (FOO=bar before the
	// command's name, or given to env).
	NAssign int
	// Roles says, for each of Words, what the command does with it.
	Roles []Role
	// Text is the command as written, blanks collapsed and cut to 160
	// bytes, for messages.
	Text string
	// Depth is 0 for a command of the script itself, n for one in a
	// script nested n deep.
	Depth int
	// Files are the files the command names in its arguments and reads or
	// writes (cat's operands, sort -o's value, dd's of=), as far as the
	// analyser knows the program. Redirections are in [Script.Redirects].
	Files []File
	// Parent is the index in [Script.Commands] of the command that runs
	// this one, through a program argument or as part of a script it runs
	// (sh -c, eval, git -c alias.x='!...'), or -1 for a command of the
	// script itself.
	Parent int
	// At is, when Parent is not -1, the index in the parent's Words of the
	// word that names this command's program or holds it (go test
	// -exec='prog args'), or holds its script (len(Words) when the script
	// is a variable's value): a rule that matches the parent's words up to
	// and including At names this command too.
	At int
	// Script reports that the command is part of a script its parent runs:
	// only a rule naming the parent's words exactly names it.
	Script bool
	// Opaque lists what the command's own words hold that cannot be seen
	// through: code in a language the analyser does not read, a program
	// computed at run time. Each is in [Script.Opaque] too.
	Opaque []string
	// Pinned reports that everything in Opaque is code written out in the
	// command's words (python3 -c '...', an awk program): a rule naming the
	// command exactly names that code too.
	Pinned bool
	// Unplaced reports that the command runs a program given in its
	// arguments that the analyser could not place (an option it does not
	// know before it, a computed word): a caller that must not be fooled
	// (a deny rule) looks at every word after the command's name, as for
	// a wrapper ([IsWrapper]).
	Unplaced bool
	// Moved reports that the command runs in another directory than the
	// script around it, one a command that runs it moves to first (env
	// -C, sudo -D): its relative paths do not start where the script is.
	Moved bool
}

// Args returns the command's name and arguments, its assignments left out.
func (c *Command) Args() []Word { return c.Words[c.NAssign:] }

// Program returns the index in Words of the word naming the program the
// command finally runs, through wrappers (sudo -u x make gives make's), or
// -1 when it runs none or the analyser cannot tell (a computed name, a
// wrapper whose program it cannot place).
func (c *Command) Program() int {
	if len(c.Roles) <= c.NAssign || c.Roles[c.NAssign] != RoleProgram {
		return -1
	}
	p := c.NAssign + chainEnd(c.Args())
	if p < c.NAssign || IsWrapper(c.Words[p]) {
		return -1
	}
	return p
}

// File is a file a command names in its arguments and reads or writes.
type File struct {
	// Word is the index in the command's Words of the word that names it.
	Word int
	// Path is the file's name: the word itself, or part of it (the value
	// of -o=x, --output=x or of=x, a file a sed or awk program names).
	// A Dynamic Path is known only at run time.
	Path Word
	// Role is RoleRead or RoleWrite.
	Role Role
	// Tree reports that the command reads or writes everything below Path
	// too (rm -r, chmod -R, find -delete, tar -x into a directory).
	Tree bool
	// Moved reports that a relative Path does not start where the command
	// runs but in a directory it moves to first (git -C, env -C, tar -C).
	Moved bool
}

// Redirect is one redirection.
type Redirect struct {
	// Op is the operator as written: >, >>, <, <<, <<<, >&, &>, <> ...
	Op string
	// Target is the file, descriptor or here-document delimiter.
	Target Word
	// Role is RoleWrite for a redirection that writes the file Target
	// names (>, >>, >|, &>, &>>, <>, >&file), RoleRead for one that reads
	// it (<), and RoleArg for the rest (descriptors, here-documents).
	Role Role
	// Text is the redirection as written, for messages.
	Text string
	// Depth is the depth of the script the redirection is in, as
	// [Command.Depth].
	Depth int
}

// SyntaxError is a script that is not valid bash, or is beyond the limits
// of what Parse reads.
type SyntaxError struct {
	// Err is the parser's error, or says which limit was passed.
	Err error
}

// Error says why the script was not read.
func (e *SyntaxError) Error() string { return "shell: " + e.Err.Error() }

// Unwrap returns e.Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// Parse reads src as a bash script and returns everything it would run,
// read and write, without running anything. It always returns a Script;
// the error, a *SyntaxError, says that src itself could not be read, in
// which case the Script holds only that in Opaque and Unparsed. A nested
// script that cannot be read is reported in the Script only. Parse is
// safe for concurrent use.
func Parse(src string) (*Script, error) {
	r := &reader{s: &Script{}, parent: -1}
	err := r.add(src, 0)
	return r.s, err
}

// reader builds a Script.
type reader struct {
	s *Script
	// src is the source being walked, for the text of nodes.
	src   string
	depth int
	nodes int
	// runs is how deep the command being read is in a chain of commands
	// run through program arguments.
	runs int
	// parent and at are, while a nested script is read, the index of the
	// command that runs it and of its word that holds it; parent is -1
	// otherwise.
	parent, at int
}

// add reads one script, at depth; the error is why src was not read.
func (r *reader) add(src string, depth int) error {
	p := parsers.Get().(*syntax.Parser)
	f, err := parseBounded(p, src)
	parsers.Put(p)
	if err != nil {
		r.s.Opaque = append(r.s.Opaque, fmt.Sprintf("the command cannot be parsed (%v)", err))
		r.s.Unparsed = append(r.s.Unparsed, src)
		return &SyntaxError{Err: err}
	}
	outer, outerDepth := r.src, r.depth
	r.src, r.depth = src, depth
	syntax.Walk(f, r.visit)
	r.src, r.depth = outer, outerDepth
	return nil
}

// errTooLarge, errTooDeep and errTooMany are the limits a script can
// pass.
var (
	errTooLarge = fmt.Errorf("it is longer than %d bytes", MaxSource)
	errTooDeep  = errors.New("it nests brackets or blocks too deep to read")
	errTooMany  = fmt.Errorf("it opens more than %d brackets or %d blocks", maxOpeners, maxBlockWords)
)

func parseBounded(p *syntax.Parser, src string) (*syntax.File, error) {
	if len(src) > MaxSource {
		return nil, errTooLarge
	}
	if err := tooDeep(src); err != nil {
		return nil, err
	}
	return p.Parse(strings.NewReader(src), "")
}

// tooDeep reports why src may nest past what the parser is given, or nil. It
// counts brackets, backquotes and block keywords wherever they are, quotes
// and comments included, checking the depth at each one (a run of $( with
// no blank between counts at its deepest), and refuses a script that opens
// too many in all: a closer it counts may be quoted, escaped or in a
// comment, so the depth alone could be led to undercount, but the
// openers cannot. A backquote opens or closes a substitution, so each
// counts as an opener; one after n backslashes is n levels deeper than a
// bare one (\` nests inside `...`), which is what it adds to the depth.
func tooDeep(src string) error {
	brackets, blocks, opened, blockWords := 0, 0, 0, 0
	for _, f := range strings.FieldsFunc(src, isBlank) {
		switch f {
		case "if", "while", "until", "for", "select", "case", "function":
			blocks++
			blockWords++
			if err := limit(blocks, maxBlocks, blockWords, maxBlockWords); err != nil {
				return err
			}
		case "fi", "done", "esac":
			blocks = max(blocks-1, 0)
		}
		escapes := 0
		for i := 0; i < len(f); i++ {
			switch f[i] {
			case '(', '{', '[':
				brackets++
				opened++
				if err := limit(brackets, maxBrackets, opened, maxOpeners); err != nil {
					return err
				}
			case ')', '}', ']':
				brackets = max(brackets-1, 0)
			case '`':
				opened++
				if err := limit(brackets+1+escapes, maxBrackets, opened, maxOpeners); err != nil {
					return err
				}
			}
			if f[i] == '\\' {
				escapes++
			} else {
				escapes = 0
			}
		}
	}
	return nil
}

// limit says which limit a depth and a total have passed, if any.
func limit(depth, maxDepth, total, maxTotal int) error {
	switch {
	case depth > maxDepth:
		return errTooDeep
	case total > maxTotal:
		return errTooMany
	}
	return nil
}

func isBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|'
}

// span is where a word is in the source being walked: src[start:end].
type span struct{ start, end int }

// spans returns where the words of c are, in the order of [callWords],
// from saying which argument each comes from (-1 for an assignment): the
// words a brace expansion makes are all where it is.
func (r *reader) spans(c *syntax.CallExpr, from []int) []span {
	out := make([]span, 0, len(from))
	for _, a := range c.Assigns {
		out = append(out, span{int(a.Pos().Offset()), int(a.End().Offset())})
	}
	for _, i := range from[len(c.Assigns):] {
		w := c.Args[i]
		out = append(out, span{int(w.Pos().Offset()), int(w.End().Offset())})
	}
	return out
}

// text returns the source of n, for messages.
func (r *reader) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(r.src) || start > end {
		return ""
	}
	return Clip(r.src[start:end])
}

// Clip returns s with its runs of blanks made one space, cut to 160 bytes
// (at a character boundary, with an ellipsis) when longer: a command as
// quoted in a message. Only the start of s is read, so that quoting every
// node of a deeply nested script costs time in proportion to the nodes,
// not to the nodes times the script.
func Clip(s string) string {
	cut := len(s) > clipRead
	if cut {
		s = excerpt.Prefix(s, clipRead)
	}
	s = excerpt.Text(strings.Join(strings.Fields(s), " "), maxQuoted)
	if cut && !strings.HasSuffix(s, excerpt.Marker) {
		s += excerpt.Marker
	}
	return s
}

// clipRead is how much of a text Clip reads: enough to fill maxQuoted
// bytes unless most of it is blank.
const clipRead = 4 * maxQuoted

func (r *reader) opaque(format string, n syntax.Node) {
	r.s.Opaque = append(r.s.Opaque, fmt.Sprintf(format, r.text(n)))
}

func (r *reader) visit(n syntax.Node) bool {
	if n == nil {
		return true
	}
	if r.nodes++; r.nodes == maxNodes {
		r.s.Opaque = append(r.s.Opaque, "the command is too large to check")
		r.s.Unparsed = append(r.s.Unparsed, r.src)
	}
	if r.nodes >= maxNodes {
		return false
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		for _, rd := range n.Redirs {
			r.redirect(rd)
		}
	case *syntax.Redirect:
		// The target and a here-document's body are not words of the
		// script, but their substitutions run.
		r.walkParts(n.Word)
		r.walkParts(n.Hdoc)
		return false
	case *syntax.Word:
		r.s.Words = append(r.s.Words, decode(n))
	case *syntax.CallExpr:
		words, nAssign, from := callWords(n)
		r.command(Command{Words: words, NAssign: nAssign, Text: r.text(n)}, r.spans(n, from))
	case *syntax.DeclClause:
		r.decl(n)
	case *syntax.LetClause:
		r.command(Command{Words: []Word{{Text: "let"}, {Kind: Dynamic}}, Text: r.text(n)}, nil)
		for _, x := range n.Exprs {
			r.arithm(x, n)
		}
	default:
		r.code(n)
	}
	return true
}

// walkParts walks the parts of w, for the commands substituted in it,
// without taking w itself as a word.
func (r *reader) walkParts(w *syntax.Word) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		syntax.Walk(p, r.visit)
	}
}

func (r *reader) redirect(rd *syntax.Redirect) {
	role := RoleArg
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		role = RoleWrite
	case syntax.DplOut:
		// >&2, >&-, 2>&1 duplicate descriptors; >&file writes a file.
		if t := rd.Word.Lit(); t != "-" && !isNumber(t) {
			role = RoleWrite
		}
	case syntax.RdrIn:
		role = RoleRead
	}
	r.s.Redirects = append(r.s.Redirects, Redirect{
		Op: rd.Op.String(), Target: decode(rd.Word), Role: role, Text: r.text(rd), Depth: r.depth,
	})
}

// The ways a text fails to be one simple command, for [ParseCommand].
var (
	// ErrNotOne: the text is not exactly one statement.
	ErrNotOne = errors.New("shell: not one statement")
	// ErrNotSimple: one statement, but not a plain simple command: a list,
	// a pipeline, a compound command, or one with redirections, !, & or
	// coproc.
	ErrNotSimple = errors.New("shell: not a simple command")
)

// ParseCommand reads src as exactly one simple command, such as a rule's
// command pattern. Its words are decoded as [Parse] does, but nothing is
// checked for being opaque. It fails with a *SyntaxError when src is not
// bash, and with [ErrNotOne] or [ErrNotSimple].
func ParseCommand(src string) (*Command, error) {
	p := parsers.Get().(*syntax.Parser)
	f, err := parseBounded(p, src)
	parsers.Put(p)
	if err != nil {
		return nil, &SyntaxError{Err: err}
	}
	if len(f.Stmts) != 1 {
		return nil, ErrNotOne
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return nil, ErrNotSimple
	}
	words, nAssign, _ := callWords(call)
	return &Command{Words: words, NAssign: nAssign, Text: Clip(src), Parent: -1}, nil
}
