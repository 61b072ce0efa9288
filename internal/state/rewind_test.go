package state

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// conversation is a session as events: appended with seqs in order.
type conversation struct {
	events []contract.Envelope
}

func (c *conversation) add(e contract.Event) uint64 {
	seq := uint64(len(c.events) + 1)
	c.events = append(c.events, contract.Envelope{Seq: seq, Session: "s", ID: fmt.Sprintf("evt_%d", seq), Data: e})
	return seq
}

// turn adds a user message and the model's answer to it.
func (c *conversation) turn(text string) uint64 {
	seq := c.add(&contract.UserMessage{Text: text})
	c.add(&contract.RunStarted{})
	c.add(&contract.ModelRequested{})
	c.add(&contract.ModelText{Text: "answer to " + text})
	c.add(&contract.ModelFinished{Reason: contract.FinishStop})
	c.add(&contract.RunFinished{Outcome: contract.OutcomeCompleted})
	return seq
}

func texts(s State) []string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Text)
	}
	return out
}

// A rewind of the conversation goes on from just before its point; a
// later one can go forward again to a point it left out, and what was
// appended in between never shows in the rewound history.
func TestRewindConversation(t *testing.T) {
	var c conversation
	one := c.turn("one")
	c.add(&contract.CheckpointRecorded{ID: "cp1", When: contract.CheckpointBefore})
	two := c.turn("two")
	c.add(&contract.CheckpointRecorded{ID: "cp2", When: contract.CheckpointBefore})
	three := c.turn("three")
	c.add(&contract.CheckpointRecorded{ID: "cp3", When: contract.CheckpointRewind})
	c.add(&contract.SessionRewound{To: two, Scope: contract.RewindBoth})
	s := reduceSlice(c.events)
	if got, want := texts(s), []string{"one", "answer to one"}; !slices.Equal(got, want) {
		t.Fatalf("after the rewind to two: %q, want %q", got, want)
	}
	if s.LastUser != "one" {
		t.Errorf("LastUser = %q, want one", s.LastUser)
	}
	for _, p := range s.Points {
		if live := s.Live(p); live != (p.Seq == one) {
			t.Errorf("point %d (%s) live = %v", p.Seq, p.Text, live)
		}
	}
	four := c.turn("four")
	s = reduceSlice(c.events)
	if got, want := texts(s), []string{"one", "answer to one", "four", "answer to four"}; !slices.Equal(got, want) {
		t.Fatalf("after four: %q, want %q", got, want)
	}
	// Forward again, to three, which the first rewind left out.
	c.add(&contract.SessionRewound{To: three, Scope: contract.RewindConversation})
	s = reduceSlice(c.events)
	if got, want := texts(s), []string{"one", "answer to one", "two", "answer to two"}; !slices.Equal(got, want) {
		t.Fatalf("after the rewind to three: %q, want %q", got, want)
	}
	if got := len(s.Points); got != 4 {
		t.Errorf("%d points, want 4 (every message, rewound ones too)", got)
	}
	// The workspace at each point: the first checkpoint after it.
	for _, tc := range []struct {
		seq  uint64
		want string
	}{{one, "cp1"}, {two, "cp2"}, {three, "cp3"}, {four, ""}} {
		p, _ := s.PointAt(tc.seq)
		cp, ok := s.Workspace(p)
		if cp.ID != tc.want || ok != (tc.want != "") {
			t.Errorf("Workspace(point %d) = %q, %v; want %q", tc.seq, cp.ID, ok, tc.want)
		}
	}
	// A rewind of the code alone leaves the conversation as it is.
	c.add(&contract.SessionRewound{To: one, Scope: contract.RewindCode})
	if got := texts(reduceSlice(c.events)); len(got) != 4 {
		t.Errorf("a code rewind changed the conversation: %q", got)
	}
}
