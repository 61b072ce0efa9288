package main

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/catalog"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// catalogFor is the embedded catalogue with the person's [models] tables
// over it.
func catalogFor(cfg *config.Config) *catalog.Catalog {
	entries := make(map[string]catalog.Entry, len(cfg.Models))
	for id, m := range cfg.Models {
		entries[id] = catalog.Entry{ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput,
			Input: m.InputPrice, Output: m.OutputPrice, CacheRead: m.CacheReadPrice, CacheWrite: m.CacheWritePrice,
			ReasoningLevels: m.ReasoningLevels}
	}
	return catalog.Embedded().With(entries)
}

// defaultLevels are the efforts rein asks of a model that reasons but
// whose catalogue entry lists no levels (Claude Sonnet 4.5 thinks with a
// budget): each adapter maps them to its API.
var defaultLevels = []string{"low", "medium", "high"}

// describe fills in what rein knows of m's limits and prices: its
// capabilities' window, output and reasoning levels and its Info. The
// person's [models] table comes over the catalogue. An OpenAI-compatible
// endpoint (m.BaseURL set) is asked what it serves a model the table does
// not name (catalog.Probe) when it is the person's own server (see
// ownServer) or the catalogue does not know the model, unless known, what
// a resumed session's log recorded for the same model, already says; its
// prices are then unknown (a local server's are not a vendor's). A hosted
// endpoint serving a model the catalogue knows is not probed: up to four
// requests and two seconds, for figures the catalogue has. A model nobody knows
// gets catalog.ConservativeWindow, and warn hears it, once a session: not
// again when known already says so.
func describe(ctx context.Context, m *kernel.Model, cfg *config.Config, known *contract.ModelInfo, warn func(string)) {
	info, found := catalogFor(cfg).Lookup(m.Name, m.Model)
	_, inTable := cfg.Models[m.Model]
	if !inTable && probes(m, found) {
		if served, ok := fromServer(ctx, m, known); ok {
			served.ReasoningLevels, served.DefaultEffort, served.Reasons = info.ReasoningLevels, info.DefaultEffort, info.Reasons
			info, found = served, true
		}
	}
	if !found {
		info = catalog.Model{ID: m.Model, ContextWindow: catalog.ConservativeWindow, Source: contract.InfoDefault}
		if known == nil || known.Source != contract.InfoDefault {
			warn(fmt.Sprintf("rein knows nothing of model %q (neither its catalogue nor the server tells its window): it assumes a window of %d tokens "+
				"and counts no cost; describe it in your config.toml: [models.%q] context_window = ..., max_output = ..., input_price = ..., output_price = ...",
				m.Model, catalog.ConservativeWindow, m.Model))
		}
	}
	if info.Reasons && len(info.ReasoningLevels) == 0 {
		info.ReasoningLevels = defaultLevels
	}
	m.Capabilities.ContextWindow, m.Capabilities.MaxOutput = info.ContextWindow, info.MaxOutput
	m.Capabilities.ReasoningLevels, m.Capabilities.DefaultEffort = info.ReasoningLevels, info.DefaultEffort
	m.Info = info.Info()
}

// probes says whether describe asks m's endpoint what window it serves a
// model its [models] table does not name: an OpenAI-compatible endpoint
// the person named, when it is their own server or the catalogue does
// not know the model (found false).
func probes(m *kernel.Model, found bool) bool {
	return m.BaseURL != "" && (m.Name == "openai" || m.Name == "responses") && (!found || ownServer(m.BaseURL))
}

// ownServer says whether baseURL's host is one of the person's own
// machines or network rather than a hosted vendor's: a loopback, private,
// link-local or unspecified (0.0.0.0) address, or a name with a single
// label (localhost, a LAN host) or ending in .local, .internal or
// .localhost. A URL that does not parse is not.
func ownServer(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
	}
	if !strings.Contains(host, ".") {
		return true
	}
	for _, suffix := range []string{".local", ".internal", ".localhost"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}

// fromServer is what m's server says of its model (known, when the log
// has it), or false when it does not say. The server is asked once and
// its answer remembered in rein's state directory (probeRemembered) for
// windowTTL; a context_length error from it forgets the answer.
func fromServer(ctx context.Context, m *kernel.Model, known *contract.ModelInfo) (catalog.Model, bool) {
	if known != nil {
		return catalog.Model{ID: m.Model, ContextWindow: known.ContextWindow, MaxOutput: known.MaxOutput, Prices: known.Prices,
			Source: known.Source}, known.Source != contract.InfoDefault
	}
	client := http.DefaultClient
	if m.Secret != "" {
		// A vLLM started with --api-key wants it on /models too; the
		// probe stays on the host the key is sent to anyway.
		client = &http.Client{Transport: bearer{key: m.Secret, next: http.DefaultTransport}}
	}
	file := stateFile(windowsFile)
	served, ok := probeRemembered(ctx, file, func(ctx context.Context) (catalog.Model, error) {
		return catalog.Probe(ctx, client, m.BaseURL, m.Model)
	}, m.BaseURL, m.Model)
	if ok && file != "" && m.Provider != nil {
		m.Provider = forgetting{Provider: m.Provider, forget: func() { forgetWindow(file, m.BaseURL, m.Model) }}
	}
	return served, ok
}

// bearer sends the key as a bearer token on every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// checkEffort checks the reasoning effort asked (--reasoning-effort over
// reasoning_effort) against the levels of model m: a level it does not
// take is a usage error that lists those it does; for a model that takes
// none, warn hears that the effort is ignored.
func checkEffort(spec cli.Spec, cfg *config.Config, m *kernel.Model, warn func(string)) error {
	effort, from := spec.ReasoningEffort, "--reasoning-effort"
	if effort == "" {
		effort, from = cfg.ReasoningEffort, "config: "+cfg.Where("reasoning_effort")+": reasoning_effort"
	}
	levels := m.Capabilities.ReasoningLevels
	switch {
	case effort == "" || slices.Contains(levels, effort):
		return nil
	case len(levels) == 0:
		warn(fmt.Sprintf("%s %q is ignored: model %s does not reason, as far as rein knows (reasoning_levels in [models.%q] says it does)",
			from, effort, m.Model, m.Model))
		return nil
	}
	return fmt.Errorf("%w: %s %q: model %s takes %s", cli.ErrUsage, from, effort, m.Model, strings.Join(levels, ", "))
}

// effortFor is the reasoning effort asked of model m: effort when it is
// one of m's levels, else none (checkEffort said why); effort as it is for
// a model rein did not describe (the scripted one).
func effortFor(m *kernel.Model, effort string) string {
	if m.Info == nil || slices.Contains(m.Capabilities.ReasoningLevels, effort) {
		return effort
	}
	return ""
}
