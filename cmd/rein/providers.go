package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/catalog"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/anthropic"
	"github.com/rein-agent/rein/internal/provider/gemini"
	"github.com/rein-agent/rein/internal/provider/openai"
	"github.com/rein-agent/rein/internal/provider/responses"
)

// adapter is what the wiring knows of one provider: where its key and
// endpoint come from, its defaults, and how to build it.
type adapter struct {
	// keyVars are the variables the key is read from, in order.
	keyVars []string
	// baseURLVar is the variable that may set the endpoint; empty means none.
	baseURLVar     string
	defaultBaseURL string
	defaultModel   string
	// build makes the provider from the options model resolves: the
	// endpoint, the key, the model, and the logger of warnings for a
	// person (only Chat Completions has any).
	build        func(*provider.HTTPOptions) provider.Provider
	capabilities func(model string) provider.Capabilities
	normalize    func(ctx context.Context, body io.Reader, ref contract.ProviderRef) iter.Seq2[contract.ModelEvent, error]
}

// adapters are the real providers, by the name --provider takes.
var adapters = map[string]adapter{
	"openai": {
		keyVars: []string{"OPENAI_API_KEY"}, baseURLVar: "OPENAI_BASE_URL",
		defaultBaseURL: openai.DefaultBaseURL, defaultModel: openai.DefaultModel,
		build:        built(openai.New),
		capabilities: openai.Capabilities, normalize: openai.Normalize,
	},
	"responses": {
		keyVars: []string{"OPENAI_API_KEY"}, baseURLVar: "OPENAI_BASE_URL",
		defaultBaseURL: responses.DefaultBaseURL, defaultModel: responses.DefaultModel,
		build:        built(responses.New),
		capabilities: responses.Capabilities, normalize: responses.Normalize,
	},
	"anthropic": {
		keyVars: []string{"ANTHROPIC_API_KEY"}, baseURLVar: "ANTHROPIC_BASE_URL",
		defaultBaseURL: anthropic.DefaultBaseURL, defaultModel: anthropic.DefaultModel,
		build:        built(anthropic.New),
		capabilities: anthropic.Capabilities, normalize: anthropic.Normalize,
	},
	"gemini": {
		keyVars:        []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
		defaultBaseURL: gemini.DefaultBaseURL, defaultModel: gemini.DefaultModel,
		build:        built(gemini.New),
		capabilities: gemini.Capabilities, normalize: gemini.Normalize,
	},
}

// built is an adapter's constructor as the table holds it.
func built[P provider.Provider](newAdapter func(*provider.HTTPOptions) P) func(*provider.HTTPOptions) provider.Provider {
	return func(opts *provider.HTTPOptions) provider.Provider { return newAdapter(opts) }
}

// providerNames lists every --provider value, in the order help shows them.
var providerNames = []string{"openai", "responses", "anthropic", "gemini", "scripted"}

// apis maps the --api values of rein debug normalize to adapters.
var apis = map[string]string{"chat": "openai", "openai": "openai", "responses": "responses", "messages": "anthropic", "anthropic": "anthropic", "gemini": "gemini"}

// model resolves one model (its errors are the person's to fix): the
// adapter of name, its key from the environment, its endpoint (baseURL,
// else the adapter's variable, else its default) and its model: modelName,
// else, for an OpenAI-compatible server at an endpoint of the person's,
// the one it serves (see serverModel: a *choiceNeeded when it offers
// several), else the catalogue's default. cfg gives the wait for a first
// byte (first_byte_timeout).
func model(ctx context.Context, name, modelName, baseURL string, cfg *config.Config) (kernel.Model, error) {
	a, ok := adapters[name]
	if !ok {
		return kernel.Model{}, fmt.Errorf("unknown provider %q (known: %s)", name, strings.Join(providerNames, ", "))
	}
	if baseURL == "" && a.baseURLVar != "" {
		baseURL = os.Getenv(a.baseURLVar)
	}
	if baseURL == "" {
		baseURL = a.defaultBaseURL
	} else if u, err := url.Parse(baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return kernel.Model{}, fmt.Errorf("base URL %q for %s: want http(s)://host[:port]/path", baseURL, name)
	}
	key, keyVar := "", ""
	for _, v := range a.keyVars {
		if key = os.Getenv(v); key != "" {
			keyVar = v
			break
		}
	}
	own := recordable(baseURL, a.defaultBaseURL) != "" // an endpoint the person named
	if key == "" && !own {
		return kernel.Model{}, fmt.Errorf("%s is not set; export it, or pick another provider with --provider "+
			"(a local OpenAI-compatible server needs no key: --provider openai --base-url http://127.0.0.1:11434/v1)",
			strings.Join(a.keyVars, " or "))
	}
	listing := own && compatible(name)
	if modelName == "" && listing {
		var err error
		if modelName, err = serverModel(ctx, baseURL, key); err != nil {
			return kernel.Model{}, err
		}
	}
	if modelName == "" {
		modelName = cmp.Or(catalog.Embedded().Default(name), a.defaultModel)
	}
	firstByte := time.Duration(cfg.FirstByteTimeout * float64(time.Second))
	return kernel.Model{
		Provider: a.build(&provider.HTTPOptions{BaseURL: baseURL, APIKey: key, Model: modelName, Logger: warnings(),
			FirstByteTimeout: firstByte}),
		Name: name, Model: modelName,
		Capabilities: a.capabilities(modelName), KeyHint: keyVar, Secret: key,
		BaseURL: recordable(baseURL, a.defaultBaseURL),
		Explain: explainer(name, modelName, baseURL, key, listing, cmp.Or(firstByte, provider.DefaultFirstByteTimeout)),
	}, nil
}

