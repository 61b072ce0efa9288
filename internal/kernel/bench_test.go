package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// writeSession writes a session of about n durable events to dir: turns of
// a user message, a model call with text, an intent, usage and finish, and
// the intent's observation.
func writeSession(b *testing.B, dir string, n int) {
	b.Helper()
	store, err := eventlog.OpenFile(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	log := eventlog.New(store, nil)
	t0 := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	add := func(turn int, e contract.Event) {
		_, err := log.Append(contract.Envelope{ID: fmt.Sprintf("evt_%d", log.LastSeq()), Time: t0.Add(time.Duration(log.LastSeq()) * time.Millisecond),
			Session: "ses_bench", Run: "run_bench", Turn: turn, Cause: "evt_x", Data: e})
		if err != nil {
			b.Fatal(err)
		}
	}
	add(0, &contract.SessionStarted{Cwd: "/work", Version: "bench", Provider: "scripted", Model: "m"})
	for turn := 1; log.LastSeq() < uint64(n); turn++ {
		intentID := fmt.Sprintf("int_%d", turn)
		add(turn, &contract.UserMessage{Text: "look at why this project's tests fail and fix them"})
		add(turn, &contract.RunStarted{Goal: "fix the tests"})
		add(turn, &contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: turn * 3, ToolNames: []string{"bash"}, EstimatedInputTokens: 1200})
		add(turn, &contract.ModelStarted{Provider: "scripted", Model: "m", RequestID: "req"})
		add(turn, &contract.ModelText{Text: "I'll run the test suite to see which test fails and how."})
		add(turn, &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: intentID, ProviderCallID: "call_1", ToolName: "bash",
			Input: json.RawMessage(`{"command":"go test ./..."}`), RawInput: `{"command":"go test ./..."}`,
			Provider: contract.ProviderRef{Name: "scripted", Model: "m"}, AssembledFrom: contract.Assembly{Fragments: 3, LastIndex: 2}}})
		add(turn, &contract.ModelUsage{InputTokens: 1180, OutputTokens: 61})
		add(turn, &contract.ModelFinished{Reason: contract.FinishToolUse})
		add(turn, &contract.ToolObservation{Observation: contract.Observation{IntentID: intentID, ToolName: "bash", Phase: "execution", OK: false,
			Text: "--- FAIL: TestMean (0.00s)\n    stats_test.go:17: Mean([1 2 3 4]) = 3.3333333333333335, want 2.5\nFAIL"}})
		add(turn, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
	}
	if err := log.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReopenAndFold100k opens a 100,000-event session from disk and
// folds it into the state, as a kernel over an existing session does.
func BenchmarkReopenAndFold100k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "ses")
	writeSession(b, dir, 100_000)
	b.ResetTimer()
	for b.Loop() {
		store, err := eventlog.OpenFile(dir, &eventlog.FileOptions{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		log := eventlog.New(store, nil)
		k, err := New(providertest.Func(nil), log, nil)
		if err != nil {
			b.Fatal(err)
		}
		if k.State().LastSeq < 100_000 {
			b.Fatalf("folded %d events", k.State().LastSeq)
		}
		log.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkDelta measures the kernel's cost per streamed text delta, from
// the provider's yield to the caller's loop body, with a file-backed log.
func BenchmarkDelta(b *testing.B) { benchDelta(b, nil) }

// BenchmarkDeltaRedacted is BenchmarkDelta with secrets to cut out of the
// deltas (none of which holds one) and of the log, as rein runs with the
// keys of its environment.
func BenchmarkDeltaRedacted(b *testing.B) {
	benchDelta(b, []string{"sk-test-0123456789abcdef", "correct-horse-battery", "postgres://u:longpassword@h/db", "longpassword"})
}

// benchDelta streams text deltas through a kernel whose log and kernel cut
// secrets out, and reports the cost per delta.
func benchDelta(b *testing.B, secrets []string) {
	const perTurn = 10_000
	store, err := eventlog.OpenFile(filepath.Join(b.TempDir(), "ses"), &eventlog.FileOptions{Secrets: secrets})
	if err != nil {
		b.Fatal(err)
	}
	log := eventlog.New(store, nil)
	defer log.Close()
	delta := &contract.TextDelta{Text: "token "}
	p := providertest.Func(func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			for range perTurn {
				if !yield(delta, nil) {
					return
				}
			}
			yield(&contract.ModelFinished{Reason: contract.FinishStop}, nil)
		}
	})
	k, err := New(p, log, &Options{Secrets: secrets})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, err := range k.Send(context.Background(), Input{Text: "go"}) {
			if err != nil {
				b.Fatal(err)
			}
		}
		n += perTurn
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/delta")
}
