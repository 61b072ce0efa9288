package permission

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/shell"
)

// bashTool is the tool whose rule patterns are command prefixes rather than
// path globs.
const bashTool = "bash"

// builtinTools are rein's own tool names, used to catch a rule written with
// the wrong case (Claude Code spells its tools Bash, Edit...).
var builtinTools = []string{bashTool, "read_file", "write_file", "edit_file", "glob", "grep", "list_dir"}

// validToolName reports whether name may name a tool in a rule: 1 to 64
// letters, digits, '_' or '-', or up to 63 of them and a '*' (every tool
// whose name starts so).
func validToolName(name string) bool {
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		return prefix == "" || id.ValidName(prefix, id.MaxName-1)
	}
	return id.ValidName(name, id.MaxName)
}

// Rule names a tool and, optionally, which of its inputs it covers:
//
//	bash               any command
//	bash(go test:*)    a simple command whose words start with "go test"
//	bash(go version)   exactly the simple command "go version"
//	edit_file(docs/**) a path matching a doublestar glob
//	read_file          any input
//
// A bash pattern is read as shell words, so quotes work as in a shell
// (bash(git commit -m 'wip':*)), and it may start with variable assignments
// (bash(CGO_ENABLED=0 go build:*)). A path pattern is matched against the
// slash-separated path relative to the workspace root, or, when it starts
// with "/", against the absolute path. Other tools' patterns are path
// patterns too, matched against the input's "path".
//
// Make one with [ParseRule]. The zero Rule is not a valid rule: it matches
// nothing and [New] refuses it. A Rule is immutable and safe for concurrent
// use.
type Rule struct {
	tool    string
	pattern string // canonical pattern text; "" means any input
	// For bash patterns: the words, assignments first, and whether further
	// arguments are allowed (":*").
	words   []shell.Word
	nAssign int
	prefix  bool
	// origin is where the rule came from.
	origin Origin
}

// Origin says where a rule came from: the person's own configuration,
// the project's file, the person's answers, a flag. The zero Origin is a
// rule made in code, which counts as the person's.
type Origin struct {
	// Kind is who gave the rule.
	Kind OriginKind
	// File is the file that holds it; "" for a flag or a rule made in
	// code.
	File string
}

// OriginKind is who gave a rule. The zero OriginKind is unknown, and
// counts as the person's.
type OriginKind string

// The kinds of origin.
const (
	// FromUser is the person's own configuration file.
	FromUser OriginKind = "user"
	// FromProject is the project's .rein/config.toml, which comes with the
	// repository: its allow rules never lift default mode's question
	// before a write.
	FromProject OriginKind = "project"
	// FromAnswers is the person's "always" and "never" answers, kept in
	// their own file by project.
	FromAnswers OriginKind = "answers"
	// FromFlag is a command-line flag (--allow, --deny).
	FromFlag OriginKind = "flag"
)

// ParseRule reads a rule as written in a flag or the configuration, such as
// "bash(go test:*)" or "edit_file(docs/**)". The error says what is wrong
// and shows the expected shape.
func ParseRule(s string) (Rule, error) {
	r, err := parseRule(s)
	if err != nil {
		return Rule{}, fmt.Errorf("permission: %w", err)
	}
	return r, nil
}

// parseRule is ParseRule with errors that do not name the package, for
// callers that add their own context.
func parseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return Rule{}, errors.New("empty rule; want TOOL or TOOL(PATTERN), such as bash(go test:*) or edit_file(docs/**)")
	}
	name, pattern, hasPattern := text, "", false
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing the closing ')'; want TOOL(PATTERN), such as bash(go test:*)", s)
		}
		name, pattern, hasPattern = strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+1:len(text)-1]), true
	} else if strings.ContainsRune(text, ')') {
		return Rule{}, fmt.Errorf("rule %q: ')' without '('; want TOOL(PATTERN), such as bash(go test:*)", s)
	}
	if !validToolName(name) {
		return Rule{}, fmt.Errorf("rule %q: tool name %q: want 1 to 64 letters, digits, '_' or '-'", s, name)
	}
	if _, err := namePattern(name); err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", s, err)
	}
	for _, b := range builtinTools {
		if name != b && strings.EqualFold(name, b) {
			return Rule{}, fmt.Errorf("rule %q: no tool is called %q; did you mean %q?", s, name, b)
		}
	}
	r := Rule{tool: name}
	if !hasPattern {
		return r, nil
	}
	if pattern == "" {
		return Rule{}, fmt.Errorf("rule %q: empty pattern; write %s alone for any input", s, name)
	}
	if name == bashTool {
		if err := r.parseCommand(pattern); err != nil {
			return Rule{}, fmt.Errorf("rule %q: %w", s, err)
		}
		return r, nil
	}
	pattern = path.Clean(pattern)
	if !doublestar.ValidatePattern(pattern) {
		return Rule{}, fmt.Errorf("rule %q: %q is not a valid glob pattern (see https://github.com/bmatcuk/doublestar#patterns)", s, pattern)
	}
	r.pattern = pattern
	return r, nil
}

