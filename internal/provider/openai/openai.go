package openai

import (
	"context"
	"iter"
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
	DefaultModel = "gpt-5.6-sol"
	// DefaultName is the provider name events and errors carry.
	DefaultName = "openai"
)

// Options configures an [Adapter]; a nil *Options means all defaults:
// DefaultBaseURL (the API root, such as "http://127.0.0.1:11434/v1"; one
// that already ends in /chat/completions is tolerated), DefaultModel and
// DefaultName. The key is sent as "Authorization: Bearer <key>". Logger
// hears of a server that sends more than one choice.
type Options = provider.HTTPOptions

// Adapter streams Chat Completions from OpenAI or any server that speaks
// the same API. It implements provider.Provider. It holds only its
// configuration: every Stream call is independent, and an Adapter is safe
// for concurrent use.
type Adapter struct {
	http     provider.HTTP
	endpoint string // POST target: the base URL and /chat/completions
	dialect  dialect
}

var _ provider.Provider = (*Adapter)(nil)

// New returns an Adapter configured by opts, which may be nil.
func New(opts *Options) *Adapter {
	a := &Adapter{http: provider.NewHTTP(opts, provider.Defaults{
		BaseURL: DefaultBaseURL, Model: DefaultModel, Name: DefaultName,
		Header: http.Header{"Accept": {"text/event-stream"}},
	})}
	a.endpoint = a.http.Base
	if !strings.HasSuffix(a.endpoint, "/chat/completions") {
		a.endpoint += "/chat/completions"
	}
	a.dialect = dialectFor(a.endpoint)
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
	// promptCacheKey: send the request's cache key as prompt_cache_key,
	// which routes the requests of one session to the same prompt cache.
	// Only OpenAI's own API and Azure OpenAI document it; the compatible
	// servers cache by prefix or not at all, and some of them (Mistral,
	// strict proxies) refuse a field they do not know, so nobody else gets
	// it.
	promptCacheKey bool
}

var (
	openAIDialect     = dialect{maxTokens: "max_completion_tokens", streamOptions: true, promptCacheKey: true}
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
	case provider.OpenAIHost(endpoint):
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
	return a.http.Stream(ctx, req, a)
}

// Request builds the call for req in the adapter's dialect, for
// provider.HTTP.Stream.
func (a *Adapter) Request(req *contract.ModelRequest, model string) (provider.Call, error) {
	body, err := buildRequest(req, model, a.dialect)
	return provider.Call{URL: a.endpoint, Body: body}, err
}

// Frames returns the reader of one response body, for provider.HTTP.Stream;
// it tells the adapter's logger of choices other than choice 0.
func (a *Adapter) Frames(ref contract.ProviderRef) provider.Frames {
	return &normalizer{ref: ref, t: newTranslator(ref), log: a.http.Logger}
}
