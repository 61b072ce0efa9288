package projection

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
)

// sim builds a session's log event by event, keeping the live state.
type sim struct {
	t      testing.TB
	events []contract.Envelope
	s      state.State
	n      int // intents proposed
}

func newSim(t testing.TB, system string, window int) *sim {
	b := &sim{t: t}
	b.add(&contract.SessionStarted{Cwd: "/w", Provider: "p", Model: "m", System: system,
		ModelInfo: &contract.ModelInfo{ContextWindow: window, Source: contract.InfoConfig}})
	return b
}

func (b *sim) add(e contract.Event) contract.Envelope {
	env := contract.Envelope{Seq: uint64(len(b.events) + 1), Session: "s", Run: "r", Turn: 1, Data: e}
	b.events = append(b.events, env)
	b.s = state.Apply(b.s, env)
	return env
}

// user starts a run with a user message.
func (b *sim) user(text string) {
	b.add(&contract.UserMessage{Text: text})
	b.add(&contract.RunStarted{Goal: text})
}

// call makes one model call that runs command and gets out, with an
// artifact when withArtifact.
func (b *sim) call(command, out string, withArtifact bool) string {
	b.n++
	id := fmt.Sprintf("int_%d", b.n)
	input, _ := json.Marshal(map[string]string{"command": command})
	b.add(&contract.ModelRequested{Model: "m"})
	b.add(&contract.ModelText{Text: "running " + command})
	b.add(&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ProviderCallID: "call_" + id, ToolName: "bash", Input: input}})
	b.add(&contract.ModelFinished{Reason: contract.FinishToolUse})
	obs := contract.Observation{IntentID: id, ToolName: "bash", OK: true, Text: out}
	if withArtifact {
		obs.ArtifactRef = "artifacts/inv_" + id + ".txt"
	}
	b.add(&contract.ToolObservation{Observation: obs})
	return id
}

// answer makes a model call that ends the run with text.
func (b *sim) answer(text string) {
	b.add(&contract.ModelRequested{Model: "m"})
	b.add(&contract.ModelText{Text: text})
	b.add(&contract.ModelFinished{Reason: contract.FinishStop})
	b.add(&contract.RunFinished{Outcome: contract.OutcomeCompleted})
}

// project projects the live state and records the ledger, as the kernel
// does before each request.
func (b *sim) project(reg *registry.Registry, opts *Options) *Projection {
	p := Project(&b.s, reg, opts)
	b.add(p.Ledger)
	return p
}

// folded checks that the fold of the log is the live state.
func (b *sim) folded() state.State {
	b.t.Helper()
	s := statetest.Reduce(b.events)
	if s.LastSeq != b.s.LastSeq || len(s.Messages) != len(b.s.Messages) {
		b.t.Fatalf("fold of the log: %d messages at seq %d; live: %d at %d", len(s.Messages), s.LastSeq, len(b.s.Messages), b.s.LastSeq)
	}
	return s
}

// output returns n bytes of tool output in lines of about 60 bytes.
func output(tag string, n int) string {
	line := fmt.Sprintf("%s: ok  \tgithub.com/rein-agent/rein/internal/x\t0.01s\n", tag)
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// testRegistry offers two tools.
func testRegistry(t testing.TB) *registry.Registry {
	schema := json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)
	reg, err := registry.New(
		registry.Tool{Name: "read_file", Description: "read a file", InputSchema: schema, Risk: registry.RiskRead, Concurrency: registry.Safe},
		registry.Tool{Name: "bash", Description: "run a command", InputSchema: schema, Risk: registry.RiskExecute, Concurrency: registry.Exclusive},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// marshalled returns the JSON of each message, to compare bytes.
func marshalled(t testing.TB, msgs []contract.ModelMessage) []string {
	out := make([]string, len(msgs))
	for i := range msgs {
		b, err := json.Marshal(&msgs[i])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}
