package eventlog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
)

// reportRate reports how many events per second a benchmark appended.
func reportRate(b *testing.B, n int) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkAppendFileBatched appends small events to a file store and
// syncs every 100 of them, as the kernel does around a turn.
func BenchmarkAppendFileBatched(b *testing.B) {
	appendBatched(b, numbered(2))
}

// BenchmarkAppendFileLongLines appends a tool's observation of 8 KiB of
// test output (tabs, newlines, quotes, a little non-ASCII) and the intent
// that asked for it, syncing every 100 lines: the lines the writer spends
// most on.
func BenchmarkAppendFileLongLines(b *testing.B) {
	appendBatched(b,
		contract.Envelope{ID: "ev-i", Time: t0, Session: "s1", Run: "r1", Turn: 1, Data: &contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ID: "int_1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./... 2>&1 | tail -n 40"}`),
			RawInput: `{"command":"go test ./... 2>&1 | tail -n 40"}`, Provider: contract.ProviderRef{Name: "anthropic", Model: "claude"},
		}}},
		contract.Envelope{ID: "ev-o", Time: t0, Session: "s1", Run: "r1", Turn: 1, Data: &contract.ToolObservation{Observation: contract.Observation{
			IntentID: "int_1", ToolName: "bash", Phase: contract.PhaseExecution, Text: testOutput(8 << 10), Untrusted: true,
		}}},
	)
}

// appendBatched appends envs in turn to a file store, syncing every 100
// events, and reports the rate.
func appendBatched(b *testing.B, envs ...contract.Envelope) {
	l := New(mustOpen(b, b.TempDir(), nil), nil)
	defer l.Close()
	n := 0
	for b.Loop() {
		if _, err := l.Append(envs[n%len(envs)]); err != nil {
			b.Fatal(err)
		}
		if n++; n%100 == 0 {
			if err := l.Sync(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := l.Sync(); err != nil {
		b.Fatal(err)
	}
	reportRate(b, n)
}

// testOutput returns about size bytes of a test run's output: tabs,
// newlines, quotes and a little non-ASCII, all of which the encoder
// escapes or checks.
func testOutput(size int) string {
	const line = "=== RUN   TestMean/empty\n\t--- FAIL: mean_test.go:12: Mean(\"[]\") = NaN, want 0 — café\n"
	return strings.Repeat(line, max(1, size/len(line)))
}

// BenchmarkAppendFileSyncEach appends small events to a file store that
// fsyncs every one.
func BenchmarkAppendFileSyncEach(b *testing.B) {
	l := New(mustOpen(b, b.TempDir(), &FileOptions{SyncEveryAppend: true}), nil)
	defer l.Close()
	env := numbered(2)
	n := 0
	for b.Loop() {
		if _, err := l.Append(env); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportRate(b, n)
}

// BenchmarkAppendMem appends small events to a memory store with one
// subscriber keeping up: the cost of the log itself.
func BenchmarkAppendMem(b *testing.B) {
	l := New(memstore.New(), nil)
	defer l.Close()
	sub := l.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			if _, err := sub.Next(b.Context()); err != nil {
				return
			}
		}
	}()
	env := numbered(2)
	n := 0
	for b.Loop() {
		if _, err := l.Append(env); err != nil {
			b.Fatal(err)
		}
		n++
	}
	reportRate(b, n)
	sub.Close()
	<-done
}

// BenchmarkReopen100k opens a 100,000-event log, as resuming or replaying
// a long session does, and reads it all back: through the store alone,
// and through a Log (which reads in chunks under its lock).
func BenchmarkReopen100k(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	s := mustOpen(b, dir, nil)
	for i := 1; i <= n; i++ {
		if _, err := s.Append(withSeq(numbered(i), uint64(i))); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	size := int64(len(readFile(b, dir)))

	for _, via := range []string{"store", "log"} {
		b.Run(via, func(b *testing.B) {
			b.SetBytes(size)
			runs := 0
			for b.Loop() {
				s := mustOpen(b, dir, nil)
				events := s.Events
				if via == "log" {
					events = New(s, nil).Events
				}
				count := 0
				for _, err := range events(1) {
					if err != nil {
						b.Fatal(err)
					}
					count++
				}
				if count != n {
					b.Fatalf("read %d events, want %d", count, n)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				runs++
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(runs), "ms/reopen")
		})
	}
}
