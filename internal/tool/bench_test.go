package tool

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/workspace"
)

// discard is a sink that keeps nothing: the benchmark measures the
// pipeline, not a log.
type discard struct{}

func (discard) Emit(contract.Event, string) (string, error) { return "evt", nil }
func (discard) Sync() error                                 { return nil }

// BenchmarkPipeline measures the runtime's own cost per tool call:
// lookup, schema validation, the permission decision, the invocation and
// the bounded observation, around a tool that does nothing.
func BenchmarkPipeline(b *testing.B) {
	for _, c := range []struct {
		name, tool, input string
		rules             []string
	}{
		{"read", "noop", `{"text":"main.go","n":3}`, nil},
		{"bash-rule", "bash", `{"command":"go test ./... && go vet ./..."}`, []string{"bash(go test:*)", "bash(go vet:*)"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			nop := func(_ context.Context, call *registry.Call) (registry.Result, error) {
				call.Output.Write([]byte("ok\n"))
				return registry.Result{}, nil
			}
			noop := echo("noop", registry.RiskRead, registry.Safe, nop)
			bash := echo("bash", registry.RiskExecute, registry.Exclusive, nop)
			bash.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)
			ws, _ := workspace.New(b.TempDir())
			rules, _ := permission.ParseRules(c.rules)
			policy, _ := permission.New(permission.Default, permission.Rules{Allow: rules}, ws)
			reg, _ := registry.New(noop, bash)
			rt, err := New(reg, policy, nil)
			if err != nil {
				b.Fatal(err)
			}
			turn := []Proposal{intent("int_1", c.tool, c.input)}
			st := &state.State{}
			b.ReportAllocs()
			for b.Loop() {
				if err := rt.Run(b.Context(), st, turn, discard{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
