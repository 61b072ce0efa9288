package permission

import (
	"fmt"
	"path"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/shell"
)

// pathTools are the tools whose path rules also judge the files a bash
// command reads and writes: read_file's for a read, write_file's and
// edit_file's for a write.
var (
	readTools  = []string{"read_file"}
	writeTools = []string{"write_file", "edit_file"}
)

func toolsFor(write bool) []string {
	if write {
		return writeTools
	}
	return readTools
}

// decideBash decides a bash intent, in the order of the package
// documentation; an Ask says whether rein can undo what the command
// changes.
func (p *Policy) decideBash(req Request, in input) Verdict {
	v, a, acc := p.decideScript(req, in)
	if v.Decision == contract.Ask && a != nil {
		v.Undoable = p.undoable(a, acc)
	}
	return v
}

// decideScript is decideBash but for Undoable, with the script it read
// and what it reads and writes (nil when it did not get that far).
func (p *Policy) decideScript(req Request, in input) (Verdict, *shell.Script, []access) {
	var a *shell.Script
	script := ""
	if in.Command == nil {
		a = &shell.Script{Opaque: []string{`the input has no "command" string`}}
	} else {
		script = *in.Command
		a = analyzeBash(script)
	}
	quoted := "`" + shell.Clip(script) + "`"
	if in.Command == nil {
		quoted = "this bash intent"
	}
	// 0. What no one may allow: the workspace, its repository, the home
	// directory or / swept away.
	if v, ok := p.refusal(a, quoted); ok {
		return v, nil, nil
	}
	acc := p.accesses(a)

	// 1. Deny rules, on every command and on every file it reads or writes.
	if v, ok := p.bashRule(contract.Deny, a, acc, quoted); ok {
		return v, a, acc
	}
	// 2. Plan mode's ceiling.
	if p.mode == Plan && !isRead(req.Risk, req.ReadOnly) {
		return byMode(contract.Deny, "Plan mode is read-only: bash cannot run."), a, acc
	}
	// The read-only ceiling: only the commands that read.
	if p.readsOnly {
		if ok, why := p.readOnly(a, acc); !ok {
			if why == "" {
				why = "rein cannot see that it only reads"
			}
			return byMode(contract.Deny, "This agent may only read: "+quoted+" is not a command that only reads ("+why+"), so it cannot run."), a, acc
		}
	}
	// 3. What cannot be read cannot be checked against deny or ask rules.
	if v, ok := p.unverifiable(a, acc, quoted); ok {
		return v, a, acc
	}
	// 4. Ask rules.
	if v, ok := p.bashRule(contract.Ask, a, acc, quoted); ok {
		return v, a, acc
	}
	// 5. What no rule allows: a network device, a protected file, a write
	// outside the writable roots.
	if ac := never(acc); ac != nil {
		v := p.bashMode(quoted, gap{text: ac.what() + ", which no rule can allow"})
		v.Firm = v.Decision == contract.Ask
		return v, a, acc
	}
	// 6. Allow rules: a bare bash allows all the rest; prefix rules every
	// command, and what it reads and writes must be fine too.
	v, g, ok := p.bashAllow(a, acc, quoted)
	if ok {
		return v, a, acc
	}
	if g.text == "" {
		g.text = "it runs no command a rule could allow"
	}
	g.single = len(a.Commands) == 1
	g.fine, g.unknown = fine(a, acc)
	if g.fine {
		g.readOnly, g.notReadOnly = p.readOnly(a, acc)
	}
	// 7. The mode.
	return p.bashMode(quoted, g), a, acc
}

// bashAllow is the step of the allow rules: their verdict when they
// decide, else what keeps them from allowing a.
func (p *Policy) bashAllow(a *shell.Script, acc []access, quoted string) (Verdict, gap, bool) {
	for _, r := range p.allow[bashTool] {
		if r.any() {
			return Verdict{Decision: contract.Allow, By: ByRule, Rule: r.String(), Reason: fmt.Sprintf("Allow rule %s allows every command.", r)}, gap{}, true
		}
	}
	used, g := p.coverage(a, acc)
	if g.text == "" && len(used) > 0 {
		reason := fmt.Sprintf("Allow rule%s %s allow%s every command of %s.", plural(len(used)), strings.Join(used, ", "), singular(len(used)), quoted)
		switch {
		case p.mode == AcceptEdits && writesInside(acc):
			reason += " Accept-edits mode allows its writes inside the workspace."
		case p.mode == Default && writesInside(acc):
			reason += " The rules allow what it writes inside the workspace too."
		}
		return Verdict{Decision: contract.Allow, By: ByRule, Rule: strings.Join(used, ", "), Reason: reason}, g, true
	}
	if g.write && len(used) > 0 {
		return byMode(contract.Ask, fmt.Sprintf("Allow rule%s %s allow%s every command of %s, but %s mode asks before writes: %s; accept-edits mode allows writes inside the workspace.",
			plural(len(used)), strings.Join(used, ", "), singular(len(used)), quoted, p.mode, g.text)), g, true
	}
	return Verdict{}, g, false
}