// recordable is the endpoint as the log may keep it: empty for the
// provider's default, and never with a user, password, query or fragment
// (where credentials hide).
func recordable(baseURL, defaultURL string) string {
	if strings.TrimSuffix(baseURL, "/") == strings.TrimSuffix(defaultURL, "/") {
		return ""
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	return u.String()
}

// chooseModels resolves the primary model and the fallbacks from the
// command line over the configuration, and, when neither names a provider,
// from the first provider whose key is set; and describes each (window,
// output, prices: see describe), checking the reasoning effort asked
// against the primary's levels. When nobody named a model and the
// person's own server offers several, spec.PickModel asks which; without
// it, the error lists them. A fallback of the primary's provider goes to
// the primary's endpoint.
func chooseModels(ctx context.Context, spec cli.Spec, cfg *config.Config, known *contract.ModelInfo) (kernel.Model, []kernel.Model, error) {
	name, modelName, baseURL, err := pick(spec, cfg)
	if err != nil {
		return kernel.Model{}, nil, err
	}
	// The fallbacks first: what is wrong with them is wrong whatever the
	// primary's server says, or whether it answers.
	fallbacks, err := chooseFallbacks(ctx, spec, cfg, name, baseURL)
	if err != nil {
		return kernel.Model{}, nil, err
	}
	primary, err := model(ctx, name, modelName, baseURL, cfg)
	if choice, ok := errors.AsType[*choiceNeeded](err); ok {
		primary, err = picked(ctx, spec, choice, name, baseURL, cfg)
	}
	if err != nil {
		return kernel.Model{}, nil, modelError(spec, cfg, err)
	}
	describe(ctx, &primary, cfg, known, warn)
	if err := checkEffort(spec, cfg, &primary, warn); err != nil {
		return kernel.Model{}, nil, err
	}
	for i := range fallbacks {
		describe(ctx, &fallbacks[i], cfg, nil, warn)
	}
	return primary, fallbacks, nil
}

// chooseFallbacks resolves the fallbacks of the command line, else of
// the configuration, for a primary of provider name at baseURL (as pick
// says them): a fallback of the primary's provider goes to the same
// endpoint, one of the configuration's provider to its base_url.
func chooseFallbacks(ctx context.Context, spec cli.Spec, cfg *config.Config, name, baseURL string) ([]kernel.Model, error) {
	list, from := spec.Fallback, "--fallback"
	if list == nil {
		list, from = cfg.Fallback, "config: "+cfg.Where("fallback")+": fallback"
	}
	var fallbacks []kernel.Model
	for _, entry := range list {
		n, m, _ := strings.Cut(strings.TrimSpace(entry), ":")
		fbURL := ""
		switch {
		case n == name:
			fbURL = baseURL // the endpoint given belongs to its provider, whichever model it serves
		case n == cfg.Provider:
			fbURL = cfg.BaseURL
		}
		fb, err := model(ctx, n, m, fbURL, cfg)
		if choice, ok := errors.AsType[*choiceNeeded](err); ok {
			err = fmt.Errorf("%v; name one: %s:NAME", choice, n)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s %q: %v", cli.ErrUsage, from, entry, err)
		}
		fallbacks = append(fallbacks, fb)
	}
	return fallbacks, nil
}

// picked is the primary model once the person has picked one of the
// models choice lists (spec.PickModel), or the error that lists them and
// says how to name one when nobody can be asked.
func picked(ctx context.Context, spec cli.Spec, choice *choiceNeeded, name, baseURL string, cfg *config.Config) (kernel.Model, error) {
	if spec.PickModel == nil {
		return kernel.Model{}, fmt.Errorf("%w: %v; choose one with --model NAME", cli.ErrUsage, choice)
	}
	m, err := spec.PickModel(ctx, cli.ModelQuestion{Server: choice.server, Models: choice.models})
	if err != nil {
		return kernel.Model{}, fmt.Errorf("%w: %v (%v); choose one with --model NAME", cli.ErrUsage, choice, err)
	}
	return model(ctx, name, m, baseURL, cfg)
}

// modelError is the error of the primary model that could not be
// resolved: bad usage, naming the file and line to fix when the provider
// or its endpoint came from one; a server that did not say which models
// it serves is no usage error, and one already marked stays as it is.
func modelError(spec cli.Spec, cfg *config.Config, err error) error {
	if _, ok := errors.AsType[*unlisted](err); ok || errors.Is(err, cli.ErrUsage) {
		return err
	}
	msg := err.Error()
	key := ""
	switch {
	case strings.HasPrefix(msg, "unknown provider") && spec.Provider == "":
		key = "provider"
	case strings.HasPrefix(msg, "base URL") && spec.BaseURL == "":
		key = "base_url"
	}
	if where := cfg.Where(key); where != "" {
		return fmt.Errorf("%w: config: %s: %v", cli.ErrUsage, where, err)
	}
	switch {
	case strings.HasPrefix(msg, "unknown provider") && spec.Provider != "":
		return fmt.Errorf("%w: --provider: %v", cli.ErrUsage, err)
	case strings.HasPrefix(msg, "base URL") && spec.BaseURL != "":
		return fmt.Errorf("%w: --base-url: %v", cli.ErrUsage, err)
	}
	return fmt.Errorf("%w: %v", cli.ErrUsage, err)
}

// pick decides the provider, model and endpoint of the primary model:
// the one named (--provider, else the configuration's, where a base_url
// alone names openai), else the first whose key is set, else openai when
// an endpoint alone is given (--base-url, OPENAI_BASE_URL): an
// OpenAI-compatible server of the person's, which needs no key.
func pick(spec cli.Spec, cfg *config.Config) (name, modelName, baseURL string, err error) {
	name = firstOf(spec.Provider, cfg.Provider)
	if name == "" {
		for _, n := range []string{"anthropic", "openai", "gemini"} {
			if slices.ContainsFunc(adapters[n].keyVars, func(v string) bool { return os.Getenv(v) != "" }) {
				name = n
				break
			}
		}
	}
	if name == "" && (spec.BaseURL != "" || os.Getenv("OPENAI_BASE_URL") != "") {
		name = "openai" // an OpenAI-compatible server of the person's, which needs no key
	}
	if name == "" {
		return "", "", "", fmt.Errorf("%w: no model provider: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, "+
			"or choose one with --provider (%s); for an OpenAI-compatible server of your own (Ollama, vLLM, llama.cpp), "+
			"--provider openai --base-url http://127.0.0.1:11434/v1 (or OPENAI_BASE_URL); "+
			"`rein demo` runs offline against a scripted model",
			cli.ErrUsage, strings.Join(providerNames, ", "))
	}
	if name == "scripted" {
		return "", "", "", fmt.Errorf("%w: --provider scripted needs --script FILE (the format is documented in internal/provider/scripted)", cli.ErrUsage)
	}
	// The configuration's model and endpoint belong to its provider: they
	// never follow a key to another vendor chosen on the command line.
	modelName, baseURL = spec.Model, spec.BaseURL
	if modelName == "" && (cfg.Provider == "" || cfg.Provider == name) {
		modelName = cfg.Model
	}
	if baseURL == "" && cfg.Provider == name {
		baseURL = cfg.BaseURL
	}
	return name, modelName, baseURL, nil
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// normalize is rein debug normalize: the adapter's normalizer over a raw
// body, each event printed as a JSON line {"type": ..., "data": ...}.
func normalize(ctx context.Context, api string, r io.Reader, w io.Writer) error {
	name, ok := apis[api]
	if !ok {
		return fmt.Errorf("%w: unknown --api %q: want chat, responses, messages or gemini", cli.ErrUsage, api)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	ref := contract.ProviderRef{Name: name, Model: "debug"}
	for ev, err := range adapters[name].normalize(ctx, r, ref) {
		if err != nil {
			pe, ok := errors.AsType[*contract.ProviderError](err)
			if !ok {
				pe = &contract.ProviderError{Kind: contract.KindUnknown, Message: err.Error()}
			}
			ev = pe
		}
		if werr := enc.Encode(struct {
			Type string         `json:"type"`
			Data contract.Event `json:"data"`
		}{ev.EventType(), ev}); werr != nil {
			return werr
		}
	}
	return nil
}
