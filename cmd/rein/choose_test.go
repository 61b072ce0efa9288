package main

import (
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/provider/openai"
)

func TestPick(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		t.Setenv(v, "")
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-a")
	openrouter := config.File{Provider: "openai", Model: "meta/llama", BaseURL: "https://openrouter.example/api/v1"}
	for _, tc := range []struct {
		name                     string
		spec                     cli.Spec
		cfg                      config.File
		provider, model, baseURL string
	}{
		{"config decides", cli.Spec{}, openrouter, "openai", "meta/llama", "https://openrouter.example/api/v1"},
		// The config's endpoint and model never follow another vendor's key.
		{"another provider on the command line", cli.Spec{Provider: "anthropic"}, openrouter, "anthropic", "", ""},
		{"flags over config", cli.Spec{Provider: "openai", Model: "gpt-x", BaseURL: "http://127.0.0.1:8000/v1"}, openrouter, "openai", "gpt-x", "http://127.0.0.1:8000/v1"},
		{"a model alone in config", cli.Spec{}, config.File{Model: "claude-opus"}, "anthropic", "claude-opus", ""},
		{"auto-detect from the keys", cli.Spec{}, config.File{}, "anthropic", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, m, u, err := pick(tc.spec, &config.Config{File: tc.cfg})
			if err != nil {
				t.Fatal(err)
			}
			if name != tc.provider || m != tc.model || u != tc.baseURL {
				t.Errorf("pick() = %q, %q, %q; want %q, %q, %q", name, m, u, tc.provider, tc.model, tc.baseURL)
			}
		})
	}
}

// OPENAI_BASE_URL alone, with no key of any provider, is the openai
// provider at that server; a key still comes first.
func TestPickByEndpointAlone(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(v, "")
	}
	if _, _, _, err := pick(cli.Spec{}, &config.Config{}); err == nil || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("no provider at all: %v, want an error that names OPENAI_BASE_URL too", err)
	}
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:11434/v1")
	if name, _, _, err := pick(cli.Spec{}, &config.Config{}); err != nil || name != "openai" {
		t.Errorf("OPENAI_BASE_URL alone: pick() = %q, %v; want openai", name, err)
	}
	t.Setenv("GEMINI_API_KEY", "g")
	if name, _, _, err := pick(cli.Spec{}, &config.Config{}); err != nil || name != "gemini" {
		t.Errorf("OPENAI_BASE_URL and a Gemini key: pick() = %q, %v; want gemini", name, err)
	}
}

func TestChooseModelsFallbacks(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-o")
	t.Setenv("ANTHROPIC_API_KEY", "sk-a")
	cfg := &config.Config{File: config.File{Provider: "openai", Fallback: []string{"anthropic:claude-x", "openai"}}}
	m, fbs, err := chooseModels(t.Context(), cli.Spec{}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "openai" || len(fbs) != 2 || fbs[0].Name != "anthropic" || fbs[0].Model != "claude-x" || fbs[0].KeyHint != "ANTHROPIC_API_KEY" || fbs[1].Model != openai.DefaultModel {
		t.Errorf("primary %s, fallbacks %+v", m.Name, fbs)
	}
	if _, fbs, _ := chooseModels(t.Context(), cli.Spec{Fallback: []string{}}, cfg, nil); len(fbs) != 0 {
		t.Errorf("--fallback with an empty list should override the config's: %d fallbacks", len(fbs))
	}
}
