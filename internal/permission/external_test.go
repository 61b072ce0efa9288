package permission

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
)

// mcpTool is a tool of the MCP server gh that claims to only read.
func mcpTool(name string, readOnly bool) registry.Tool {
	risk := registry.RiskWrite
	if readOnly {
		risk = registry.RiskRead
	}
	return registry.Tool{Name: name, Risk: risk, ReadOnly: readOnly, Source: "mcp:gh", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

// An MCP tool's annotations are its server's claim: in every mode but
// yolo it asks unless a rule allows it; rules name a tool, a server, or a
// wildcard, and deny wins.
func TestExternalTools(t *testing.T) {
	get := mcpTool("mcp__gh__get_issue", true)
	del := mcpTool("mcp__gh__delete_repo", false)
	other := mcpTool("mcp__ghx__get", true)
	cases := []struct {
		name  string
		mode  Mode
		rules Rules
		tool  registry.Tool
		want  contract.Decision
		by    string
	}{
		{"default asks even a read", Default, Rules{}, get, contract.Ask, ByMode},
		{"accept-edits asks", AcceptEdits, Rules{}, get, contract.Ask, ByMode},
		{"plan asks a read", Plan, Rules{}, get, contract.Ask, ByMode},
		{"plan denies a write", Plan, Rules{}, del, contract.Deny, ByMode},
		{"yolo allows", Yolo, Rules{}, del, contract.Allow, ByMode},
		{"exact allow", Default, Rules{Allow: mustRules(t, "mcp__gh__get_issue")}, get, contract.Allow, ByRule},
		{"exact allow is that tool only", Default, Rules{Allow: mustRules(t, "mcp__gh__get_issue")}, del, contract.Ask, ByMode},
		{"server allow", Default, Rules{Allow: mustRules(t, "mcp__gh")}, del, contract.Allow, ByRule},
		{"server is not a prefix of another server", Default, Rules{Allow: mustRules(t, "mcp__gh")}, other, contract.Ask, ByMode},
		{"wildcard allow", Default, Rules{Allow: mustRules(t, "mcp__gh__*")}, del, contract.Allow, ByRule},
		{"wildcard is the server's", Default, Rules{Allow: mustRules(t, "mcp__gh__*")}, other, contract.Ask, ByMode},
		{"deny a server wins over allow", Yolo, Rules{Allow: mustRules(t, "mcp__gh__get_issue"), Deny: mustRules(t, "mcp__gh__*")}, get, contract.Deny, ByRule},
		{"ask rule in yolo", Yolo, Rules{Ask: mustRules(t, "mcp__*")}, get, contract.Ask, ByRule},
		{"a built-in's rule is not an MCP tool's", Default, Rules{Allow: mustRules(t, "read_file")}, get, contract.Ask, ByMode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := policyOf(t, c.mode, c.rules)
			v := p.Decide(RequestFor(c.tool, json.RawMessage(`{}`)))
			if v.Decision != c.want || v.By != c.by {
				t.Errorf("%s in %s: %s by %s (%s); want %s by %s", c.tool.Name, c.mode, v.Decision, v.By, v.Reason, c.want, c.by)
			}
		})
	}
}

// A server denied as a whole is hidden from the model; the mode's ask
// says which rule would allow the tool.
func TestExternalHiddenAndSuggested(t *testing.T) {
	p := policyOf(t, Default, Rules{Deny: mustRules(t, "mcp__gh")})
	if !p.Hidden(mcpTool("mcp__gh__get_issue", true)) || p.Hidden(mcpTool("mcp__ghx__get", true)) {
		t.Error("a server denied as a whole hides its tools, and only them")
	}
	p = policyOf(t, Default, Rules{})
	req := RequestFor(mcpTool("mcp__gh__get_issue", true), nil)
	v := p.Decide(req)
	if !strings.Contains(v.Reason, "mcp__gh__*") || !strings.Contains(v.Reason, "MCP server gh") {
		t.Errorf("reason %q does not say which rules would allow it", v.Reason)
	}
	if got := p.SuggestRules(req); len(got) != 1 || got[0].String() != "mcp__gh__get_issue" {
		t.Errorf("SuggestRules = %v, want the tool", got)
	}
}

func TestToolNameWildcards(t *testing.T) {
	for _, bad := range []string{"read_*", "mcp__g*h", "*"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted a wildcard outside an MCP tool name's end", bad)
		}
	}
	for _, good := range []string{"mcp__*", "mcp__gh__*", "mcp__gh", "mcp__gh__get_issue"} {
		if r, err := ParseRule(good); err != nil || r.String() != good {
			t.Errorf("ParseRule(%q) = %v, %v", good, r, err)
		}
	}
}