// ParseRules parses each of texts with [ParseRule], stopping at the first
// error.
func ParseRules(texts []string) ([]Rule, error) {
	out := make([]Rule, 0, len(texts))
	for _, t := range texts {
		r, err := ParseRule(t)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (r *Rule) parseCommand(pattern string) error {
	text, prefix := strings.CutSuffix(pattern, ":*")
	text = strings.TrimSpace(text)
	const shape = "want a command and its first arguments, such as go test:* (any further arguments) or go version (exactly)"
	if text == "" {
		return fmt.Errorf("empty command; %s, or bash alone for any command", shape)
	}
	c, err := shell.ParseCommand(text)
	var se *shell.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("cannot read %q as a shell command (%v); %s", text, se.Err, shape)
	case errors.Is(err, shell.ErrNotOne):
		return fmt.Errorf("%q is not one simple command; %s", text, shape)
	case err != nil:
		return fmt.Errorf("%q is not one simple command; a rule covers each command of a list or pipeline on its own; %s", text, shape)
	}
	words, nAssign := c.Words, c.NAssign
	for _, w := range words {
		if w.Kind == shell.Dynamic {
			return fmt.Errorf("%q has a word that depends on run-time values (a variable or a substitution); %s", text, shape)
		}
	}
	if nAssign < len(words) && words[nAssign].Kind != shell.Literal {
		return fmt.Errorf("the command name in %q must be a plain word; %s", text, shape)
	}
	if last := words[len(words)-1]; !prefix && last.Kind == shell.Pattern && last.Text == "*" {
		return fmt.Errorf("%q ends with a lone *, which would only match a literal *; write %s:* for any further arguments", text, strings.TrimSpace(strings.TrimSuffix(text, "*")))
	}
	r.words, r.nAssign, r.prefix = words, nAssign, prefix
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Source()
	}
	r.pattern = strings.Join(parts, " ")
	if prefix {
		r.pattern += ":*"
	}
	return nil
}

// Tool returns the tool the rule is about.
func (r Rule) Tool() string { return r.tool }

// Pattern returns the rule's pattern in its canonical form, or "" when the
// rule covers any input of its tool.
func (r Rule) Pattern() string { return r.pattern }

// IsZero reports whether r is the zero Rule, which is not a rule.
func (r Rule) IsZero() bool { return r.tool == "" }

// String returns the rule in its canonical form: ParseRule(r.String())
// gives back an equal rule. The zero Rule prints as "".
func (r Rule) String() string {
	if r.pattern == "" {
		return r.tool
	}
	return r.tool + "(" + r.pattern + ")"
}

// WithOrigin returns r, saying it came from o.
func (r Rule) WithOrigin(o Origin) Rule {
	r.origin = o
	return r
}

// Origin returns where r came from; the zero Origin when it was made in
// code.
func (r Rule) Origin() Origin { return r.origin }

// Equal reports whether r and o are the same rule, wherever each came
// from.
func (r Rule) Equal(o Rule) bool { return r.tool == o.tool && r.pattern == o.pattern }

// any reports whether the rule covers every input of its tool.
func (r *Rule) any() bool { return r.pattern == "" }

// allowsCommand is the strict match used by allow rules: the command's
// words, assignments included, start with (or, without ":*", are) the
// rule's words, each exactly as the shell will pass it.
func (r *Rule) allowsCommand(c *shell.Command) bool {
	if r.any() {
		return true
	}
	return matchWords(r.words, c.Words, r.prefix, false)
}

