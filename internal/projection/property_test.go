package projection

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// TestProjectInvariants runs random sessions (runs of tool calls of
// random sizes, parallel calls, compactions where the policy asks for
// them, windows from tiny to large) and checks what every request must
// hold, whatever the policy decided.
func TestProjectInvariants(t *testing.T) {
	reg := testRegistry(t)
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 13))
			windows := []int{0, 8000, 16000, 32000, 128000}
			b := newSim(t, "sys", windows[r.IntN(len(windows))])
			opts := &Options{System: "sys", SessionDir: "/s", Budget: NewBudget(b.s.ModelInfo, 0)}
			for run := range 1 + r.IntN(4) {
				b.user(fmt.Sprintf("task %d %s", run, strings.Repeat("x", r.IntN(300))))
				for range 1 + r.IntN(25) {
					p := b.project(reg, opts)
					checkRequest(t, b, p, opts)
					if p.Compact && !p.TooBig {
						if plan, err := PlanCompaction(&b.s, reg, opts); err == nil {
							b.add(&contract.ContextCompacted{Summary: "summary " + strings.Repeat("s", r.IntN(3000)),
								Replaced: plan.Replaced, FromSeq: plan.FromSeq, ToSeq: plan.ToSeq})
							checkRequest(t, b, Project(&b.s, reg, opts), opts)
						}
					}
					b.calls(r.IntN(3)+1, r.IntN(12000))
				}
				b.answer("done")
			}
		})
	}
}

// calls makes one model call proposing n intents, answered in order.
func (b *sim) calls(n, size int) {
	b.add(&contract.ModelRequested{Model: "m"})
	var ids []string
	for range n {
		b.n++
		id := fmt.Sprintf("int_%d", b.n)
		ids = append(ids, id)
		b.add(&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ProviderCallID: "c", ToolName: "bash",
			Input: []byte(fmt.Sprintf(`{"command":"run %s"}`, id))}})
	}
	b.add(&contract.ModelFinished{Reason: contract.FinishToolUse})
	for _, id := range ids {
		b.add(&contract.ToolObservation{Observation: contract.Observation{IntentID: id, OK: true, Text: output(id, size)}})
	}
}

func checkRequest(t *testing.T, b *sim, p *Projection, opts *Options) {
	t.Helper()
	msgs := p.Request.Messages
	called := map[string]bool{}
	latest := false
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			called[c.IntentID] = true
		}
		if m.Result != nil && !called[m.Result.IntentID] {
			t.Fatalf("message %d answers %s, which no earlier message of the request calls", i, m.Result.IntentID)
		}
		latest = latest || m.Role == contract.RoleUser && m.Text == b.s.LastUser
	}
	if !latest {
		t.Fatalf("the request lacks the latest user message %q", b.s.LastUser)
	}
	if opts.Budget.Known() && !p.Compact && p.Tokens > opts.Budget.Threshold() {
		t.Fatalf("%d tokens over the threshold %d, and no compaction asked for", p.Tokens, opts.Budget.Threshold())
	}
	if !opts.Budget.Known() && (p.Compact || p.TooBig || len(p.Ledger.Elided) > 0) {
		t.Fatalf("a policy applied without a window")
	}
	again := Project(&b.s, testRegistry(t), opts)
	if !slices.Equal(marshalled(t, p.Request.Messages), marshalled(t, again.Request.Messages)) {
		t.Fatalf("the request differs once its elisions are recorded")
	}
	n := 0
	for _, src := range p.Ledger.Sources {
		if src.Decision != contract.DecidedExcluded && (src.Kind == contract.SourceMessages || src.Kind == contract.SourceObservations) {
			n += src.Count
		}
	}
	if src := p.Ledger.Sources; n+countKind(src, contract.SourceSummary) != len(msgs) {
		t.Fatalf("the ledger counts %d messages, the request has %d", n, len(msgs))
	}
}

func countKind(srcs []contract.ContextSource, kind string) int {
	n := 0
	for _, s := range srcs {
		if s.Kind == kind {
			n += s.Count
		}
	}
	return n
}
