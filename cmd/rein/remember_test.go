package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"
)

// windowServer is a vLLM-like server that says it serves model "local"
// with window (0: says nothing of it), counts the questions about its
// window, and answers every chat with "ok", or with a context_length
// error while tooLong is set.
type windowServer struct {
	*httptest.Server
	asked   atomic.Int32
	window  atomic.Int32
	tooLong atomic.Bool
}

func newWindowServer(t *testing.T, window int) *windowServer {
	t.Helper()
	s := &windowServer{}
	s.window.Store(int32(window))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			s.asked.Add(1)
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"local","object":"model","max_model_len":%d}]}`, s.window.Load())
		case "/api/show", "/props":
			s.asked.Add(1)
			http.NotFound(w, r)
		case "/v1/chat/completions":
			if s.tooLong.Load() {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprint(w, `{"error":{"message":"This model's maximum context length is 100 tokens. However, you requested 5000 tokens.","type":"BadRequestError","code":"context_length_exceeded"}}`)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"local\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"}}]}\n\n"+
				"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"local\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// A local server is asked what window it serves once: the next start
// takes the answer from the state directory, an answer that it does not
// say included; a damaged file is ignored and written again; a
// context_length error from the server forgets the answer.
func TestServerWindowIsAskedOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		window int
		asks   int32 // questions of a start that asks
	}{{"a window", 32768, 1}, {"no window", 0, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newWindowServer(t, tc.window)
			env := chatEnv(t, "")
			state := strings.TrimPrefix(env[0], "XDG_STATE_HOME=")
			start := func() result {
				t.Helper()
				r := reinIn(t, t.TempDir(), env, "exec", "--sandbox", "off", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "local", "hi")
				if r.code != 0 {
					t.Fatalf("exit %d\n%s", r.code, r.stderr)
				}
				return r
			}
			r := start()
			if got := srv.asked.Load(); got != tc.asks {
				t.Fatalf("the first start asked %d questions, want %d", got, tc.asks)
			}
			if said := strings.Contains(r.stderr, "rein knows nothing of model"); said != (tc.window == 0) {
				t.Errorf("the conservative window said %v, want %v:\n%s", said, tc.window == 0, r.stderr)
			}
			r = start()
			if got := srv.asked.Load(); got != tc.asks {
				t.Errorf("the second start asked again: %d questions in all", got)
			}
			if said := strings.Contains(r.stderr, "rein knows nothing of model"); said != (tc.window == 0) {
				t.Errorf("from the remembered answer, the conservative window said %v, want %v:\n%s", said, tc.window == 0, r.stderr)
			}
			file := filepath.Join(state, "rein", "windows.json")
			if err := os.WriteFile(file, []byte(`{"`+srv.URL+`/v1 local": {"window": 9`), 0o600); err != nil {
				t.Fatal(err)
			}
			start()
			if got := srv.asked.Load(); got != 2*tc.asks {
				t.Errorf("after the file was damaged: %d questions in all, want %d", got, 2*tc.asks)
			}
			if tc.window == 0 {
				return
			}
			srv.tooLong.Store(true)
			reinIn(t, t.TempDir(), env, "exec", "--sandbox", "off", "--provider", "openai", "--base-url", srv.URL+"/v1", "--model", "local", "hi")
			srv.tooLong.Store(false)
			asked := srv.asked.Load()
			srv.window.Store(16384)
			start()
			if got := srv.asked.Load(); got != asked+1 {
				t.Errorf("after a context_length error the server was not asked again: %d questions, want %d", got, asked+1)
			}
		})
	}
}

// The sandbox's availability is asked of the machine once and remembered
// in the state directory; with the sandbox off it is not asked at all.
func TestSandboxAnswerIsRemembered(t *testing.T) {
	sandboxtest.Need(t)
	t.Parallel()
	env := chatEnv(t, "")
	state := strings.TrimPrefix(env[0], "XDG_STATE_HOME=")
	file := filepath.Join(state, "rein", "sandbox.json")
	script := writeScript(t, `{"turns":[{"steps":[{"text":"done"},{"finish":"stop"}]}]}`)
	r := reinIn(t, t.TempDir(), env, "exec", "--sandbox", "off", "--provider", "scripted", "--script", script, "hi")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("with the sandbox off, the machine was asked: %s: %v", file, err)
	}
	r = reinIn(t, t.TempDir(), env, "exec", "--provider", "scripted", "--script", script, "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "rein: sandbox: workspace-write") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), `"Available":true`) {
		t.Fatalf("the answer is not remembered: %v\n%s", err, data)
	}
	// A damaged file is ignored, probed again and written whole.
	if err := os.WriteFile(file, []byte(`{"key":`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = reinIn(t, t.TempDir(), env, "exec", "--provider", "scripted", "--script", script, "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "rein: sandbox: workspace-write") {
		t.Fatalf("with a damaged file: exit %d\n%s", r.code, r.stderr)
	}
	if data, err := os.ReadFile(file); err != nil || !strings.Contains(string(data), `"Available":true`) {
		t.Errorf("the damaged file was not written again: %v\n%s", err, data)
	}
}
