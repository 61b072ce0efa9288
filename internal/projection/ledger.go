package projection

import (
	"fmt"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
)

// sources returns the ledger's account of req: one entry per kind and
// decision (the system prompt, the tools, the summary, the messages
// included, the results elided before and now, the results left out),
// never one per message, so that it stays a handful of entries however
// long the session is.
func (v *view) sources(c *state.Calib, req *contract.ModelRequest, b Budget) []contract.ContextSource {
	var out []contract.ContextSource
	if req.System != "" {
		out = append(out, contract.ContextSource{Kind: contract.SourceSystem, Decision: contract.DecidedIncluded,
			Count: 1, Tokens: c.Tokens(len(req.System))})
	}
	if len(req.Tools) > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceTools, Decision: contract.DecidedIncluded,
			Count: len(req.Tools), Tokens: c.Tokens(toolsSize(req.Tools))})
	}
	if v.summary > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceSummary, Decision: contract.DecidedSummarised,
			Count: 1, Tokens: c.Tokens(v.summary), Ref: fmt.Sprintf("context.compacted seq %d", v.s.SummarySeq),
			Why: "a compaction replaced the earlier messages by this summary; the log keeps them"})
	}
	if v.latest > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceMessages, Decision: contract.DecidedIncluded,
			Count: 1, Tokens: c.Tokens(v.latest),
			Why: "the latest user message, which the compaction replaced, is kept verbatim"})
	}
	if v.verbatim.n > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceMessages, Decision: contract.DecidedIncluded,
			Count: v.verbatim.n, Tokens: c.Tokens(v.verbatim.bytes), Ref: v.verbatim.ref()})
	}
	if v.stubbed.n > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceObservations, Decision: contract.DecidedElided,
			Count: v.stubbed.n, Tokens: c.Tokens(v.stubbed.bytes), Ref: v.stubbed.ref(),
			Why: "elided by an earlier request: each is a stub that says where the whole output is"})
	}
	if v.fresh.n > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceObservations, Decision: contract.DecidedElided,
			Count: v.fresh.n, Tokens: c.Tokens(v.fresh.bytes), Ref: v.fresh.ref(), Why: fmt.Sprintf(
				"the request needed about %d tokens, over the threshold of %d (compact_at of a budget of %d): "+
					"the tool results older than the recent %d tokens, then older ones of the tail down to about %d tokens "+
					"(the low water) but none of the latest turn, are replaced by stubs",
				v.before, b.Threshold(), b.Input(), b.tail(), b.lowWater())})
	}
	if v.orphans.n > 0 {
		out = append(out, contract.ContextSource{Kind: contract.SourceObservations, Decision: contract.DecidedExcluded,
			Count: v.orphans.n, Ref: v.orphans.ref(), Why: "tool results whose call a compaction replaced"})
	}
	return out
}
