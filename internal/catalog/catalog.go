// Package catalog is what rein knows of models: each one's context
// window, output, prices and reasoning levels, and each vendor's default
// model. The figures come from charm.land/catwalk, the catalogue Crush
// uses: the fields rein reads, of every provider's models, are kept in
// catwalk.go, a table generated from catwalk's embedded JSON by this
// package's tests (go test ./internal/catalog -run TestGenerated -update,
// after a bump of catwalk in go.mod), so that rein neither links catwalk
// nor parses 0.7 MB of JSON at the first lookup of every run. A lookup
// reads the table as it is, with no index built (a command that looks
// nothing up, like rein version, pays nothing for it, and one that looks
// up a model or two no more than a scan of a few thousand entries); the
// person's [models."id"] tables override or add entries ([Catalog.With]);
// and [Probe] asks an OpenAI-compatible server what it serves.
package catalog

import (
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// ConservativeWindow is the context window assumed for a model nobody
// knows: small enough that most servers hold it.
const ConservativeWindow = 8192

// Model is what the catalogue knows of one model.
type Model struct {
	// ID is the catalogue's name of the model (a dated id where the
	// person asked for its undated alias).
	ID string
	// ContextWindow is the model's context in tokens; MaxOutput the
	// output a reply may take (the catalogue's default maximum); zero
	// means unknown.
	ContextWindow, MaxOutput int
	// Prices are the model's prices in US dollars per million tokens;
	// nil means unknown.
	Prices *contract.Prices
	// Reasons says the model reasons; ReasoningLevels are the efforts it
	// takes and DefaultEffort its default among them (both may be empty
	// for a model that reasons with no levels to choose).
	Reasons         bool
	ReasoningLevels []string
	DefaultEffort   string
	// Source says where the figures came from: contract.InfoCatalog,
	// InfoConfig (the person's table had a say), InfoServer (Probe) or
	// InfoDefault.
	Source string
}

// Info is the model as a session records it.
func (m *Model) Info() *contract.ModelInfo {
	return &contract.ModelInfo{ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput, Source: m.Source, Prices: m.Prices}
}

// Entry is one [models."id"] table of the configuration: each field
// overrides the catalogue's; a zero or nil field leaves it.
type Entry struct {
	ContextWindow, MaxOutput             int
	Input, Output, CacheRead, CacheWrite *float64
	ReasoningLevels                      []string
}

// Catalog is the embedded catalogue with the person's entries over it.
// It is safe for concurrent use.
type Catalog struct {
	providers []provider
	entries   map[string]Entry
}

// Embedded returns the catalogue built into rein, with no entries of the
// person's. It parses nothing until the first lookup.
func Embedded() *Catalog { return &Catalog{providers: catwalkProviders} }

// With returns c with entries (the person's [models] tables, by model id)
// over it: an entry for an id the catalogue knows overrides the fields it
// sets; one for an unknown id adds the model.
func (c *Catalog) With(entries map[string]Entry) *Catalog {
	merged := make(map[string]Entry, len(c.entries)+len(entries))
	for id, e := range c.entries {
		merged[id] = e
	}
	for id, e := range entries {
		merged[id] = e
	}
	return &Catalog{providers: c.providers, entries: merged}
}

// vendors maps rein's provider names to the catwalk providers whose list
// is theirs.
var vendors = map[string]string{
	"openai":    "openai",
	"responses": "openai",
	"anthropic": "anthropic",
	"gemini":    "gemini",
}

// provider is one catwalk provider as the generated table keeps it: its
// id, its default (large) model, and its models' ids and figures in two
// lists of the same length, so that a lookup, which reads every id, reads
// no figures but those of the model it finds.
type provider struct {
	ID, Default string
	IDs         []string
	Models      []figures
}

// figures are the fields of a catwalk model rein reads, as catwalk has
// them: InCached and OutCached are its two cached prices, in whichever
// order an entry gives them (cachePrices reads them); Levels are the
// reasoning levels joined by commas.
type figures struct {
	ContextWindow, MaxOutput     int
	In, Out, InCached, OutCached float64
	Reasons                      bool
	Levels, Effort               string
}

// Lookup returns what is known of model served by vendor (rein's provider
// name: openai, responses, anthropic, gemini). The person's entry for the
// exact name comes over the catalogue's figures. The catalogue matches the
// id as given or in lower case, without a router's prefix
// ("openai/gpt-4.1"), Gemini's "models/", or a local server's ":latest"
// tag, and an undated alias of a dated id ("claude-sonnet-4-5" is
// "claude-sonnet-4-5-20250929", the latest date when there are several);
// it looks in the vendor's own list first, then in every provider's (an
// OpenAI-compatible server may serve deepseek-chat or a Groq model). The
// result is false when neither knows the model.
func (c *Catalog) Lookup(vendor, model string) (Model, bool) {
	m, found := find(c.providers, vendors[vendor], model)
	e, has := c.entries[model]
	if !has {
		return m, found
	}
	if !found {
		m = Model{ID: model}
	}
	e.apply(&m)
	return m, true
}

// apply sets over m what the entry sets: its window, output and levels,
// and its prices (see prices).
func (e *Entry) apply(m *Model) {
	m.Source = contract.InfoConfig
	if e.ContextWindow > 0 {
		m.ContextWindow = e.ContextWindow
	}
	if e.MaxOutput > 0 {
		m.MaxOutput = e.MaxOutput
	}
	if e.ReasoningLevels != nil {
		m.ReasoningLevels = e.ReasoningLevels
		m.Reasons = len(e.ReasoningLevels) > 0
		if !slices.Contains(m.ReasoningLevels, m.DefaultEffort) {
			m.DefaultEffort = ""
		}
	}
	m.Prices = e.prices(m.Prices)
}

// prices is the entry's prices over known, the catalogue's (nil when it
// has none). Over a catalogue's prices each price the entry sets
// replaces its own. With no catalogue prices, the entry's are known only
// when it sets both input_price and output_price: a missing
// cache_read_price prices reads as uncached input, and a missing
// cache_write_price writes as input too (a cached token costs no more
// than an uncached one, save for Anthropic's cache writes). An entry with
// input_price alone, or no input or output price, leaves them unknown:
// rein says "cost unknown" rather than price output at $0.
func (e *Entry) prices(known *contract.Prices) *contract.Prices {
	var p contract.Prices
	switch {
	case known != nil:
		p = *known
	case e.Input != nil && e.Output != nil:
		p.CacheRead, p.CacheWrite = *e.Input, *e.Input
	default:
		return nil
	}
	for _, f := range []struct {
		from *float64
		to   *float64
	}{{e.Input, &p.Input}, {e.Output, &p.Output}, {e.CacheRead, &p.CacheRead}, {e.CacheWrite, &p.CacheWrite}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	return &p
}

// Default returns the vendor's current default model from the catalogue,
// or "" for a vendor it does not know.
func (c *Catalog) Default(vendor string) string {
	if i := providerOf(c.providers, vendors[vendor]); i >= 0 {
		return c.providers[i].Default
	}
	return ""
}

// Cost is what a call with usage u cost at prices p, in US dollars; nil
// when p is nil. InputTokens counts every input token, cached or not: the
// uncached ones (never fewer than none) are priced as input, the cache
// reads and writes at their own prices.
func Cost(u *contract.ModelUsage, p *contract.Prices) *float64 {
	if p == nil || u == nil {
		return nil
	}
	uncached := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	usd := (float64(uncached)*p.Input + float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite + float64(u.OutputTokens)*p.Output) / 1e6
	return &usd
}

// providerOf returns where the provider whose id is id is in providers,
// -1 when there is none.
func providerOf(providers []provider, id string) int {
	for i := range providers {
		if providers[i].ID == id {
			return i
		}
	}
	return -1
}

// answer returns the model of providers that answers to name, its id and
// figures (nil when none does): the first whose id in lower case is name
// (own says providers is the vendor's own list, where the last holds it);
// where none has that id, the first whose id without a router's prefix is
// name, or whose undated alias is name, the latest date winning over an
// earlier one.
func answer(providers []provider, own bool, name string) (string, *figures) {
	var exact, alias string
	var ef, af *figures
	for i := range providers {
		p := &providers[i]
		for j, given := range p.IDs {
			id := strings.ToLower(given)
			if id == name {
				if !own {
					return given, &p.Models[j]
				}
				exact, ef = given, &p.Models[j]
				continue
			}
			if ef != nil {
				continue
			}
			if _, short, ok := cutRouter(id); ok && short == name && af == nil {
				alias, af = given, &p.Models[j]
			}
			if n := dated(id); n >= 0 && id[:n] == name && (af == nil || laterDate(name, alias, given)) {
				alias, af = given, &p.Models[j]
			}
		}
	}
	if ef != nil {
		return exact, ef
	}
	return alias, af
}

// dated returns where the date at the end of a dated id begins (its
// dash: -20250929 or -2025-04-14), or -1 for an id with no date.
func dated(id string) int {
	digits := func(s string) bool {
		for i := range len(s) {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	if n := len(id) - 9; n >= 0 && id[n] == '-' && digits(id[n+1:]) {
		return n
	}
	if n := len(id) - 11; n >= 0 && id[n] == '-' && digits(id[n+1:n+5]) && id[n+5] == '-' &&
		digits(id[n+6:n+8]) && id[n+8] == '-' && digits(id[n+9:]) {
		return n
	}
	return -1
}

// laterDate says whether the model m is a later dated version of name
// than old, which holds name as an alias too.
func laterDate(name, old, m string) bool {
	o, n := strings.ToLower(old), strings.ToLower(m)
	od, nd := dated(o), dated(n)
	return o != name && od >= 0 && nd >= 0 && o[:od] == name && n[:nd] == name && n > o
}

// cutRouter splits "vendor/model" at its last slash.
func cutRouter(name string) (prefix, model string, ok bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 || i == len(name)-1 {
		return "", name, false
	}
	return name[:i], name[i+1:], true
}

// model is the catwalk model id with figures f as rein keeps it. A model whose input and
// output both cost nothing has unknown prices: catwalk says 0 for a model
// billed by subscription (Copilot) as for a free one.
func (f *figures) model(id string) *Model {
	m := &Model{ID: id, ContextWindow: f.ContextWindow, MaxOutput: f.MaxOutput,
		Reasons: f.Reasons, DefaultEffort: f.Effort, Source: contract.InfoCatalog}
	if f.Levels != "" {
		m.ReasoningLevels = strings.Split(f.Levels, ",")
	}
	if f.In != 0 || f.Out != 0 {
		read, write := cachePrices(f.In, f.InCached, f.OutCached)
		m.Prices = &contract.Prices{Input: f.In, Output: f.Out, CacheRead: read, CacheWrite: write}
	}
	return m
}

// cachePrices reads a model's cache read and write prices out of catwalk's
// two cached prices, whatever order an entry gives them in. Crush reads
// "in cached" as the write price and "out cached" as the read price, but
// entries break that: gpt-5.5 puts its read price first and 0 second,
// gemini-3.7-flash its output price second. So, for every vendor: the read
// price is the smaller positive one that is not above input (a cached
// token never costs more than an uncached one); with none, reads are
// priced as uncached input. The write price is one above input and at
// most twice it (Anthropic's writes cost 1.25× input for five minutes'
// cache, 2× for an hour's), else 0: OpenAI and Gemini bill no cache
// writes, and a price further above input is an output price entered in
// the wrong field (gemini-3.7-flash's 3.75 is 5× its input).
func cachePrices(input float64, cached ...float64) (read, write float64) {
	read = input
	found := false
	for _, c := range cached {
		switch {
		case c > 2*input:
		case c > input:
			write = max(write, c)
		case c > 0 && (!found || c < read):
			read, found = c, true
		}
	}
	return read, write
}

// find returns the model that answers to name (see answer), in vendor's
// list first and then in every provider's.
func find(providers []provider, vendor, name string) (Model, bool) {
	own := providerOf(providers, vendor)
	for _, n := range candidates(name) {
		if own >= 0 {
			if id, f := answer(providers[own:own+1], true, n); f != nil {
				return *f.model(id), true
			}
		}
		if id, f := answer(providers, false, n); f != nil {
			return *f.model(id), true
		}
	}
	return Model{}, false
}

// candidates are the names to look name up by, the likeliest first: as
// given in lower case, without Gemini's "models/" or a ":latest" tag, and
// without a router's prefix.
func candidates(name string) []string {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimPrefix(n, "models/")
	n = strings.TrimSuffix(n, ":latest")
	out := []string{n}
	if _, short, ok := cutRouter(n); ok {
		out = append(out, short)
	}
	return out
}
