package permission

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

func mustRules(t testing.TB, texts ...string) []Rule {
	t.Helper()
	rs, err := ParseRules(texts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func mustWorkspace(t testing.TB, root string, more ...string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(root, more...)
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

// alwaysSaved saves rules as an "always" answer does, and returns an
// accept-edits policy over ws with the rules read back (accept-edits, so
// that a command's writes inside the workspace, which default mode asks
// about whatever the rules, do not hide what the rules allow). config.SaveRule
// writes each rule's text into the project's configuration as a TOML
// string, with its own quoting (tested in package config, which this
// package's tests cannot import); here each rule's text goes through a
// TOML file and back through ParseRules, so that a suggested rule whose
// text does not read back as itself is caught.
func alwaysSaved(t testing.TB, ws *workspace.Workspace, rules []Rule) *Policy {
	t.Helper()
	var file struct {
		Permissions struct {
			Allow []string `toml:"allow"`
		} `toml:"permissions"`
	}
	for _, r := range rules {
		file.Permissions.Allow = append(file.Permissions.Allow, r.String())
	}
	var text bytes.Buffer
	if err := toml.NewEncoder(&text).Encode(file); err != nil {
		t.Fatal(err)
	}
	file.Permissions.Allow = nil
	if _, err := toml.Decode(text.String(), &file); err != nil {
		t.Fatalf("%v in:\n%s", err, text.String())
	}
	allow, err := ParseRules(file.Permissions.Allow)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(AcceptEdits, Rules{Allow: allow}, ws)
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
