package responses

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// DefaultBaseURL is the OpenAI API; requests go to {base}/responses.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultModel is the model used when neither the request nor the options
// name one.
const DefaultModel = "gpt-5"

// defaultName is the provider name events and errors carry by default.
const defaultName = "responses"

// maxWholeBody bounds a response read whole (a server that ignored
// stream: true and answered application/json).
const maxWholeBody = 64 << 20

// Options configures an [Adapter]. A nil *Options means all defaults.
type Options struct {
	// BaseURL is the API root; "" means DefaultBaseURL. Any URL works
	// (local servers, proxies); a trailing slash is tolerated.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>"; "" sends no
	// credential at all (local servers).
	APIKey string
	// Model is used when a request names none; "" means DefaultModel.
	Model string
	// Name is the provider name in events and errors; "" means "responses".
	Name string
	// HTTPClient sends the requests; nil means provider.DefaultClient(): no
	// overall timeout (streams are long), bounded waits for headers and
	// inside a stream, and no redirect to another host.
	HTTPClient *http.Client
	// Header holds extra headers, sent as given after the adapter's own
	// (a header named here replaces the adapter's value).
	Header http.Header
}

// Adapter streams model calls from a Responses API server. It implements
// provider.Provider and is safe for concurrent use: it holds only its
// configuration, and every Stream call is independent.
type Adapter struct {
	base   string // the base URL as configured, named when no connection can be made
	url    string
	apiKey string
	model  string
	name   string
	client *http.Client
	header http.Header
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil.
func New(opts *Options) *Adapter {
	if opts == nil {
		opts = &Options{}
	}
	a := &Adapter{
		url:    strings.TrimRight(opts.BaseURL, "/"),
		apiKey: opts.APIKey,
		model:  opts.Model,
		name:   opts.Name,
		client: opts.HTTPClient,
		header: opts.Header.Clone(),
	}
	if a.url == "" {
		a.url = DefaultBaseURL
	}
	a.base = a.url
	a.url += "/responses"
	if a.model == "" {
		a.model = DefaultModel
	}
	if a.name == "" {
		a.name = defaultName
	}
	if a.client == nil {
		a.client = provider.DefaultClient()
	}
	return a
}

// Stream sends req and yields the model's events in order, keeping the
// stream contract of provider.Provider: a non-nil error is the last pair
// yielded and is a *contract.ProviderError; a stream that ends without its
// terminal frame ends with stream_interrupted; a cancelled ctx ends it with
// aborted. The request starts when the iteration does, and breaking out
// early closes the connection. Stream does not modify req.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		model := a.model
		if req != nil && req.Model != "" {
			model = req.Model
		}
		ref := contract.ProviderRef{Name: a.name, Model: model}
		if req == nil {
			yield(nil, provider.NewError(ref, contract.KindBadRequest, "no request"))
			return
		}
		body, err := BuildRequest(req, model)
		if err != nil {
			e := provider.NewError(ref, contract.KindBadRequest, err.Error())
			e.Err = err
			yield(nil, e)
			return
		}
		resp, perr := provider.Post(ctx, a.client, &ref, provider.Call{URL: a.url, Base: a.base, Body: body, Header: a.headers(), Extra: a.header}, responseError)
		if perr != nil {
			yield(nil, perr)
			return
		}
		defer resp.Body.Close()
		if isJSON(resp.Header.Get("Content-Type")) {
			whole(ctx, resp.Body, ref, yield)
			return
		}
		for ev, err := range Normalize(ctx, resp.Body, ref) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// headers returns the adapter's own request headers: the content types
// and the API key when there is one (and no other credential, whatever the
// base URL); the extra headers of the options come after them.
func (a *Adapter) headers() http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
	if a.apiKey != "" {
		h.Set("Authorization", "Bearer "+a.apiKey)
	}
	return h
}

