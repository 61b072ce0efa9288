package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/shell"
	"github.com/rein-agent/rein/internal/workspace"
)

// Who decided, as the tool.permission event's "by" field says it.
const (
	ByMode     = "mode"
	ByRule     = "rule"
	ByHeadless = "headless"
	ByUser     = "user"
)

// Request is one tool intent as the policy sees it.
type Request struct {
	// Tool is the tool's name.
	Tool string
	// Risk and ReadOnly come from the tool's registry definition. The zero
	// Risk is treated as the most reaching: not a read.
	Risk     registry.Risk
	ReadOnly bool
	// Input is the intent's parsed JSON input. The policy reads "command"
	// for bash and "path" for every other tool; a missing or malformed
	// field only means no pattern rule can match.
	Input json.RawMessage
}

// RequestFor returns the request for running t with input.
func RequestFor(t registry.Tool, input json.RawMessage) Request {
	return Request{Tool: t.Name, Risk: t.Risk, ReadOnly: t.ReadOnly, Input: input}
}

// Verdict is a policy's answer to a request. The zero Verdict has no
// decision and is never returned.
type Verdict struct {
	Decision contract.Decision
	// By is who decided: [ByMode], [ByRule] or, after [Policy.ForHeadless],
	// [ByHeadless]. The caller records [ByUser] when a person answers an
	// Ask.
	By string
	// Rule is the text of the rule that decided, when By is ByRule. When
	// several allow rules together allowed a compound command, they are
	// listed in the order of the commands, separated by ", ".
	Rule string
	// Reason says, in a sentence for people and for the model, why.
	Reason string
}

// Event returns the verdict as the tool.permission event of intentID.
func (v Verdict) Event(intentID string) *contract.ToolPermission {
	return &contract.ToolPermission{IntentID: intentID, Decision: v.Decision, By: v.By, Rule: v.Rule, Reason: v.Reason}
}

// Policy decides whether a tool intent may run: deny rules first, then the
// plan mode's read-only ceiling, then ask rules, then allow rules, then the
// mode. It is immutable and safe for concurrent use.
type Policy struct {
	mode  Mode
	rules Rules
	ws    *workspace.Workspace
	// The rules by tool name.
	allow, ask, deny map[string][]Rule
}

// New returns the policy of mode (the zero Mode is Default) with rules,
// for the workspace ws, which is required: path rules and accept-edits are
// about paths inside it. A zero Rule in rules is an error.
func New(mode Mode, rules Rules, ws *workspace.Workspace) (*Policy, error) {
	if mode == "" {
		mode = Default
	}
	switch mode {
	case Default, AcceptEdits, Plan, Yolo:
	default:
		return nil, fmt.Errorf("permission: unknown permission mode %q; want one of %s", mode, modeList())
	}
	if ws == nil {
		return nil, errors.New("permission: a policy needs a workspace")
	}
	p := &Policy{mode: mode, rules: rules.Merge(Rules{}), ws: ws}
	var err error
	if p.allow, err = index("allow", rules.Allow); err != nil {
		return nil, err
	}
	if p.ask, err = index("ask", rules.Ask); err != nil {
		return nil, err
	}
	if p.deny, err = index("deny", rules.Deny); err != nil {
		return nil, err
	}
	return p, nil
}

func index(list string, rules []Rule) (map[string][]Rule, error) {
	m := map[string][]Rule{}
	for i, r := range rules {
		if r.IsZero() {
			return nil, fmt.Errorf("permission: %s rule %d is empty; make rules with ParseRule", list, i+1)
		}
		m[r.tool] = append(m[r.tool], r)
	}
	return m, nil
}

// Mode returns the policy's mode.
func (p *Policy) Mode() Mode { return p.mode }

// Rules returns the policy's rules.
func (p *Policy) Rules() Rules { return p.rules.Merge(Rules{}) }

// Workspace returns the policy's workspace.
func (p *Policy) Workspace() *workspace.Workspace { return p.ws }

// Hidden reports whether the model should not see t at all: in plan mode
// every tool that is not a read, in any mode a tool denied by a rule
// without a pattern.
func (p *Policy) Hidden(t registry.Tool) bool {
	if p.mode.Hidden(t) {
		return true
	}
	for _, r := range p.deny[t.Name] {
		if r.any() {
			return true
		}
	}
	return false
}

