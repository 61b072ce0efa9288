package state

import (
	"cmp"
	"slices"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// Point is a place the session can be rewound to: just before one of its
// user messages. Points are kept for every user.message of the log, the
// rewound ones too, so a later rewind can go forward again.
type Point struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	// Text is the message, as sent.
	Text string `json:"text"`
	// before is the state just before the message, which a rewind of the
	// conversation to the point goes on from.
	before *State
}

// Equal reports whether p and o are the same point of equal histories:
// the same message, and states before it that agree on what a rewind
// restores (go-cmp compares points with it).
func (p Point) Equal(o Point) bool {
	if p.Seq != o.Seq || !p.Time.Equal(o.Time) || p.Text != o.Text || (p.before == nil) != (o.before == nil) {
		return false
	}
	if p.before == nil {
		return true
	}
	b, c := p.before, o.before
	return b.LastSeq == c.LastSeq && slices.EqualFunc(b.Messages, c.Messages, sameMessage) && slices.Equal(b.Seqs, c.Seqs) &&
		slices.Equal(b.Timeline, c.Timeline) && b.Ledger.Equal(c.Ledger) && slices.Equal(b.Todos, c.Todos) &&
		b.Summary == c.Summary && b.LastUser == c.LastUser
}

// Checkpoint is a snapshot of the workspace the log recorded
// (checkpoint.recorded): the seq of its event and the snapshot's id.
type Checkpoint struct {
	Seq  uint64 `json:"seq"`
	ID   string `json:"id"`
	When string `json:"when"`
	// Intent is the call it was taken for; empty for a rewind's.
	Intent string `json:"intent,omitempty"`
}

// Live reports whether the point is part of the conversation as it
// stands: false for one a rewind left out.
func (s *State) Live(p Point) bool {
	_, ok := slices.BinarySearch(s.Timeline, p.Seq)
	return ok
}

// PointAt returns the point of the user.message of seq.
func (s *State) PointAt(seq uint64) (Point, bool) {
	i, ok := slices.BinarySearchFunc(s.Points, seq, func(p Point, seq uint64) int { return cmp.Compare(p.Seq, seq) })
	if !ok {
		return Point{}, false
	}
	return s.Points[i], true
}

// Workspace returns the snapshot of the workspace as it was at point p:
// the first checkpoint recorded after its message. Every call that may
// change the workspace records one before it runs, and so does a rewind,
// so nothing of rein's changed the workspace between the message and that
// checkpoint. ok is false when none was recorded since: the workspace is
// as the session last left it.
func (s *State) Workspace(p Point) (Checkpoint, bool) {
	i, _ := slices.BinarySearchFunc(s.Checkpoints, p.Seq, func(c Checkpoint, seq uint64) int { return cmp.Compare(c.Seq, seq) })
	if i == len(s.Checkpoints) {
		return Checkpoint{}, false
	}
	return s.Checkpoints[i], true
}

// LastCheckpoint returns the latest snapshot the log recorded: the
// workspace as rein last knew it.
func (s *State) LastCheckpoint() (Checkpoint, bool) {
	if len(s.Checkpoints) == 0 {
		return Checkpoint{}, false
	}
	return s.Checkpoints[len(s.Checkpoints)-1], true
}

// point records the point of a user.message, before the message joins the
// conversation.
func (s *State) point(env contract.Envelope, text string) {
	before := *s
	// What the point never needs: the list of points, which a rewind
	// keeps whole.
	before.Points, before.Checkpoints = nil, nil
	s.Points = append(s.Points, Point{Seq: env.Seq, Time: env.Time, Text: text, before: &before})
	s.Timeline = append(s.Timeline, env.Seq)
}

// applyRewind applies the events of checkpoints and rewinds.
func (s *State) applyRewind(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.CheckpointRecorded:
		s.Checkpoints = append(s.Checkpoints, Checkpoint{Seq: env.Seq, ID: e.ID, When: e.When, Intent: e.IntentID})
	case *contract.SessionRewound:
		if e.Scope == contract.RewindCode {
			return
		}
		if p, ok := s.PointAt(e.To); ok && p.before != nil {
			s.rewindTo(p.before)
		}
	}
}

// rewindTo puts the conversation back as b, the state before a point,
// had it: its messages, summary (and the plot it carries: the task list
// and the ledger as the compaction found them), elisions, task list, read
// ledger and timeline. What is not the conversation's stays as it is now: the
// session, its model and mode, what it spent, its jobs, its points and
// checkpoints. The slices taken from b are clipped, so that what is
// appended from now on never writes over what b's own history holds (a
// later rewind may go back to it).
func (s *State) rewindTo(b *State) {
	s.Messages, s.Seqs = slices.Clip(b.Messages), slices.Clip(b.Seqs)
	s.LastUser = b.LastUser
	s.Elided = slices.Clip(b.Elided)
	s.Summary, s.SummarySeq, s.SummaryUser = b.Summary, b.SummarySeq, b.SummaryUser
	s.Compactions, s.Summarised = b.Compactions, b.Summarised
	s.Todos, s.SummaryTodos, s.SummaryLedger = b.Todos, b.SummaryTodos, b.SummaryLedger
	s.Draft = contract.ModelMessage{}
	s.Pending = slices.Clip(b.Pending)
	s.InFlight, s.Ended = nil, nil
	s.Ledger = b.Ledger
	s.Timeline = slices.Clip(b.Timeline)
	s.PromptNotes = nil
	s.Calib.Last = Exact{} // the next request starts differently
}

// sameMessage reports whether two messages say the same: role, text,
// reasoning, the calls and the result (what a rewind gives back).
func sameMessage(a, b contract.ModelMessage) bool {
	if a.Role != b.Role || a.Text != b.Text || a.Reasoning != b.Reasoning || len(a.ToolCalls) != len(b.ToolCalls) || (a.Result == nil) != (b.Result == nil) {
		return false
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i].IntentID != b.ToolCalls[i].IntentID {
			return false
		}
	}
	return a.Result == nil || (a.Result.IntentID == b.Result.IntentID && a.Result.Text == b.Result.Text)
}
