package permission

import (
	"encoding/json"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// TestReadOnlyCeiling: an agent that may only read runs the read tools and
// the commands that only read, whatever its mode and allow rules, and
// sees no other tool.
func TestReadOnlyCeiling(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rules, err := ParseRules([]string{"bash", "write_file"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(Yolo, Rules{Allow: rules}, ws)
	if err != nil {
		t.Fatal(err)
	}
	p = p.ReadOnly().WithContainment(Containment{Sandboxed: true})
	if !p.IsReadOnly() {
		t.Fatal("IsReadOnly is false")
	}
	if q, err := p.With(Default, Rules{}); err != nil || !q.IsReadOnly() {
		t.Fatalf("With lost the ceiling: %v", err)
	}
	bash := func(cmd string) Request {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return Request{Tool: "bash", Risk: registry.RiskExecute, Input: in}
	}
	for _, tc := range []struct {
		req  Request
		want contract.Decision
	}{
		{bash("ls -la"), contract.Allow},
		{bash("grep -rn foo ."), contract.Allow},
		{bash("rm -rf build"), contract.Deny},
		{bash("echo x > notes.txt"), contract.Deny},
		{bash("$(printf rm) x"), contract.Deny},
		{Request{Tool: "read_file", Risk: registry.RiskRead, ReadOnly: true, Input: json.RawMessage(`{"path":"a.go"}`)}, contract.Allow},
		{Request{Tool: "write_file", Risk: registry.RiskWrite, Input: json.RawMessage(`{"path":"a.go"}`)}, contract.Deny},
		{Request{Tool: "mcp__gh__get_issue", Risk: registry.RiskRead, ReadOnly: true, External: true}, contract.Deny},
	} {
		if v := p.Decide(tc.req); v.Decision != tc.want {
			t.Errorf("%s %s: %s (%s), want %s", tc.req.Tool, tc.req.Input, v.Decision, v.Reason, tc.want)
		}
	}
	if !p.Hidden(registry.Tool{Name: "edit_file", Risk: registry.RiskWrite}) {
		t.Error("edit_file is visible to an agent that may only read")
	}
	if !p.Hidden(registry.Tool{Name: "mcp__gh__get_issue", Risk: registry.RiskRead, ReadOnly: true, Source: "mcp:gh"}) {
		t.Error("an MCP tool is visible to an agent that may only read, which would deny it")
	}
	if p.Hidden(registry.Tool{Name: "bash", Risk: registry.RiskExecute}) {
		t.Error("bash is hidden from an agent that may only read commands")
	}
}
