package main

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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

// servesWindow answers the probe of the test servers' models ("m",
// "local-model") as vLLM does, with a window as large as their
// conversations need, and hands every other request to h: they see only
// model calls.
func servesWindow(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
			_, _ = io.WriteString(w, `{"data":[{"id":"m","max_model_len":1000000},{"id":"local-model","max_model_len":1000000}]}`)
		case strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/props":
			http.NotFound(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// TestDefaultsAreTheCatalogues: the adapters' DefaultModel constants are
// the catalogue's current defaults, so a bump of catwalk that moves them
// says so here.
func TestDefaultsAreTheCatalogues(t *testing.T) {
	c := catalog.Embedded()
	for vendor, constant := range map[string]string{
		"openai": openai.DefaultModel, "responses": responses.DefaultModel,
		"anthropic": anthropic.DefaultModel, "gemini": gemini.DefaultModel,
	} {
		if d := c.Default(vendor); d != constant {
			t.Errorf("%s: the catalogue's default is %q, the adapter's DefaultModel %q", vendor, d, constant)
		}
	}
}

// recorder collects warnings.
type recorder struct {
	mu   sync.Mutex
	said []string
}

func (r *recorder) warn(s string) { r.mu.Lock(); r.said = append(r.said, s); r.mu.Unlock() }

func TestDescribe(t *testing.T) {
	// What the machine's state directory remembers of a server (windows.json)
	// must not answer for this one: a port is used again.
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var probed atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		probed.Add(1)
		if r.URL.Path == "/v1/models" && r.Header.Get("Authorization") == "Bearer sk-vllm" {
			_, _ = io.WriteString(w, `{"data":[{"id":"qwen3-32b","max_model_len":32768}]}`)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cfg := &config.Config{File: config.File{Models: map[string]config.Model{"local": {ContextWindow: 4096}}}}
	served := &contract.ModelInfo{ContextWindow: 65536, Source: contract.InfoServer}
	for _, tc := range []struct {
		name   string
		m      kernel.Model
		known  *contract.ModelInfo
		window int
		source string
		prices bool
		levels string
		warned bool
		probes int32
	}{
		{"catalogue", kernel.Model{Name: "anthropic", Model: "claude-sonnet-4-6"}, nil, 200_000, contract.InfoCatalog, true, "low medium high max", false, 0},
		// A model that reasons with no levels listed takes rein's three.
		{"catalogue, no levels", kernel.Model{Name: "anthropic", Model: "claude-sonnet-4-5"}, nil, 200_000, contract.InfoCatalog, true, "low medium high", false, 0},
		{"config", kernel.Model{Name: "openai", Model: "local", BaseURL: srv.URL + "/v1"}, nil, 4096, contract.InfoConfig, false, "", false, 0},
		// The server is asked (with the key) and its window wins over the
		// catalogue's, whose reasoning levels stay; a local server's
		// prices are not a vendor's.
		{"server", kernel.Model{Name: "openai", Model: "qwen3-32b", BaseURL: srv.URL + "/v1", Secret: "sk-vllm"}, nil, 32768, contract.InfoServer, false, "low medium high", false, 1},
		{"resumed", kernel.Model{Name: "openai", Model: "qwen3-32b", BaseURL: srv.URL + "/v1"}, served, 65536, contract.InfoServer, false, "low medium high", false, 0},
		{"nobody knows", kernel.Model{Name: "openai", Model: "mystery", BaseURL: srv.URL + "/v1"}, nil, catalog.ConservativeWindow, contract.InfoDefault, false, "", true, 3},
		{"nobody knew, said once", kernel.Model{Name: "openai", Model: "mystery", BaseURL: srv.URL + "/v1"},
			&contract.ModelInfo{ContextWindow: catalog.ConservativeWindow, Source: contract.InfoDefault}, catalog.ConservativeWindow, contract.InfoDefault, false, "", false, 0},
		{"unknown on the vendor's own server", kernel.Model{Name: "gemini", Model: "gemini-99"}, nil, catalog.ConservativeWindow, contract.InfoDefault, false, "", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probed.Store(0)
			var r recorder
			m := tc.m
			describe(context.Background(), &m, cfg, tc.known, r.warn)
			if m.Capabilities.ContextWindow != tc.window || m.Info == nil || m.Info.ContextWindow != tc.window || m.Info.Source != tc.source ||
				(m.Info.Prices != nil) != tc.prices || strings.Join(m.Capabilities.ReasoningLevels, " ") != tc.levels {
				t.Errorf("capabilities %+v, info %+v", m.Capabilities, m.Info)
			}
			if (len(r.said) == 1) != tc.warned || probed.Load() != tc.probes {
				t.Errorf("warnings %q, %d requests to the server", r.said, probed.Load())
			}
			if tc.warned && !strings.Contains(r.said[0], `[models."`+m.Model+`"] context_window`) {
				t.Errorf("the warning does not say which table fixes it: %s", r.said[0])
			}
		})
	}
}

// TestOwnServer: the hosts rein takes for the person's own server, which
// it probes even for a model the catalogue knows.
func TestOwnServer(t *testing.T) {
	for url, want := range map[string]bool{
		"http://127.0.0.1:11434/v1":       true,
		"http://[::1]:8000/v1":            true,
		"http://localhost:8080/v1":        true,
		"http://LOCALHOST./v1":            true,
		"http://0.0.0.0:8000/v1":          true,
		"http://10.1.2.3/v1":              true,
		"http://172.16.0.9:8000/v1":       true,
		"http://192.168.1.20:1234/v1":     true,
		"http://[fd00::1]/v1":             true, // unique local
		"http://169.254.10.1/v1":          true, // link-local
		"http://[fe80::1%25eth0]:8000/v1": true,
		"http://[::ffff:192.168.0.1]/v1":  true,
		"http://gpu-box:8000/v1":          true, // a single label: the LAN
		"http://gpu.local:8000/v1":        true,
		"http://vllm.svc.internal/v1":     true,
		"http://api.localhost/v1":         true,
		"https://api.openai.com/v1":       false,
		"https://openrouter.ai/api/v1":    false,
		"https://api.deepseek.com/v1":     false,
		"http://8.8.8.8/v1":               false,
		"http://[2001:4860::8888]/v1":     false,
		"http://172.32.0.1/v1":            false, // just past 172.16/12
		"https://local.example.com/v1":    false,
		"https://internal.example.com/v1": false,
		"":                                false,
		"://nonsense":                     false,
	} {
		if got := ownServer(url); got != want {
			t.Errorf("ownServer(%q) = %v, want %v", url, got, want)
		}
	}
}

// TestProbes: an endpoint is probed for a model the catalogue does not
// know, or on the person's own server; never a hosted vendor's for a
// model the catalogue knows, nor a native API's.
func TestProbes(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		found     bool
		want      bool
	}{
		{"openai", "https://api.together.xyz/v1", true, false},
		{"openai", "https://api.together.xyz/v1", false, true},
		{"responses", "https://api.openai.com/v1", true, false},
		{"openai", "http://127.0.0.1:8000/v1", true, true},
		{"openai", "http://127.0.0.1:8000/v1", false, true},
		{"openai", "", false, false},
		{"gemini", "http://127.0.0.1:8000", false, false},
		{"anthropic", "http://localhost:8000", false, false},
	} {
		m := kernel.Model{Name: tc.name, Model: "x", BaseURL: tc.url}
		if got := probes(&m, tc.found); got != tc.want {
			t.Errorf("probes(%s at %q, known %v) = %v, want %v", tc.name, tc.url, tc.found, got, tc.want)
		}
	}
}

func TestCheckEffort(t *testing.T) {
	reasons := kernel.Model{Model: "r", Capabilities: provider.Capabilities{ReasoningLevels: []string{"low", "high"}}, Info: &contract.ModelInfo{}}
	plain := kernel.Model{Model: "p", Info: &contract.ModelInfo{}}
	cfg := &config.Config{File: config.File{ReasoningEffort: "high"}, Source: map[string]string{"reasoning_effort": "/u/config.toml"}}
	for _, tc := range []struct {
		name   string
		flag   string
		m      kernel.Model
		err    string
		warned bool
		sent   string
	}{
		{"config's level", "", reasons, "", false, "high"},
		{"the flag's over it", "low", reasons, "", false, "low"},
		{"a level the model does not take", "max", reasons, "--reasoning-effort \"max\": model r takes low, high", false, ""},
		{"a model that does not reason", "", plain, "", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r recorder
			err := checkEffort(cli.Spec{ReasoningEffort: tc.flag}, cfg, &tc.m, r.warn)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("checkEffort = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || (len(r.said) == 1) != tc.warned {
				t.Fatalf("checkEffort = %v, warnings %q", err, r.said)
			}
			if tc.warned && !strings.Contains(r.said[0], "/u/config.toml") {
				t.Errorf("the warning does not name the file: %s", r.said[0])
			}
			if got := effortFor(&tc.m, cmp.Or(tc.flag, cfg.ReasoningEffort)); got != tc.sent {
				t.Errorf("effortFor = %q, want %q", got, tc.sent)
			}
		})
	}
	// The scripted model, which rein does not describe, gets what was asked.
	if got := effortFor(&kernel.Model{}, "high"); got != "high" {
		t.Errorf("effortFor(scripted) = %q", got)
	}
}
