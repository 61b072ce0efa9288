package state

import (
	"math"

	"github.com/rein-agent/rein/internal/contract"
)

// DefaultBytesPerToken is the ratio the estimator assumes before the
// session has seen a model's usage: about four bytes a token, which is
// what English prose and code average with the vendors' tokenizers.
const DefaultBytesPerToken = 4.0

// The bounds of a calibrated ratio: what a request's bytes per reported
// token may plausibly be. A sample outside them (a request mostly made of
// images, a usage report that counts something else) is clamped, so that
// one odd call cannot throw the estimator far off.
const (
	minBytesPerToken = 1.0
	maxBytesPerToken = 8.0
)

// contextLengthFactor is what a context_length error multiplies the ratio
// by: the request that failed held more tokens than its estimate said, so
// each byte counts for more tokens from then on. Applied once per error,
// it makes a ratio that undercounts by 1.6x right within three errors.
const contextLengthFactor = 0.8

// Calib is the token estimator's calibration for one model, folded from
// the log: each model.requested records the bytes the estimate counted
// (InputBytes), and the model.usage that follows it reports the tokens
// the provider counted for them. The zero value knows nothing: the
// estimator uses [DefaultBytesPerToken].
type Calib struct {
	// Model is the model the figures are for. A conversation request to
	// another model starts the calibration afresh, as does a fallback.
	Model string `json:"model,omitempty"`
	// BytesPerToken is the smoothed ratio of bytes sent to input tokens
	// reported; zero until the first sample.
	BytesPerToken float64 `json:"bytes_per_token,omitempty"`
	// Samples counts the usage reports the ratio was learned from.
	Samples int `json:"samples,omitempty"`
	// Last is the last exact figure of a conversation request: its bytes
	// and the input tokens the provider counted. Everything up to that
	// request is known exactly; only what was added since is estimated.
	// It is cleared when the next request no longer starts the same way
	// (a compaction, an elision, a new system prompt).
	Last Exact `json:"last"`
	// Awaiting is the request whose usage has not been reported yet.
	Awaiting Request `json:"awaiting"`
	// Miss is how far off the last estimate recorded was, relative to
	// the tokens reported: (estimate - reported) / reported; negative when
	// it undercounted. Zero before any report.
	Miss float64 `json:"miss,omitempty"`
}

// Exact pairs the bytes of a request with the input tokens the provider
// reported for it. The zero value is no figure.
type Exact struct {
	Bytes  int   `json:"bytes,omitempty"`
	Tokens int64 `json:"tokens,omitempty"`
}

// Request is what model.requested said of a request whose usage has not
// come yet: its bytes and estimate, and whether it was a side call (a
// summary), which calibrates the ratio but is no prefix of the
// conversation.
type Request struct {
	Bytes    int  `json:"bytes,omitempty"`
	Estimate int  `json:"estimate,omitempty"`
	Side     bool `json:"side,omitempty"`
}

// Ratio returns the bytes per token to estimate with.
func (c *Calib) Ratio() float64 {
	if c.BytesPerToken <= 0 {
		return DefaultBytesPerToken
	}
	return c.BytesPerToken
}

// Tokens estimates the tokens of bytes of request text at the ratio,
// rounding up.
func (c *Calib) Tokens(bytes int) int {
	if bytes <= 0 {
		return 0
	}
	return int(math.Ceil(float64(bytes) / c.Ratio()))
}

// Estimate estimates the input tokens of a conversation request of bytes
// bytes. When extends is true the request begins with the request of
// c.Last, byte for byte: its tokens are exact, and only the bytes added
// since are estimated at the ratio.
func (c *Calib) Estimate(bytes int, extends bool) int {
	if extends && c.Last.Tokens > 0 && bytes >= c.Last.Bytes {
		return int(c.Last.Tokens) + c.Tokens(bytes-c.Last.Bytes)
	}
	return c.Tokens(bytes)
}

// requested returns the calibration after a model.requested.
func (c Calib) requested(e *contract.ModelRequested) Calib {
	side := e.Purpose != ""
	switch {
	case e.Model == c.Model:
	case !side || c.Model == "" && c.Samples == 0:
		c = Calib{Model: e.Model}
	default:
		// A side call to another model says nothing of this one.
		c.Awaiting = Request{}
		return c
	}
	c.Awaiting = Request{Bytes: e.InputBytes, Estimate: e.EstimatedInputTokens, Side: side}
	return c
}

// usage returns the calibration after the model.usage of the request
// awaiting it. A report without input tokens (some vendors report output
// apart) leaves the request awaiting.
func (c Calib) usage(u *contract.ModelUsage) Calib {
	if c.Awaiting.Bytes <= 0 || u.InputTokens <= 0 {
		return c
	}
	sample := float64(c.Awaiting.Bytes) / float64(u.InputTokens)
	sample = min(max(sample, minBytesPerToken), maxBytesPerToken)
	if c.Samples == 0 {
		c.BytesPerToken = sample
	} else {
		// A running mean over the first samples, then an exponential
		// average that follows the conversation as its content changes.
		w := max(1/float64(c.Samples+1), 0.25)
		c.BytesPerToken += w * (sample - c.BytesPerToken)
	}
	c.Samples++
	if c.Awaiting.Estimate > 0 {
		c.Miss = float64(c.Awaiting.Estimate-int(u.InputTokens)) / float64(u.InputTokens)
	}
	if !c.Awaiting.Side {
		c.Last = Exact{Bytes: c.Awaiting.Bytes, Tokens: u.InputTokens}
	}
	c.Awaiting = Request{}
	return c
}

// failed returns the calibration after a provider error: a context_length
// error of an awaiting request lowers the ratio, since the request held
// more tokens than estimated.
func (c Calib) failed(e *contract.ProviderError) Calib {
	if e.Kind != contract.KindContextLength || c.Awaiting.Bytes <= 0 {
		return c
	}
	c.BytesPerToken = max(c.Ratio()*contextLengthFactor, minBytesPerToken)
	c.Awaiting = Request{}
	return c
}
