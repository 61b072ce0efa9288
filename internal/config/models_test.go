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
max_cost = 5
reasoning_effort = "high"

[models."qwen3:32b"]
context_window = 40960
max_output = 8192
input_price = 0
output_price = 0.5
reasoning_levels = ["low", "high"]
`)
	project := write(t, filepath.Join(dir, "repo", ".rein", "config.toml"), `compact_at = 0.7
max_cost = 2
reasoning_effort = "low"

[models."qwen3:32b"]
context_window = 32768

[models.local]
context_window = 4096
`)
	c, err := Load(Paths{User: user, Project: project})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Model{
		"qwen3:32b": {ContextWindow: 32768, MaxOutput: 8192, InputPrice: price(0), OutputPrice: price(0.5), ReasoningLevels: []string{"low", "high"}},
		"local":     {ContextWindow: 4096},
	}
	if d := cmp.Diff(want, c.Models); d != "" {
		t.Errorf("models (-want +got):\n%s", d)
	}
	if c.CompactAt != 0.7 || c.MaxCost != 2 || c.ReasoningEffort != "low" || len(c.Warnings) != 0 {
		t.Errorf("compact_at %v, max_cost %v, reasoning_effort %q, warnings %v", c.CompactAt, c.MaxCost, c.ReasoningEffort, c.Warnings)
	}
	if w := c.Where("models.local"); w != project+":8" {
		t.Errorf("Where(models.local) = %q", w)
	}
}

// TestProjectLimits: a cloned repository may not set prices, nor raise or
// remove the user's budget; it is told, and the rest of its file applies.
func TestProjectLimits(t *testing.T) {
	dir := t.TempDir()
	user := write(t, filepath.Join(dir, "user", "config.toml"), "max_cost = 5\n[models.m]\ninput_price = 3\n")
	for _, tc := range []struct {
		name, text string
		cost       float64
		warns      []string
	}{
		{"prices", "[models.m]\ncontext_window = 1000\ninput_price = 0\ncache_read_price = 0\n", 5, []string{":1: the prices of [models.\"m\"] are ignored"}},
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
			if c.MaxCost != tc.cost || *c.Models["m"].InputPrice != 3 || c.Models["m"].CacheReadPrice != nil {
				t.Errorf("max_cost %v, models %+v", c.MaxCost, c.Models)
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
		"empty effort":        {"reasoning_effort = \" \"\n", "config.toml:1: reasoning_effort is empty"},
		"negative window":     {"[models.\"a:b\"]\nmax_output = 1\ncontext_window = -5\n", `config.toml:3: [models."a:b"] context_window is -5`},
		"output over window":  {"[models.a]\ncontext_window = 100\nmax_output = 100\n", `config.toml:3: [models."a"] max_output (100) must be smaller`},
		"negative price":      {"[models.a]\ncache_write_price = -1\n", `config.toml:2: [models."a"] cache_write_price is -1`},
		"empty level":         {"[models.a]\nreasoning_levels = [\"low\", \"\"]\n", `config.toml:2: [models."a"] reasoning_levels has an empty level`},
		"window not a number": {"[models.a]\ncontext_window = \"big\"\n", "config.toml"},
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
