package anthropic

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

const (
	// DefaultBaseURL is the Anthropic API; requests go to {BaseURL}/v1/messages.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultModel is the model used when neither the request nor the
	// options name one.
	DefaultModel = "claude-sonnet-4-5"

	// defaultName is the provider name events and errors carry by default.
	defaultName = "anthropic"
	// apiVersion is the anthropic-version header every request sends.
	apiVersion = "2023-06-01"
	// stateProvider names this package in the provider state it writes;
	// state naming anything else is not ours and is never sent.
	stateProvider = "anthropic"
)

// Options configures an [Adapter]. A nil *Options means all defaults.
type Options struct {
	// BaseURL is where the API lives; "" means DefaultBaseURL. Any URL
	// works (local servers, proxies); a trailing slash, or a trailing /v1,
	// is tolerated.
	BaseURL string
	// APIKey is sent as the x-api-key header; "" sends no credential at
	// all (local servers).
	APIKey string
	// Model is used when a request names none; "" means DefaultModel.
	Model string
	// Name is the provider name in events and errors; "" means
	// "anthropic".
	Name string
	// HTTPClient sends the requests; nil means provider.DefaultClient(): no
	// overall timeout (streams are long), bounded waits for headers and
	// inside a stream, and no redirect to another host.
	HTTPClient *http.Client
	// Header holds extra headers, sent as given after the adapter's own
	// (so they may replace anthropic-version, or add anthropic-beta).
	Header http.Header
}

// Adapter streams model calls from the Anthropic Messages API. It
// implements provider.Provider. It holds only its configuration: every
// Stream call is independent, so an Adapter is safe for concurrent use.
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

// New returns an Adapter configured by opts, which may be nil. The options
// are copied: changing them afterwards has no effect.
func New(opts *Options) *Adapter {
	if opts == nil {
		opts = &Options{}
	}
	a := &Adapter{
		base:   cmp.Or(strings.TrimRight(opts.BaseURL, "/"), DefaultBaseURL),
		url:    messagesURL(opts.BaseURL),
		apiKey: opts.APIKey,
		model:  opts.Model,
		name:   opts.Name,
		client: opts.HTTPClient,
		header: opts.Header.Clone(),
	}
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

// messagesURL returns the endpoint for base: {base}/v1/messages, or
// {base}/messages when base already ends in /v1.
func messagesURL(base string) string {
	if base == "" {
		base = DefaultBaseURL
	}
	base = strings.TrimRight(base, "/")
	if strings.HasSuffix(base, "/v1") {
		return base + "/messages"
	}
	return base + "/v1/messages"
}

// Stream sends req and yields the model's events in order, keeping the
// stream contract of provider.Provider: model.started once the response
// began, then what the stream says, ending with model.finished or with a
// *contract.ProviderError as the last pair. An HTTP error status, a
// transport failure and a mid-stream "error" event are all mapped into the
// error taxonomy; a stream that ends without message_stop is
// stream_interrupted; a cancelled ctx is aborted.
//
// The request starts when the iteration does; breaking out of the loop
// early closes the connection. Stream does not modify req.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		ref := contract.ProviderRef{Name: a.name, Model: a.model}
		if req == nil {
			yield(nil, provider.NewError(ref, contract.KindBadRequest, "no request to send"))
			return
		}
		if req.Model != "" {
			ref.Model = req.Model
		}
		body, err := BuildRequest(req, ref.Model)
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
		// A server that ignored "stream": true answers one application/json
		// message; Normalize recognises it by its first byte, whatever the
		// content type says.
		Normalize(ctx, resp.Body, ref)(yield)
	}
}

// headers returns the adapter's own request headers: the API version and
// the key when there is one. Nothing else: a custom base URL gets no
// credential but the configured one. The configured extra headers come
// after these, so they may replace anthropic-version or add
// anthropic-beta.
func (a *Adapter) headers() http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Anthropic-Version": {apiVersion}}
	if a.apiKey != "" {
		h.Set("X-Api-Key", a.apiKey)
	}
	return h
}

// responseError maps a response with an error status into the taxonomy:
// provider.ResponseError reads the status, headers and body, and the
// vendor's error type refines the kind.
func responseError(ref contract.ProviderRef, resp *http.Response) *contract.ProviderError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // what was read is all there is to report
	resp.Body = io.NopCloser(bytes.NewReader(body))
	e := provider.ResponseError(ref, resp)
	e.Kind = errorKind(resp.StatusCode, provider.ParseErrorBody(body))
	e.Retryable = e.Kind.Retryable()
	return e
}
