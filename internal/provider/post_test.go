package provider

import (
	"net/http"
	"net/http/httptest"
	"testing"

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
