package provider

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A redirect to another host is refused, so headers such as x-api-key,
// which Go would forward, never reach it.
func TestDefaultClientRefusesRedirectsToAnotherHost(t *testing.T) {
	var leaked string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = r.Header.Get("X-Api-Key") + r.Header.Get("X-Goog-Api-Key")
	}))
	defer other.Close()
	// The same server under another name (localhost instead of 127.0.0.1)
	// is another host to the client.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/final", http.StatusTemporaryRedirect)
			return
		}
		if r.URL.Path == "/final" {
			w.Write([]byte("ok"))
			return
		}
		http.Redirect(w, r, otherURL+"/steal", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()

	req, _ := http.NewRequest(http.MethodPost, redirecting.URL+"/v1/messages", strings.NewReader("{}"))
	req.Header.Set("X-Api-Key", "sk-ant-SECRET")
	req.Header.Set("X-Goog-Api-Key", "AIza-SECRET")
	resp, err := DefaultClient().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, ErrRedirect) {
		t.Errorf("Do() error = %v, want ErrRedirect", err)
	}
	if leaked != "" {
		t.Errorf("the other host received %q", leaked)
	}
	resp, err = DefaultClient().Get(redirecting.URL + "/same")
	if err != nil {
		t.Fatalf("a redirect on the same host failed: %v", err)
	}
	resp.Body.Close()
}

func TestIdleConnTimesOutASilentRead(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	c := &idleConn{Conn: a, idle: 20 * time.Millisecond}
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Read() on a silent connection = %v, want a timeout", err)
	}
}

// The first-byte bound: the default when the options say none, none when
// they say a negative one.
func TestNewHTTPFirstByte(t *testing.T) {
	for _, tc := range []struct {
		opts *HTTPOptions
		want time.Duration
	}{
		{nil, DefaultFirstByteTimeout},
		{&HTTPOptions{}, DefaultFirstByteTimeout},
		{&HTTPOptions{FirstByteTimeout: 5 * time.Second}, 5 * time.Second},
		{&HTTPOptions{FirstByteTimeout: -1}, 0},
	} {
		if got := NewHTTP(tc.opts, Defaults{}).FirstByte; got != tc.want {
			t.Errorf("NewHTTP(%+v).FirstByte = %v, want %v", tc.opts, got, tc.want)
		}
	}
}
