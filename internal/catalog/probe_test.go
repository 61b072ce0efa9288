package catalog

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// server answers the paths of routes with their bodies, and 404 to any
// other.
func server(t *testing.T, routes map[string]string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := routes[r.Method+" "+r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodPost {
			in, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(in), `"model":"qwen3:32b"`) {
				http.Error(w, "wrong model: "+string(in), http.StatusBadRequest)
				return
			}
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

const ollamaShow = `{"parameters":"%s","model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}}`

func TestProbe(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes map[string]string
		want   int
	}{
		{"vllm", map[string]string{"GET /v1/models": `{"data":[{"id":"other","max_model_len":1},{"id":"qwen3:32b","max_model_len":32768}]}`}, 32768},
		{"ollama num_ctx", map[string]string{
			"GET /v1/models": `{"data":[{"id":"qwen3:32b"}]}`, // Ollama's list has no window
			"POST /api/show": strings.Replace(ollamaShow, "%s", `stop \"<|im_end|>\"\nnum_ctx 16384`, 1)}, 16384},
		{"ollama num_ctx over the trained length", map[string]string{
			"POST /api/show": strings.Replace(ollamaShow, "%s", `num_ctx 131072`, 1)}, 40960},
		{"ollama loaded", map[string]string{
			"POST /api/show": strings.Replace(ollamaShow, "%s", `temperature 0.6`, 1),
			"GET /api/ps":    `{"models":[{"name":"qwen3:32b","model":"qwen3:32b","context_length":4096}]}`}, 4096},
		{"llama.cpp", map[string]string{"GET /props": `{"default_generation_settings":{"n_ctx":8192},"n_ctx":32768}`}, 8192},
		{"llama.cpp, older", map[string]string{"GET /props": `{"n_ctx":32768}`}, 32768},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := server(t, tc.routes)
			m, err := Probe(context.Background(), s.Client(), s.URL+"/v1", "qwen3:32b")
			if err != nil || m.ContextWindow != tc.want || m.Source != contract.InfoServer || m.ID != "qwen3:32b" {
				t.Errorf("Probe = %+v, %v; want window %d from the server", m, err, tc.want)
			}
		})
	}
}

func TestProbeFails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes map[string]string
		says   string
	}{
		{"404 everywhere", nil, "HTTP 404"},
		{"garbage", map[string]string{"GET /v1/models": "<html>", "POST /api/show": "{", "GET /props": `{"n_ctx":"big"}`}, "invalid character"},
		{"another model", map[string]string{"GET /v1/models": `{"data":[{"id":"other","max_model_len":1}]}`}, "no entry for qwen3:32b"},
		// Ollama with no num_ctx and nothing loaded: its trained length is
		// not the window the OpenAI endpoint gives it.
		{"ollama default context", map[string]string{"POST /api/show": strings.Replace(ollamaShow, "%s", "", 1), "GET /api/ps": `{"models":[]}`},
			"server's default context"},
		{"huge", map[string]string{"GET /props": `{"n_ctx":1,"pad":"` + strings.Repeat("x", probeLimit) + `"}`}, "unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := server(t, tc.routes)
			m, err := Probe(context.Background(), s.Client(), s.URL+"/v1/", "qwen3:32b")
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Probe = %+v, %v; want an error saying %q", m, err, tc.says)
			}
		})
	}
}

// TestProbeSlow: a server that never answers holds the probe no longer
// than its context allows.
func TestProbeSlow(t *testing.T) {
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Probe(ctx, s.Client(), s.URL+"/v1", "m"); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("Probe of a server that does not answer: %v", err)
	}
}

// TestProbeStaysOnHost: a redirect to another host is not followed.
func TestProbeStaysOnHost(t *testing.T) {
	elsewhere := server(t, map[string]string{"GET /props": `{"n_ctx":4096}`})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)+r.URL.Path, http.StatusFound)
	}))
	defer s.Close()
	if m, err := Probe(context.Background(), s.Client(), s.URL+"/v1", "m"); err == nil {
		t.Errorf("Probe followed a redirect to another host: %+v", m)
	}
}

// TestProbeKeepsHTTPS: a redirect from https to http is refused, even to
// the same host and port: the key the client carries would travel in
// clear.
func TestProbeKeepsHTTPS(t *testing.T) {
	var s *httptest.Server
	s = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(s.URL, "https:", "http:", 1)+r.URL.Path, http.StatusFound)
	}))
	defer s.Close()
	// The redirect's check fails before the request in clear is sent.
	if _, err := Probe(context.Background(), s.Client(), s.URL+"/v1", "m"); err == nil ||
		!strings.Contains(err.Error(), "refused a redirect from https to http") {
		t.Errorf("Probe = %v", err)
	}
	check := sameHost(nil).CheckRedirect
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"https://api.example.com/v1/models", "http://api.example.com/v1/models", false},
		{"https://api.example.com/v1/models", "https://api.example.com/models", true},
		{"http://127.0.0.1:8000/v1/models", "https://127.0.0.1:8000/v1/models", true},
		{"http://127.0.0.1:8000/v1/models", "http://127.0.0.1:8000/models", true},
	} {
		from, _ := http.NewRequest(http.MethodGet, tc.from, nil)
		to, _ := http.NewRequest(http.MethodGet, tc.to, nil)
		if err := check(to, []*http.Request{from}); (err == nil) != tc.ok {
			t.Errorf("redirect %s -> %s: %v", tc.from, tc.to, err)
		}
	}
}