// isJSON reports whether a content type is JSON rather than an event
// stream: the answer of a server that ignored stream: true.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// responseError maps a response whose status is not a success: the shared
// mapping, refined with the Responses API's own codes.
func responseError(ref contract.ProviderRef, resp *http.Response) *contract.ProviderError {
	// The body is read here once, so that the shared mapping and the
	// refinement see the same bytes; what was read is all there is to report.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	r := *resp
	r.Body = io.NopCloser(bytes.NewReader(body))
	e := provider.ResponseError(ref, &r)
	if k := classify(resp.StatusCode, provider.ParseErrorBody(body)); k != e.Kind {
		e.Kind, e.Retryable = k, k.Retryable()
	}
	return e
}

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
	return func(yield func(contract.ModelEvent, error) bool) {
		if !yield(started(ref), nil) {
			return
		}
		t := newTranslator(ref)
		r := sse.NewReader(body)
		for {
			if ctx.Err() != nil {
				yield(nil, provider.TransportError(ctx, ref, context.Cause(ctx), true))
				return
			}
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				yield(nil, provider.Interrupted(ref, "response.completed"))
				return
			}
			if err != nil {
				yield(nil, readError(ctx, ref, err))
				return
			}
			data, stray, derr := decodeEvent(ev)
			if derr != nil {
				yield(nil, t.decodeFailed(ctx, r, ev.Unterminated, derr))
				return
			}
			for _, f := range [2]frame{data, stray} {
				if f == nil {
					continue
				}
				events, perr := t.translate(f)
				for _, e := range events {
					if !yield(e, nil) {
						return
					}
				}
				if perr != nil {
					yield(nil, perr)
					return
				}
				if t.done {
					return
				}
			}
		}
	}
}

// whole translates a response read whole: the answer of a server that
// ignored stream: true, into the same events a stream would have given.
func whole(ctx context.Context, body io.Reader, ref contract.ProviderRef, yield func(contract.ModelEvent, error) bool) {
	data, err := io.ReadAll(io.LimitReader(body, maxWholeBody+1))
	if err != nil {
		yield(nil, readError(ctx, ref, err))
		return
	}
	if !yield(started(ref), nil) {
		return
	}
	if len(data) > maxWholeBody {
		yield(nil, provider.NewError(ref, contract.KindUnknown, fmt.Sprintf("the response body is over %d bytes", maxWholeBody)))
		return
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] != '{' {
		// Events labelled as JSON: read them as the stream they are.
		for ev, err := range Normalize(ctx, bytes.NewReader(data), ref) {
			if _, ok := ev.(*contract.ModelStarted); ok {
				continue // already yielded
			}
			if !yield(ev, err) {
				return
			}
		}
		return
	}
	t := newTranslator(ref)
	f, derr := decodeWhole(data)
	if derr != nil {
		yield(nil, t.decodeError(derr))
		return
	}
	events, perr := t.translate(f)
	for _, e := range events {
		if !yield(e, nil) {
			return
		}
	}
	if perr != nil {
		yield(nil, perr)
		return
	}
	if !t.done {
		yield(nil, provider.Interrupted(ref, "a finished response"))
	}
}

func started(ref contract.ProviderRef) *contract.ModelStarted {
	return &contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID}
}

// decodeFailed maps an event that could not be decoded. Data cut short
// (JSON that ends too early) on an event the body ends inside, without the
// blank line that closes it, is a body that broke off mid-event:
// stream_interrupted, like any stream that ends without its terminal
// frame. Anything else, a closed event included, is a server (or a proxy)
// sending what is not the Responses API.
func (t *translator) decodeFailed(ctx context.Context, r *sse.Reader, unterminated bool, err error) *contract.ProviderError {
	if unterminated && cutShort(err) {
		if _, next := r.Next(); next != nil {
			if errors.Is(next, io.EOF) {
				return provider.Interrupted(t.ref, "response.completed (the body ends inside an event)")
			}
			return readError(ctx, t.ref, next)
		}
	}
	return t.decodeError(err)
}

// readError maps a failure to read the body once the response began.
func readError(ctx context.Context, ref contract.ProviderRef, err error) *contract.ProviderError {
	if errors.Is(err, sse.ErrLineTooLong) {
		e := provider.NewError(ref, contract.KindUnknown, "the stream has a line over 16 MiB: "+err.Error())
		e.Err = err
		return e
	}
	return provider.TransportError(ctx, ref, err, true)
}
