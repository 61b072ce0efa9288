package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// t0 is the time of every test envelope; a fixed UTC time survives the
// JSON round trip unchanged.
var t0 = time.Date(2025, 6, 7, 8, 9, 10, 123456789, time.UTC)

// durable returns a durable model.text envelope carrying text.
func durable(text string) contract.Envelope {
	return contract.Envelope{
		ID: "ev-" + text, Time: t0, Session: "s1", Run: "r1", Turn: 1,
		Data: &contract.ModelText{Text: text},
	}
}

// numbered returns the i-th envelope of a realistic sequence: model text
// and usage events alternating.
func numbered(i int) contract.Envelope {
	env := contract.Envelope{
		ID: fmt.Sprintf("ev-%d", i), Time: t0.Add(time.Duration(i) * time.Millisecond),
		Session: "s1", Run: "r1", Turn: 1 + i/10, Cause: fmt.Sprintf("ev-%d", i-1),
	}
	if i%2 == 0 {
		env.Data = &contract.ModelText{Text: fmt.Sprintf("line %d of the answer, with some words in it", i)}
	} else {
		env.Data = &contract.ModelUsage{InputTokens: int64(1000 + i), OutputTokens: int64(i), CacheReadTokens: 512}
	}
	return env
}

// textDelta returns a model.text_delta envelope of the stream cause.
func textDelta(cause, text string) contract.Envelope {
	return contract.Envelope{
		ID: "td-" + text, Time: t0, Session: "s1", Run: "r1", Turn: 1, Cause: cause,
		Data: &contract.TextDelta{Text: text},
	}
}

// reasoningDelta returns a model.reasoning_delta envelope of the stream
// cause.
func reasoningDelta(cause, text string) contract.Envelope {
	return contract.Envelope{
		ID: "rd-" + text, Time: t0, Session: "s1", Run: "r1", Turn: 1, Cause: cause,
		Data: &contract.ReasoningDelta{Text: text},
	}
}

// intentDelta returns a tool_intent.delta envelope of the stream cause.
func intentDelta(cause string, d contract.IntentDelta) contract.Envelope {
	return contract.Envelope{
		ID: "id-" + d.RawInput, Time: t0, Session: "s1", Run: "r1", Turn: 1, Cause: cause,
		Data: &d,
	}
}

// withSeq returns env numbered seq.
func withSeq(env contract.Envelope, seq uint64) contract.Envelope {
	env.Seq = seq
	return env
}

// collect ranges over events, failing the test on an error.
func collect(t testing.TB, events iter.Seq2[contract.Envelope, error]) []contract.Envelope {
	t.Helper()
	var got []contract.Envelope
	for env, err := range events {
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		got = append(got, env)
	}
	return got
}

// lastErr ranges over events and returns the error yielded, if any.
func lastErr(events iter.Seq2[contract.Envelope, error]) error {
	for _, err := range events {
		if err != nil {
			return err
		}
	}
	return nil
}

// drain reads s until io.EOF, failing the test on any other error.
func drain(t testing.TB, s *Subscription) []contract.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []contract.Envelope
	for {
		env, err := s.Next(ctx)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Next: %v", err)
			}
			return got
		}
		got = append(got, env)
	}
}

// mustOpen opens the store of dir, failing the test on error.
func mustOpen(t testing.TB, dir string, opts *FileOptions) *FileStore {
	t.Helper()
	s, err := OpenFile(dir, opts)
	if err != nil {
		t.Fatalf("OpenFile(%s): %v", dir, err)
	}
	return s
}

// writeFile writes the log file of dir.
func writeFile(t testing.TB, dir string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// readFile returns the bytes of the log file of dir.
func readFile(t testing.TB, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// line returns env numbered seq as one log line.
func line(t testing.TB, env contract.Envelope, seq uint64) []byte {
	t.Helper()
	b, err := withSeq(env, seq).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// lines returns the log file holding numbered(1) to numbered(n).
func lines(t testing.TB, n int) []byte {
	t.Helper()
	var b []byte
	for i := 1; i <= n; i++ {
		b = append(b, line(t, numbered(i), uint64(i))...)
	}
	return b
}

// recorder is a slog.Handler that keeps what it is given.
type recorder struct {
	mu      sync.Mutex
	records []slog.Record
}

// warning is the part of a logged warning the tests check.
type warning struct {
	Line  int64
	Bytes int64
}

func (r *recorder) logger() *slog.Logger                     { return slog.New(r) }
func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec.Clone())
	return nil
}

// warnings returns the line and bytes attributes of the warnings logged.
func (r *recorder) warnings() []warning {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ws []warning
	for _, rec := range r.records {
		if rec.Level != slog.LevelWarn {
			continue
		}
		var w warning
		rec.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "line":
				w.Line = a.Value.Int64()
			case "bytes":
				w.Bytes = a.Value.Int64()
			}
			return true
		})
		ws = append(ws, w)
	}
	return ws
}
