package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// Who decided, as the tool.permission event's "by" field says it.
const (
	ByMode     = "mode"
	ByRule     = "rule"
	ByHeadless = "headless"
	ByUser     = "user"
	// ByHook is a person's PreToolUse hook (internal/hook).
	ByHook = "hook"
)

// Request is one tool intent as the policy sees it.
type Request struct {
	// Tool is the tool's name.
	Tool string
	// Risk and ReadOnly come from the tool's registry definition. The zero
	// Risk is treated as the most reaching: not a read.
	Risk     registry.Risk
	ReadOnly bool
	// External says the tool is not rein's own (an MCP server's): what it
	// says of itself is a claim, so the policy asks unless a rule allows
	// it (see registry.Tool.Source).
	External bool
	// Input is the intent's parsed JSON input. The policy reads "command"
	// for bash and "path" for every other tool; a missing or malformed
	// field only means no pattern rule can match.
	Input json.RawMessage
}

// RequestFor returns the request for running t with input.
func RequestFor(t registry.Tool, input json.RawMessage) Request {
	return Request{Tool: t.Name, Risk: t.Risk, ReadOnly: t.ReadOnly, External: t.External(), Input: input}
}

// Verdict is a policy's answer to a request. The zero Verdict has no
// decision and is never returned.
type Verdict struct {
	Decision contract.Decision
	// By is who decided: [ByMode], [ByRule], [ByPolicy] or, after
	// [Policy.ForHeadless], [ByHeadless]. The caller records [ByUser] when a person answers an
	// Ask.
	By string
	// Rule is the text of the rule that decided, when By is ByRule. When
	// several allow rules together allowed a compound command, they are
	// listed in the order of the commands, separated by ", ".
	Rule string
	// Reason says, in a sentence for people and for the model, why.
	Reason string
	// Firm marks an Ask that no allow rule can lift, and so neither can
	// a hook's allow: a write under a protected directory (.git, .rein,
	// .claude), a command's access outside what the sandbox permits. A
	// person may still answer it.
	Firm bool
	// Undoable marks an Ask for a command whose every change the
	// analysis sees lands on files inside the workspace root (an rm, a
	// redirection, git checkout -- file.go): rein's checkpoints can put
	// them back, so the question may say so. False for what also writes
	// outside it, or what the analysis cannot see through.
	Undoable bool
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
	// cont is what contains the commands; writable its Writable roots,
	// resolved through their links.
	cont     Containment
	writable []string
	// hooks is the directory git takes its hooks from when the
	// repository's core.hooksPath names one (Husky's .husky/_), resolved;
	// "" for none, or .git/hooks, protected anyway.
	hooks []string
	// own are rein's own directories (its configuration, its sessions),
	// resolved: a write there always asks, as under .rein.
	own []string
	// indexes keeps what the repository's index files record, shared by
	// the policies made from this one.
	indexes *indexCache
	// hidden are the paths the sandbox hides from commands, where a file
	// tool always asks, but under except (see WithHidden).
	hidden, except []string
	// home is the person's home directory, "" when it is not known:
	// what ~ and $HOME name, which no command may sweep away.
	home string
	// readsOnly is the ceiling of an agent that may only read (see
	// [Policy.ReadOnly]).
	readsOnly bool
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
	p := &Policy{mode: mode, rules: rules.Merge(Rules{}), ws: ws, hooks: hooksDirs(ws.Root()), indexes: &indexCache{}}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		p.home = filepath.Clean(home)
	}
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