// gap is what keeps rules from allowing a command.
type gap struct {
	// text says what it is, as a clause.
	text string
	// bare: it is a command no rule allows; single: the only one.
	bare, single bool
	// write: it is a write inside the workspace, which default mode asks
	// about even when rules allow every command.
	write bool
	// fine: every effect of the command is seen and judged fine, so that
	// a sandbox without network may contain it.
	fine bool
	// unknown is, when only the program it names keeps the command from
	// being fine, the command whose program the analyser does not know.
	unknown string
	// readOnly: the command only reads, inside the workspace (see
	// readOnly), so default mode runs it as it does a read, in a sandbox.
	readOnly bool
	// notReadOnly says, of a command that reads as read-only but is not,
	// why: git in a repository whose configuration names a program.
	notReadOnly string
}

// bashMode is the mode's answer to a command no rule decided.
func (p *Policy) bashMode(quoted string, g gap) Verdict {
	mode := titleMode(p.mode)
	switch {
	case p.mode == Yolo:
		return byMode(contract.Allow, "Yolo mode allows everything no rule denies or asks about.")
	case g.readOnly && p.cont.Sandboxed:
		return byMode(contract.Allow, fmt.Sprintf("%s mode runs %s without asking: a read-only command (it reads only inside the workspace, "+
			"writes nothing and runs nothing else), in the sandbox.", mode, quoted))
	case p.mode == AcceptEdits && g.fine && p.contained():
		return byMode(contract.Allow, fmt.Sprintf("Accept-edits mode allows %s: the sandbox contains it (no network; writes only inside the workspace and the writable roots).", quoted))
	case p.mode == AcceptEdits && g.fine && !p.cont.Sandboxed:
		return byMode(contract.Ask, fmt.Sprintf("Accept-edits mode runs a command no rule allows only inside a sandbox, and there is no sandbox: %s needs approval.", quoted))
	case p.mode == AcceptEdits && g.fine:
		return byMode(contract.Ask, fmt.Sprintf("Accept-edits mode runs a command no rule allows only inside a sandbox without network, and this sandbox lets commands reach the network: %s needs approval.", quoted))
	case p.mode == AcceptEdits && g.unknown != "" && p.contained():
		return byMode(contract.Ask, fmt.Sprintf("Accept-edits mode asks before running %s: rein does not know what `%s` reads (the sandbox lets commands read outside the workspace), and no allow rule covers it.", quoted, g.unknown))
	}
	reason := fmt.Sprintf("%s mode asks before running commands, and no allow rule covers %s: %s.", mode, quoted, g.text)
	if g.bare && g.single {
		// The whole command is the gap: say so once.
		reason = fmt.Sprintf("%s mode asks before running commands, and no allow rule covers %s.", mode, quoted)
	}
	switch {
	case g.readOnly && p.mode == Default:
		reason += " It is a read-only command, which default mode runs without asking only inside a sandbox, and there is none."
	case g.notReadOnly != "" && p.mode == Default:
		reason += " It reads as a read-only command, but is not one: " + g.notReadOnly + "."
	}
	return byMode(contract.Ask, reason)
}

// bashRule returns the verdict of the first deny rule (d is Deny) or ask
// rule (d is Ask) that catches a command of a, or a file it reads or
// writes, with why.
func (p *Policy) bashRule(d contract.Decision, a *shell.Script, acc []access, quoted string) (Verdict, bool) {
	rules, reason := p.deny, "Deny rule %s forbids %s."
	if d == contract.Ask {
		rules, reason = p.ask, "Ask rule %s requires approval for %s."
	}
	by := func(r Rule, what string) (Verdict, bool) {
		return Verdict{Decision: d, By: ByRule, Rule: r.String(), Reason: fmt.Sprintf(reason, r, what)}, true
	}
	for _, r := range rules[bashTool] {
		if r.any() && d == contract.Deny {
			return by(r, "every command, so "+quoted+" cannot run")
		}
		if r.any() {
			return by(r, "every command")
		}
		for i := range a.Commands {
			if r.catchesCommand(&a.Commands[i]) {
				return by(r, fmt.Sprintf("`%s`, part of %s", a.Commands[i].Text, quoted))
			}
		}
	}
	for _, ac := range acc {
		if r, ok := p.pathRule(rules, ac); ok {
			return by(r, fmt.Sprintf("%s %s, which %s in %s would do", verbing(ac.write), ac.pi.given, ac.part, quoted))
		}
	}
	return Verdict{}, false
}

