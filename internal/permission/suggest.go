package permission

import (
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/shell"
)

// SuggestRules returns the narrowest rules that would allow what in req no
// allow rule allows yet, for a person answering "always": for bash, one
// rule per such simple command, a prefix for a program with subcommands
// (go test ./... gives bash(go test:*), npm run build gives
// bash(npm run build:*)), else the exact command (echo bench-ok gives
// bash(echo bench-ok)), and a write_file rule for each file a redirection
// writes inside the workspace (echo x > notes.txt gives bash(echo x) and
// write_file(notes.txt)); for a tool with a path, the tool and that path
// (relative to the workspace root, or absolute in an added root); for any
// other tool, the tool alone. It returns nil when nothing is missing or no
// rule can express what is (a command whose name is computed at run time, a
// path outside the workspace, which file tools refuse whatever the rules
// say). The rules may not be enough on their own: a redirection outside the
// workspace, for instance, is never allowed by a rule.
func (p *Policy) SuggestRules(req Request) []Rule {
	in := decodeInput(req.Input)
	if req.External {
		return p.suggestExternal(req)
	}
	if req.Tool != bashTool {
		given := in.path()
		pi := p.pathInfo(given)
		for _, r := range p.allow[req.Tool] {
			if r.matchesPath(pi, false) {
				return nil
			}
		}
		text := req.Tool
		switch {
		case given == "":
		case !pi.inside, p.isHidden(pi):
			// File tools refuse paths outside the workspace whatever the
			// rules say, and a hidden path always asks: no rule would
			// help.
			return nil
		case pi.rel != "":
			text += "(" + escapeGlob(pi.rel) + ")"
		default:
			text += "(" + escapeGlob(pi.absSlash) + ")"
		}
		r, err := ParseRule(text)
		if err != nil {
			return nil
		}
		return []Rule{r}
	}
	if in.Command == nil {
		return nil
	}
	return rulesOf(p.suggestBash(analyzeBash(*in.Command)))
}

// DenyRules returns the rules a "never" answer saves for req: for a bash
// command, the rules of what was the reason to ask, the read-only
// commands beside it left out (never on rm -rf build && echo cleaned
// denies rm -rf build, not echo cleaned): the rules SuggestRules gives
// for the commands that do more than read, and a write_file rule for each
// file a redirection writes (never on ls > out.txt denies
// write_file(out.txt), not ls). A command whose allow rule would be a
// prefix that also names read-only uses (git log --output=x, whose
// prefix git log:* names every git log) is denied exactly, never by that
// prefix. When every command only reads and nothing is written, the
// rules of them all. For any other tool, SuggestRules' rules.
func (p *Policy) DenyRules(req Request) []Rule {
	in := decodeInput(req.Input)
	if req.External || req.Tool != bashTool {
		return p.SuggestRules(req)
	}
	if in.Command == nil {
		return nil
	}
	var reasons, all []Rule
	for _, s := range p.suggestBash(analyzeBash(*in.Command)) {
		switch {
		case s.path:
			reasons = append(reasons, s.rule)
		case s.readOnly:
			all = append(all, s.rule)
		case s.deny.IsZero():
			// No rule names this command alone without naming
			// read-only uses too: nothing is saved for it.
		default:
			reasons = append(reasons, s.deny)
		}
	}
	if len(reasons) > 0 {
		return reasons
	}
	return all
}

// suggestion is a rule an answer may save, and what it is for.
type suggestion struct {
	rule Rule
	// readOnly: the rule is for a command that only reads, which a
	// "never" answer leaves alone when the command it is part of does
	// more.
	readOnly bool
	// path: the rule is a write_file rule for a redirection's file.
	path bool
	// deny is the rule a "never" answer saves for the command: rule, or,
	// when rule is a prefix that also names read-only commands (git
	// log:*), the exact command; zero when the exact command cannot be
	// written as a rule.
	deny Rule
}

