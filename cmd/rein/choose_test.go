package main

import (
	"os"
	"path/filepath"
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

// --base-url alone, or a configured base_url alone, with no key of any
// provider, is the openai provider at that server, as OPENAI_BASE_URL
// alone is; a provider named or a key still comes first. With nothing at
// all, the error says how to name a server of one's own.
func TestPickByBaseURLAlone(t *testing.T) {
	for _, v := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL"} {
		t.Setenv(v, "")
	}
	const local = "http://127.0.0.1:11434/v1"
	if _, _, _, err := pick(cli.Spec{}, &config.Config{}); err == nil || !strings.Contains(err.Error(), "--provider openai --base-url "+local) {
		t.Errorf("no provider at all: %v, want an error that says --provider openai --base-url", err)
	}
	for _, tc := range []struct {
		name, file, model string
		spec              cli.Spec
	}{
		{"the flag", "", "", cli.Spec{BaseURL: local}},
		{"the config", "base_url = \"" + local + "\"\n", "", cli.Spec{}},
		{"the config, with its model", "model = \"qwen3:8b\"\nbase_url = \"" + local + "\"\n", "qwen3:8b", cli.Spec{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name, m, u, err := pick(tc.spec, loaded(t, tc.file))
			if err != nil || name != "openai" || u != local || m != tc.model {
				t.Errorf("pick() = %q, %q, %q, %v; want openai at %s with model %q", name, m, u, err, local, tc.model)
			}
		})
	}
	// A configured base_url alone is the person's choice of a server,
	// over the vendor of a key; the flag alone goes to the key's vendor
	// (a proxy of its API, say).
	t.Setenv("ANTHROPIC_API_KEY", "sk-a")
	if name, _, u, err := pick(cli.Spec{}, loaded(t, "base_url = \""+local+"\"\n")); err != nil || name != "openai" || u != local {
		t.Errorf("a configured base_url alone and an Anthropic key: pick() = %q at %q, %v; want openai at %s", name, u, err, local)
	}
	if name, _, u, err := pick(cli.Spec{BaseURL: local}, &config.Config{}); err != nil || name != "anthropic" || u != local {
		t.Errorf("--base-url alone and an Anthropic key: pick() = %q at %q, %v; want anthropic at %s", name, u, err, local)
	}
}

// loaded is the configuration of a person's config.toml that says text
// ("": none).
func loaded(t *testing.T, text string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if text != "" {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c, err := config.Load(config.Paths{User: path})
	if err != nil {
		t.Fatal(err)
	}
	return c
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
