package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

func TestPost(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Header().Set("Request-Id", "req_7")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	errorOf := func(ref contract.ProviderRef, resp *http.Response) *contract.ProviderError {
		return NewError(ref, contract.KindRateLimit, resp.Status)
	}
	ref := contract.ProviderRef{Name: "test"}
	call := Call{URL: srv.URL + "/ok", Body: []byte(`{}`),
		Header: http.Header{"Content-Type": {"application/json"}, "Anthropic-Version": {"1"}},
		Extra:  http.Header{"anthropic-version": {"2"}, "X-Extra": {"a", "b"}}}
	resp, perr := Post(t.Context(), srv.Client(), &ref, call, errorOf)
	if perr != nil {
		t.Fatal(perr)
	}
	resp.Body.Close()
	if got.Get("Anthropic-Version") != "2" || len(got.Values("X-Extra")) != 2 || got.Get("Content-Type") != "application/json" || ref.RequestID != "req_7" {
		t.Errorf("headers %v, request id %q", got, ref.RequestID)
	}
	call.URL = srv.URL + "/fail"
	if _, perr := Post(t.Context(), srv.Client(), &ref, call, errorOf); perr == nil || perr.Kind != contract.KindRateLimit || perr.RequestID != "req_7" {
		t.Errorf("error status: %v", perr)
	}
	call.URL = "://bad"
	if _, perr := Post(t.Context(), srv.Client(), &ref, call, errorOf); perr == nil || perr.Kind != contract.KindBadRequest {
		t.Errorf("bad URL: %v", perr)
	}
}

// A server that takes the request and says nothing is given up on once
// the first-byte bound passes: a retryable timeout that names the
// endpoint and the wait, whatever the client's own bounds. One that sends
// its headers and then nothing is as silent: Post returns its response,
// whose body then fails with the same error.
func TestPostGivesUpOnASilentServer(t *testing.T) {
	for name, headers := range map[string]bool{"nothing": false, "headers then nothing": true} {
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if headers {
					w.Header().Set("Content-Type", "text/event-stream")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
				}
				select { // no byte of an answer until the test ends
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			errorOf := func(ref contract.ProviderRef, resp *http.Response) *contract.ProviderError {
				return NewError(ref, contract.KindServer, resp.Status)
			}
			ref := contract.ProviderRef{Name: "test"}
			call := Call{URL: srv.URL + "/v1/chat/completions", Base: srv.URL + "/v1", Body: []byte(`{}`), FirstByte: 50 * time.Millisecond}
			resp, perr := Post(t.Context(), srv.Client(), &ref, call, errorOf)
			var err error = perr
			if headers {
				if perr != nil {
					t.Fatalf("Post() = %v, want the response that began", perr)
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			want := "no response from " + srv.URL + "/v1 within 0.05s"
			got, _ := errors.AsType[*contract.ProviderError](err)
			if got == nil || got.Kind != contract.KindTimeout || !got.Retryable || got.Message != want || !errors.Is(got, ErrNoFirstByte) {
				t.Fatalf("a silent server: %v, want a retryable timeout %q", err, want)
			}

			// A person who stops waiting is no timeout.
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if _, perr := Post(ctx, srv.Client(), &ref, call, errorOf); perr == nil || perr.Kind != contract.KindAborted {
				t.Errorf("Post() cancelled = %v, want aborted", perr)
			}
		})
	}
}

// The bound is on the first byte only: a response whose body began in
// time is read to its end however long the rest takes.
func TestPostFirstByteBoundsOnlyTheStart(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(": loading\n"))
		w.(http.Flusher).Flush()
		time.Sleep(150 * time.Millisecond) // three times the bound, after the first byte
		w.Write([]byte("data: done\n\n"))
	}))
	defer srv.Close()
	ref := contract.ProviderRef{Name: "test"}
	call := Call{URL: srv.URL, Body: []byte(`{}`), FirstByte: 50 * time.Millisecond}
	resp, perr := Post(t.Context(), srv.Client(), &ref, call, nil)
	if perr != nil {
		t.Fatal(perr)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != ": loading\ndata: done\n\n" {
		t.Errorf("body %q, %v; want it whole", body, err)
	}
}

// A 404 that names no model is a path nothing answers at: the error says
// where rein asked (without credentials) and what to check. One that
// names a model is the server's word.
func TestPostNotFound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			http.Error(w, `{"error":"model \"gpt-9\" not found, try pulling it first"}`, http.StatusNotFound)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	ref := contract.ProviderRef{Name: "test"}
	for _, tc := range []struct{ path, want string }{
		{"/chat/completions?key=secret", "404 page not found; nothing answers POST " + srv.URL + "/chat/completions: is the base URL right?"},
		{"/v1/chat/completions", `model "gpt-9" not found, try pulling it first`},
	} {
		_, perr := Post(t.Context(), srv.Client(), &ref, Call{URL: srv.URL + tc.path, Body: []byte(`{}`)}, ResponseError)
		if perr == nil || perr.Kind != contract.KindBadRequest || perr.Retryable || perr.Message != tc.want {
			t.Errorf("Post(%s) = %v, want a bad_request %q, not retryable", tc.path, perr, tc.want)
		}
	}
}
