package eventlog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
)

// read, as a step of a coalescing case, stands for one call to Next.
var read = contract.Envelope{}

func withData(env contract.Envelope, data contract.Event) contract.Envelope {
	env.Data = data
	return env
}

func inTurn(env contract.Envelope, turn int) contract.Envelope {
	env.Turn = turn
	return env
}

// coalesceCases returns fresh values on every call, so a test can check
// that the values it appended were not modified.
func coalesceCases() []struct {
	name  string
	steps []contract.Envelope
	want  []contract.Envelope
} {
	id := func(index int, call, tool, raw string) contract.Envelope {
		return intentDelta("c", contract.IntentDelta{Index: index, ProviderCallID: call, ToolName: tool, RawInput: raw})
	}
	return []struct {
		name  string
		steps []contract.Envelope
		want  []contract.Envelope
	}{
		{
			name:  "text deltas concatenate",
			steps: []contract.Envelope{textDelta("c", "a"), textDelta("c", "b"), textDelta("c", "c")},
			want:  []contract.Envelope{withData(textDelta("c", "c"), &contract.TextDelta{Text: "abc"})},
		},
		{
			name:  "reasoning deltas concatenate",
			steps: []contract.Envelope{reasoningDelta("c", "a"), reasoningDelta("c", "b")},
			want:  []contract.Envelope{withData(reasoningDelta("c", "b"), &contract.ReasoningDelta{Text: "ab"})},
		},
		{
			name:  "text and reasoning stay apart",
			steps: []contract.Envelope{textDelta("c", "a"), reasoningDelta("c", "b"), textDelta("c", "c")},
			want:  []contract.Envelope{textDelta("c", "a"), reasoningDelta("c", "b"), textDelta("c", "c")},
		},
		{
			name:  "a durable event separates deltas",
			steps: []contract.Envelope{textDelta("c", "a"), durable("x"), textDelta("c", "b"), textDelta("c", "c")},
			want: []contract.Envelope{
				textDelta("c", "a"), withSeq(durable("x"), 1),
				withData(textDelta("c", "c"), &contract.TextDelta{Text: "bc"}),
			},
		},
		{
			name:  "durable events never merge",
			steps: []contract.Envelope{durable("x"), durable("x")},
			want:  []contract.Envelope{withSeq(durable("x"), 1), withSeq(durable("x"), 2)},
		},
		{
			name:  "another stream stays apart",
			steps: []contract.Envelope{textDelta("c1", "a"), textDelta("c2", "b")},
			want:  []contract.Envelope{textDelta("c1", "a"), textDelta("c2", "b")},
		},
		{
			name:  "another turn stays apart",
			steps: []contract.Envelope{textDelta("c", "a"), inTurn(textDelta("c", "b"), 2)},
			want:  []contract.Envelope{textDelta("c", "a"), inTurn(textDelta("c", "b"), 2)},
		},
		{
			name:  "a delta already read is not merged into",
			steps: []contract.Envelope{textDelta("c", "a"), read, textDelta("c", "b")},
			want:  []contract.Envelope{textDelta("c", "a"), textDelta("c", "b")},
		},
		{
			name: "merging resumes behind the unread tail",
			steps: []contract.Envelope{
				textDelta("c", "a"), durable("x"), textDelta("c", "b"), read, textDelta("c", "c"),
			},
			want: []contract.Envelope{
				textDelta("c", "a"), withSeq(durable("x"), 1),
				withData(textDelta("c", "c"), &contract.TextDelta{Text: "bc"}),
			},
		},
		{
			name:  "the newer intent delta replaces the older and keeps its names",
			steps: []contract.Envelope{id(0, "call_1", "read_file", `{"pa`), id(0, "", "", `{"path":"a"}`)},
			want: []contract.Envelope{withData(id(0, "", "", `{"path":"a"}`),
				&contract.IntentDelta{Index: 0, ProviderCallID: "call_1", ToolName: "read_file", RawInput: `{"path":"a"}`})},
		},
		{
			name:  "the newer intent delta with its names is kept as it is",
			steps: []contract.Envelope{id(0, "call_1", "glob", `{`), id(0, "call_1", "glob", `{}`)},
			want:  []contract.Envelope{id(0, "call_1", "glob", `{}`)},
		},
		{
			name:  "intent deltas of another index stay apart",
			steps: []contract.Envelope{id(0, "call_1", "glob", `{`), id(1, "call_2", "grep", `{`)},
			want:  []contract.Envelope{id(0, "call_1", "glob", `{`), id(1, "call_2", "grep", `{`)},
		},
	}
}

