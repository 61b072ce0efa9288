package registry

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/state"
)

var schema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)

func tool(name string, visible func(*state.State) bool) Tool {
	return Tool{Name: name, Description: name + " tool", InputSchema: schema, Risk: RiskRead, Concurrency: Safe, Visible: visible}
}

func TestDuplicateNames(t *testing.T) {
	_, err := New(tool("bash", nil), tool("read_file", nil), tool("bash", nil))
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("New() error = %v, want ErrDuplicate", err)
	}
}

func TestRegisterRejectsBadDefinitions(t *testing.T) {
	for name, tl := range map[string]Tool{
		"empty name":  {Name: "", InputSchema: schema, Risk: RiskRead, Concurrency: Safe},
		"space":       {Name: "run tests", InputSchema: schema, Risk: RiskRead, Concurrency: Safe},
		"risk":        {Name: "x", InputSchema: schema, Risk: "maybe", Concurrency: Safe},
		"concurrency": {Name: "x", InputSchema: schema, Risk: RiskRead},
		"schema":      {Name: "x", InputSchema: json.RawMessage(`{"type":"string"}`), Risk: RiskRead, Concurrency: Safe},
		"no schema":   {Name: "x", Risk: RiskRead, Concurrency: Safe},
	} {
		t.Run(name, func(t *testing.T) {
			var r Registry
			if err := r.Register(tl); err == nil {
				t.Errorf("Register(%+v) = nil, want an error", tl)
			}
		})
	}
}

func TestVisible(t *testing.T) {
	onlyWhenRunning := func(s *state.State) bool { return s.Status == state.Running }
	r, err := New(tool("read_file", nil), tool("bash", onlyWhenRunning), tool("secret", func(*state.State) bool { return false }))
	if err != nil {
		t.Fatal(err)
	}
	names := func(s state.State) []string {
		var out []string
		for _, spec := range r.Visible(&s) {
			out = append(out, spec.Name)
		}
		return out
	}
	if d := cmp.Diff([]string{"read_file"}, names(state.State{Status: state.Idle})); d != "" {
		t.Errorf("Visible(idle) mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"read_file", "bash"}, names(state.State{Status: state.Running})); d != "" {
		t.Errorf("Visible(running) mismatch (-want +got):\n%s", d)
	}
	if got, ok := r.Lookup("secret"); !ok || got.Name != "secret" {
		t.Errorf("Lookup(secret) = %v, %v; hidden tools are still registered", got.Name, ok)
	}
}