// With returns a copy of p in mode m (the zero Mode is Default) with
// extra rules beside p's, and everything else p was given kept: its
// workspace, its containment ([Policy.WithContainment]), rein's own
// directories ([Policy.WithOwn]), the hidden paths ([Policy.WithHidden])
// and whatever else a caller set on it. It is the one way to change a
// policy's mode or rules: a policy made again with [New] would forget
// them. p itself is unchanged. It fails on an unknown mode or a zero Rule
// in extra.
func (p *Policy) With(m Mode, extra Rules) (*Policy, error) {
	fresh, err := New(m, p.rules.Merge(extra), p.ws)
	if err != nil {
		return nil, err
	}
	// A copy of p keeps every field New does not set; only the mode and
	// the rules (with their indexes) are fresh's.
	q := *p
	q.mode, q.rules, q.allow, q.ask, q.deny = fresh.mode, fresh.rules, fresh.allow, fresh.ask, fresh.deny
	return &q, nil
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

// ReadOnly returns a copy of p under the ceiling of an agent that may
// only read, whatever its mode: every tool that is not a read is denied
// and kept out of the model's sight, as in plan mode, but bash, which
// runs only the commands that read (those default mode runs as reads,
// see the package documentation); any other command is denied. The mode
// still decides what it allows, and asks, of what is left.
func (p *Policy) ReadOnly() *Policy {
	q := *p
	q.readsOnly = true
	return &q
}

// IsReadOnly reports whether p is under the read-only ceiling.
func (p *Policy) IsReadOnly() bool { return p.readsOnly }

// Mode returns the policy's mode.
func (p *Policy) Mode() Mode { return p.mode }

// Rules returns the policy's rules.
func (p *Policy) Rules() Rules { return p.rules.Merge(Rules{}) }

// Workspace returns the policy's workspace.
func (p *Policy) Workspace() *workspace.Workspace { return p.ws }

// Hidden reports whether the model should not see t at all: in plan mode
// every tool that is not a read, under the read-only ceiling every one
// but bash, in any mode a tool denied by a rule without a pattern.
func (p *Policy) Hidden(t registry.Tool) bool {
	if p.mode.Hidden(t) {
		return true
	}
	if p.readsOnly && (t.External() || !isRead(t.Risk, t.ReadOnly) && t.Name != bashTool) {
		// An MCP tool's claim to read only is not trusted: it would be
		// denied, so it is not offered.
		return true
	}
	deny := p.deny[t.Name]
	if t.External() {
		deny = external(p.rules.Deny, t.Name)
	}
	for _, r := range deny {
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

// path is the input's path, "" when it has none.
func (in input) path() string {
	if in.Path == nil {
		return ""
	}
	return *in.Path
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
	switch {
	case req.External:
		return p.decideExternal(req, in)
	case req.Tool == bashTool:
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
	inRoot   string // abs relative to the root that holds it, slash-separated
	inside   bool   // abs is inside some root
	// holdsRoot: abs is outside every root, above the workspace root.
	holdsRoot bool
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
	if root >= 0 {
		if rel, err := filepath.Rel(p.ws.Roots()[root], abs); err == nil {
			pi.inRoot = filepath.ToSlash(rel)
		}
	}
	if root == 0 {
		pi.rel = pi.inRoot
	}
	pi.holdsRoot = root < 0 && within(abs, p.ws.Root())
	return pi
}

func (p *Policy) decideTool(req Request, in input) Verdict {
	given := in.path()
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
	if p.readsOnly && !read {
		return byMode(contract.Deny, fmt.Sprintf("This agent may only read: %s may change things, so it cannot run.", req.Tool))
	}
	if p.isHidden(pi) {
		v := byMode(contract.Ask, fmt.Sprintf("%s reaches where the sandbox hides your credentials and rein's own files from commands "+
			"(%s); that always needs approval, whatever the mode, the allow rules and the hooks.", what, pi.given))
		v.Firm = true
		return v
	}
	for _, r := range p.ask[req.Tool] {
		if r.matchesPath(pi, true) {
			return askBy(r, fmt.Sprintf("Ask rule %s requires approval for %s.", r, what))
		}
	}
	if !read && p.mode != Yolo && p.protected(pi, false) {
		v := byMode(contract.Ask, fmt.Sprintf("%s writes under .rein/, .claude/ or .git/ (or git's hooks directory), which change how rein, "+
			"its hooks or git behave (permissions, hooks); that always needs approval, whatever the mode, the allow rules and the hooks.", what))
		if p.isOwn(pi) {
			v.Reason = fmt.Sprintf("%s writes into rein's own configuration or sessions, which hold your rules and the record; "+
				"that always needs approval, whatever the mode, the allow rules and the hooks.", what)
		}
		v.Firm = true
		return v
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
