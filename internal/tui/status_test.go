package tui

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/kernel"
)

func TestModelFacts(t *testing.T) {
	about := func() []Fact {
		return []Fact{{"provider", "anthropic"}, {"model", "claude-x (200k window)"}, {"config", "~/.config/rein/config.toml"}}
	}
	for _, tc := range []struct {
		name    string
		about   func() []Fact
		cur     kernel.Current
		sandbox string
		want    []Fact
	}{
		{"the runtime's own", nil, kernel.Current{Provider: "openai", Model: "gpt-x", BaseURL: "http://127.0.0.1:8080/v1"}, "sandbox: bwrap, no network",
			[]Fact{{"provider", "openai"}, {"model", "gpt-x"}, {"endpoint", "http://127.0.0.1:8080/v1"}, {"sandbox", "bwrap, no network"}}},
		{"the wiring's", about, kernel.Current{Provider: "anthropic", Model: "claude-x"}, "sandbox: off",
			[]Fact{{"provider", "anthropic"}, {"model", "claude-x (200k window)"}, {"config", "~/.config/rein/config.toml"}}},
		{"switched with /model", about, kernel.Current{Provider: "openai", Model: "gpt-x"}, "",
			[]Fact{{"provider", "openai (switched with /model)"}, {"model", "gpt-x (switched with /model)"}, {"config", "~/.config/rein/config.toml"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ModelFacts(tc.about, tc.cur, tc.sandbox)); d != "" {
				t.Errorf("ModelFacts() mismatch (-want +got):\n%s", d)
			}
		})
	}
}
