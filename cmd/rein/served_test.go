package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/catalog"
)

// Why a server did not say which model to use: what it answered when it
// answered, that it may not run only when it could not be reached.
func TestUnlistedReason(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/locked/models":
			w.WriteHeader(http.StatusUnauthorized)
		case "/html/models":
			w.Write([]byte("<html>hello</html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + l.Addr().String()
	l.Close()
	for _, tc := range []struct{ base, want string }{
		{srv.URL, "answered HTTP 404 at /models: it lists no models there; name one with --model NAME"},
		{srv.URL + "/locked", "answered HTTP 401 at /models: it wants a valid key to list them (OPENAI_API_KEY); name one with --model NAME"},
		{srv.URL + "/html", "did not say which it serves (GET /models: invalid character '<' looking for beginning of value); name one with --model NAME"},
		{gone, "): is the server running? name one with --model NAME"},
	} {
		_, err := catalog.Served(t.Context(), nil, tc.base)
		got := unlistedReason(tc.base, err)
		if !strings.HasPrefix(got, "no model named, and "+tc.base+" ") || !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s: %q, want it to end %q", tc.base, got, tc.want)
		}
	}
}
