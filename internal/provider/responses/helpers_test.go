package responses

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newCaptureServer starts a server that hands each request and its body to
// seen, then answers with the SSE body. It returns the server's URL.
func newCaptureServer(t *testing.T, body string, seen func(*http.Request, []byte)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("read the request body: %v", err)
		}
		seen(r, b)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body) // the client going away is not the test's failure
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// newHijackServer starts a server that begins a chunked SSE response,
// writes part, and drops the connection without ending the body. It
// returns the server's URL.
func newHijackServer(t *testing.T, part string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		defer conn.Close()
		writeDropped(buf, part)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeDropped(w *bufio.ReadWriter, part string) {
	fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	fmt.Fprintf(w, "%x\r\n%s\r\n", len(part), part)
	w.Flush() // then the connection closes with no last chunk
}
