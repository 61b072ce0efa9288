package anthropic

import (
	"cmp"
	"context"
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
	DefaultModel = "claude-sonnet-4-6"

	// defaultName is the provider name events and errors carry by default.
	defaultName = "anthropic"
	// apiVersion is the anthropic-version header every request sends.
	apiVersion = "2023-06-01"
	// stateProvider names this package in the provider state it writes;
	// state naming anything else is not ours and is never sent.
	stateProvider = "anthropic"
)

// Options configures an [Adapter]; a nil *Options means all defaults:
// DefaultBaseURL (requests go to {BaseURL}/v1/messages, and a base URL
// that already ends in /v1 is tolerated), DefaultModel and the name
// "anthropic". The key is sent as the x-api-key header; the extra headers
// may replace anthropic-version, or add anthropic-beta.
type Options = provider.HTTPOptions

// Adapter streams model calls from the Anthropic Messages API. It
// implements provider.Provider. It holds only its configuration: every
// Stream call is independent, so an Adapter is safe for concurrent use.
type Adapter struct {
	http provider.HTTP
	url  string
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil. The options
// are copied: changing them afterwards has no effect.
func New(opts *Options) *Adapter {
	h := provider.NewHTTP(opts, provider.Defaults{
		BaseURL: DefaultBaseURL, Model: DefaultModel, Name: defaultName,
		KeyHeader: "X-Api-Key", Header: http.Header{"Anthropic-Version": {apiVersion}},
	})
	return &Adapter{http: h, url: messagesURL(h.Base)}
}

// messagesURL returns the endpoint for base: {base}/v1/messages, or
// {base}/messages when base already ends in /v1.
func messagesURL(base string) string {
	base = strings.TrimRight(cmp.Or(base, DefaultBaseURL), "/")
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
// stream_interrupted; a cancelled ctx is aborted. A server that ignored
// "stream": true answers one JSON message, read whole.
//
// The request starts when the iteration does; breaking out of the loop
// early closes the connection. Stream does not modify req.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return a.http.Stream(ctx, req, a)
}

// Request builds the call for req, for provider.HTTP.Stream. Its headers
// are the driver's: the content type, the API version and the key when
// there is one. Nothing else: a custom base URL gets no credential but the
// configured one.
func (a *Adapter) Request(req *contract.ModelRequest, model string) (provider.Call, error) {
	body, err := BuildRequest(req, model)
	return provider.Call{URL: a.url, Body: body}, err
}

// Refine refines the mapping of an error response with the vendor's error
// type, for provider.HTTP.Stream.
func (a *Adapter) Refine(e *contract.ProviderError, resp *http.Response, body []byte) {
	provider.Reclassify(e, errorKind(resp.StatusCode, provider.ParseErrorBody(body)))
}

// Frames returns the reader of one response body, for provider.HTTP.Stream.
func (a *Adapter) Frames(ref contract.ProviderRef) provider.Frames { return newTranslator(ref) }
