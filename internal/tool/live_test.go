package tool

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// liveSink is a sink that shows output: the deltas join the events, in
// the order they come, and each is also sent on seen.
type liveSink struct {
	*sink
	seen chan string
}

func (s *liveSink) Delta(e contract.Event) {
	d := e.(*contract.ToolOutputDelta)
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	s.seen <- d.Text
}

// deltas returns the text of the deltas s received, in order.
func (s *liveSink) deltas() []string {
	var out []string
	for _, e := range s.events {
		if d, ok := e.(*contract.ToolOutputDelta); ok {
			out = append(out, d.Text)
		}
	}
	return out
}

// A streaming tool's output reaches a sink that shows it while the tool
// runs, between its start and its end, with the secrets cut out, a secret
// split across two writes included; all the text, in order.
func TestOutputStreamsToALiveSink(t *testing.T) {
	const secret = "sk-secret-9999"
	s := &liveSink{sink: &sink{}, seen: make(chan string, 16)}
	// The tool waits for each part to be shown before it writes the
	// next: nothing depends on how fast it runs.
	wait := func() {
		select {
		case <-s.seen:
		case <-time.After(10 * time.Second):
			t.Error("no delta came")
		}
	}
	tl := echo("bash", registry.RiskExecute, registry.Exclusive, func(_ context.Context, c *registry.Call) (registry.Result, error) {
		io.WriteString(c.Output, "part 1\n")
		wait()
		io.WriteString(c.Output, "part 2 sk-sec")
		io.WriteString(c.Output, "ret-9999 é\n")
		wait()
		io.WriteString(c.Output, "part 3\xc3")
		wait()
		io.WriteString(c.Output, "\xa9 last")
		return registry.Result{}, nil
	})
	tl.Streams = true
	f := newFixture(t, permission.Yolo, nil, &Options{Secrets: []string{secret}}, tl)
	if err := f.rt.Run(t.Context(), &state.State{}, []Proposal{intent("int_1", "bash", `{"text":""}`)}, s); err != nil {
		t.Fatal(err)
	}
	want := []string{"part 1\n", "part 2 [REDACTED] é\n", "part 3", "é last"}
	if d := cmp.Diff(want, s.deltas()); d != "" {
		t.Errorf("deltas mismatch (-want +got):\n%s", d)
	}
	var order []string
	for _, e := range s.events {
		order = append(order, e.EventType())
	}
	wantOrder := []string{contract.TypeToolValidation, contract.TypeToolPermission, contract.TypeInvocationStarted,
		contract.TypeToolOutputDelta, contract.TypeToolOutputDelta, contract.TypeToolOutputDelta, contract.TypeToolOutputDelta,
		contract.TypeInvocationCompleted, contract.TypeToolObservation}
	if d := cmp.Diff(wantOrder, order); d != "" {
		t.Errorf("event order mismatch (-want +got):\n%s", d)
	}
	for _, e := range s.events {
		if d, ok := e.(*contract.ToolOutputDelta); ok && (d.IntentID != "int_1" || !strings.HasPrefix(d.InvocationID, "inv")) {
			t.Errorf("delta %+v names the wrong call", d)
		}
	}
}

// A tool that does not stream, or a sink that shows nothing, gets no
// delta.
func TestOnlyStreamingToolsStream(t *testing.T) {
	s := &liveSink{sink: &sink{}, seen: make(chan string, 16)}
	f := newFixture(t, permission.Yolo, nil, nil, echo("say", registry.RiskRead, registry.Safe, nil))
	if err := f.rt.Run(t.Context(), &state.State{}, []Proposal{intent("int_1", "say", `{"text":"hi"}`)}, s); err != nil {
		t.Fatal(err)
	}
	if got := s.deltas(); len(got) != 0 {
		t.Errorf("a tool that does not stream yielded deltas %q", got)
	}
}

