package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// localServer is an OpenAI-compatible server on 127.0.0.1, as Ollama, vLLM
// or llama.cpp run one: it lists its models at /v1/models, answers
// /v1/chat/completions as its chat handler says, and nothing else (404,
// as a Go or gin server says it).
type localServer struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string // the model of each chat request, in order
}

func newLocalServer(t *testing.T, models []string, chat func(w http.ResponseWriter, r *http.Request, model string)) *localServer {
	t.Helper()
	s := &localServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
			list := struct {
				Object string           `json:"object"`
				Data   []map[string]any `json:"data"`
			}{Object: "list", Data: []map[string]any{}}
			for _, m := range models {
				list.Data = append(list.Data, map[string]any{"id": m, "object": "model", "owned_by": "library"})
			}
			_ = json.NewEncoder(w).Encode(list) // the client reads what it gets
		case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
			var req struct {
				Model string `json:"model"`
			}
			body, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(body, &req) // a request rein built: the model is there
			r.Body = io.NopCloser(bytes.NewReader(body))
			s.mu.Lock()
			s.asked = append(s.asked, req.Model)
			s.mu.Unlock()
			chat(w, r, req.Model)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// models are the models the server was asked for, in order.
func (s *localServer) models() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// ollamaNotFound answers as Ollama does for a model it does not have.
func ollamaNotFound(w http.ResponseWriter, model string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, `{"error":{"message":"model \"%s\" not found, try pulling it first","type":"not_found_error","param":null,"code":null}}`, model)
}