func TestCoalesce(t *testing.T) {
	for i, tc := range coalesceCases() {
		t.Run(tc.name, func(t *testing.T) {
			l := New(memstore.New(), nil)
			sub := l.Subscribe()
			var got []contract.Envelope
			for _, env := range tc.steps {
				if env.Data == nil {
					next, err := sub.Next(t.Context())
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, next)
					continue
				}
				if _, err := l.Append(env); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			got = append(got, drain(t, sub)...)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("received mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(coalesceCases()[i].steps, tc.steps); d != "" {
				t.Errorf("appended envelopes were modified (-want +got):\n%s", d)
			}
		})
	}
}

func TestSubscriberOrderConcurrent(t *testing.T) {
	const writers, perWriter, readers = 4, 300, 3
	for _, st := range setups() {
		t.Run(st.name, func(t *testing.T) {
			l, _ := st.open(t)
			results := make([][]contract.Envelope, readers+1)
			var wg sync.WaitGroup
			startReader := func(i int, s *Subscription) {
				wg.Go(func() { results[i] = drain(t, s) })
			}
			for i := range readers {
				startReader(i, l.Subscribe())
			}
			started, joined := make(chan struct{}), make(chan struct{})
			var writing sync.WaitGroup
			for w := range writers {
				writing.Go(func() {
					for i := range perWriter {
						if _, err := l.Append(durable(fmt.Sprintf("w%d-%d", w, i))); err != nil {
							t.Error(err)
							return
						}
						if _, err := l.Append(textDelta(fmt.Sprint("w", w), fmt.Sprint(i, ","))); err != nil {
							t.Error(err)
							return
						}
						if w == 0 && i == perWriter/2 {
							close(started)
							<-joined // so that the late reader has something to read
						}
					}
				})
			}
			<-started
			startReader(readers, l.Subscribe()) // joins while the writers write
			close(joined)
			writing.Wait()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			wg.Wait()

			for r, got := range results {
				late := r == readers
				var seqs []uint64
				texts := make(map[string]string) // per writer: durable texts, then deltas
				deltas := make(map[string]string)
				for _, env := range got {
					switch d := env.Data.(type) {
					case *contract.ModelText:
						seqs = append(seqs, env.Seq)
						w, _, _ := strings.Cut(d.Text, "-")
						texts[w] += d.Text + " "
					case *contract.TextDelta:
						deltas[env.Cause] += d.Text
					}
				}
				if len(seqs) == 0 {
					t.Fatalf("reader %d received no durable event", r)
				}
				for i, seq := range seqs {
					if seq != seqs[0]+uint64(i) {
						t.Fatalf("reader %d: durable event %d has seq %d, want %d", r, i, seq, seqs[0]+uint64(i))
					}
				}
				if !late && (seqs[0] != 1 || len(seqs) != writers*perWriter) {
					t.Errorf("reader %d: received seqs %d to %d, want 1 to %d", r, seqs[0], seqs[len(seqs)-1], writers*perWriter)
				}
				for w := range writers {
					var wantTexts, wantDeltas strings.Builder
					for i := range perWriter {
						fmt.Fprintf(&wantTexts, "w%d-%d ", w, i)
						fmt.Fprintf(&wantDeltas, "%d,", i)
					}
					key := fmt.Sprint("w", w)
					gotTexts, gotDeltas := texts[key], deltas[key]
					ok := gotTexts == wantTexts.String() && gotDeltas == wantDeltas.String()
					if late {
						ok = strings.HasSuffix(wantTexts.String(), gotTexts) && strings.HasSuffix(wantDeltas.String(), gotDeltas)
					}
					if !ok {
						t.Errorf("reader %d, writer %d: out of order:\ntexts  %q\ndeltas %q", r, w, gotTexts, gotDeltas)
					}
				}
			}
		})
	}
}