func rulesOf(ss []suggestion) []Rule {
	var out []Rule
	for _, s := range ss {
		out = append(out, s.rule)
	}
	return out
}

// suggestBash is SuggestRules for the bash command a: a rule for each
// command no rule allows yet, unless the rule allowing the command that
// runs it names it too, or only the project's rules allow it and it
// writes inside the workspace (which a project's rule does not allow in
// default mode, the person's does); then a write_file rule for each file
// a redirection writes inside the workspace that no rule allows, so that
// the command runs without a question next time in default mode too.
func (p *Policy) suggestBash(a *shell.Script) []suggestion {
	if !p.expressible(a) {
		return nil
	}
	acc := p.accesses(a)
	writes := map[int]bool{}
	for _, ac := range acc {
		if ac.class == writeInside && ac.cmd >= 0 {
			writes[ac.cmd] = true
		}
	}
	var out []suggestion
	add := func(s suggestion) {
		for _, o := range out {
			if o.rule.Equal(s.rule) {
				return
			}
		}
		out = append(out, s)
	}
	rules := make([]*Rule, len(a.Commands))
	for i := range a.Commands {
		c := &a.Commands[i]
		if r, ok := p.allowing(c); ok && (r.origin.Kind != FromProject || !writes[i]) {
			rules[i] = &r
			continue
		}
		if r := parentRule(rules, c, i); r != nil {
			rules[i] = r
			continue
		}
		r, ok := suggestCommand(c, false)
		if !ok {
			continue
		}
		rules[i] = &r
		add(suggestion{rule: r, readOnly: c.ReadOnly(), deny: denyCommand(c, r)})
	}
	for i := range acc {
		ac := &acc[i]
		if ac.cmd >= 0 || ac.class != writeInside || !ac.workspace || ac.pi == nil || ac.pi.rel == "" {
			continue
		}
		if _, ok := p.allowingPath(ac, true); ok {
			continue
		}
		if r, err := ParseRule("write_file(" + escapeGlob(ac.pi.rel) + ")"); err == nil {
			add(suggestion{rule: r, path: true})
		}
	}
	return out
}

// expressible reports whether rules can allow a at all: nothing in it is
// opaque but code pinned in a command's words, and it reads and writes no
// file that no rule allows (outside the workspace, under .git, known only
// at run time, a network device).
func (p *Policy) expressible(a *shell.Script) bool {
	if opaqueGap(a) != "" {
		return false
	}
	for _, ac := range p.accesses(a) {
		if ac.class != harmless && ac.class != writeInside {
			return false
		}
	}
	return true
}

// suggestCommand returns the rule an "always" answer saves for c: for a
// program with subcommands (see [subcommandPrograms]), the program and its
// subcommand with any further arguments (go test ./... gives
// bash(go test:*), npm run build gives bash(npm run build:*)); for anything
// else, or with exact, the exact command (echo bench-ok gives
// bash(echo bench-ok), rm -rf build gives bash(rm -rf build)); and nothing
// when the exact command has words known only at run time or patterns the
// shell would expand. The assignments before the command are kept in both
// forms. The rule allows c: parsed back, it covers what the person
// approved, and for an exact rule nothing more.
func suggestCommand(c *shell.Command, exact bool) (Rule, bool) {
	var parts []string
	for _, w := range c.Words[:c.NAssign] {
		if w.Kind == shell.Dynamic {
			return Rule{}, false
		}
		parts = append(parts, w.Source())
	}
	cw := c.Args()
	suffix := ""
	if n := subcommandPrefix(cw); n > 0 && !runsCode(cw[0].Text) && !exact {
		cw, suffix = cw[:n], ":*"
	}
	for _, w := range cw {
		if w.Kind != shell.Literal {
			return Rule{}, false
		}
		parts = append(parts, w.Source())
	}
	if len(parts) == 0 {
		return Rule{}, false
	}
	r, err := ParseRule("bash(" + strings.Join(parts, " ") + suffix + ")")
	return r, err == nil
}

