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
	DefaultModel = "gemini-2.5-flash"
	// defaultName is the provider name events carry by default.
	defaultName = "gemini"
)

// Options configures an [Adapter]. A nil *Options means all defaults.
type Options struct {
	// BaseURL is the API's base URL, up to and excluding "/models"; ""
	// means DefaultBaseURL. Any URL works (a proxy, a local server
	// speaking this API); a trailing slash is tolerated.
	BaseURL string
	// APIKey is sent as the x-goog-api-key header (never in the URL, which
	// ends up in logs); "" sends no credential at all.
	APIKey string
	// Model is used when a request names none; "" means DefaultModel.
	Model string
	// Name is the provider name events and errors carry; "" means
	// "gemini".
	Name string
	// HTTPClient sends the requests; nil means provider.DefaultClient(): no
	// overall timeout (streams are long), bounded waits for headers and
	// inside a stream, and no redirect to another host.
	HTTPClient *http.Client
	// Header holds extra headers, sent as given.
	Header http.Header
}

// Adapter streams model calls from the Gemini API. It implements
// provider.Provider. It holds only its configuration: every Stream is
// independent, and an Adapter is safe for concurrent use.
type Adapter struct {
	baseURL string
	apiKey  string
	model   string
	name    string
	client  *http.Client
	header  http.Header
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil. opts is
// copied: changing it later changes nothing.
func New(opts *Options) *Adapter {
	if opts == nil {
		opts = &Options{}
	}
	a := &Adapter{
		baseURL: strings.TrimRight(opts.BaseURL, "/"),
		apiKey:  opts.APIKey,
		model:   opts.Model,
		name:    opts.Name,
		client:  opts.HTTPClient,
		header:  opts.Header.Clone(),
	}
	if a.baseURL == "" {
		a.baseURL = DefaultBaseURL
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

// Stream sends req to models/{model}:streamGenerateContent?alt=sse and
// yields the model's events as [Normalize] reads them from the response.
// It keeps the stream contract of provider.Provider: a non-nil error is the
// last pair yielded and is a *contract.ProviderError (an HTTP error mapped
// into the taxonomy, with its retry hint; a transport failure; a request
// that cannot be built is bad_request). The request starts when the
// iteration does; breaking out of the loop early closes the connection.
// Stream does not modify req.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		model := a.model
		if req != nil && req.Model != "" {
			model = req.Model
		}
		ref := contract.ProviderRef{Name: a.name, Model: model}
		body, err := BuildRequest(req, model)
		if err != nil {
			e := provider.NewError(ref, contract.KindBadRequest, err.Error())
			e.Err = err
			yield(nil, e)
			return
		}
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
		if a.apiKey != "" {
			h.Set("x-goog-api-key", a.apiKey)
		}
		resp, perr := provider.Post(ctx, a.client, &ref, provider.Call{URL: a.endpoint(model), Base: a.baseURL, Body: body, Header: h, Extra: a.header}, responseError)
		if perr != nil {
			yield(nil, perr)
			return
		}
		defer resp.Body.Close()
		for ev, err := range Normalize(ctx, resp.Body, ref) {
			if !yield(ev, err) {
				return
			}
		}
	}
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
	return a.baseURL + "/" + collection + "/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
}
