package scripted

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// Options configures a [Provider]. A nil *Options means all defaults.
type Options struct {
	// Name is the provider name events carry; "" means "scripted".
	Name string
	// Model is the model name events carry when the request names none;
	// "" means the script's model, and "scripted" if it has none either.
	Model string
	// ChunkDelay is the pause before each step; nil means the script's
	// chunk_delay_ms. A pointer, so that zero can override a script's
	// delay.
	ChunkDelay *time.Duration
}

// Provider plays a [Script] as a model would stream it. It implements
// provider.Provider and is safe for concurrent use.
//
// Unlike a real adapter it keeps one piece of state across calls: how many
// requests each turn has had, so that a turn's fail list is served one
// failure per request. That counter stands for the vendor's side (a rate
// limit that lifts), not for the conversation, which it never sees except
// to count its assistant messages.
type Provider struct {
	script *Script
	name   string
	model  string
	delay  time.Duration

	mu       sync.Mutex
	attempts map[int]int // requests served so far, by turn index
}

var _ provider.Provider = (*Provider)(nil)

// New returns a Provider that plays s. s must not be nil; opts may be.
func New(s *Script, opts *Options) *Provider {
	if s == nil {
		panic("scripted: New with a nil script")
	}
	if opts == nil {
		opts = &Options{}
	}
	p := &Provider{script: s, name: opts.Name, model: opts.Model, delay: s.chunkDelay, attempts: map[int]int{}}
	if p.name == "" {
		p.name = "scripted"
	}
	if p.model == "" {
		p.model = s.model
	}
	if p.model == "" {
		p.model = "scripted"
	}
	if opts.ChunkDelay != nil {
		p.delay = *opts.ChunkDelay
	}
	return p
}

// Stream plays the turn req asks for: the turn whose index is the number of
// assistant messages in req. It keeps the stream contract of
// provider.Provider: a non-nil error is the last pair yielded and is a
// *contract.ProviderError; a turn whose steps end with neither finish nor
// error ends with stream_interrupted; a cancelled ctx ends the stream with
// aborted, checked before each step and during the chunk delay. A request
// for a turn past the end of the script fails with bad_request.
//
// Each iteration of the returned iterator is one request: it counts
// towards the turn's fail list (unless ctx is already cancelled, since such
// a request never reaches the "server"), and breaking out early stops it at
// once.
func (p *Provider) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		model := p.model
		if req != nil && req.Model != "" {
			model = req.Model
		}
		if err := ctx.Err(); err != nil {
			yield(nil, p.aborted(ctx, model, ""))
			return
		}
		if req != nil && req.Purpose == contract.PurposeCompaction {
			p.summarise(ctx, model, yield)
			return
		}
		n := assistantMessages(req)
		if req != nil {
			n += req.Summarised // the turns a compaction's summary stands for
		}
		if n >= len(p.script.turns) {
			yield(nil, &contract.ProviderError{
				Kind:      contract.KindBadRequest,
				Retryable: contract.KindBadRequest.Retryable(),
				Provider:  p.name,
				Model:     model,
				Message:   fmt.Sprintf("the script has %d turns; the conversation asks for turn %d", len(p.script.turns), n+1),
			})
			return
		}
		t := &p.script.turns[n]
		attempt := p.attempt(n)
		requestID := fmt.Sprintf("scripted-%d-%d", n+1, attempt+1)
		ref := contract.ProviderRef{Name: p.name, Model: model, RequestID: requestID}
		if problem := check(t.expect, lastResults(req)); problem != "" {
			// The script cannot go on as written: a scripted model that
			// recited its next step anyway would pass whatever happened.
			if yield(&contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: requestID}, nil) &&
				yield(&contract.TextDelta{Text: "The scripted model stops here: " + problem}, nil) {
				yield(nil, &contract.ProviderError{
					Kind: contract.KindBadRequest, Provider: p.name, Model: model, RequestID: requestID,
					Message: fmt.Sprintf("scripted turn %d: %s", n+1, strings.SplitN(problem, "\n", 2)[0]),
				})
			}
			return
		}
		p.serve(ctx, t, attempt, ref, yield)
	}
}

// serve plays turn t for its request number attempt (from 0): the
// failure of its fail list of that number, else its steps.
func (p *Provider) serve(ctx context.Context, t *turn, attempt int, ref contract.ProviderRef, yield func(contract.ModelEvent, error) bool) {
	if attempt >= len(t.fail) {
		p.play(ctx, t.steps, nil, ref, yield)
		return
	}
	f := &t.fail[attempt]
	if len(f.steps) == 0 {
		// A failure before the stream starts, like an HTTP 429.
		yield(nil, p.providerError(f.err, ref.Model, ref.RequestID))
		return
	}
	p.play(ctx, f.steps, &f.err, ref, yield)
}