// catchesCommand is the broad match used by deny and ask rules: the strict
// match, or the rule's command words (its assignments dropped) matching the
// command's with its assignments dropped, the command name compared by its
// base name too (/bin/rm is rm), and, after a wrapper such as sudo, env,
// xargs or timeout, or in a command that runs a program the analyser
// could not place, starting at any later word.
func (r *Rule) catchesCommand(c *shell.Command) bool {
	if r.allowsCommand(c) {
		return true
	}
	rw := r.words[r.nAssign:]
	cw := c.Args()
	if len(rw) == 0 || len(cw) == 0 {
		return false
	}
	if matchWords(rw, cw, r.prefix, true) {
		return true
	}
	if shell.IsWrapper(cw[0]) || c.Unplaced {
		for i := 1; i < len(cw); i++ {
			if matchWords(rw, cw[i:], r.prefix, true) {
				return true
			}
		}
	}
	return false
}

func matchWords(rule, cmd []shell.Word, prefix, baseName bool) bool {
	if len(cmd) < len(rule) || (!prefix && len(cmd) != len(rule)) {
		return false
	}
	for i, rw := range rule {
		cw := cmd[i]
		if cw.Kind == shell.Dynamic {
			return false
		}
		if cw.Text == rw.Text && cw.Kind == rw.Kind {
			continue
		}
		if i == 0 && baseName && cw.Kind == shell.Literal && rw.Kind == shell.Literal && path.Base(cw.Text) == rw.Text {
			continue
		}
		return false
	}
	return true
}

// names reports whether a rule that allows a command names its word at
// index at too: a command the word's program runs is then what the rule
// allows (bash(npm exec eslint:*) names eslint; bash(go test:*) does not
// name the program of -exec).
func (r *Rule) names(at int) bool { return r.any() || at < len(r.words) }

// mayHoldMatches reports whether the tree below the path may hold files
// the rule's glob matches: the glob's directory before its first pattern
// character and the path lie one within the other.
func (r *Rule) mayHoldMatches(p *pathInfo) bool {
	if r.any() {
		return true
	}
	prefix := r.pattern
	if i := strings.IndexAny(prefix, "*?[{\\"); i >= 0 {
		prefix = prefix[:i]
	}
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		prefix = prefix[:i]
	} else {
		prefix = ""
	}
	tree := p.rel
	if strings.HasPrefix(r.pattern, "/") {
		tree = p.absSlash
	} else if p.rel == "" {
		return p.holdsRoot
	}
	if tree == "." {
		tree = ""
	}
	return prefix == "" || tree == "" || tree == prefix || strings.HasPrefix(prefix, tree+"/") || strings.HasPrefix(tree, prefix+"/")
}

// matchesPath reports whether the rule's glob matches the path. broad (deny
// and ask rules) also tries the path as written, so a symlink cannot hide a
// denied name; allow rules see only where the path really leads.
func (r *Rule) matchesPath(p *pathInfo, broad bool) bool {
	if r.any() {
		return true
	}
	if p.given == "" {
		return false
	}
	var candidates [2]string
	if strings.HasPrefix(r.pattern, "/") {
		candidates[0] = p.absSlash
		if broad {
			candidates[1] = p.givenAbs
		}
	} else {
		candidates[0] = p.rel
		if broad {
			candidates[1] = p.givenRel
		}
	}
	for _, c := range candidates {
		if c != "" && doublestar.MatchUnvalidated(r.pattern, c) {
			return true
		}
	}
	return false
}

// Rules are the allow, ask and deny lists of a policy. The zero value has
// no rules.
type Rules struct {
	Allow []Rule // what runs without asking
	Ask   []Rule // what always asks, even where a mode or rule would allow it
	Deny  []Rule // what never runs; deny wins over everything
}

// Merge returns r with o's rules appended to each list.
func (r Rules) Merge(o Rules) Rules {
	return Rules{
		Allow: append(append([]Rule(nil), r.Allow...), o.Allow...),
		Ask:   append(append([]Rule(nil), r.Ask...), o.Ask...),
		Deny:  append(append([]Rule(nil), r.Deny...), o.Deny...),
	}
}

// escapeGlob quotes the glob metacharacters of a file name so a pattern
// matches exactly that name.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '*', '?', '[', ']', '{', '}', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
