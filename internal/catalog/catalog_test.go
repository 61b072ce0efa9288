package catalog

import (
	"math"
	"testing"

	"charm.land/catwalk/pkg/catwalk"
	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// fake is a small catalogue in catwalk's shape, so that the tests do not
// depend on the embedded figures of the day.
func fake() *Catalog {
	return &Catalog{providers: fromCatwalk([]catwalk.Provider{
		{ID: "anthropic", DefaultLargeModelID: "claude-sonnet-4-6", Models: []catwalk.Model{
			{ID: "claude-sonnet-4-6", ContextWindow: 200_000, DefaultMaxTokens: 128_000, CanReason: true,
				ReasoningLevels: []string{"low", "medium", "high"}, DefaultReasoningEffort: "high",
				CostPer1MIn: 3, CostPer1MOut: 15, CostPer1MInCached: 3.75, CostPer1MOutCached: 0.3},
			{ID: "claude-sonnet-4-5-20250929", ContextWindow: 200_000, DefaultMaxTokens: 64_000, CanReason: true},
			{ID: "claude-opus-4-20250514", ContextWindow: 200_000},
			{ID: "claude-opus-4-20250805", ContextWindow: 300_000},
		}},
		{ID: "openai", DefaultLargeModelID: "gpt-5", Models: []catwalk.Model{
			{ID: "gpt-5", ContextWindow: 400_000, DefaultMaxTokens: 128_000, CostPer1MIn: 1.25, CostPer1MOut: 10},
			{ID: "gpt-4.1-mini-2025-04-14", ContextWindow: 1_047_576},
			{ID: "gpt-5.4", ContextWindow: 1_050_000, CostPer1MIn: 2.5, CostPer1MOut: 15, CostPer1MInCached: 0.25},
		}},
		{ID: "openrouter", Models: []catwalk.Model{
			{ID: "openai/gpt-5", ContextWindow: 111},
			{ID: "deepseek/deepseek-chat", ContextWindow: 64_000},
		}},
		{ID: "deepseek", Models: []catwalk.Model{{ID: "deepseek-chat", ContextWindow: 128_000, CostPer1MIn: 0.3, CostPer1MOut: 1}}},
		{ID: "copilot", Models: []catwalk.Model{{ID: "free-model", ContextWindow: 32_000}}},
	})}
}

func TestLookup(t *testing.T) {
	c := fake()
	for _, tc := range []struct {
		vendor, model string
		id            string
		window        int
		ok            bool
	}{
		{"anthropic", "claude-sonnet-4-6", "claude-sonnet-4-6", 200_000, true},
		{"anthropic", "Claude-Sonnet-4-6", "claude-sonnet-4-6", 200_000, true},
		{"anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5-20250929", 200_000, true},
		{"anthropic", "claude-opus-4", "claude-opus-4-20250805", 300_000, true}, // the latest date
		{"openai", "gpt-5", "gpt-5", 400_000, true},                             // the vendor's own list first
		{"openai", "openai/gpt-5", "openai/gpt-5", 111, true},                   // a router's own id
		{"openai", "someone/gpt-5", "gpt-5", 400_000, true},                     // a prefix the catalogue does not know
		{"openai", "gpt-4.1-mini", "gpt-4.1-mini-2025-04-14", 1_047_576, true},
		{"openai", "deepseek-chat", "deepseek-chat", 128_000, true}, // another provider's exact id over a router's alias
		{"openai", "gpt-5:latest", "gpt-5", 400_000, true},
		{"gemini", "models/gpt-5", "gpt-5", 400_000, true},
		{"openai", "qwen3:32b", "", 0, false},
		{"openai", "", "", 0, false},
	} {
		m, ok := c.Lookup(tc.vendor, tc.model)
		if ok != tc.ok || m.ID != tc.id || m.ContextWindow != tc.window {
			t.Errorf("Lookup(%q, %q) = %q %d %v, want %q %d %v", tc.vendor, tc.model, m.ID, m.ContextWindow, ok, tc.id, tc.window, tc.ok)
		}
		if ok && m.Source != contract.InfoCatalog {
			t.Errorf("Lookup(%q).Source = %q", tc.model, m.Source)
		}
	}
}

func TestLookupFigures(t *testing.T) {
	m, _ := fake().Lookup("anthropic", "claude-sonnet-4-6")
	want := Model{ID: "claude-sonnet-4-6", ContextWindow: 200_000, MaxOutput: 128_000,
		// catwalk's "in cached" is the write price, "out cached" the read.
		Prices:  &contract.Prices{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.3},
		Reasons: true, ReasoningLevels: []string{"low", "medium", "high"}, DefaultEffort: "high", Source: contract.InfoCatalog}
	if d := cmp.Diff(want, m); d != "" {
		t.Errorf("Lookup (-want +got):\n%s", d)
	}
	if m, _ := fake().Lookup("openai", "free-model"); m.Prices != nil {
		t.Errorf("a model that costs nothing in catwalk has unknown prices, got %+v", m.Prices)
	}
}

func TestWith(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	c := fake().With(map[string]Entry{
		"qwen3:32b":         {ContextWindow: 40_960, MaxOutput: 8192, Input: f(0), Output: f(0)},
		"claude-sonnet-4-6": {ContextWindow: 1_000_000, CacheRead: f(0.5)},
		"gpt-5":             {ReasoningLevels: []string{"low"}},
	}).With(map[string]Entry{"local": {Input: f(2), Output: f(6)}, "half": {Input: f(2)}, "out-only": {Output: f(6)},
		"cheap-reads": {Input: f(2), Output: f(6), CacheRead: f(0.2)}, "gpt-5.4": {Input: f(3)}})
	for _, tc := range []struct {
		model string
		want  Model
	}{
		{"qwen3:32b", Model{ID: "qwen3:32b", ContextWindow: 40_960, MaxOutput: 8192, Prices: &contract.Prices{}, Source: contract.InfoConfig}},
		{"claude-sonnet-4-6", Model{ID: "claude-sonnet-4-6", ContextWindow: 1_000_000, MaxOutput: 128_000,
			Prices:  &contract.Prices{Input: 3, Output: 15, CacheWrite: 3.75, CacheRead: 0.5},
			Reasons: true, ReasoningLevels: []string{"low", "medium", "high"}, DefaultEffort: "high", Source: contract.InfoConfig}},
		{"gpt-5", Model{ID: "gpt-5", ContextWindow: 400_000, MaxOutput: 128_000, Prices: &contract.Prices{Input: 1.25, Output: 10, CacheRead: 1.25},
			Reasons: true, ReasoningLevels: []string{"low"}, Source: contract.InfoConfig}},
		// An entry's missing cache prices are its input price.
		{"local", Model{ID: "local", Prices: &contract.Prices{Input: 2, Output: 6, CacheRead: 2, CacheWrite: 2}, Source: contract.InfoConfig}},
		{"cheap-reads", Model{ID: "cheap-reads", Prices: &contract.Prices{Input: 2, Output: 6, CacheRead: 0.2, CacheWrite: 2},
			Source: contract.InfoConfig}},
		// Input or output alone is no price: output is not free.
		{"half", Model{ID: "half", Source: contract.InfoConfig}},
		{"out-only", Model{ID: "out-only", Source: contract.InfoConfig}},
	} {
		m, ok := c.Lookup("openai", tc.model)
		if d := cmp.Diff(tc.want, m); !ok || d != "" {
			t.Errorf("Lookup(%q) ok=%v (-want +got):\n%s", tc.model, ok, d)
		}
	}
	// Over a catalogue's prices, input alone replaces the catalogue's input.
	if m, _ := c.Lookup("openai", "gpt-5.4"); m.Prices == nil || *m.Prices != (contract.Prices{Input: 3, Output: 15, CacheRead: 0.25}) {
		t.Errorf("gpt-5.4 with input_price = 3: prices %+v", m.Prices)
	}
	if m, _ := fake().Lookup("anthropic", "claude-sonnet-4-6"); m.ContextWindow != 200_000 {
		t.Error("With changed the catalogue it was called on")
	}
}

func TestDefault(t *testing.T) {
	c := fake()
	for vendor, want := range map[string]string{"anthropic": "claude-sonnet-4-6", "openai": "gpt-5", "responses": "gpt-5", "nobody": ""} {
		if got := c.Default(vendor); got != want {
			t.Errorf("Default(%q) = %q, want %q", vendor, got, want)
		}
	}
}

func TestCost(t *testing.T) {
	p := &contract.Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	for _, tc := range []struct {
		name string
		u    contract.ModelUsage
		want float64
	}{
		{"plain", contract.ModelUsage{InputTokens: 1_000_000, OutputTokens: 100_000}, 3 + 1.5},
		{"cached", contract.ModelUsage{InputTokens: 10_000, CacheReadTokens: 6_000, CacheWriteTokens: 2_000, OutputTokens: 1_000},
			(2_000*3 + 6_000*0.3 + 2_000*3.75 + 1_000*15) / 1e6},
		// A vendor that counts cache tokens apart from the input never
		// makes the uncached share negative.
		{"more cached than input", contract.ModelUsage{InputTokens: 100, CacheReadTokens: 1_000}, 1_000 * 0.3 / 1e6},
		{"nothing", contract.ModelUsage{}, 0},
	} {
		got := Cost(&tc.u, p)
		if got == nil || math.Abs(*got-tc.want) > 1e-12 {
			t.Errorf("%s: Cost = %v, want %v", tc.name, got, tc.want)
		}
	}
	if Cost(&contract.ModelUsage{InputTokens: 1}, nil) != nil {
		t.Error("Cost with unknown prices is not nil")
	}
}

// TestCachePrices checks the cache prices read out of real entries of
// the embedded catalogue, whichever of catwalk's two fields holds which,
// and what a call of 100k input tokens, 90k of them cache reads, and 1k
// output costs at them.
func TestCachePrices(t *testing.T) {
	c := Embedded()
	for _, tc := range []struct {
		vendor, model      string
		input, output      float64
		read, write, costs float64
	}{
		// in_cached 3.75 (1.25× input: a write), out_cached 0.3.
		{"anthropic", "claude-sonnet-4-6", 3, 15, 0.3, 3.75, 10_000*3 + 90_000*0.3 + 1_000*15},
		// in_cached 0.5, out_cached 0: the read price comes first.
		{"openai", "gpt-5.5", 5, 30, 0.5, 0, 10_000*5 + 90_000*0.5 + 1_000*30},
		{"openai", "gpt-5.4", 2.5, 15, 0.25, 0, 10_000*2.5 + 90_000*0.25 + 1_000*15},
		// No cached price at all: reads are priced as input.
		{"openai", "gpt-5.4-pro", 30, 180, 30, 0, 100_000*30 + 1_000*180},
		// out_cached 3.75 is the output price (5× input), not a write.
		{"gemini", "gemini-3.7-flash", 0.75, 3.75, 0.075, 0, 10_000*0.75 + 90_000*0.075 + 1_000*3.75},
		{"gemini", "gemini-3.5-flash-lite", 0.3, 2.5, 0.03, 0, 10_000*0.3 + 90_000*0.03 + 1_000*2.5},
		{"gemini", "gemini-3.1-flash-lite", 0.25, 1.5, 0.025, 0, 10_000*0.25 + 90_000*0.025 + 1_000*1.5},
		// in_cached 0, out_cached 0.15: Crush's reading holds.
		{"gemini", "gemini-3.6-flash", 1.5, 7.5, 0.15, 0, 10_000*1.5 + 90_000*0.15 + 1_000*7.5},
	} {
		m, ok := c.Lookup(tc.vendor, tc.model)
		want := contract.Prices{Input: tc.input, Output: tc.output, CacheRead: tc.read, CacheWrite: tc.write}
		if !ok || m.Prices == nil || *m.Prices != want {
			t.Errorf("%s: prices %+v, want %+v", tc.model, m.Prices, want)
			continue
		}
		u := contract.ModelUsage{InputTokens: 100_000, CacheReadTokens: 90_000, OutputTokens: 1_000}
		if got := Cost(&u, m.Prices); got == nil || math.Abs(*got-tc.costs/1e6) > 1e-9 {
			t.Errorf("%s: a call costs %v, want %v", tc.model, got, tc.costs/1e6)
		}
	}
}

// TestCachePricesRule checks the rule on every order of the two fields.
func TestCachePricesRule(t *testing.T) {
	for _, tc := range []struct {
		input, in, out, read, write float64
	}{
		{3, 3.75, 0.3, 0.3, 3.75},
		{3, 0.3, 3.75, 0.3, 3.75},
		{5, 0.5, 0, 0.5, 0},
		{5, 0, 0.5, 0.5, 0},
		{1, 0.2, 0.1, 0.1, 0},         // the smaller read price
		{1, 1, 0, 1, 0},               // a read at the input price
		{30, 0, 0, 30, 0},             // none: reads as input
		{0.75, 0.075, 3.75, 0.075, 0}, // far above input: an output price
		{1, 2, 0, 1, 2},               // an hour's write, 2× input
	} {
		if r, w := cachePrices(tc.input, tc.in, tc.out); r != tc.read || w != tc.write {
			t.Errorf("cachePrices(%v, %v, %v) = %v, %v; want %v, %v", tc.input, tc.in, tc.out, r, w, tc.read, tc.write)
		}
	}
}

// TestEmbedded checks the embedded catalogue answers for each vendor's
// default and the aliases rein's users type.
func TestEmbedded(t *testing.T) {
	c := Embedded()
	for _, vendor := range []string{"openai", "responses", "anthropic", "gemini"} {
		d := c.Default(vendor)
		m, ok := c.Lookup(vendor, d)
		if d == "" || !ok || m.ContextWindow <= 0 || m.Prices == nil {
			t.Errorf("%s: default %q: %+v %v", vendor, d, m, ok)
		}
	}
	if m, ok := c.Lookup("anthropic", "claude-sonnet-4-5"); !ok || m.ID != "claude-sonnet-4-5-20250929" {
		t.Errorf("claude-sonnet-4-5 = %+v %v", m, ok)
	}
}

// BenchmarkLookup is a lookup: a model of the vendor's, found in its own
// list, and one no provider has, which reads the whole catalogue twice.
func BenchmarkLookup(b *testing.B) {
	c := Embedded()
	for b.Loop() {
		c.Lookup("anthropic", "claude-sonnet-4-5")
		c.Lookup("openai", "local")
	}
}