// denyCommand returns the rule a "never" answer saves for c, whose
// "always" rule is r: r itself, unless r is a prefix whose words alone
// are a read-only command (git log:* for git log --output=x): denying it
// would deny every git log, so the exact command is denied instead. The
// zero Rule when that cannot be written.
func denyCommand(c *shell.Command, r Rule) Rule {
	if !r.prefix {
		return r
	}
	cw := c.Args()
	n := subcommandPrefix(cw)
	if n <= 0 {
		return r
	}
	parts := make([]string, 0, n)
	for _, w := range cw[:n] {
		parts = append(parts, w.Source())
	}
	s, _ := shell.Parse(strings.Join(parts, " "))
	if len(s.Commands) != 1 || !s.Commands[0].ReadOnly() {
		return r
	}
	exact, ok := suggestCommand(c, true)
	if !ok {
		return Rule{}
	}
	return exact
}

// ForHeadless turns an Ask into what a run that cannot ask records: a Deny
// by [ByHeadless] whose reason tells the model and the person how to allow
// the request next time (the exact --allow flags, or a --permission-mode
// that would allow it), each checked by deciding again with it. Other
// verdicts are returned unchanged.
func (p *Policy) ForHeadless(v Verdict, req Request) Verdict {
	if v.Decision != contract.Ask {
		return v
	}
	reason := strings.TrimSpace(v.Reason) + " This run cannot ask for approval, so it was denied."
	if in := decodeInput(req.Input); req.Tool != bashTool && in.path() != "" && !p.pathInfo(in.path()).inside {
		reason += " The path is outside the workspace, where file tools do not go unless its directory is added as a workspace root."
		return Verdict{Decision: contract.Deny, By: ByHeadless, Reason: reason}
	}
	var ways []string
	rules := p.SuggestRules(req)
	flags := make([]string, len(rules))
	for i, r := range rules {
		flags[i] = "--allow " + shellQuote(r.String())
	}
	alone := false
	if q, ok := p.try(p.mode, Rules{Allow: rules}); ok && len(rules) > 0 && q.Decide(req).Decision == contract.Allow {
		ways, alone = append(ways, strings.Join(flags, " ")), true
	}
	for _, m := range []Mode{AcceptEdits, Yolo} {
		if m == p.mode {
			continue
		}
		if q, ok := p.try(m, Rules{}); ok && q.Decide(req).Decision == contract.Allow {
			ways = append(ways, "--permission-mode "+string(m))
			break
		}
		// The rules allow the command, and the mode what it writes.
		if q, ok := p.try(m, Rules{Allow: rules}); ok && len(rules) > 0 && !alone && q.Decide(req).Decision == contract.Allow {
			ways = append(ways, "--permission-mode "+string(m)+" "+strings.Join(flags, " "))
			break
		}
	}
	if len(ways) > 0 {
		reason += " To allow it, run rein again with " + strings.Join(ways, ", or with ") + "."
	} else {
		reason += " Run rein interactively to approve it"
		if v.By == ByRule && p.isAskRule(v.Rule) {
			reason += ", or remove the ask rule " + v.Rule + " from your configuration"
		}
		reason += "."
	}
	return Verdict{Decision: contract.Deny, By: ByHeadless, Reason: reason}
}

// try is [Policy.With] for ForHeadless, which only needs to know whether
// the policy could be made.
func (p *Policy) try(m Mode, extra Rules) (*Policy, bool) {
	q, err := p.With(m, extra)
	return q, err == nil
}

func (p *Policy) isAskRule(text string) bool {
	for _, r := range p.rules.Ask {
		if r.String() == text {
			return true
		}
	}
	return false
}

// shellQuote quotes s as one shell word, in single quotes when it needs
// quoting at all, so the flag can be pasted as is.
func shellQuote(s string) string {
	if shell.Plain(s) {
		return s
	}
	if !strings.ContainsRune(s, '\'') {
		return "'" + s + "'"
	}
	q, err := shell.Quote(s)
	if err != nil {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}