// input is the part of a tool's input the policy reads.
type input struct {
	Command *string
	Path    *string
}

func decodeInput(raw json.RawMessage) input {
	// Fields are decoded one by one, so a malformed field hides only
	// itself. What is malformed is validation's business, an earlier
	// stage; here it just matches no pattern.
	var fields struct {
		Command json.RawMessage `json:"command"`
		Path    json.RawMessage `json:"path"`
	}
	var in input
	if len(raw) == 0 || json.Unmarshal(raw, &fields) != nil {
		return in
	}
	str := func(m json.RawMessage) *string {
		var s string
		if len(m) == 0 || json.Unmarshal(m, &s) != nil {
			return nil
		}
		return &s
	}
	in.Command, in.Path = str(fields.Command), str(fields.Path)
	return in
}

// Decide returns the verdict for req. It never fails: what it cannot
// understand (a command that does not parse, a path that does not resolve)
// is never allowed by a rule with a pattern, and is left to the mode.
func (p *Policy) Decide(req Request) Verdict {
	in := decodeInput(req.Input)
	if req.Tool == bashTool {
		return p.decideBash(req, in)
	}
	return p.decideTool(req, in)
}

func denyBy(r Rule, reason string) Verdict {
	return Verdict{Decision: contract.Deny, By: ByRule, Rule: r.String(), Reason: reason}
}

func askBy(r Rule, reason string) Verdict {
	return Verdict{Decision: contract.Ask, By: ByRule, Rule: r.String(), Reason: reason}
}

func byMode(d contract.Decision, reason string) Verdict {
	return Verdict{Decision: d, By: ByMode, Reason: reason}
}

// pathInfo is a tool input's path in the forms rules match against.
type pathInfo struct {
	given    string // as the input says; "" when there is none
	givenRel string // given, cleaned and slash-separated, when it is relative and stays below the root
	givenAbs string // given, cleaned and slash-separated, when it is absolute
	abs      string // where it leads, links followed; "" when it cannot be resolved
	absSlash string
	rel      string // abs relative to the workspace root, slash-separated, when inside it
	inside   bool   // abs is inside some root
}

func (p *Policy) pathInfo(given string) *pathInfo {
	pi := &pathInfo{given: given}
	if given == "" {
		return pi
	}
	if filepath.IsAbs(given) {
		pi.givenAbs = filepath.ToSlash(filepath.Clean(given))
	} else if filepath.IsLocal(given) {
		pi.givenRel = filepath.ToSlash(filepath.Clean(given))
	}
	abs, root, err := p.ws.Locate(given)
	if err != nil {
		return pi
	}
	pi.abs, pi.absSlash, pi.inside = abs, filepath.ToSlash(abs), root >= 0
	if root == 0 {
		if rel, err := filepath.Rel(p.ws.Root(), abs); err == nil {
			pi.rel = filepath.ToSlash(rel)
		}
	}
	return pi
}

