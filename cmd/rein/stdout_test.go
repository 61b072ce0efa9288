package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
)

// A script reading rein exec's stdout gets exactly the final answer: the
// first stream drops mid-answer (the connection is cut), rein retries,
// and the fragment of the failed call never reaches stdout; stderr says
// it was discarded.
func TestExecStdoutHoldsOnlyTextThatStands(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(servesWindow(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if calls.Add(1) == 1 {
			w.Write([]byte(`data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The answ"}}]}` + "\n\n"))
			w.(http.Flusher).Flush()
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close() // the connection drops mid-answer
			}
			return
		}
		w.Write([]byte(`data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The answer "}}]}

data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"is 42."}}]}

data: {"id":"c2","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`))
	})))
	defer srv.Close()
	cmd := exec.Command(rein, "exec", "--provider", "openai", "--model", "m", "--base-url", srv.URL+"/v1", "what is the answer?")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Run(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, errw.String())
	}
	if got, want := out.String(), "The answer is 42.\n"; got != want {
		t.Errorf("stdout %q, want exactly %q", got, want)
	}
	if calls.Load() != 2 || !strings.Contains(errw.String(), "is discarded") {
		t.Errorf("%d calls; stderr:\n%s\nwant a retry and the discard said", calls.Load(), errw.String())
	}
}
