package responses

import (
	"context"
	"io"
	"iter"
	"net/http"
	"slices"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// DefaultBaseURL is the OpenAI API; requests go to {base}/responses.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultModel is the model used when neither the request nor the options
// name one.
const DefaultModel = "gpt-5.6-sol"

// defaultName is the provider name events and errors carry by default.
const defaultName = "responses"

// Options configures an [Adapter]; a nil *Options means all defaults:
// DefaultBaseURL (requests go to {BaseURL}/responses), DefaultModel and
// the name "responses". The key is sent as "Authorization: Bearer <key>".
type Options = provider.HTTPOptions

// Adapter streams model calls from a Responses API server. It implements
// provider.Provider and is safe for concurrent use: it holds only its
// configuration, and every Stream call is independent.
type Adapter struct {
	http provider.HTTP
	// promptCacheKey: the server takes prompt_cache_key (see buildRequest).
	promptCacheKey bool
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil.
func New(opts *Options) *Adapter {
	h := provider.NewHTTP(opts, provider.Defaults{
		BaseURL: DefaultBaseURL, Model: DefaultModel, Name: defaultName,
		Header: http.Header{"Accept": {"text/event-stream"}},
	})
	return &Adapter{http: h, promptCacheKey: provider.OpenAIHost(h.Base)}
}

// Stream sends req and yields the model's events in order, keeping the
// stream contract of provider.Provider: a non-nil error is the last pair
// yielded and is a *contract.ProviderError; a stream that ends without its
// terminal frame ends with stream_interrupted; a cancelled ctx ends it with
// aborted. The request starts when the iteration does, and breaking out
// early closes the connection. Stream does not modify req.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return a.http.Stream(ctx, req, a)
}

// Request builds the call for req, for provider.HTTP.Stream. Its headers
// are the driver's: the content types and the API key when there is one
// (and no other credential, whatever the base URL).
func (a *Adapter) Request(req *contract.ModelRequest, model string) (provider.Call, error) {
	body, err := buildRequest(req, model, a.promptCacheKey)
	return provider.Call{URL: a.http.Base + "/responses", Body: body}, err
}

// Refine refines the mapping of an error response with the Responses
// API's own codes, for provider.HTTP.Stream.
func (a *Adapter) Refine(e *contract.ProviderError, resp *http.Response, body []byte) {
	if k := classify(resp.StatusCode, provider.ParseErrorBody(body)); k != e.Kind {
		provider.Reclassify(e, k)
	}
}

// Frames returns the reader of one response body, for provider.HTTP.Stream.
func (a *Adapter) Frames(ref contract.ProviderRef) provider.Frames { return newTranslator(ref) }

// Normalize reads a Responses API response body (server-sent events) and
// yields what it says as contract events, without any network: Stream uses
// it on the HTTP body, and `rein debug normalize` on a file.
//
// It yields model.started first, with ref's name, model and request id,
// then the text and reasoning deltas, the tool intents (deltas while the
// arguments stream, proposed once the call's output_item.done or the end
// of the response arrives), the usage and model.finished. A malformed tool
// call is yielded as a malformed_tool_call *contract.ProviderError event and
// the stream goes on. A mid-stream vendor error (response.failed, an
// "error" event, an error body after the events) ends the stream as the
// terminal *contract.ProviderError, mapped into the taxonomy; a body that
// ends without response.completed or response.incomplete ends with
// stream_interrupted; a cancelled ctx with aborted. Nothing is read after
// the terminal frame.
func Normalize(ctx context.Context, body io.Reader, ref contract.ProviderRef) iter.Seq2[contract.ModelEvent, error] {
	return provider.Normalize(ctx, body, ref, newTranslator(ref))
}

// Event decodes one server-sent event and translates its frames (its data,
// then its stray lines), for provider.Normalize.
func (t *translator) Event(ev *sse.Event) ([]contract.ModelEvent, *contract.ProviderError, bool) {
	data, stray, err := decodeEvent(*ev)
	if err != nil {
		return nil, t.decodeFailed(ev.Unterminated, err), true
	}
	switch {
	case data == nil && stray == nil:
		return nil, nil, false
	case stray == nil:
		// One frame, the common case: its events as they are.
		events, perr := t.translate(data)
		return events, perr, perr != nil || t.done
	case data == nil:
		events, perr := t.translate(stray)
		return events, perr, perr != nil || t.done
	}
	events, perr := t.translate(data)
	if perr != nil || t.done {
		return events, perr, true
	}
	events = slices.Clone(events) // the translator reuses its slice
	more, perr := t.translate(stray)
	return append(events, more...), perr, perr != nil || t.done
}

// End is the end of a body before its terminal frame.
func (t *translator) End(bool) ([]contract.ModelEvent, *contract.ProviderError) {
	return nil, provider.Interrupted(t.ref, "response.completed")
}

// Whole translates a response read whole: the answer of a server that
// ignored stream: true, into the same events a stream would have given.
func (t *translator) Whole(data []byte) ([]contract.ModelEvent, *contract.ProviderError) {
	f, derr := decodeWhole(data)
	if derr != nil {
		return nil, t.decodeError(derr)
	}
	events, perr := t.translate(f)
	if perr == nil && !t.done {
		perr = provider.Interrupted(t.ref, "a finished response")
	}
	return events, perr
}

// decodeFailed maps an event that could not be decoded. Data cut short
// (JSON that ends too early) on an event the body ends inside, without the
// blank line that closes it, is a body that broke off mid-event:
// stream_interrupted, like any stream that ends without its terminal
// frame. Anything else, a closed event included, is a server (or a proxy)
// sending what is not the Responses API.
func (t *translator) decodeFailed(unterminated bool, err error) *contract.ProviderError {
	if unterminated && cutShort(err) {
		return provider.Interrupted(t.ref, "response.completed (the body ends inside an event)")
	}
	return t.decodeError(err)
}
