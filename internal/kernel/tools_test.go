package kernel

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/registry"
)

func serverTool(name string) registry.Tool {
	return registry.Tool{
		Name: name, Description: "a server's", Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Safe,
		InputSchema: json.RawMessage(`{"type":"object"}`), Source: "mcp:gh",
	}
}

// Tools that join before the session starts are recorded right after its
// session.started and offered from the first request; tools that leave
// between two runs are recorded, no longer offered, and the model is told.
func TestChangeTools(t *testing.T) {
	var mu sync.Mutex
	var offered [][]string
	reg, err := registry.New(act(nil))
	if err != nil {
		t.Fatal(err)
	}
	var lastSeen []string
	prov := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		mu.Lock()
		var names []string
		for _, s := range req.Tools {
			names = append(names, s.Name)
		}
		offered = append(offered, names)
		lastSeen = lastSeen[:0]
		for _, m := range req.Messages {
			lastSeen = append(lastSeen, m.Text)
		}
		mu.Unlock()
		return func(yield func(contract.ModelEvent, error) bool) {
			if yield(&contract.TextDelta{Text: "ok"}, nil) {
				yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
			}
		}
	})
	log := eventlog.New(memstore.New(), nil)
	t.Cleanup(func() { log.Close() })
	k, err := New(prov, log, &Options{ProviderName: "p", Registry: reg,
		Capabilities: provider.Capabilities{Streaming: true, Tools: true}, Retry: RetryPolicy{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.ChangeTools("gh", "mcp:gh", []registry.Tool{serverTool("mcp__gh__a"), serverTool("mcp__gh__b")}, "the server started"); err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(context.Background(), Input{Text: "one"}))
	if err := k.ChangeTools("gh", "mcp:gh", nil, "the server exited (exit status 1)"); err != nil {
		t.Fatal(err)
	}
	// The same set again records nothing.
	if err := k.ChangeTools("gh", "mcp:gh", nil, "again"); err != nil {
		t.Fatal(err)
	}
	collect(t, k.Send(context.Background(), Input{Text: "two"}))

	all := durable(t, log)
	got := types(all)
	if got[0] != contract.TypeSessionStarted || got[1] != contract.TypeToolsChanged {
		t.Fatalf("log starts %v; want session.started, tools.changed", got[:2])
	}
	var changes []*contract.ToolsChanged
	for _, env := range all {
		if c, ok := env.Data.(*contract.ToolsChanged); ok {
			changes = append(changes, c)
		}
	}
	if len(changes) != 2 || !slices.Equal(changes[0].Added, []string{"mcp__gh__a", "mcp__gh__b"}) ||
		!slices.Equal(changes[1].Removed, []string{"mcp__gh__a", "mcp__gh__b"}) {
		t.Fatalf("changes = %+v", changes)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(offered) != 2 || !slices.Equal(offered[0], []string{"act", "mcp__gh__a", "mcp__gh__b"}) || !slices.Equal(offered[1], []string{"act"}) {
		t.Errorf("offered %v", offered)
	}
	told := strings.Join(lastSeen, "\n")
	if !strings.Contains(told, "No longer available: mcp__gh__a, mcp__gh__b") || strings.Contains(told, "Now available") {
		t.Errorf("the second request's conversation does not tell of the tools that left (and only of them):\n%s", told)
	}
}
