package provider

import (
	"bytes"
	"context"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// DefaultFirstByteTimeout is how long an adapter waits, by default, for
// the first byte of a response once its request is sent. Streaming APIs
// answer at once, before the model's first token; a local server that
// loads the model first may take a while, hence a bound this long.
const DefaultFirstByteTimeout = 90 * time.Second

// HTTPOptions configures an adapter that speaks HTTP and server-sent
// events. A nil *HTTPOptions means all defaults, which are the adapter's
// own (its [Defaults]).
type HTTPOptions struct {
	// BaseURL is where the API lives; "" means the adapter's default. Any
	// URL works (local servers, proxies); a trailing slash is tolerated.
	BaseURL string
	// APIKey is the credential, sent in the header the vendor takes
	// (Authorization: Bearer, x-api-key, x-goog-api-key), never in the
	// URL; "" sends no credential at all (local servers).
	APIKey string
	// Model is used when a request names none; "" means the adapter's
	// default.
	Model string
	// Name is the provider name in events and errors; "" means the
	// adapter's.
	Name string
	// HTTPClient sends the requests; nil means [DefaultClient]: no overall
	// timeout (streams are long), bounded waits for headers and inside a
	// stream, and no redirect to another host.
	HTTPClient *http.Client
	// Header holds extra headers, sent on every request after the
	// adapter's own: one named here replaces the adapter's value (an API
	// version, say). It is copied.
	Header http.Header
	// Logger receives what a person should know about a stream that is not
	// an event (Chat Completions: a server that sends more than one
	// choice, said once per stream at warning level). nil means discard.
	Logger *slog.Logger
	// FirstByteTimeout bounds the wait for the first byte of a response's
	// body (the first byte of its first event) once the request is sent:
	// a server that accepted the request and sends nothing for this long,
	// or only its headers, is given up on with an error of kind timeout,
	// which the kernel retries (see [Post]). 0 means
	// [DefaultFirstByteTimeout]; a negative value means no bound of the
	// adapter's own. The silence inside a body once it began is the
	// client's to bound ([DefaultClient]: [IdleTimeout]).
	FirstByteTimeout time.Duration
}

// Defaults are an adapter's values for the empty fields of [HTTPOptions]
// (its base URL, its model and its provider name) and how its requests
// carry their headers.
type Defaults struct {
	BaseURL, Model, Name string
	// KeyHeader is the header the API key goes in, as the vendor names it
	// (x-api-key, x-goog-api-key); "" means "Authorization: Bearer <key>".
	// No key, no credential header at all.
	KeyHeader string
	// Header holds the adapter's own headers, sent on every request with
	// Content-Type: application/json and the key: Accept:
	// text/event-stream, an API version. nil means none; it is copied.
	Header http.Header
}

// Endpoint is what an adapter gives [HTTP.Stream] for one call: the
// vendor's request, its reading of an error response, and its reading of
// the stream.
type Endpoint interface {
	// Request returns the call that sends req, never nil, to model: its
	// URL and its JSON body. Stream fills in Call.Header (the headers of
	// [HTTP]), Call.Base, Call.Extra and Call.FirstByte when they are
	// empty. An error is a
	// request that cannot be built: bad_request.
	Request(req *contract.ModelRequest, model string) (Call, error)
	// Refine refines e, what [ResponseError] makes of a response with an
	// error status, with what the vendor's body says; body is the part
	// of it ResponseError read.
	Refine(e *contract.ProviderError, resp *http.Response, body []byte)
	// Frames returns the reader of one response body for ref.
	Frames(ref contract.ProviderRef) Frames
}

// HTTP is the part every HTTP adapter shares: its options, with the
// adapter's defaults in the empty fields. It is what an adapter holds of
// its configuration; it is never modified, so an adapter built on it is
// safe for concurrent use.
type HTTP struct {
	// Base is the base URL without its trailing slash.
	Base string
	// APIKey is the credential; "" means none.
	APIKey string
	// Model is the model of a request that names none.
	Model string
	// Name is the provider name in events and errors.
	Name string
	// Client sends the requests; never nil.
	Client *http.Client
	// Header holds the extra headers of every request, the caller's copy.
	Header http.Header
	// Logger hears what is not an event; never nil.
	Logger *slog.Logger
	// FirstByte bounds the wait for the first byte of a response's body;
	// 0 means no bound (see [HTTPOptions.FirstByteTimeout]).
	FirstByte time.Duration

	// own holds the adapter's headers of every request, the key's
	// included (see [Defaults]); never modified once built.
	own http.Header
}

// NewHTTP returns opts, which may be nil, with d in its empty fields and
// the default client and a discarding logger where it names none, and the
// headers every request sends: Content-Type: application/json, d.Header,
// and the key in d.KeyHeader when there is one. opts and d are copied:
// changing them afterwards has no effect.
func NewHTTP(opts *HTTPOptions, d Defaults) HTTP {
	if opts == nil {
		opts = &HTTPOptions{}
	}
	h := HTTP{
		Base:   strings.TrimRight(opts.BaseURL, "/"),
		APIKey: opts.APIKey, Model: opts.Model, Name: opts.Name,
		Client: opts.HTTPClient, Header: opts.Header.Clone(), Logger: opts.Logger,
		FirstByte: max(opts.FirstByteTimeout, 0),
	}
	if h.Base == "" {
		h.Base = strings.TrimRight(d.BaseURL, "/")
	}
	if h.Model == "" {
		h.Model = d.Model
	}
	if h.Name == "" {
		h.Name = d.Name
	}
	if h.Client == nil {
		h.Client = DefaultClient()
	}
	if h.Logger == nil {
		h.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.FirstByteTimeout == 0 {
		h.FirstByte = DefaultFirstByteTimeout
	}
	h.own = ownHeader(d, h.APIKey)
	return h
}

// ownHeader returns the headers of every request of an adapter with
// defaults d and key: the JSON content type, d's headers, and the key,
// when there is one, in d's header for it.
func ownHeader(d Defaults, key string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	for k, vs := range d.Header {
		h[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
	}
	switch {
	case key == "":
	case d.KeyHeader == "":
		h.Set("Authorization", "Bearer "+key)
	default:
		h.Set(d.KeyHeader, key)
	}
	return h
}

// Stream sends req through ep and yields the model's events in order,
// keeping the stream contract of [Provider]: model.started once the
// response began, then what ep's [Frames] make of the body (see
// [Normalize]). A nil req, or one ep cannot build, is bad_request; an HTTP
// error status and a transport failure are mapped into the taxonomy by
// [Post] and ep.Refine. The model is req's, else h's.
//
// The request starts when the iteration does; breaking out of the loop
// early closes the connection. Stream does not modify req.
func (h *HTTP) Stream(ctx context.Context, req *contract.ModelRequest, ep Endpoint) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		ref := contract.ProviderRef{Name: h.Name, Model: h.Model}
		if req == nil {
			yield(nil, NewError(ref, contract.KindBadRequest, "no request to send"))
			return
		}
		if req.Model != "" {
			ref.Model = req.Model
		}
		c, err := ep.Request(req, ref.Model)
		if err != nil {
			e := NewError(ref, contract.KindBadRequest, err.Error())
			e.Err = err
			yield(nil, e)
			return
		}
		if c.Header == nil {
			c.Header = h.own
		}
		if c.Base == "" {
			c.Base = h.Base
		}
		if c.Extra == nil {
			c.Extra = h.Header
		}
		if c.FirstByte == 0 {
			c.FirstByte = h.FirstByte
		}
		resp, perr := Post(ctx, h.Client, &ref, c, func(ref contract.ProviderRef, resp *http.Response) *contract.ProviderError {
			return refinedError(ref, resp, ep)
		})
		if perr != nil {
			yield(nil, perr)
			return
		}
		defer resp.Body.Close()
		Normalize(ctx, resp.Body, ref, ep.Frames(ref))(yield)
	}
}

// refinedError is [ResponseError] refined by ep, both seeing the same bytes
// of the body. The caller closes it.
func refinedError(ref contract.ProviderRef, resp *http.Response, ep Endpoint) *contract.ProviderError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // what was read is all there is to report
	copied := *resp
	copied.Body = io.NopCloser(bytes.NewReader(body))
	e := ResponseError(ref, &copied)
	ep.Refine(e, resp, body)
	return e
}

// Reclassify gives e kind k, and the retryability that goes with it.
func Reclassify(e *contract.ProviderError, k contract.ErrorKind) {
	e.Kind, e.Retryable = k, k.Retryable()
}
