package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func price(v float64) *float64 { return &v }

func TestModelsAndContext(t *testing.T) {
	dir := t.TempDir()
	user := write(t, filepath.Join(dir, "user", "config.toml"), `compact_at = 0.8
first_byte_timeout = 300
max_cost = 5
reasoning_effort = "high"

[models."qwen3:32b"]
context_window = 40960
max_output = 8192
input_price = 0
output_price = 0.5
reasoning_levels = ["low", "high"]

[models.local]
context_window = 4096
`)
	project := write(t, filepath.Join(dir, "repo", ".rein", "config.toml"), "max_cost = 2\n")
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Model{
		"qwen3:32b": {ContextWindow: 40960, MaxOutput: 8192, InputPrice: price(0), OutputPrice: price(0.5), ReasoningLevels: []string{"low", "high"}},
		"local":     {ContextWindow: 4096},
	}
	if d := cmp.Diff(want, c.Models); d != "" {
		t.Errorf("models (-want +got):\n%s", d)
	}
	if c.CompactAt != 0.8 || c.MaxCost != 2 || c.ReasoningEffort != "high" || len(c.Warnings) != 0 {
		t.Errorf("compact_at %v, max_cost %v, reasoning_effort %q, warnings %v", c.CompactAt, c.MaxCost, c.ReasoningEffort, c.Warnings)
	}
	if c.FirstByteTimeout != 300 {
		t.Errorf("first_byte_timeout %v, want 300", c.FirstByteTimeout)
	}
	if w := c.Where("models.local"); w != user+":13" {
		t.Errorf("Where(models.local) = %q", w)
	}
	if w := c.Where("max_cost"); w != project+":1" {
		t.Errorf("Where(max_cost) = %q", w)
	}
}

// TestProjectLimits: a cloned repository may not ask for a reasoning
// effort, a compaction threshold or describe models, nor raise or remove
// the user's budget; it is told, once for each, at the file and line, and
// the rest of its file applies.
func TestProjectLimits(t *testing.T) {
	dir := t.TempDir()
	user := write(t, filepath.Join(dir, "user", "config.toml"),
		"max_cost = 5\ncompact_at = 0.8\nreasoning_effort = \"low\"\nfirst_byte_timeout = 120\n[models.m]\ninput_price = 3\n")
	for _, tc := range []struct {
		name, text string
		cost       float64
		warns      []string
	}{
		{"prices", "[models.m]\ncontext_window = 1000\ninput_price = 0\ncache_read_price = 0\n", 5,
			[]string{":1: [models.\"m\"] is ignored: only your own config.toml"}},
		{"window", "max_turns = 3\n[models.\"x\"]\ncontext_window = 900000000\n[models.m]\nmax_output = 1\n", 5,
			[]string{":2: [models.\"x\"] is ignored", ":4: [models.\"m\"] is ignored"}},
		{"effort", "model = \"y\"\nreasoning_effort = \"max\"\n", 5, []string{":2: reasoning_effort is ignored"}},
		{"empty effort", "reasoning_effort = \"\"\n", 5, []string{":1: reasoning_effort is ignored"}},
		{"compact_at", "compact_at = 0.05\n", 5, []string{":1: compact_at is ignored"}},
		{"bad compact_at", "compact_at = 7\n", 5, []string{":1: compact_at is ignored"}},
		{"first_byte_timeout", "model = \"y\"\nfirst_byte_timeout = 1\n", 5,
			[]string{":2: first_byte_timeout is ignored: how long rein waits for your model's server is yours to say"}},
		{"all", "compact_at = 0.05\nreasoning_effort = \"max\"\nmax_cost = 50\n", 5,
			[]string{":1: compact_at is ignored: a cloned repository could make rein summarise your conversation every turn",
				":2: reasoning_effort is ignored: a cloned repository could ask for the model's dearest thinking", ":3: max_cost = 50 is ignored"}},
		{"higher budget", "max_cost = 50\n", 5, []string{":1: max_cost = 50 is ignored"}},
		{"no budget", "max_cost = 0\n", 5, []string{"may only lower"}},
		{"lower budget", "max_cost = 1.5\n", 1.5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := write(t, filepath.Join(dir, tc.name, ".rein", "config.toml"), tc.text)
			c, err := Load(Paths{User: user, Project: project})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]Model{"m": {InputPrice: price(3)}}
			if d := cmp.Diff(want, c.Models); d != "" || c.MaxCost != tc.cost || c.CompactAt != 0.8 || c.ReasoningEffort != "low" || c.FirstByteTimeout != 120 {
				t.Errorf("max_cost %v, compact_at %v, reasoning_effort %q, first_byte_timeout %v, models (-want +got):\n%s",
					c.MaxCost, c.CompactAt, c.ReasoningEffort, c.FirstByteTimeout, d)
			}
			for _, key := range []string{"compact_at", "reasoning_effort", "first_byte_timeout", "models.m"} {
				if w := c.Where(key); !strings.HasPrefix(w, user) {
					t.Errorf("Where(%s) = %q, want the user's file", key, w)
				}
			}
			if len(c.Warnings) != len(tc.warns) {
				t.Fatalf("warnings %q, want %q", c.Warnings, tc.warns)
			}
			for i, w := range tc.warns {
				if !strings.Contains(c.Warnings[i], project) || !strings.Contains(c.Warnings[i], w) {
					t.Errorf("warning %q, want it to name the file and say %q", c.Warnings[i], w)
				}
			}
		})
	}
	// A project's max_cost that is not a number is ignored, with a
	// warning at its line, not a way past the "may only lower" check.
	for _, text := range []string{"max_cost = nan\n", "max_cost = inf\n", "max_cost = -inf\n"} {
		project := write(t, filepath.Join(dir, "nan", ".rein", "config.toml"), text)
		c, err := Load(Paths{User: user, Project: project})
		if err != nil || c.MaxCost != 5 || len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], project+":1: max_cost") ||
			!strings.Contains(c.Warnings[0], " is ignored: ") {
			t.Errorf("project %q: %v, max_cost %v, warnings %q; want the user's 5 and the value said ignored", text, err, c.MaxCost, c.Warnings)
		}
		c, err = Load(Paths{Project: project})
		if err != nil || c.MaxCost != 0 {
			t.Errorf("project %q alone: %v, max_cost %v; want no budget", text, err, c.MaxCost)
		}
	}
	// With no budget of the user's, a project's is a budget.
	project := write(t, filepath.Join(dir, "alone", ".rein", "config.toml"), "max_cost = 3\n")
	if c, err := Load(Paths{Project: project}); err != nil || c.MaxCost != 3 {
		t.Errorf("project max_cost alone: %v %v", c, err)
	}
}

func TestContextErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"compact_at 1":        {"compact_at = 1\n", "config.toml:1: compact_at is 1; it must be between 0 and 1"},
		"compact_at 0":        {"model = \"x\"\ncompact_at = 0\n", "config.toml:2: compact_at is 0"},
		"max_cost negative":   {"max_cost = -1\n", "config.toml:1: max_cost is -1"},
		"first_byte negative": {"model = \"x\"\nfirst_byte_timeout = -5\n", "config.toml:2: first_byte_timeout is -5; it must be a number of seconds"},
		"first_byte nan":      {"first_byte_timeout = nan\n", "config.toml:1: first_byte_timeout is NaN"},
		"first_byte a string": {"first_byte_timeout = \"90s\"\n", "config.toml"},
		"empty effort":        {"reasoning_effort = \" \"\n", "config.toml:1: reasoning_effort is empty"},
		"negative window":     {"[models.\"a:b\"]\nmax_output = 1\ncontext_window = -5\n", `config.toml:3: [models."a:b"] context_window is -5`},
		"output over window":  {"[models.a]\ncontext_window = 100\nmax_output = 100\n", `config.toml:3: [models."a"] max_output (100) must be smaller`},
		"negative price":      {"[models.a]\ncache_write_price = -1\n", `config.toml:2: [models."a"] cache_write_price is -1`},
		"empty level":         {"[models.a]\nreasoning_levels = [\"low\", \"\"]\n", `config.toml:2: [models."a"] reasoning_levels has an empty level`},
		"window not a number": {"[models.a]\ncontext_window = \"big\"\n", "config.toml"},
		"compact_at nan":      {"compact_at = nan\n", "config.toml:1: compact_at is NaN; it must be a finite number"},
		"compact_at -inf":     {"compact_at = -inf\n", "config.toml:1: compact_at is -Inf"},
		"max_cost nan":        {"model = \"x\"\nmax_cost = nan\n", "config.toml:2: max_cost is NaN"},
		"max_cost inf":        {"max_cost = +inf\n", "config.toml:1: max_cost is +Inf"},
		"input_price inf":     {"[models.a]\ncontext_window = 10\ninput_price = inf\n", `config.toml:3: [models."a"] input_price is +Inf`},
		"cache price nan":     {"[models.a]\ncache_read_price = nan\n", `config.toml:2: [models."a"] cache_read_price is NaN`},
	} {
		t.Run(name, func(t *testing.T) {
			path := write(t, filepath.Join(dir, name, "config.toml"), tc.text)
			_, err := Load(Paths{User: path})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load() error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
