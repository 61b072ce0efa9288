package eventlog

import (
	"errors"
	"iter"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
)

// setup makes a fresh Log for a test. dir is the session directory of a
// file-backed log, "" for a memory one.
type setup struct {
	name string
	open func(t *testing.T) (l *Log, dir string)
}

func setups() []setup {
	return []setup{
		{"memory", func(t *testing.T) (*Log, string) {
			return New(memstore.New(), nil), ""
		}},
		{"file", func(t *testing.T) (*Log, string) {
			dir := t.TempDir()
			l := New(mustOpen(t, dir, nil), nil)
			t.Cleanup(func() { l.Close() })
			return l, dir
		}},
	}
}

func TestAppendSeq(t *testing.T) {
	in := []contract.Envelope{
		durable("a"),
		textDelta("c1", "x"),
		withSeq(durable("b"), 99), // a caller's Seq is overwritten
		reasoningDelta("c1", "y"),
		intentDelta("c1", contract.IntentDelta{Index: 0, ToolName: "read_file", RawInput: "{"}),
		durable("c"),
		withSeq(textDelta("c1", "z"), 7), // deltas always get Seq 0
	}
	wantSeqs := []uint64{1, 0, 2, 0, 0, 3, 0}
	wantStored := []contract.Envelope{withSeq(durable("a"), 1), withSeq(durable("b"), 2), withSeq(durable("c"), 3)}

	for _, st := range setups() {
		t.Run(st.name, func(t *testing.T) {
			l, dir := st.open(t)
			for i, env := range in {
				got, err := l.Append(env)
				if err != nil {
					t.Fatalf("Append(%s): %v", env.Type(), err)
				}
				if d := cmp.Diff(withSeq(env, wantSeqs[i]), got); d != "" {
					t.Errorf("Append(%s) mismatch (-want +got):\n%s", env.Type(), d)
				}
			}
			if got := l.LastSeq(); got != 3 {
				t.Errorf("LastSeq() = %d, want 3", got)
			}
			if d := cmp.Diff(wantStored, collect(t, l.Events(1))); d != "" {
				t.Errorf("Events(1) mismatch (-want +got):\n%s", d)
			}
			if dir == "" {
				return
			}
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			var want []byte
			for _, env := range wantStored {
				want = append(want, line(t, env, env.Seq)...)
			}
			if d := cmp.Diff(string(want), string(readFile(t, dir))); d != "" {
				t.Errorf("events.jsonl mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestEventsFrom(t *testing.T) {
	const n = 600 // several index entries and several read chunks
	var all []contract.Envelope
	for i := 1; i <= n; i++ {
		all = append(all, withSeq(numbered(i), uint64(i)))
	}
	fill := func(t *testing.T, s Store) {
		t.Helper()
		l := New(s, nil)
		for i := 1; i <= n; i++ {
			if _, err := l.Append(numbered(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Each variant returns the Events function under test.
	variants := []struct {
		name string
		open func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error]
	}{
		{"memory log", func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error] {
			s := memstore.New()
			fill(t, s)
			return New(s, nil).Events
		}},
		{"memory store", func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error] {
			s := memstore.New()
			fill(t, s)
			return s.Events
		}},
		{"file log unsynced", func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error] {
			s := mustOpen(t, t.TempDir(), nil)
			t.Cleanup(func() { s.Close() })
			fill(t, s)
			return New(s, nil).Events
		}},
		{"file store unsynced", func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error] {
			s := mustOpen(t, t.TempDir(), nil)
			t.Cleanup(func() { s.Close() })
			fill(t, s)
			return s.Events
		}},
		{"file log reopened", func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error] {
			dir := t.TempDir()
			s := mustOpen(t, dir, nil)
			fill(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			l := New(mustOpen(t, dir, nil), nil)
			t.Cleanup(func() { l.Close() })
			return l.Events
		}},
		{"file store read-only", func(t *testing.T) func(uint64) iter.Seq2[contract.Envelope, error] {
			dir := t.TempDir()
			s := mustOpen(t, dir, nil)
			fill(t, s)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			ro := mustOpen(t, dir, &FileOptions{ReadOnly: true})
			t.Cleanup(func() { ro.Close() })
			return ro.Events
		}},
	}
	froms := []uint64{0, 1, 2, 63, 64, 65, 128, 129, 256, 257, 300, 599, 600, 601, 10_000}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			events := v.open(t)
			for _, from := range froms {
				want := all[min(max(from, 1)-1, n):]
				got := collect(t, events(from))
				if len(want) == 0 && len(got) == 0 || reflect.DeepEqual(want, got) {
					continue // cmp.Diff explains a mismatch, but is slow on hundreds of events
				}
				t.Errorf("Events(%d) mismatch (-want +got):\n%s", from, cmp.Diff(want, got))
			}
			// Breaking out early is allowed and leaves nothing locked.
			for range events(1) {
				break
			}
		})
	}
}

func TestEventsWhileAppending(t *testing.T) {
	for _, st := range setups() {
		t.Run(st.name, func(t *testing.T) {
			l, _ := st.open(t)
			const n = 2*readChunk + 10
			for i := 1; i <= n; i++ {
				if _, err := l.Append(numbered(i)); err != nil {
					t.Fatal(err)
				}
			}
			// The body appends: that must neither deadlock nor extend the
			// iteration past what was there when it began.
			count := 0
			for env, err := range l.Events(1) {
				if err != nil {
					t.Fatal(err)
				}
				count++
				if env.Seq != uint64(count) {
					t.Fatalf("event %d has seq %d", count, env.Seq)
				}
				if _, err := l.Append(durable("more")); err != nil {
					t.Fatal(err)
				}
			}
			if count != n {
				t.Errorf("Events(1) yielded %d events, want %d", count, n)
			}
			if got, want := len(collect(t, l.Events(1))), 2*n; got != want {
				t.Errorf("after appending, Events(1) yielded %d events, want %d", got, want)
			}
		})
	}
}

// failingStore fails every Append while err is set.
type failingStore struct {
	Store
	err error
}

func (f *failingStore) Append(env contract.Envelope) (contract.Envelope, error) {
	if f.err != nil {
		return contract.Envelope{}, f.err
	}
	return f.Store.Append(env)
}

func TestAppendErrors(t *testing.T) {
	t.Run("no data", func(t *testing.T) {
		l := New(memstore.New(), nil)
		if _, err := l.Append(contract.Envelope{ID: "x"}); err == nil {
			t.Error("Append(no data) succeeded, want an error")
		}
		if got := l.LastSeq(); got != 0 {
			t.Errorf("LastSeq() = %d, want 0", got)
		}
	})
	t.Run("store failure", func(t *testing.T) {
		boom := errors.New("disk on fire")
		fs := &failingStore{Store: memstore.New(), err: boom}
		l := New(fs, nil)
		sub := l.Subscribe()
		if _, err := l.Append(durable("a")); !errors.Is(err, boom) {
			t.Fatalf("Append() error = %v, want %v", err, boom)
		}
		fs.err = nil
		got, err := l.Append(durable("b"))
		if err != nil {
			t.Fatal(err)
		}
		if got.Seq != 1 {
			t.Errorf("after a failed Append, the next Seq is %d, want 1", got.Seq)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		want := []contract.Envelope{withSeq(durable("b"), 1)}
		if d := cmp.Diff(want, drain(t, sub)); d != "" {
			t.Errorf("subscriber mismatch (-want +got):\n%s", d)
		}
	})
	for _, st := range setups() {
		t.Run("closed "+st.name, func(t *testing.T) {
			l, _ := st.open(t)
			if _, err := l.Append(durable("a")); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatalf("Close() = %v", err)
			}
			if _, err := l.Append(durable("b")); !errors.Is(err, ErrClosed) {
				t.Errorf("Append() after Close = %v, want ErrClosed", err)
			}
			if _, err := l.Append(textDelta("c", "x")); !errors.Is(err, ErrClosed) {
				t.Errorf("Append(delta) after Close = %v, want ErrClosed", err)
			}
			if err := l.Sync(); !errors.Is(err, ErrClosed) {
				t.Errorf("Sync() after Close = %v, want ErrClosed", err)
			}
			if err := lastErr(l.Events(1)); !errors.Is(err, ErrClosed) {
				t.Errorf("Events() after Close yielded %v, want ErrClosed", err)
			}
			if err := l.Close(); err != nil {
				t.Errorf("second Close() = %v, want nil", err)
			}
			if got := l.LastSeq(); got != 1 {
				t.Errorf("LastSeq() after Close = %d, want 1", got)
			}
		})
	}
	t.Run("read-only file", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, dir, lines(t, 3))
		l := New(mustOpen(t, dir, &FileOptions{ReadOnly: true}), nil)
		if got := l.LastSeq(); got != 3 {
			t.Errorf("LastSeq() = %d, want 3", got)
		}
		if _, err := l.Append(durable("x")); err == nil {
			t.Error("Append() to a read-only store succeeded")
		}
		if err := l.Sync(); err != nil {
			t.Errorf("Sync() = %v, want nil", err)
		}
		if err := l.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	})
}

var _ Store = (*memstore.Store)(nil)
