package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/delegate"
	"github.com/rein-agent/rein/internal/projection"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool/builtin"
	"github.com/rein-agent/rein/internal/workspace"
)

// demoRequests runs the offline demo and rebuilds, from its log alone,
// the request of each of its model calls: the projection of the state
// the log held just before each model.requested. It checks that what it
// rebuilds is what was sent, as far as the log says (the estimate, the
// bytes, the message count, the tools).
func demoRequests(t *testing.T) []*contract.ModelRequest {
	t.Helper()
	r := run(t, "demo", "--json")
	if r.code != 0 {
		t.Fatalf("rein demo: exit %d\n%s", r.code, r.stderr)
	}
	envs := events(t, r.state)
	ws, err := workspace.New(envs[0].Data.(*contract.SessionStarted).Cwd)
	if err != nil {
		t.Fatal(err)
	}
	// The session's tools, as the wiring makes them: bash runs jobs.
	reg, err := registry.New(builtin.Tools(ws, &builtin.Options{ArtifactDir: filepath.Join(t.TempDir(), "artifacts"),
		Bash: &builtin.BashOptions{Jobs: builtin.NewJobs(nil)}})...)
	if err != nil {
		t.Fatal(err)
	}
	// The task tool, as the session has it (only its definition counts).
	if err := reg.Register(delegate.Tool(&delegate.Options{Agents: agentsOf((*extensions)(nil).agentList())})); err != nil {
		t.Fatal(err)
	}
	var st state.State
	var reqs []*contract.ModelRequest
	for _, env := range envs {
		if e, ok := env.Data.(*contract.ModelRequested); ok && e.Purpose == "" {
			proj := projection.Project(&st, reg, &projection.Options{Model: e.Model, System: st.System,
				Budget: projection.NewBudget(st.ModelInfo, 0)})
			req := proj.Request
			req.ParallelToolCalls, req.CacheKey, req.ReasoningEffort = len(req.Tools) > 1, env.Session, e.ReasoningEffort
			if proj.Tokens != e.EstimatedInputTokens || proj.Bytes != e.InputBytes || len(req.Messages) != e.MessageCount ||
				!slices.Equal(projection.ToolNames(req), e.ToolNames) {
				t.Fatalf("request %d rebuilt: %d tokens, %d bytes, %d messages; the log says %d, %d, %d",
					len(reqs)+1, proj.Tokens, proj.Bytes, len(req.Messages), e.EstimatedInputTokens, e.InputBytes, e.MessageCount)
			}
			reqs = append(reqs, req)
		}
		st = state.Apply(st, env)
	}
	return reqs
}

// TestDemoRequestsRepeatTheirPrefix sends the demo's requests through each
// adapter to a server that keeps their bodies, and checks that, from the
// second request on, at least 95% of each body is a byte prefix of the
// next one: what a vendor's prompt cache can reuse.
func TestDemoRequestsRepeatTheirPrefix(t *testing.T) {
	reqs := demoRequests(t)
	if len(reqs) < 4 {
		t.Fatalf("the demo made %d model calls", len(reqs))
	}
	for _, name := range []string{"openai", "responses", "anthropic", "gemini"} {
		t.Run(name, func(t *testing.T) {
			bodies := sent(t, name, reqs)
			for i := 1; i < len(bodies); i++ {
				common := commonPrefix(bodies[i-1], bodies[i])
				share := float64(common) / float64(len(bodies[i-1]))
				t.Logf("request %d → %d: %d of %d bytes (%.2f%%) repeated; %.2f%% of the next", i, i+1, common, len(bodies[i-1]),
					100*share, 100*float64(common)/float64(len(bodies[i])))
				if share < 0.95 {
					t.Errorf("request %d repeats only %.2f%% of request %d", i+1, 100*share, i)
				}
			}
		})
	}
}

// sent returns the bodies the adapter of name sends for reqs.
func sent(t *testing.T, name string, reqs []*contract.ModelRequest) [][]byte {
	t.Helper()
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		http.Error(w, `{"error":{"message":"kept"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	a := adapters[name]
	p := a.build(&provider.HTTPOptions{BaseURL: srv.URL + "/v1", APIKey: "test-key", Model: a.defaultModel})
	for _, req := range reqs {
		for range p.Stream(t.Context(), req) {
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != len(reqs) {
		t.Fatalf("%d bodies for %d requests", len(bodies), len(reqs))
	}
	return bodies
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n && bytes.Equal(a[:n], b[:n]) {
		return n
	}
	return i
}