// answering is a chat handler that answers "The answer is 42." with
// model if the server has it, and is Ollama's 404 otherwise.
func answering(have ...string) func(w http.ResponseWriter, r *http.Request, model string) {
	return func(w http.ResponseWriter, r *http.Request, model string) {
		if !slices.Contains(have, model) {
			ollamaNotFound(w, model)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, chunk := range []string{
			`{"id":"c1","object":"chat.completion.chunk","model":"` + model + `","choices":[{"index":0,"delta":{"role":"assistant","content":"The answer "}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"` + model + `","choices":[{"index":0,"delta":{"content":"is 42."}}]}`,
			`{"id":"c1","object":"chat.completion.chunk","model":"` + model + `","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", chunk)
		}
	}
}

// chatEnv is the environment of a run against a local server: no key of
// any provider (cleanEnv), a private state and configuration.
func chatEnv(t *testing.T, config string) []string {
	t.Helper()
	state, cfg := t.TempDir(), t.TempDir()
	if config != "" {
		if err := os.MkdirAll(filepath.Join(cfg, "rein"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfg, "rein", "config.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + cfg, "TMPDIR=" + t.TempDir()}
}

// A model the server does not have is a 404: not retried, not waited on,
// said once, with the models the server offers and how to pick one.
func TestNotFoundIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := newLocalServer(t, []string{"qwen3:8b", "llama3.2"}, answering("qwen3:8b", "llama3.2"))
	r := reinIn(t, t.TempDir(), chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "gpt-5.6-sol", "hi")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", r.code, r.stderr)
	}
	if got := srv.models(); !slices.Equal(got, []string{"gpt-5.6-sol"}) {
		t.Errorf("the server was asked for %q, want gpt-5.6-sol once", got)
	}
	want := `✗ run failed: openai: bad_request: model "gpt-5.6-sol" not found, try pulling it first (http 404); ` +
		srv.URL + "/v1 offers qwen3:8b, llama3.2; choose one with --model NAME (/model NAME in a session)"
	if strings.Count(r.stderr, want) != 1 || strings.Count(r.stderr, "not found") != 1 || strings.Contains(r.stderr, "retrying") {
		t.Errorf("stderr does not say once, without a retry:\n%s\nit says:\n%s", want, r.stderr)
	}

	// A base URL without its /v1: nothing answers there, and rein says
	// where the server does.
	r = reinIn(t, t.TempDir(), chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", srv.URL, "--model", "qwen3:8b", "hi")
	want = "404 page not found; nothing answers POST " + srv.URL + "/chat/completions: is the base URL right? (http 404); " +
		"the server answers at " + srv.URL + "/v1: use --base-url " + srv.URL + "/v1"
	if r.code != 1 || strings.Count(r.stderr, want) != 1 || strings.Contains(r.stderr, "retrying") {
		t.Errorf("a wrong path: exit %d, want 1 and once:\n%s\nstderr:\n%s", r.code, want, r.stderr)
	}
}

// Without --model, a server of the person's is asked which models it
// serves: its only one is used; with several, a headless run names them
// and asks for --model; a vendor's default model is never sent to it.
// OPENAI_BASE_URL alone selects the openai provider, without a key, and
// so do --base-url alone and a configured base_url alone.
func TestServersOwnModel(t *testing.T) {
	t.Parallel()
	one := newLocalServer(t, []string{"qwen3:8b"}, answering("qwen3:8b"))
	r := reinIn(t, t.TempDir(), chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", one.URL+"/v1", "hi")
	if r.code != 0 || r.stdout != "The answer is 42.\n" || !slices.Equal(one.models(), []string{"qwen3:8b"}) {
		t.Errorf("one model: exit %d, stdout %q, asked %q; want the server's model used:\n%s", r.code, r.stdout, one.models(), r.stderr)
	}

	two := newLocalServer(t, []string{"qwen3:8b", "llama3.2"}, answering("qwen3:8b", "llama3.2"))
	r = reinIn(t, t.TempDir(), chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", two.URL+"/v1", "hi")
	want := "rein: no model named, and " + two.URL + "/v1 offers 2: qwen3:8b, llama3.2; choose one with --model NAME\n"
	if r.code != 2 || r.stderr != want || len(two.models()) != 0 {
		t.Errorf("two models: exit %d, asked %q, stderr:\n%s\nwant exit 2, nothing asked, and:\n%s", r.code, two.models(), r.stderr, want)
	}

	env := append(chatEnv(t, ""), "OPENAI_BASE_URL="+one.URL+"/v1")
	r = reinIn(t, t.TempDir(), env, "exec", "--json", "hi")
	var started *contract.SessionStarted
	for _, env := range decode(t, r.stdout) {
		if s, ok := env.Data.(*contract.SessionStarted); ok {
			started = s
		}
	}
	if r.code != 0 || started == nil || started.Provider != "openai" || started.Model != "qwen3:8b" || started.BaseURL != one.URL+"/v1" {
		t.Errorf("OPENAI_BASE_URL alone: exit %d, session %+v:\n%s", r.code, started, r.stderr)
	}
	// --base-url alone, and base_url alone in the person's config.toml,
	// select it too.
	for name, tc := range map[string]struct{ config, flag string }{
		"--base-url alone": {flag: one.URL + "/v1"},
		"base_url alone":   {config: "base_url = \"" + one.URL + "/v1\"\n"},
	} {
		args := []string{"exec", "--json"}
		if tc.flag != "" {
			args = append(args, "--base-url", tc.flag)
		}
		r = reinIn(t, t.TempDir(), chatEnv(t, tc.config), append(args, "hi")...)
		started = nil
		for _, env := range decode(t, r.stdout) {
			if s, ok := env.Data.(*contract.SessionStarted); ok {
				started = s
			}
		}
		if r.code != 0 || started == nil || started.Provider != "openai" || started.Model != "qwen3:8b" || started.BaseURL != one.URL+"/v1" {
			t.Errorf("%s: exit %d, session %+v:\n%s", name, r.code, started, r.stderr)
		}
	}
	for _, s := range []*localServer{one, two} {
		if slices.Contains(s.models(), "gpt-5.6-sol") {
			t.Errorf("a local server was sent OpenAI's default model: %q", s.models())
		}
	}
}

// A server that answers 404 at /models (it lists nothing there, as some
// proxies and llama.cpp builds do) ran: rein says what it answered and how
// to name a model, not to check that it runs.
func TestModelsNotFoundIsSaidAsAnswered(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	t.Cleanup(srv.Close)
	for _, base := range []string{srv.URL + "/v1", srv.URL} {
		r := reinIn(t, t.TempDir(), chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", base, "hi")
		want := "rein: no model named, and " + base + " answered HTTP 404 at /models: it lists no models there; name one with --model NAME\n"
		if r.code != 1 || r.stderr != want {
			t.Errorf("--base-url %s: exit %d, stderr:\n%s\nwant exit 1 and:\n%s", base, r.code, r.stderr, want)
		}
	}
}

// --fallback openai:MODEL with a custom --base-url goes to the same
// server, and needs no OPENAI_API_KEY.
func TestFallbackToTheSameServerNeedsNoKey(t *testing.T) {
	t.Parallel()
	srv := newLocalServer(t, []string{"qwen3:8b"}, answering("qwen3:8b"))
	r := reinIn(t, t.TempDir(), chatEnv(t, ""), "exec", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "missing",
		"--fallback", "openai:qwen3:8b", "hi")
	if r.code != 0 || r.stdout != "The answer is 42.\n" || !slices.Equal(srv.models(), []string{"missing", "qwen3:8b"}) {
		t.Errorf("exit %d, stdout %q, asked %q; want missing, then the fallback on the same server:\n%s", r.code, r.stdout, srv.models(), r.stderr)
	}
	if !strings.Contains(r.stderr, "switching from openai:missing to openai:qwen3:8b") || strings.Contains(r.stderr, "OPENAI_API_KEY") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// A server that takes the request and sends nothing is given up on after
// first_byte_timeout, and retried; the retries are one line, the failure
// is said once, with the setting that gives a slow server more time. A
// server that sends its headers (200, an event stream) and then nothing
// is as silent: the bound is on the first byte of the answer itself.
func TestSilentServerIsGivenUp(t *testing.T) {
	t.Parallel()
	for name, headers := range map[string]bool{"nothing": false, "headers then nothing": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			srv := newLocalServer(t, []string{"qwen3:8b"}, func(w http.ResponseWriter, r *http.Request, model string) {
				if headers {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
				}
				select { // not one byte of an answer
				case <-r.Context().Done():
				case <-release:
				}
			})
			defer close(release)
			r := reinIn(t, t.TempDir(), chatEnv(t, "first_byte_timeout = 0.2\n"), "exec", "--provider", "openai", "--base-url", srv.URL+"/v1",
				"--model", "qwen3:8b", "hi")
			if r.code != 1 || len(srv.models()) != 4 {
				t.Fatalf("exit %d after %d requests, want 1 after 4:\n%s", r.code, len(srv.models()), r.stderr)
			}
			want := "✗ run failed: openai: timeout: no response from " + srv.URL + "/v1 within 0.2s; gave up after 4 attempts; " +
				"a server slow to start (loading the model, say) may need more than 0.2s: raise first_byte_timeout in your config.toml"
			if strings.Count(r.stderr, want) != 1 || strings.Count(r.stderr, "no response from") != 1 {
				t.Errorf("stderr does not say once:\n%s\nit says:\n%s", want, r.stderr)
			}
			if n := strings.Count(r.stderr, "retrying in"); n != 1 || !strings.Contains(r.stderr, "(no response in time, attempt 2 of 4)") {
				t.Errorf("%d retry lines, want one:\n%s", n, r.stderr)
			}
		})
	}
}

// In an interactive session, the person picks one of the server's models
// before anything else, by number; the session uses it.
func TestPickAServersModelOnATerminal(t *testing.T) {
	t.Parallel()
	srv := newLocalServer(t, []string{"qwen3:8b", "llama3.2"}, answering("qwen3:8b", "llama3.2"))
	screen := onTerminal(t, t.TempDir(), chatEnv(t, ""), "2\n\x04", "--plain", "--provider", "openai", "--base-url", srv.URL+"/v1", "hi")
	for _, want := range []string{"? " + srv.URL + "/v1 offers 2 models; which one should rein use?", "   1  qwen3:8b", "   2  llama3.2",
		"Number or name [1]: ", "The answer is 42."} {
		if !strings.Contains(screen, want) {
			t.Errorf("the terminal does not show %q:\n%s", want, screen)
		}
	}
	if got := srv.models(); !slices.Equal(got, []string{"llama3.2"}) {
		t.Errorf("the server was asked for %q, want the model picked", got)
	}
}

// Before the terminal UI starts, the person picks one of the server's
// models on the terminal, by name; the UI then talks to it.
func TestPickAServersModelBeforeTheUI(t *testing.T) {
	srv := newLocalServer(t, []string{"qwen3:8b", "llama3.2", "gpt-oss:20b"}, answering("qwen3:8b", "llama3.2", "gpt-oss:20b"))
	s := newScreen(t, 100, 30, nil, "--provider", "openai", "--base-url", srv.URL+"/v1")
	s.waitFor("offers 3 models; which one should rein use?", "3  gpt-oss:20b", "Number or name [1]:")
	s.text("gpt-oss:20b")
	s.keys("Enter")
	s.ready()
	s.text("hi")
	s.keys("Enter")
	s.waitFor("The answer is 42.")
	if got := srv.models(); !slices.Equal(got, []string{"gpt-oss:20b"}) {
		t.Errorf("the server was asked for %q, want the model picked", got)
	}
	s.keys("C-d")
	if got := s.exited(); got != "REIN-EXITED 0" {
		t.Errorf("exit: %s", got)
	}
}

// /model with a provider alone, at a server that offers several models,
// names them and says how to pick one; at one that offers one, uses it.
func TestSwitchToAServersModel(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	two := newLocalServer(t, []string{"qwen3:8b", "llama3.2"}, answering())
	cfg := &config.Config{}
	w := &switching{spec: cli.Spec{Provider: "openai", Model: "qwen3:8b", BaseURL: two.URL + "/v1"}, cfg: cfg}
	primary, err := model(t.Context(), "openai", "qwen3:8b", two.URL+"/v1", cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw := w.switcher(primary, func() kernel.Current { return kernel.Current{Provider: "openai", Model: "qwen3:8b"} })
	want := "no model named, and " + two.URL + "/v1 offers 2: qwen3:8b, llama3.2; name one: /model openai:NAME"
	if _, err := sw("openai"); err == nil || err.Error() != want {
		t.Errorf("Switch(openai) = %v, want %q", err, want)
	}
	if m, err := sw("openai:llama3.2"); err != nil || m.Model != "llama3.2" || m.BaseURL != two.URL+"/v1" {
		t.Errorf("Switch(openai:llama3.2) = %+v, %v", m, err)
	}
}
