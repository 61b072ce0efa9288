package permission

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
)

func mustRules(t testing.TB, texts ...string) []Rule {
	t.Helper()
	rs, err := ParseRules(texts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func mustWorkspace(t testing.TB, root string, more ...string) *Workspace {
	t.Helper()
	ws, err := NewWorkspace(root, more...)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// policyOf builds a policy over a fresh temporary workspace.
func policyOf(t testing.TB, mode Mode, rules Rules) *Policy {
	t.Helper()
	p, err := New(mode, rules, mustWorkspace(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// alwaysSaved saves rules into dir's configuration, as an "always" answer
// does, and returns a default-mode policy over ws with the rules loaded
// back from it.
func alwaysSaved(t testing.TB, dir string, ws *Workspace, rules []Rule) *Policy {
	t.Helper()
	for _, r := range rules {
		if err := SaveRule(dir, "allow", r); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := LoadRules(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Default, rs, ws)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonInput(t testing.TB, v map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func bashReq(t testing.TB, command string) Request {
	return Request{Tool: "bash", Risk: registry.RiskExecute, Input: jsonInput(t, map[string]any{"command": command})}
}

func fileReq(t testing.TB, tool string, path string) Request {
	r := Request{Tool: tool, Risk: registry.RiskWrite, Input: jsonInput(t, map[string]any{"path": path})}
	switch tool {
	case "read_file", "list_dir", "glob", "grep":
		r.Risk, r.ReadOnly = registry.RiskRead, true
	}
	return r
}

// decision is a verdict without its reason, for table tests; reasons are
// checked to be present and, where it matters, for their content.
type decision struct {
	Decision contract.Decision
	By       string
	Rule     string
}

func decisionOf(t testing.TB, v Verdict) decision {
	t.Helper()
	if v.Reason == "" {
		t.Errorf("verdict %+v has no reason", v)
	}
	return decision{v.Decision, v.By, v.Rule}
}

func allowRule(rule string) decision { return decision{contract.Allow, ByRule, rule} }
func askRule(rule string) decision   { return decision{contract.Ask, ByRule, rule} }
func denyRule(rule string) decision  { return decision{contract.Deny, ByRule, rule} }

var (
	allowMode = decision{contract.Allow, ByMode, ""}
	askMode   = decision{contract.Ask, ByMode, ""}
	denyMode  = decision{contract.Deny, ByMode, ""}
)
