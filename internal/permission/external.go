package permission

import (
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// mcpPrefix starts the name of every MCP server's tool: mcp__SERVER__TOOL.
const mcpPrefix = "mcp__"

// A rule about tools from elsewhere names them as Claude Code's rules do:
//
//	mcp__github__get_issue   that tool
//	mcp__github              every tool of the server github
//	mcp__github__*           the same, as a wildcard
//	mcp__*                   every MCP tool
//
// A wildcard ('*', at the end only) is for MCP tools' names.

// namePattern reports whether the rule's tool name is a wildcard or a
// whole server, and checks where its '*' stands.
func namePattern(name string) (wild bool, err error) {
	i := strings.IndexByte(name, '*')
	switch {
	case i < 0:
		return false, nil
	case !strings.HasPrefix(name, mcpPrefix):
		return false, fmt.Errorf("tool name %q: a '*' in a tool name is for MCP tools (mcp__github__*)", name)
	case i != len(name)-1:
		return false, fmt.Errorf("tool name %q: '*' may only end a tool name (mcp__github__*)", name)
	}
	return true, nil
}

// namesTool reports whether the rule is about the tool called name: the
// same name, the name's server (mcp__github for mcp__github__x), or a
// wildcard it matches.
func (r *Rule) namesTool(name string) bool {
	switch {
	case r.tool == name:
		return true
	case strings.HasSuffix(r.tool, "*"):
		return strings.HasPrefix(name, strings.TrimSuffix(r.tool, "*"))
	case strings.HasPrefix(r.tool, mcpPrefix) && !strings.Contains(r.tool[len(mcpPrefix):], "__"):
		return strings.HasPrefix(name, r.tool+"__")
	}
	return false
}

// external returns the rules of rules that are about the tool called
// name.
func external(rules []Rule, name string) []Rule {
	var out []Rule
	for _, r := range rules {
		if r.namesTool(name) {
			out = append(out, r)
		}
	}
	return out
}

// decideExternal decides about a tool that is not rein's own (an MCP
// server's): what it says of itself (read-only, its risk) is its author's
// claim, so every mode but yolo asks unless a rule allows it; a deny rule,
// plan mode's ceiling and ask rules come first, as for every tool.
func (p *Policy) decideExternal(req Request, in input) Verdict {
	pi := p.pathInfo(in.path())
	what := req.Tool
	for _, r := range external(p.rules.Deny, req.Tool) {
		if r.matchesPath(pi, true) {
			return denyBy(r, fmt.Sprintf("Deny rule %s forbids %s.", r, what))
		}
	}
	if p.mode == Plan && !isRead(req.Risk, req.ReadOnly) {
		return byMode(contract.Deny, fmt.Sprintf("Plan mode is read-only: %s may change things, so it cannot run.", req.Tool))
	}
	if p.readsOnly {
		// What a tool from elsewhere says of itself is a claim: an agent
		// that may only read runs none.
		return byMode(contract.Deny, fmt.Sprintf("This agent may only read: %s is a tool of %s, which may change things, so it cannot run.", req.Tool, serverOf(req.Tool)))
	}
	for _, r := range external(p.rules.Ask, req.Tool) {
		if r.matchesPath(pi, true) {
			return askBy(r, fmt.Sprintf("Ask rule %s requires approval for %s.", r, what))
		}
	}
	for _, r := range external(p.rules.Allow, req.Tool) {
		if r.matchesPath(pi, false) {
			return Verdict{Decision: contract.Allow, By: ByRule, Rule: r.String(), Reason: fmt.Sprintf("Allow rule %s allows %s.", r, what)}
		}
	}
	if p.mode == Yolo {
		return byMode(contract.Allow, "Yolo mode allows everything no rule denies or asks about.")
	}
	return byMode(contract.Ask, fmt.Sprintf("%s mode asks before %s, a tool of %s: what a tool from elsewhere says of itself is not trusted; "+
		"a rule may allow it (%s, or %s for all of that server's tools).", titleMode(p.mode), req.Tool, serverOf(req.Tool), req.Tool, serverRule(req.Tool)))
}

// serverOf names the MCP server of a tool name, for people.
func serverOf(tool string) string {
	if s, ok := server(tool); ok {
		return "the MCP server " + s
	}
	return "another source"
}

// serverRule is the rule that covers every tool of tool's server.
func serverRule(tool string) string {
	if s, ok := server(tool); ok {
		return mcpPrefix + s + "__*"
	}
	return tool
}

// server returns the server of an MCP tool's name.
func server(tool string) (string, bool) {
	rest, ok := strings.CutPrefix(tool, mcpPrefix)
	if !ok {
		return "", false
	}
	s, _, ok := strings.Cut(rest, "__")
	return s, ok && s != ""
}

// suggestExternal is SuggestRules for a tool from elsewhere: the tool
// itself, and the rule for all of its server's tools.
func (p *Policy) suggestExternal(req Request) []Rule {
	for _, r := range external(p.rules.Allow, req.Tool) {
		if r.any() {
			return nil
		}
	}
	r, err := ParseRule(req.Tool)
	if err != nil {
		return nil
	}
	return []Rule{r}
}