// transcript writes what envelopes say in a form that coalescing does not
// change: every character of a text or reasoning delta tagged with its
// kind, and durable events by seq. Intent deltas are left out: coalescing
// keeps only the last of a run of them.
func transcript(envs []contract.Envelope) string {
	var b strings.Builder
	for _, env := range envs {
		switch d := env.Data.(type) {
		case *contract.TextDelta:
			for _, r := range d.Text {
				b.WriteString("t")
				b.WriteRune(r)
			}
		case *contract.ReasoningDelta:
			for _, r := range d.Text {
				b.WriteString("r")
				b.WriteRune(r)
			}
		case *contract.IntentDelta:
		default:
			fmt.Fprintf(&b, "|%d %s|", env.Seq, env.Type())
		}
	}
	return b.String()
}

func TestSlowSubscriber(t *testing.T) {
	l := New(memstore.New(), nil)
	slow := l.Subscribe()
	var sent []contract.Envelope // as Append returned them
	var durables []contract.Envelope
	tools := []string{"read_file", "grep", "bash"}
	raw := make([]string, len(tools))
	appendEnv := func(env contract.Envelope) {
		got, err := l.Append(env)
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, got)
		if got.Durable() {
			durables = append(durables, got)
		}
	}
	for i := range 10_000 {
		appendEnv(textDelta("m1", fmt.Sprintf("%d é ", i)))
		if i%7 == 0 {
			appendEnv(reasoningDelta("m1", fmt.Sprint("think", i)))
		}
		if i%100 == 99 {
			appendEnv(numbered(i))
		}
		if i%13 == 0 { // a burst of argument fragments of one call
			k := i % len(tools)
			for j := range 3 {
				d := contract.IntentDelta{Index: k, RawInput: raw[k] + fmt.Sprint(i, ".", j)}
				if raw[k] == "" { // only the first fragment names the call
					d.ProviderCallID, d.ToolName = fmt.Sprint("call_", k), tools[k]
				}
				raw[k] = d.RawInput
				appendEnv(intentDelta("m1", d))
			}
		}
	}
	// Keep a copy of what was handed out, to check nothing modifies it.
	before := make([]string, len(sent))
	for i, env := range sent {
		before[i] = transcript([]contract.Envelope{env})
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := drain(t, slow)

	if len(got) >= len(sent) {
		t.Errorf("received %d envelopes for %d sent, want deltas coalesced", len(got), len(sent))
	}
	var gotDurables []contract.Envelope
	lastRaw := make([]string, len(tools))
	for _, env := range got {
		switch d := env.Data.(type) {
		case *contract.IntentDelta:
			if lastRaw[d.Index] == "" && (d.ToolName != tools[d.Index] || d.ProviderCallID != fmt.Sprint("call_", d.Index)) {
				t.Errorf("first intent delta %d lost its names: %+v", d.Index, d)
			}
			if !strings.HasPrefix(d.RawInput, lastRaw[d.Index]) {
				t.Errorf("intent delta %d went backwards: %q after %q", d.Index, d.RawInput, lastRaw[d.Index])
			}
			lastRaw[d.Index] = d.RawInput
		case *contract.TextDelta, *contract.ReasoningDelta:
		default:
			gotDurables = append(gotDurables, env)
		}
	}
	if d := cmp.Diff(durables, gotDurables); d != "" {
		t.Errorf("durable events mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(raw, lastRaw); d != "" {
		t.Errorf("last intent deltas mismatch (-want +got):\n%s", d)
	}
	if want, got := transcript(sent), transcript(got); want != got {
		t.Errorf("coalesced deltas do not add up to what was sent:\nwant %.200q...\ngot  %.200q...", want, got)
	}
	for i, env := range sent {
		if after := transcript([]contract.Envelope{env}); after != before[i] {
			t.Fatalf("envelope %d was modified after it was appended: %q, was %q", i, after, before[i])
		}
	}
}

func TestSubscriptionEnd(t *testing.T) {
	t.Run("log close drains the queue, then EOF", func(t *testing.T) {
		l := New(memstore.New(), nil)
		sub := l.Subscribe()
		for _, s := range []string{"a", "b", "c"} {
			if _, err := l.Append(durable(s)); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		want := []contract.Envelope{withSeq(durable("a"), 1), withSeq(durable("b"), 2), withSeq(durable("c"), 3)}
		if d := cmp.Diff(want, drain(t, sub)); d != "" {
			t.Errorf("mismatch (-want +got):\n%s", d)
		}
		if _, err := sub.Next(t.Context()); !errors.Is(err, io.EOF) {
			t.Errorf("Next() after the end = %v, want io.EOF", err)
		}
	})
	t.Run("subscription close discards and stops", func(t *testing.T) {
		l := New(memstore.New(), nil)
		sub := l.Subscribe()
		if _, err := l.Append(durable("a")); err != nil {
			t.Fatal(err)
		}
		sub.Close()
		sub.Close()
		if _, err := l.Append(durable("b")); err != nil {
			t.Fatal(err)
		}
		if _, err := sub.Next(t.Context()); !errors.Is(err, io.EOF) {
			t.Errorf("Next() after Close = %v, want io.EOF", err)
		}
	})
	t.Run("only envelopes appended after Subscribe", func(t *testing.T) {
		l := New(memstore.New(), nil)
		if _, err := l.Append(durable("before")); err != nil {
			t.Fatal(err)
		}
		sub := l.Subscribe()
		if _, err := l.Append(durable("after")); err != nil {
			t.Fatal(err)
		}
		l.Close()
		if d := cmp.Diff([]contract.Envelope{withSeq(durable("after"), 2)}, drain(t, sub)); d != "" {
			t.Errorf("mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("subscribe after close", func(t *testing.T) {
		l := New(memstore.New(), nil)
		l.Close()
		if _, err := l.Subscribe().Next(t.Context()); !errors.Is(err, io.EOF) {
			t.Errorf("Next() = %v, want io.EOF", err)
		}
	})
	t.Run("context done", func(t *testing.T) {
		l := New(memstore.New(), nil)
		sub := l.Subscribe()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := sub.Next(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Next(cancelled) = %v, want context.Canceled", err)
		}
		ctx, cancel = context.WithTimeout(t.Context(), time.Millisecond)
		defer cancel()
		if _, err := sub.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Next(timeout) = %v, want context.DeadlineExceeded", err)
		}
	})
	t.Run("blocked readers wake", func(t *testing.T) {
		l := New(memstore.New(), nil)
		sub := l.Subscribe()
		const n = 3 // concurrent readers of one subscription
		errs := make(chan error, n)
		for range n {
			go func() {
				_, err := sub.Next(t.Context())
				errs <- err
			}()
		}
		if _, err := l.Append(durable("a")); err != nil {
			t.Fatal(err)
		}
		if err := <-errs; err != nil {
			t.Errorf("Next() woken by Append = %v", err)
		}
		l.Close()
		for range n - 1 {
			if err := <-errs; !errors.Is(err, io.EOF) {
				t.Errorf("Next() woken by Close = %v, want io.EOF", err)
			}
		}
	})
}

func TestLaggingSubscriberWarning(t *testing.T) {
	rec := new(recorder)
	l := New(memstore.New(), &Options{Logger: rec.logger()})
	sub := l.Subscribe()
	env := durable("x")
	for range backlogWarning + 10 {
		if _, err := l.Append(env); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(rec.warnings()); got != 1 {
		t.Errorf("%d warnings, want 1", got)
	}
	l.Close()
	if got := len(drain(t, sub)); got != backlogWarning+10 {
		t.Errorf("received %d envelopes, want %d", got, backlogWarning+10)
	}
}