// summarise plays the script's summary turn, for a compaction's request.
// Its fail list is served one failure per summary request, like a turn's.
func (p *Provider) summarise(ctx context.Context, model string, yield func(contract.ModelEvent, error) bool) {
	t := p.script.summary
	if t == nil {
		yield(nil, &contract.ProviderError{
			Kind: contract.KindBadRequest, Provider: p.name, Model: model,
			Message: `the script has no "summary" turn to answer a compaction's request with`,
		})
		return
	}
	attempt := p.attempt(summaryTurn)
	requestID := fmt.Sprintf("scripted-summary-%d", attempt+1)
	p.serve(ctx, t, attempt, contract.ProviderRef{Name: p.name, Model: model, RequestID: requestID}, yield)
}

// summaryTurn is the key of the summary turn's requests in attempts.
const summaryTurn = -1

// play streams steps. When they run out without a finish or an error step,
// the stream ends with fail, or with stream_interrupted when fail is nil.
func (p *Provider) play(ctx context.Context, steps []step, fail *errorSpec, ref contract.ProviderRef, yield func(contract.ModelEvent, error) bool) {
	if !yield(&contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID}, nil) {
		return
	}
	asm := provider.NewAssembler(ref)
	for i := range steps {
		st := &steps[i]
		if !p.wait(ctx) {
			yield(nil, p.aborted(ctx, ref.Model, ref.RequestID))
			return
		}
		var ev contract.ModelEvent
		switch st.act {
		case actText:
			ev = &contract.TextDelta{Text: st.text}
		case actReasoning:
			ev = &contract.ReasoningDelta{Text: st.text}
		case actTool:
			ev = asm.Add(st.frag)
		case actToolEnd:
			ev = asm.End(st.frag.Index, st.frag.ID)
		case actUsage:
			u := st.usage
			ev = &u
		case actFinish:
			for _, ev := range asm.EndAll() {
				if !yield(ev, nil) {
					return
				}
			}
			yield(&contract.ModelFinished{Reason: st.reason, ProviderState: bytes.Clone(st.state)}, nil)
			return
		case actError:
			yield(nil, p.providerError(st.err, ref.Model, ref.RequestID))
			return
		}
		// Parse makes sure every tool_end matches an open call, so ev is
		// never nil; the check keeps a nil event from ever being yielded.
		if ev != nil && !yield(ev, nil) {
			return
		}
	}
	if ctx.Err() != nil {
		yield(nil, p.aborted(ctx, ref.Model, ref.RequestID))
		return
	}
	if fail != nil {
		yield(nil, p.providerError(*fail, ref.Model, ref.RequestID))
		return
	}
	// The calls still open are dropped, never proposed: an interrupted
	// stream's half arguments must not become intents.
	yield(nil, &contract.ProviderError{
		Kind:      contract.KindStreamInterrupted,
		Retryable: contract.KindStreamInterrupted.Retryable(),
		Provider:  ref.Name,
		Model:     ref.Model,
		RequestID: ref.RequestID,
		Message:   "the stream ended before the model finished (the scripted turn has no finish step)",
	})
}

// attempt returns how many requests turn n had before this one, and counts
// this one.
func (p *Provider) attempt(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	a := p.attempts[n]
	p.attempts[n] = a + 1
	return a
}

// wait pauses for the chunk delay and reports whether ctx is still live.
func (p *Provider) wait(ctx context.Context) bool {
	if p.delay <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(p.delay)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return ctx.Err() == nil
	}
}

// providerError builds the error a script's fail entry or error step
// describes.
func (p *Provider) providerError(e errorSpec, model, requestID string) *contract.ProviderError {
	retryable := e.Kind.Retryable()
	if e.Retryable != nil {
		retryable = *e.Retryable
	}
	return &contract.ProviderError{
		Kind:         e.Kind,
		Retryable:    retryable,
		Provider:     p.name,
		Model:        model,
		RequestID:    requestID,
		HTTPStatus:   e.HTTPStatus,
		Message:      e.Message,
		RetryAfterMS: e.RetryAfterMS,
	}
}

// aborted is the error of a stream whose ctx was cancelled.
func (p *Provider) aborted(ctx context.Context, model, requestID string) *contract.ProviderError {
	return &contract.ProviderError{
		Kind:      contract.KindAborted,
		Retryable: contract.KindAborted.Retryable(),
		Provider:  p.name,
		Model:     model,
		RequestID: requestID,
		Message:   "the request was cancelled: " + context.Cause(ctx).Error(),
		Err:       ctx.Err(),
	}
}

// assistantMessages counts the assistant messages of req: the index of the
// turn it asks for.
func assistantMessages(req *contract.ModelRequest) int {
	if req == nil {
		return 0
	}
	n := 0
	for i := range req.Messages {
		if req.Messages[i].Role == contract.RoleAssistant {
			n++
		}
	}
	return n
}

// Model returns the model name the provider reports for a request that
// names none: Options.Model, else the script's model, else "scripted".
func (p *Provider) Model() string { return p.model }
