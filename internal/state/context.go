package state

import (
	"slices"

	"github.com/rein-agent/rein/internal/contract"
)

// applyContext applies the context engine's events: the projection's
// elisions (context.projected), a compaction (context.compacted) and a
// compaction that failed.
func (s *State) applyContext(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.ContextProjected:
		if len(e.Elided) > 0 {
			// Appended like Messages: an earlier state keeps its length.
			s.Elided = append(s.Elided, e.Elided...)
			s.Calib.Last = Exact{}
		}
	case *contract.ContextCompacted:
		s.compact(e, env.Seq)
	case *contract.CompactionFailed:
		s.Side = ""
	}
}

// compact applies a compaction: the summary stands for the first
// e.Replaced messages from now on, and the rest is kept, in fresh slices
// (the old ones stay as earlier states show them). Elided intents whose
// results were replaced are dropped. When the latest user message was
// replaced, it is kept apart as SummaryUser; the task list and the ledger
// are kept as they stand, for the plot the requests carry until the next
// compaction.
func (s *State) compact(e *contract.ContextCompacted, seq uint64) {
	n := min(max(e.Replaced, 0), len(s.Messages))
	for i := range n {
		if s.Messages[i].Role == contract.RoleAssistant {
			s.Summarised++
		}
	}
	s.Messages = slices.Clone(s.Messages[n:])
	s.Seqs = slices.Clone(s.Seqs[n:])
	if len(s.Elided) > 0 {
		kept := make(map[string]bool, len(s.Messages))
		for i := range s.Messages {
			if r := s.Messages[i].Result; r != nil {
				kept[r.IntentID] = true
			}
		}
		var elided []string
		for _, id := range s.Elided {
			if kept[id] {
				elided = append(elided, id)
			}
		}
		s.Elided = elided
	}
	s.Summary, s.SummarySeq = e.Summary, seq
	s.SummaryUser = ""
	// The latest user message, not a command the person ran (whose
	// output is a user message too, see ranByUser).
	if !slices.ContainsFunc(s.Messages, func(m contract.ModelMessage) bool { return m.Role == contract.RoleUser && m.Text == s.LastUser }) {
		s.SummaryUser = s.LastUser
	}
	s.SummaryTodos, s.SummaryLedger = s.Todos, s.Ledger
	s.Compactions++
	s.Calib.Last = Exact{}
	s.Side = ""
}