func TestLiveOutputTake(t *testing.T) {
	big := strings.Repeat("é", liveMax) // 2*liveMax bytes
	tests := []struct {
		name   string
		writes []string
		final  bool
		want   string
		left   int // bytes held back
	}{
		{name: "whole", writes: []string{"a", "b\n"}, want: "ab\n"},
		{name: "split character held", writes: []string{"a\xc3"}, want: "a", left: 1},
		{name: "split character at the end", writes: []string{"a\xc3"}, final: true, want: "a\uFFFD"},
		{name: "last 4 KiB on a boundary", writes: []string{"x", big}, want: big[len(big)-liveMax:]},
		{name: "invalid bytes", writes: []string{"a\xffb"}, want: "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &liveOutput{}
			for _, w := range tt.writes {
				l.add([]byte(w))
			}
			if got := l.take(tt.final); got != tt.want {
				t.Errorf("take() = %.40q (%d bytes), want %.40q (%d bytes)", got, len(got), tt.want, len(tt.want))
			}
			if len(l.buf) != tt.left {
				t.Errorf("%d bytes held back, want %d", len(l.buf), tt.left)
			}
		})
	}
}

// A person's own call runs without a question, in plan mode too, and is
// recorded as allowed by the user; an intent that is not theirs is
// refused before anything is emitted.
func TestRunUserAsksNobody(t *testing.T) {
	runs := 0
	tl := echo("bash", registry.RiskExecute, registry.Exclusive, func(_ context.Context, c *registry.Call) (registry.Result, error) {
		runs++
		io.WriteString(c.Output, "ran\n")
		return registry.Result{ExitCode: 2}, nil
	})
	never := ApproverFunc(func(context.Context, Question) (Answer, error) {
		t.Error("a person's own call asked a question")
		return No, nil
	})
	f := newFixture(t, permission.Plan, nil, &Options{Approver: never}, tl)
	p := intent("int_1", "bash", `{"text":"x"}`)
	if err := f.rt.RunUser(t.Context(), &state.State{}, p, f.sink); err == nil || len(f.sink.events) != 0 {
		t.Fatalf("RunUser of the model's intent = %v with %d events, want an error and none", err, len(f.sink.events))
	}
	p.Intent.Origin = contract.OriginUser
	if err := f.rt.RunUser(t.Context(), &state.State{}, p, f.sink); err != nil {
		t.Fatal(err)
	}
	want := []string{contract.TypeToolValidation, contract.TypeToolPermission, contract.TypeInvocationStarted,
		contract.TypeInvocationCompleted, contract.TypeToolObservation}
	if d := cmp.Diff(want, f.sink.types("int_1")); d != "" {
		t.Errorf("events mismatch (-want +got):\n%s", d)
	}
	if pe := f.sink.permission("int_1"); pe.Decision != contract.Allow || pe.By != permission.ByUser {
		t.Errorf("permission = %+v, want allow by user", pe)
	}
	if o := f.sink.observation(t, "int_1"); runs != 1 || o.OK || !strings.HasPrefix(o.Text, "ran") {
		t.Errorf("%d runs, observation %+v", runs, o)
	}
	// Its input is still checked against the schema.
	bad := intent("int_2", "bash", `{"nope":1}`)
	bad.Intent.Origin = contract.OriginUser
	if err := f.rt.RunUser(t.Context(), &state.State{}, bad, f.sink); err != nil {
		t.Fatal(err)
	}
	if o := f.sink.observation(t, "int_2"); o.Code != contract.CodeSchemaInvalid || runs != 1 {
		t.Errorf("observation %+v after %d runs, want schema_invalid and no run", o, runs)
	}
}

func TestBoundPreview(t *testing.T) {
	tests := []struct {
		name, in string
		lines    int
		bytes    int
		want     string
	}{
		{"fits", "a\nb\n", 2, 100, "a\nb\n"},
		{"too many lines", "a\nb\nc\n", 2, 100, "a\nb\n[rein: 1 more lines are not shown]\n"},
		{"no last newline", "a\nb\nc", 1, 100, "a\n[rein: 2 more lines are not shown]\n"},
		{"too many bytes", "aaaa\nbbbb\ncc\n", 10, 7, "aaaa\n[rein: 2 more lines are not shown]\n"},
		{"one huge line", "éééé\nb\n", 10, 5, "éé\n[rein: 1 more lines are not shown]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := boundPreview(tt.in, tt.lines, tt.bytes); got != tt.want {
				t.Errorf("boundPreview(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
