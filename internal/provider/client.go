package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Timeouts of the client adapters use by default.
const (
	// IdleTimeout bounds the silence inside a stream: a server that stops
	// sending for this long has dropped the stream (stream_interrupted,
	// retryable), even if the connection stays open. Reasoning models
	// can think for minutes between tokens, hence a long bound.
	IdleTimeout = 10 * time.Minute
)

// ErrRedirect is returned for a redirect the default client refuses.
var ErrRedirect = errors.New("provider: redirect to another host refused")

var (
	clientOnce sync.Once
	client     *http.Client
)

// DefaultClient returns the HTTP client adapters use when they are given
// none. It has no overall timeout (streams are long) but bounds the
// silence of a connection ([IdleTimeout]; the wait for a response's first
// byte is bounded by [Post], as [HTTPOptions.FirstByteTimeout] says), and
// it refuses to follow a
// redirect to another host: vendors authenticate with headers such as
// x-api-key that Go would forward. It is shared and safe for concurrent
// use.
func DefaultClient() *http.Client {
	clientOnce.Do(func() {
		t := http.DefaultTransport.(*http.Transport).Clone()
		dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
		t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &idleConn{Conn: c, idle: IdleTimeout}, nil
		}
		client = &http.Client{Transport: t, CheckRedirect: sameHost}
	})
	return client
}

// sameHost allows a redirect only to the host of the original request.
func sameHost(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return fmt.Errorf("provider: stopped after %d redirects", len(via))
	}
	if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
		return fmt.Errorf("%w: %s to %s", ErrRedirect, via[0].URL.Host, req.URL.Host)
	}
	return nil
}

// idleConn fails a read that waits longer than idle for data.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.idle)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}
