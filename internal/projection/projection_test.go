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

func TestRepeatedProviderCallIDsAreMadeUnique(t *testing.T) {
	call := func(intent, provider string) contract.ToolCall {
		return contract.ToolCall{IntentID: intent, ProviderCallID: provider, ToolName: "bash", Input: json.RawMessage(`{}`)}
	}
	result := func(intent, provider string) contract.ModelMessage {
		return contract.ModelMessage{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: intent, ProviderCallID: provider, ToolName: "bash", Text: "ok"}}
	}
	s := state.State{Messages: []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "go"},
		{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{call("int_1", "call_0"), call("int_2", "call_1")}},
		result("int_1", "call_0"), result("int_2", "call_1"),
		{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{call("int_3", "call_0")}},
		result("int_3", "call_0"),
	}}
	req := Request(&s, nil, nil)
	if got := req.Messages[4].ToolCalls[0].ProviderCallID; got != "int_3" {
		t.Errorf("repeated call id became %q, want the intent id int_3", got)
	}
	if got := req.Messages[5].Result.ProviderCallID; got != "int_3" {
		t.Errorf("its result refers to %q, want int_3", got)
	}
	if req.Messages[1].ToolCalls[0].ProviderCallID != "call_0" || req.Messages[2].Result.ProviderCallID != "call_0" {
		t.Error("the first use of an id must keep it")
	}
	if s.Messages[4].ToolCalls[0].ProviderCallID != "call_0" || s.Messages[5].Result.ProviderCallID != "call_0" {
		t.Error("the state was changed")
	}
}
