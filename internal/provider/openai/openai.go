package openai

import (
	"context"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// The package's defaults.
const (
	// DefaultBaseURL is OpenAI's own API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultModel is the model asked for when neither the request nor the
	// options name one.
	DefaultModel = "gpt-4.1"
	// DefaultName is the provider name events and errors carry.
	DefaultName = "openai"
)

// Options configures an [Adapter]. A nil *Options means all defaults.
type Options struct {
	// BaseURL is the API root, such as "http://127.0.0.1:11434/v1"; ""
	// means DefaultBaseURL. A trailing slash is tolerated, and so is a URL
	// that already ends in /chat/completions.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer <APIKey>"; "" sends no
	// credential at all (local servers).
	APIKey string
	// Model is used when a request names none; "" means DefaultModel.
	Model string
	// Name is the provider name in events and errors; "" means DefaultName.
	Name string
	// HTTPClient sends the requests; nil means provider.DefaultClient(): no
	// overall timeout (streams are long), bounded waits for headers and
	// inside a stream, and no redirect to another host.
	HTTPClient *http.Client
	// Header holds extra headers, sent as given on every request; they
	// replace the adapter's own headers of the same name. New copies it.
	Header http.Header
	// Logger receives what a person should know about a stream that is not
	// an event: a server that sends more than one choice (said once per
	// stream, at warning level). nil means discard.
	Logger *slog.Logger
}

// Adapter streams Chat Completions from OpenAI or any server that speaks
// the same API. It implements provider.Provider. It holds only its
// configuration: every Stream call is independent, and an Adapter is safe
// for concurrent use.
type Adapter struct {
	base     string // the base URL as configured, named when no connection can be made
	endpoint string // POST target: the base URL and /chat/completions
	key      string
	model    string
	name     string
	client   *http.Client
	header   http.Header
	dialect  dialect
	logger   *slog.Logger
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil.
func New(opts *Options) *Adapter {
	if opts == nil {
		opts = &Options{}
	}
	a := &Adapter{
		key: opts.APIKey, model: opts.Model, name: opts.Name,
		client: opts.HTTPClient, header: opts.Header.Clone(), logger: opts.Logger,
	}
	if a.logger == nil {
		a.logger = slog.New(slog.DiscardHandler)
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	a.base = strings.TrimRight(base, "/")
	a.endpoint = a.base
	if !strings.HasSuffix(a.endpoint, "/chat/completions") {
		a.endpoint += "/chat/completions"
	}
	a.dialect = dialectFor(a.endpoint)
	if a.model == "" {
		a.model = DefaultModel
	}
	if a.name == "" {
		a.name = DefaultName
	}
	if a.client == nil {
		a.client = provider.DefaultClient()
	}
	return a
}

// dialect is what differs between the servers that speak this API, as far
// as the request goes.
type dialect struct {
	// maxTokens is the name of the output cap: OpenAI has deprecated
	// max_tokens, which its reasoning models reject, for
	// max_completion_tokens; the compatible servers (Ollama, llama.cpp,
	// LM Studio, DeepSeek, Mistral...) know max_tokens, and some of them
	// (Mistral) reject the other name outright.
	maxTokens string
	// streamOptions: ask for usage at the end of the stream with
	// stream_options.include_usage. Mistral rejects the field (422
	// extra_forbidden) and sends usage anyway.
	streamOptions bool
}

var (
	openAIDialect     = dialect{maxTokens: "max_completion_tokens", streamOptions: true}
	compatibleDialect = dialect{maxTokens: "max_tokens", streamOptions: true}
	mistralDialect    = dialect{maxTokens: "max_tokens"}
)

// dialectFor picks the dialect by the endpoint's host: OpenAI's own API and
// Azure OpenAI speak OpenAI's, Mistral's API its own, and every other
// server the common one.
func dialectFor(endpoint string) dialect {
	u, err := url.Parse(endpoint)
	if err != nil {
		return compatibleDialect
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.openai.com", strings.HasSuffix(host, ".openai.azure.com"):
		return openAIDialect
	case host == "api.mistral.ai":
		return mistralDialect
	}
	return compatibleDialect
}

// Stream sends req and yields the model's events in order. A non-nil error
// is always the last pair yielded and is a *contract.ProviderError. The
// request starts when the iteration does; breaking out of the loop early
// closes the connection. req is not modified.
func (a *Adapter) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		if req == nil {
			req = &contract.ModelRequest{}
		}
		model := req.Model
		if model == "" {
			model = a.model
		}
		ref := contract.ProviderRef{Name: a.name, Model: model}
		body, err := buildRequest(req, model, a.dialect)
		if err != nil {
			yield(nil, provider.NewError(ref, contract.KindBadRequest, err.Error()))
			return
		}
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
		if a.key != "" {
			h.Set("Authorization", "Bearer "+a.key)
		}
		resp, perr := provider.Post(ctx, a.client, &ref, provider.Call{URL: a.endpoint, Base: a.base, Body: body, Header: h, Extra: a.header}, responseError)
		if perr != nil {
			yield(nil, perr)
			return
		}
		defer resp.Body.Close()
		for ev, err := range normalize(ctx, resp.Body, ref, a.logger) {
			if !yield(ev, err) {
				return
			}
		}
	}
}
