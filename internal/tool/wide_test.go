package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
)

// In a workspace too wide to be a project (the home directory, /), the
// session's first call that does more than read asks whatever the mode
// allows, yolo included; reads do not; once allowed, the mode decides
// again. A run that cannot ask is refused, and told why.
func TestAWideWorkspaceAsksBeforeTheFirstWrite(t *testing.T) {
	const why = "The workspace is your home directory /home/ada (rein was started there)."
	shell := echo("bash", registry.RiskExecute, registry.Exclusive, nil)
	shell.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	var asked []Question
	opts := &Options{WideWorkspace: why, Approver: ReplyFunc(func(_ context.Context, q Question) (Reply, error) {
		asked = append(asked, q)
		return Reply{Answer: Yes}, nil
	})}
	f := newFixture(t, permission.Yolo, nil, opts, shell)
	f.run(t, t.Context(), intent("int_1", "bash", `{"command":"ls -la"}`))
	if len(asked) != 0 {
		t.Fatalf("a read-only command was asked about: %+v", asked)
	}
	f.run(t, t.Context(), intent("int_2", "bash", `{"command":"touch m1"}`))
	if len(asked) != 1 || !strings.HasPrefix(asked[0].Reason, why) {
		t.Fatalf("the first write asked %d questions (%+v), want one that says why", len(asked), asked)
	}
	if p := f.sink.permission("int_2"); p == nil || p.Decision != contract.Allow || p.By != permission.ByUser {
		t.Errorf("tool.permission = %+v, want allowed by the user", p)
	}
	f.run(t, t.Context(), intent("int_3", "bash", `{"command":"touch m2"}`))
	if len(asked) != 1 {
		t.Errorf("a write after the first allowed one was asked about: %+v", asked[1:])
	}
	if p := f.sink.permission("int_3"); p == nil || p.Decision != contract.Allow || p.By != permission.ByMode {
		t.Errorf("tool.permission = %+v, want allowed by the mode", p)
	}

	headless := newFixture(t, permission.Yolo, nil, &Options{WideWorkspace: why}, shell)
	headless.run(t, t.Context(), intent("int_4", "bash", `{"command":"touch m1"}`))
	if p := headless.sink.permission("int_4"); p == nil || p.Decision != contract.Deny || !strings.Contains(p.Reason, "start rein in a project's directory") {
		t.Errorf("headless: tool.permission = %+v, want a denial that says where to start rein", p)
	}
}