func (p *Policy) decideTool(req Request, in input) Verdict {
	var given string
	if in.Path != nil {
		given = *in.Path
	}
	pi := p.pathInfo(given)
	what := req.Tool
	if given != "" {
		what = req.Tool + " on " + given
		if !pi.inside {
			what += " (outside the workspace)"
		}
	}
	for _, r := range p.deny[req.Tool] {
		if r.matchesPath(pi, true) {
			return denyBy(r, fmt.Sprintf("Deny rule %s forbids %s.", r, what))
		}
	}
	read := isRead(req.Risk, req.ReadOnly)
	if p.mode == Plan && !read {
		return byMode(contract.Deny, fmt.Sprintf("Plan mode is read-only: %s may change things, so it cannot run.", req.Tool))
	}
	for _, r := range p.ask[req.Tool] {
		if r.matchesPath(pi, true) {
			return askBy(r, fmt.Sprintf("Ask rule %s requires approval for %s.", r, what))
		}
	}
	if !read && p.mode != Yolo && pi.protected() {
		return byMode(contract.Ask, fmt.Sprintf("%s writes under .rein/ or .git/, which change how rein or git behave (permissions, hooks); "+
			"that always needs approval, whatever the mode and the allow rules.", what))
	}
	for _, r := range p.allow[req.Tool] {
		if r.matchesPath(pi, false) {
			return Verdict{Decision: contract.Allow, By: ByRule, Rule: r.String(), Reason: fmt.Sprintf("Allow rule %s allows %s.", r, what)}
		}
	}
	switch {
	case read:
		return byMode(contract.Allow, fmt.Sprintf("%s mode allows reads.", titleMode(p.mode)))
	case p.mode == Yolo:
		return byMode(contract.Allow, "Yolo mode allows everything no rule denies or asks about.")
	case p.mode == AcceptEdits && req.Risk == registry.RiskWrite && pi.inside:
		return byMode(contract.Allow, fmt.Sprintf("Accept-edits mode allows edits inside the workspace (%s).", what))
	case p.mode == AcceptEdits && req.Risk == registry.RiskWrite && given != "":
		return byMode(contract.Ask, fmt.Sprintf("Accept-edits mode allows edits inside the workspace only, and %s is not inside it; %s needs approval.", given, req.Tool))
	}
	return byMode(contract.Ask, fmt.Sprintf("%s mode asks before %s.", titleMode(p.mode), action(req, what)))
}

func action(req Request, what string) string {
	switch req.Risk {
	case registry.RiskWrite:
		return "writing files: " + what + " needs approval"
	case registry.RiskNetwork:
		return "reaching the network: " + what + " needs approval"
	case registry.RiskExecute:
		return "running commands: " + what + " needs approval"
	}
	return "using " + what
}

func titleMode(m Mode) string {
	s := m.String()
	return strings.ToUpper(s[:1]) + s[1:]
}

func (p *Policy) decideBash(req Request, in input) Verdict {
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

	// 1. Deny rules, on every command and on the files redirections write.
	if v, ok := p.denyBash(a, quoted); ok {
		return v
	}
	// 2. Plan mode's ceiling.
	if p.mode == Plan && !isRead(req.Risk, req.ReadOnly) {
		return byMode(contract.Deny, "Plan mode is read-only: bash cannot run.")
	}
	// 3. What cannot be read cannot be checked against deny or ask rules.
	if len(a.Opaque) > 0 {
		if r, ok := p.firstPatternRule(); ok {
			return askBy(r, fmt.Sprintf("%s cannot be checked against rule %s: %s; it needs approval.", quoted, r, a.Opaque[0]))
		}
	}
	// 4. Ask rules.
	for _, r := range p.ask[bashTool] {
		if r.any() {
			return askBy(r, fmt.Sprintf("Ask rule %s requires approval for every command.", r))
		}
		for i := range a.Commands {
			if r.catchesCommand(&a.Commands[i]) {
				return askBy(r, fmt.Sprintf("Ask rule %s requires approval for `%s`, part of %s.", r, a.Commands[i].Text, quoted))
			}
		}
	}
	// 5. Allow rules: every command, no redirection outside the workspace,
	// nothing opaque.
	for _, r := range p.allow[bashTool] {
		if r.any() {
			return Verdict{Decision: contract.Allow, By: ByRule, Rule: r.String(), Reason: fmt.Sprintf("Allow rule %s allows every command.", r)}
		}
	}
	used, gap, bare := p.coverage(a)
	if gap == "" && len(used) > 0 {
		return Verdict{Decision: contract.Allow, By: ByRule, Rule: strings.Join(used, ", "),
			Reason: fmt.Sprintf("Allow rule%s %s allow%s every command of %s.", plural(len(used)), strings.Join(used, ", "), singular(len(used)), quoted)}
	}
	if gap == "" {
		gap = "it runs no command a rule could allow"
	}
	// 6. The mode.
	if p.mode == Yolo {
		return byMode(contract.Allow, "Yolo mode allows everything no rule denies or asks about.")
	}
	if bare && len(a.Commands) == 1 {
		// The whole command is the gap: say so once.
		return byMode(contract.Ask, fmt.Sprintf("%s mode asks before running commands, and no allow rule covers %s.", titleMode(p.mode), quoted))
	}
	return byMode(contract.Ask, fmt.Sprintf("%s mode asks before running commands, and no allow rule covers %s: %s.", titleMode(p.mode), quoted, gap))
}

