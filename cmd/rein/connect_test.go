package main

import (
	"net"
	"strings"
	"testing"
)

// A server that is not there: the failure is network, retried within the
// caps, and said once, with the endpoint and what to check; the retries
// are one quiet line (stderr is a pipe here: the first retry's).
func TestNoServerIsSaidOnce(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens there now: connection refused
	r := reinIn(t, t.TempDir(), []string{"XDG_STATE_HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + t.TempDir()},
		"exec", "--provider", "openai", "--model", "m", "--base-url", base, "hi")
	want := "could not connect to " + base + " (connection refused): is the server running?"
	if r.code != 1 || strings.Count(r.stderr, want) != 1 {
		t.Errorf("exit %d, want 1 and %q said once; stderr:\n%s", r.code, want, r.stderr)
	}
	if n := strings.Count(r.stderr, "retrying in"); n != 1 || !strings.Contains(r.stderr, "(cannot connect, attempt 2 of 4)") ||
		!strings.Contains(r.stderr, "; gave up after 4 attempts") {
		t.Errorf("%d retry lines shown, want one, then the failure after 4 attempts:\n%s", n, r.stderr)
	}
	for _, not := range []string{"unknown", "model error", "dial tcp"} {
		if strings.Contains(r.stderr, not) {
			t.Errorf("stderr says %q:\n%s", not, r.stderr)
		}
	}
}