func verbing(write bool) string {
	if write {
		return "writing"
	}
	return "reading"
}

// pathRule returns the first rule with a pattern, in rules by tool, that
// catches the file of ac: the path tools' rules for its kind of access.
func (p *Policy) pathRule(rules map[string][]Rule, ac access) (Rule, bool) {
	if ac.pi == nil {
		return Rule{}, false
	}
	for _, tool := range toolsFor(ac.write) {
		for _, r := range rules[tool] {
			if !r.any() && r.matchesPath(ac.pi, true) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// unverifiable returns an Ask when something in a cannot be checked
// against the deny and ask rules with patterns: "deny wins" must not be
// undone by writing $(echo rm) instead of rm, or > "$F" instead of
// > .env.
func (p *Policy) unverifiable(a *shell.Script, acc []access, quoted string) (Verdict, bool) {
	if len(a.Opaque) > 0 {
		if r, ok := p.firstPatternRule(bashTool, "read_file", "write_file", "edit_file"); ok {
			return askBy(r, fmt.Sprintf("%s cannot be checked against rule %s: %s; it needs approval.", quoted, r, a.Opaque[0])), true
		}
	}
	for _, ac := range acc {
		if ac.class == readUnknown || ac.class == writeUnknown {
			if r, ok := p.firstPatternRule(toolsFor(ac.write)...); ok {
				return askBy(r, fmt.Sprintf("%s cannot be checked against rule %s: %s; it needs approval.", quoted, r, ac.what())), true
			}
		}
		if !ac.tree || ac.pi == nil {
			continue
		}
		for _, list := range []map[string][]Rule{p.deny, p.ask} {
			for _, tool := range toolsFor(ac.write) {
				for _, r := range list[tool] {
					if !r.any() && r.mayHoldMatches(ac.pi) {
						return askBy(r, fmt.Sprintf("%s cannot be checked against rule %s: %s, which may hold files the rule is about; it needs approval.", quoted, r, ac.what())), true
					}
				}
			}
		}
	}
	return Verdict{}, false
}

// firstPatternRule returns the first deny or ask rule with a pattern for
// one of tools.
func (p *Policy) firstPatternRule(tools ...string) (Rule, bool) {
	for _, list := range []map[string][]Rule{p.deny, p.ask} {
		for _, tool := range tools {
			for _, r := range list[tool] {
				if !r.any() {
					return r, true
				}
			}
		}
	}
	return Rule{}, false
}

// coverage returns the allow rules that allow a's commands and the files
// they read and write, in order, and what is left that they do not.
func (p *Policy) coverage(a *shell.Script, acc []access) (used []string, g gap) {
	if why := opaqueGap(a); why != "" {
		return nil, gap{text: why}
	}
	rules, missing := p.commandRules(a)
	if missing >= 0 {
		c := &a.Commands[missing]
		if c.Pinned {
			return nil, gap{text: fmt.Sprintf("`%s` runs code that only a rule naming the whole command exactly allows", c.Text)}
		}
		return nil, gap{text: fmt.Sprintf("`%s` is not allowed by any rule", c.Text), bare: true}
	}
	seen := map[string]bool{}
	add := func(r Rule) {
		if s := r.String(); !seen[s] {
			seen[s] = true
			used = append(used, s)
		}
	}
	for _, r := range rules {
		add(*r)
	}
	var write *access
	for i := range acc {
		ac := &acc[i]
		switch ac.class {
		case readOutside:
			r, ok := p.allowingPath(ac, false)
			if !ok {
				return nil, gap{text: ac.what()}
			}
			add(r)
		case readUnknown, writeUnknown:
			return nil, gap{text: ac.what()}
		case writeInside:
			if p.mode != Default {
				continue
			}
			if ownWrite(ac, rules) {
				// The rule that allows the command names the file too,
				// among the command's words (touch m1, go test
				// -coverprofile=c.out): the person allowed it.
				continue
			}
			if r, ok := p.allowingPath(ac, true); ok {
				add(r)
			} else if write == nil {
				write = ac
			}
		}
	}
	if write != nil {
		return used, gap{text: write.what(), write: true}
	}
	return used, gap{}
}

// ownWrite reports whether the write ac inside the writable roots is
// allowed by the rule that allows the command naming the file in its
// words: a rule the person gave (their configuration, a flag, an answer)
// allows what the command it names does inside the workspace, the files
// its words name written included. A redirection is the shell's, which no
// command's rule names, and a project's rule (which comes with the
// repository) allows running the command, not its writes in default mode.
func ownWrite(ac *access, rules []*Rule) bool {
	if ac.cmd < 0 || ac.cmd >= len(rules) || rules[ac.cmd] == nil {
		return false
	}
	return rules[ac.cmd].origin.Kind != FromProject
}

// opaqueGap returns the first thing in a that cannot be seen through,
// leaving out the code pinned in the words of a command (python3 -c
// '...'), which a rule naming that command exactly may allow; "" when
// there is none.
func opaqueGap(a *shell.Script) string {
	pinned := map[string]int{}
	for i := range a.Commands {
		if c := &a.Commands[i]; c.Pinned {
			for _, o := range c.Opaque {
				pinned[o]++
			}
		}
	}
	for _, o := range a.Opaque {
		if pinned[o] > 0 {
			pinned[o]--
			continue
		}
		return o
	}
	return ""
}

// commandRules returns, for each command of a, the rule that allows it:
// its own, or, for a command run through a program argument, the one that
// allows its parent when that rule names it too (bash(npm exec eslint:*)
// names the eslint that npm exec runs). A command with pinned code needs
// an exact rule. missing is the index of the first command no rule
// allows, -1 when there is none.
func (p *Policy) commandRules(a *shell.Script) (rules []*Rule, missing int) {
	rules = make([]*Rule, len(a.Commands))
	for i := range a.Commands {
		c := &a.Commands[i]
		if r, ok := p.allowing(c); ok {
			rules[i] = &r
			continue
		}
		if r := parentRule(rules, c, i); r != nil {
			rules[i] = r
			continue
		}
		return nil, i
	}
	return rules, -1
}

// parentRule returns the rule that allows the parent of c, the command at
// index i, when it names c too: an exact rule names every command its
// words run, the code written in them included; a prefix rule names the
// command whose program is among its words, unless c is part of a script
// or holds pinned code. rules are those of the commands before i.
func parentRule(rules []*Rule, c *shell.Command, i int) *Rule {
	if c.Parent < 0 || c.Parent >= i {
		return nil
	}
	r := rules[c.Parent]
	if r == nil || r.prefix && (c.Script || c.Pinned || !r.names(c.At)) {
		return nil
	}
	return r
}

// allowing returns the first allow rule that allows c, the person's
// before the project's (a person's rule allows the command's writes too);
// for a command with pinned code, the first exact one.
func (p *Policy) allowing(c *shell.Command) (Rule, bool) {
	var project *Rule
	for i, r := range p.allow[bashTool] {
		if !r.allowsCommand(c) || c.Pinned && r.prefix {
			continue
		}
		if r.origin.Kind != FromProject {
			return r, true
		}
		if project == nil {
			project = &p.allow[bashTool][i]
		}
	}
	if project != nil {
		return *project, true
	}
	return Rule{}, false
}

// allowingPath returns the first allow rule of the path tools that allows
// the file of ac: for a write inside the workspace, a write_file or
// edit_file rule (a bare one too, as for the tools); for a read outside,
// a read_file rule with a pattern that names it.
func (p *Policy) allowingPath(ac *access, write bool) (Rule, bool) {
	for _, tool := range toolsFor(write) {
		for _, r := range p.allow[tool] {
			if (write || !r.any()) && r.matchesPath(ac.pi, false) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// readOnly reports whether a only reads: every command of it is one the
// analyser reads as read-only ([shell.Command.ReadOnly]: a program that
// writes nothing but its output and runs nothing, with none of the
// options that would), every file it and its redirections read is inside
// the workspace roots, and it writes none but the harmless devices
// (/dev/null, the standard streams). What it reads through a link or a
// tree it walks is the sandbox's to hide (the credential stores). git
// reads what its repository's configuration says, so a script with git
// must not change directory (which repository git then finds is not
// known), and the repository git finds from the workspace root must have
// no configuration that makes it run a program or read elsewhere, and no
// hook a read runs (see gitRisk). When a reads as read-only but git makes
// it more, why says so.
func (p *Policy) readOnly(a *shell.Script, acc []access) (ok bool, why string) {
	if len(a.Opaque) > 0 || len(a.Commands) == 0 {
		return false, ""
	}
	for _, ac := range acc {
		if ac.class != harmless {
			return false, ""
		}
	}
	git := false
	for i := range a.Commands {
		c := &a.Commands[i]
		if !c.ReadOnly() {
			return false, ""
		}
		git = git || path.Base(c.Args()[0].Text) == "git"
	}
	if !git {
		return true, ""
	}
	if a.ChangesDir {
		return false, "the script changes directory before git runs, and which repository git reads there, with what configuration, is not known"
	}
	if risk := gitRisk(p.ws.Root(), p.indexes); risk != "" {
		return false, risk
	}
	return true, ""
}

// fine reports whether every effect of a is seen and judged fine: nothing
// opaque, every program one the analyser knows ([shell.Known]: what
// pr /outside/x reads is not seen), none found through a PATH the
// command sets, no file read outside the workspace or known only at run
// time, no write but inside the writable roots.
// When only a program the analyser does not know keeps a from being fine,
// unknown is the first such command's text.
func fine(a *shell.Script, acc []access) (ok bool, unknown string) {
	if len(a.Opaque) > 0 {
		return false, ""
	}
	for _, ac := range acc {
		if ac.class != harmless && ac.class != writeInside {
			return false, ""
		}
	}
	for i := range a.Commands {
		c := &a.Commands[i]
		for j, w := range c.Words {
			if setsPath(w) || j < c.NAssign && !plainAssign(w) {
				return false, ""
			}
		}
		if !plainDeclaration(c) {
			return false, ""
		}
		if len(c.Words) > c.NAssign && !shell.Known(c.Words[c.NAssign]) && unknown == "" {
			unknown = c.Text
		}
	}
	return unknown == "", unknown
}

// declarations are the builtins that set variables from their arguments.
var declarations = map[string]bool{"export": true, "declare": true, "typeset": true, "readonly": true, "local": true}

// plainDeclaration reports whether c, when it is a declaration builtin,
// sets only variables rein can name, none of them PATH: each argument a
// plain NAME or NAME=value, flags without -n (a nameref may make any name
// PATH). Any other command is plain.
func plainDeclaration(c *shell.Command) bool {
	args := c.Args()
	if len(args) == 0 || args[0].Kind != shell.Literal || !declarations[args[0].Text] {
		return true
	}
	for _, w := range args[1:] {
		switch {
		case strings.HasPrefix(w.Text, "-") || strings.HasPrefix(w.Text, "+"):
			if w.Kind != shell.Literal || strings.ContainsRune(w.Text, 'n') {
				return false
			}
		case !plainAssign(w):
			return false
		}
	}
	return true
}

// plainAssign reports whether w sets (or names) one ordinary variable that
// is not PATH: NAME, NAME=value or NAME+=value, the value possibly
// computed; not an array element, an array, or a name made by expansion.
func plainAssign(w shell.Word) bool {
	text := w.Text
	if w.Kind == shell.Dynamic {
		text = w.Prefix
		if !strings.Contains(text, "=") {
			return false
		}
	}
	name, _, _ := strings.Cut(text, "=")
	name = strings.TrimSuffix(name, "+")
	return name != "PATH" && shell.ValidName(name)
}

// setsPath reports whether w may set PATH (PATH=., export PATH+=:x, the
// name given to read or printf -v), which changes what program a name
// runs.
func setsPath(w shell.Word) bool {
	text := w.Text
	if w.Kind == shell.Dynamic {
		text = w.Prefix
	}
	return text == "PATH" || strings.HasPrefix(text, "PATH=") || strings.HasPrefix(text, "PATH+=")
}

// writesInside reports whether a command writes a file inside the
// writable roots.
func writesInside(acc []access) bool {
	for _, ac := range acc {
		if ac.class == writeInside {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n > 1 {
		return "s"
	}
	return ""
}

func singular(n int) string {
	if n > 1 {
		return ""
	}
	return "s"
}

// OnlyReads reports whether req only reads: a read tool's call (read
// risk, read-only), or a bash command every part of which the analyser
// reads as read-only inside the workspace (see readOnly). An MCP tool's
// claim of reading is not taken. It decides nothing: a session started in
// the person's home directory asks before the first call that does more.
func (p *Policy) OnlyReads(req Request) bool {
	switch {
	case req.External:
		return false
	case req.Tool != bashTool:
		return isRead(req.Risk, req.ReadOnly)
	}
	in := decodeInput(req.Input)
	if in.Command == nil {
		return false
	}
	a := analyzeBash(*in.Command)
	acc := p.accesses(a)
	if ok, _ := fine(a, acc); !ok {
		return false
	}
	ok, _ := p.readOnly(a, acc)
	return ok
}