// denyBash returns the verdict of the first deny rule that catches a
// command of a, or a file one of its redirections writes.
func (p *Policy) denyBash(a *shell.Script, quoted string) (Verdict, bool) {
	for _, r := range p.deny[bashTool] {
		if r.any() {
			return denyBy(r, fmt.Sprintf("Deny rule %s forbids every command, so %s cannot run.", r, quoted)), true
		}
		for i := range a.Commands {
			if r.catchesCommand(&a.Commands[i]) {
				return denyBy(r, fmt.Sprintf("Deny rule %s forbids `%s`, part of %s.", r, a.Commands[i].Text, quoted)), true
			}
		}
	}
	for _, w := range writes(a) {
		pi := p.writeTarget(w, a.ChangesDir)
		if pi == nil {
			continue
		}
		for _, tool := range []string{"write_file", "edit_file"} {
			for _, r := range p.deny[tool] {
				if !r.any() && r.matchesPath(pi, true) {
					return denyBy(r, fmt.Sprintf("Deny rule %s forbids writing %s, which `%s` in %s would do.", r, pi.given, w.Text, quoted)), true
				}
			}
		}
	}
	return Verdict{}, false
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

// firstPatternRule returns the first bash deny or ask rule with a pattern.
func (p *Policy) firstPatternRule() (Rule, bool) {
	for _, list := range [][]Rule{p.deny[bashTool], p.ask[bashTool]} {
		for _, r := range list {
			if !r.any() {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// coverage returns the allow rules that allow a's commands, in order, and,
// when something is left that no rule allows, what it is; bare says the gap
// is a command no rule allows.
func (p *Policy) coverage(a *shell.Script) (used []string, gap string, bare bool) {
	if len(a.Opaque) > 0 {
		return nil, a.Opaque[0], false
	}
	seen := map[string]bool{}
	for i := range a.Commands {
		c := &a.Commands[i]
		r, ok := p.allowing(c)
		if !ok {
			return nil, fmt.Sprintf("`%s` is not allowed by any rule", c.Text), true
		}
		if s := r.String(); !seen[s] {
			seen[s] = true
			used = append(used, s)
		}
	}
	for _, w := range writes(a) {
		pi := p.writeTarget(w, a.ChangesDir)
		if pi == nil || !pi.inside {
			return nil, fmt.Sprintf("`%s` writes to a file outside the workspace, or to one known only at run time", w.Text), false
		}
		if pi.protected() {
			return nil, fmt.Sprintf("`%s` writes under .rein/ or .git/, which no rule allows", w.Text), false
		}
	}
	return used, "", false
}

// protected reports whether the path is under the workspace root's .rein
// or .git directory (as written or where it leads): files that decide how
// rein itself or git behave (permissions, hooks, config), so that a write
// there could raise the agent's own permissions or run code later.
func (pi *pathInfo) protected() bool {
	for _, rel := range []string{pi.rel, pi.givenRel} {
		first, _, _ := strings.Cut(rel, "/")
		if strings.EqualFold(first, ".rein") || strings.EqualFold(first, ".git") {
			return true
		}
	}
	return false
}

func (p *Policy) allowing(c *shell.Command) (Rule, bool) {
	for _, r := range p.allow[bashTool] {
		if r.allowsCommand(c) {
			return r, true
		}
	}
	return Rule{}, false
}

// harmlessTargets are files a redirection may write without writing
// anything.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true}

// writeTarget returns the path a redirection writes, or nil when it is not
// known before the script runs (a computed name, a ~, a relative name after
// a cd). A harmless target counts as inside.
func (p *Policy) writeTarget(w shell.Redirect, chdir bool) *pathInfo {
	t := w.Target
	if t.Kind != shell.Literal || t.Text == "" || strings.HasPrefix(t.Text, "~") {
		return nil
	}
	if harmlessTargets[t.Text] || strings.HasPrefix(t.Text, "/dev/fd/") {
		return &pathInfo{given: t.Text, inside: true}
	}
	if chdir && !filepath.IsAbs(t.Text) {
		return nil
	}
	return p.pathInfo(t.Text)
}
