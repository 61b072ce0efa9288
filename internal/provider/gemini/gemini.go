package gemini

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

const (
	// DefaultBaseURL is the Gemini API's endpoint.
	DefaultBaseURL = "https://generativelanguage.googleapis.com/v1beta"
	// DefaultModel is the model used when neither the request nor the
	// options name one.
	DefaultModel = "gemini-3.1-pro-preview-customtools"
	// defaultName is the provider name events carry by default.
	defaultName = "gemini"
)

// Options configures an [Adapter]; a nil *Options means all defaults:
// DefaultBaseURL (the API's base URL, up to and excluding "/models"),
// DefaultModel and the name "gemini". The key is sent as the
// x-goog-api-key header, never in the URL, which ends up in logs.
type Options = provider.HTTPOptions

// Adapter streams model calls from the Gemini API. It implements
// provider.Provider. It holds only its configuration: every Stream is
// independent, and an Adapter is safe for concurrent use.
type Adapter struct {
	http provider.HTTP
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil. opts is
// copied: changing it later changes nothing.
func New(opts *Options) *Adapter {
	return &Adapter{http: provider.NewHTTP(opts, provider.Defaults{
		BaseURL: DefaultBaseURL, Model: DefaultModel, Name: defaultName,
		KeyHeader: "X-Goog-Api-Key", Header: http.Header{"Accept": {"text/event-stream"}},
	})}
}

// Stream sends req to models/{model}:streamGenerateContent?alt=sse and
// yields the model's events as [Normalize] reads them from the response.
// It keeps the stream contract of provider.Provider: a non-nil error is the
// last pair yielded and is a *contract.ProviderError (an HTTP error mapped
// into the taxonomy, with its retry hint; a transport failure; a request
// that cannot be built is bad_request). The request starts when the
// iteration does; breaking out of the loop early closes the connection.
// Stream does not modify req.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return a.http.Stream(ctx, req, a)
}

// Request builds the call for req, for provider.HTTP.Stream.
func (a *Adapter) Request(req *contract.ModelRequest, model string) (provider.Call, error) {
	body, err := BuildRequest(req, model)
	return provider.Call{URL: a.endpoint(model), Body: body}, err
}

// Refine refines the mapping of an error response with what Google's
// error body says, for provider.HTTP.Stream.
func (a *Adapter) Refine(e *contract.ProviderError, _ *http.Response, body []byte) {
	if kind, ok := refine(body); ok && kind != e.Kind {
		provider.Reclassify(e, kind)
	}
}

// Frames returns the reader of one response body, for provider.HTTP.Stream.
func (a *Adapter) Frames(ref contract.ProviderRef) provider.Frames {
	return &frames{tr: newTranslator(ref)}
}

// endpoint returns the URL of streamGenerateContent for model. The model
// name is passed through as given, path-escaped; a "models/" prefix (the
// API's resource name) is tolerated, and a tuned model keeps its
// "tunedModels/" collection.
func (a *Adapter) endpoint(model string) string {
	collection := "models"
	if rest, ok := strings.CutPrefix(model, "tunedModels/"); ok {
		collection, model = "tunedModels", rest
	} else {
		model = strings.TrimPrefix(model, "models/")
	}
	return a.http.Base + "/" + collection + "/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
}
