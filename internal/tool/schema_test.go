package tool_test

import (
	"encoding/json"
	"testing"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// The runtime resolves a tool's schema on its first call, not when it is
// made: every built-in's must resolve, or its calls would all be refused.
func TestBuiltinSchemasResolve(t *testing.T) {
	ws, err := workspace.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tools := builtin.Tools(ws, nil)
	if len(tools) == 0 {
		t.Fatal("no built-in tools")
	}
	for _, b := range tools {
		if err := tool.ResolveSchema(b); err != nil {
			t.Errorf("%s: %v", b.Name, err)
		}
	}
	bad := registry.Tool{Name: "bad", InputSchema: json.RawMessage(`{"type": 3}`)}
	if tool.ResolveSchema(bad) == nil {
		t.Error("a schema whose type is a number resolved")
	}
}
