package projection

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

func TestOnlyVisibleToolsReachTheRequest(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	hidden := func(*state.State) bool { return false }
	reg, err := registry.New(
		registry.Tool{Name: "read_file", Description: "read", InputSchema: schema, Risk: registry.RiskRead, Concurrency: registry.Safe},
		registry.Tool{Name: "bash", Description: "run", InputSchema: schema, Risk: registry.RiskExecute, Concurrency: registry.Exclusive, Visible: hidden},
	)
	if err != nil {
		t.Fatal(err)
	}
	s := state.State{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}}
	req := Request(&s, reg, &Options{Model: "m", System: "sys"})
	want := &contract.ModelRequest{
		Model: "m", System: "sys",
		Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}},
		Tools:    []contract.ToolSpec{{Name: "read_file", Description: "read", InputSchema: schema}},
	}
	if d := cmp.Diff(want, req); d != "" {
		t.Errorf("Request() mismatch (-want +got):\n%s", d)
	}
	req.Messages[0].Text = "changed"
	if s.Messages[0].Text != "hi" {
		t.Error("changing the request changed the state")
	}
	if got := ToolNames(req); len(got) != 1 || got[0] != "read_file" {
		t.Errorf("ToolNames() = %v", got)
	}
	if EstimateTokens(req) <= 0 {
		t.Error("EstimateTokens() = 0 for a non-empty request")
	}
}
