package catalog

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestServed(t *testing.T) {
	s := server(t, map[string]string{
		"GET /v1/models":    `{"object":"list","data":[{"id":"qwen3:8b","object":"model"},{"id":"llama3.2"},{"id":" "},{"id":"qwen3:8b"}]}`,
		"GET /empty/models": `{"object":"list","data":[]}`,
		"GET /html/models":  `<html>`,
	})
	got, err := Served(context.Background(), s.Client(), s.URL+"/v1/")
	if err != nil || !slices.Equal(got, []string{"qwen3:8b", "llama3.2"}) {
		t.Errorf("Served() = %q, %v; want the server's two models, in its order", got, err)
	}
	if _, err := Served(context.Background(), s.Client(), s.URL+"/empty"); !errors.Is(err, ErrNoModels) {
		t.Errorf("an empty list: %v, want ErrNoModels", err)
	}
	for base, want := range map[string]string{s.URL: "GET /models: HTTP 404", s.URL + "/html": "GET /models: invalid character"} {
		if got, err := Served(context.Background(), s.Client(), base); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Served(%s) = %q, %v; want an error that says %q", base, got, err, want)
		}
	}
	// A server that is not there: what failed, without the URL, where
	// credentials may hide.
	gone := strings.Replace(s.URL, "http://", "http://user:secret@", 1) + "/gone?key=secret"
	s.Close()
	if _, err := Served(context.Background(), nil, gone); err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Served() from a server that is gone: %v", err)
	}
}

// The key the client carries never goes to another host.
func TestServedStaysOnTheHost(t *testing.T) {
	other := server(t, map[string]string{"GET /v1/models": `{"data":[{"id":"stolen"}]}`})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/models", http.StatusFound)
	}))
	defer s.Close()
	if got, err := Served(context.Background(), s.Client(), s.URL+"/v1"); err == nil || !strings.Contains(err.Error(), "HTTP 302") {
		t.Errorf("Served() = %q, %v; want the redirect to another host refused", got, err)
	}
}
