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

// model resolves one model (its errors are the person's to fix): the adapter of name, its key from the
// environment, its endpoint (baseURL, else the adapter's variable, else
// its default) and its model (else the default).
func model(name, modelName, baseURL string) (kernel.Model, error) {
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
	if key == "" && strings.TrimSuffix(baseURL, "/") == strings.TrimSuffix(a.defaultBaseURL, "/") {
		return kernel.Model{}, fmt.Errorf("%s is not set; export it, or pick another provider with --provider "+
			"(a local OpenAI-compatible server needs no key: --provider openai --base-url http://127.0.0.1:11434/v1)",
			strings.Join(a.keyVars, " or "))
	}
	if modelName == "" {
		modelName = cmp.Or(catalog.Embedded().Default(name), a.defaultModel)
	}
	return kernel.Model{
		Provider: a.build(&provider.HTTPOptions{BaseURL: baseURL, APIKey: key, Model: modelName, Logger: warnings()}),
		Name:     name, Model: modelName,
		Capabilities: a.capabilities(modelName), KeyHint: keyVar, Secret: key,
		BaseURL: recordable(baseURL, a.defaultBaseURL),
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
// against the primary's levels.
func chooseModels(spec cli.Spec, cfg *config.Config, known *contract.ModelInfo) (kernel.Model, []kernel.Model, error) {
	name, modelName, baseURL, err := pick(spec, cfg)
	if err != nil {
		return kernel.Model{}, nil, err
	}
	primary, err := model(name, modelName, baseURL)
	if err != nil {
		// Say which file and line to fix when the provider or its
		// endpoint came from one.
		key := ""
		switch msg := err.Error(); {
		case strings.HasPrefix(msg, "unknown provider") && spec.Provider == "":
			key = "provider"
		case strings.HasPrefix(msg, "base URL") && spec.BaseURL == "":
			key = "base_url"
		}
		if where := cfg.Where(key); where != "" {
			return kernel.Model{}, nil, fmt.Errorf("%w: config: %s: %v", cli.ErrUsage, where, err)
		}
		switch msg := err.Error(); {
		case strings.HasPrefix(msg, "unknown provider") && spec.Provider != "":
			return kernel.Model{}, nil, fmt.Errorf("%w: --provider: %v", cli.ErrUsage, err)
		case strings.HasPrefix(msg, "base URL") && spec.BaseURL != "":
			return kernel.Model{}, nil, fmt.Errorf("%w: --base-url: %v", cli.ErrUsage, err)
		}
		return kernel.Model{}, nil, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	describe(context.Background(), &primary, cfg, known, warn)
	if err := checkEffort(spec, cfg, &primary, warn); err != nil {
		return kernel.Model{}, nil, err
	}
	list, from := spec.Fallback, "--fallback"
	if list == nil {
		list, from = cfg.Fallback, "config: "+cfg.Where("fallback")+": fallback"
	}
	var fallbacks []kernel.Model
	for _, entry := range list {
		n, m, _ := strings.Cut(strings.TrimSpace(entry), ":")
		fb, err := model(n, m, "")
		if err != nil {
			return kernel.Model{}, nil, fmt.Errorf("%w: %s %q: %v", cli.ErrUsage, from, entry, err)
		}
		describe(context.Background(), &fb, cfg, nil, warn)
		fallbacks = append(fallbacks, fb)
	}
	return primary, fallbacks, nil
}

// pick decides the provider, model and endpoint of the primary model.
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
	if name == "" {
		return "", "", "", fmt.Errorf("%w: no model provider: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, "+
			"or choose one with --provider (%s); `rein demo` runs offline against a scripted model",
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
