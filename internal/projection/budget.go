package projection

import "github.com/rein-agent/rein/internal/contract"

// Budget is what a model's window leaves a request, in tokens: the window
// less the output reserved for the reply and a safety margin. The zero
// value (Window 0) means the window is unknown: no policy applies, every
// message is included and no compaction is ever asked for.
type Budget struct {
	Window, Reserved, Margin int
	// CompactAt is the share of Input past which a compaction is asked
	// for, once elision is not enough; 0 means DefaultCompactAt.
	CompactAt float64
	// Tail is how many tokens of the recent conversation are protected
	// from elision and kept verbatim by a compaction; 0 means a quarter of
	// Input.
	Tail int
}

// DefaultCompactAt is the share of the input budget past which the
// projection asks for a compaction when Budget.CompactAt is 0.
const DefaultCompactAt = 0.85

// LowWater is the share of the input budget an elision step brings the
// request down to. Elision happens in large steps, rarely: once a request
// passes the threshold, old results are elided until it is at or below
// LowWater of Input, so that the conversation grows again by a large
// share (the threshold less LowWater) before the next step, and every
// request in between begins with the one before it, byte for byte (what
// prompt caches need). A CompactAt below DefaultCompactAt lowers the low
// water in proportion, so that it stays as far under the threshold.
const LowWater = 0.55

// The reserved output when the model's own maximum is unknown, and the
// most that is ever reserved: a reply rarely needs more, and what is
// reserved is taken from the input.
const (
	defaultReserved = 8192
	maxReserved     = 32000
	minMargin       = 256
)

// NewBudget returns the budget of a model described by info (nil: the
// window is unknown), asking for a compaction past compactAt of it (0:
// DefaultCompactAt). It reserves min(MaxOutput, 32,000, Window/4) tokens
// for the reply (8,192 in place of an unknown MaxOutput) and a margin of
// 2% of the window, at least 256 tokens, for what the estimate misses.
func NewBudget(info *contract.ModelInfo, compactAt float64) Budget {
	b := Budget{CompactAt: compactAt}
	if info == nil || info.ContextWindow <= 0 {
		return b
	}
	b.Window = info.ContextWindow
	out := info.MaxOutput
	if out <= 0 {
		out = defaultReserved
	}
	b.Reserved = min(out, maxReserved, b.Window/4)
	b.Margin = max(b.Window/50, minMargin)
	return b
}

// Input returns the tokens a request's input may use: the window less the
// reserved output and the margin; 0 when the window is unknown or too
// small to leave anything.
func (b Budget) Input() int {
	if b.Window <= 0 {
		return 0
	}
	return max(b.Window-b.Reserved-b.Margin, 0)
}

// Known reports whether the window is known, and so whether the policy
// applies.
func (b Budget) Known() bool { return b.Window > 0 }

// Threshold returns the input size in tokens past which the projection
// asks for a compaction: CompactAt of Input.
func (b Budget) Threshold() int {
	at := b.CompactAt
	if at <= 0 {
		at = DefaultCompactAt
	}
	return int(at * float64(b.Input()))
}

// lowWater returns the input size in tokens an elision step brings the
// request down to when it can: LowWater of Input, scaled down with a
// CompactAt below DefaultCompactAt.
func (b Budget) lowWater() int {
	share := LowWater
	if at := b.CompactAt; at > 0 && at < DefaultCompactAt {
		share = LowWater * at / DefaultCompactAt
	}
	return int(share * float64(b.Input()))
}

// tail returns the tokens of the protected recent tail.
func (b Budget) tail() int {
	if b.Tail > 0 {
		return b.Tail
	}
	return b.Input() / 4
}
