package provider

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// ErrNoFirstByte is the cause of an error of kind timeout for a server
// that did not begin its response within [Call.FirstByte].
var ErrNoFirstByte = errors.New("provider: no first byte in time")

// Call is one HTTP model call as an adapter describes it.
type Call struct {
	// URL is the endpoint; Body the JSON request.
	URL  string
	Body []byte
	// Header holds the adapter's own headers: content types, the API
	// version, the credential when there is one (see [Defaults]).
	Header http.Header
	// Extra holds the configured extra headers, set after Header and
	// replacing any of the same name.
	Extra http.Header
	// Base is the endpoint as the person configured it: the adapter's base
	// URL, before the path the adapter appends (/chat/completions,
	// /v1/messages, /models/...). It names the server in the error of a
	// connection that cannot be made, shown without a user, password,
	// query or fragment. "" means the scheme and host of URL.
	Base string
	// FirstByte bounds the wait for the first byte of the response's body
	// once the request is sent (see [Post]); 0 means no bound of Post's
	// own (the client's, if any).
	FirstByte time.Duration
}

// endpoint returns the endpoint a connection error names.
func (c *Call) endpoint() string {
	if c.Base != "" {
		return shownURL(c.Base)
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// Post sends c with client and returns the response once its status is
// 2xx; the caller closes its body. Otherwise it returns the error to yield,
// in the taxonomy: a URL that cannot make a request is bad_request, a
// transport failure goes through [TransportError] (a connection that
// cannot be made is network, its message naming c's endpoint: "could not
// connect to http://127.0.0.1:8080/v1 (connection refused): is the server
// running?"), and an error status through errorOf, the adapter's reading
// of its vendor's error body (a 404 that names no model is said to be a
// path nothing answers at). It sets ref.RequestID from the response
// headers.
//
// A server that sends no byte of its answer within c.FirstByte (it
// accepted the connection and went silent, it sent its headers and
// nothing after them, or it is stuck before its first token) is given up
// on with an error of kind timeout, retryable, whose cause is
// [ErrNoFirstByte]: "no response from ENDPOINT within 90s". The bound
// runs until the first byte of the body: when the headers came in time,
// the response is returned, and a read of its body that the bound ends
// fails with that error, a *contract.ProviderError ([Normalize] yields it
// as it is). Once a byte of the body came, the silence inside it is the
// client's to bound.
func Post(ctx context.Context, client *http.Client, ref *contract.ProviderRef, c Call,
	errorOf func(contract.ProviderRef, *http.Response) *contract.ProviderError) (*http.Response, *contract.ProviderError) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	hreq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.URL, bytes.NewReader(c.Body))
	if err != nil {
		cancel(nil)
		e := NewError(*ref, contract.KindBadRequest, ref.Name+": build the HTTP request for "+c.URL+": "+err.Error())
		e.Err = err
		return nil, e
	}
	for k, vs := range c.Header {
		hreq.Header[k] = vs
	}
	for k, vs := range c.Extra {
		hreq.Header.Del(k)
		for _, v := range vs {
			hreq.Header.Add(k, v)
		}
	}
	wait := startWait(c.FirstByte, cancel)
	resp, err := client.Do(hreq)
	switch {
	case wait.passed() && ctx.Err() == nil:
		cancel(nil)
		if err == nil {
			_ = resp.Body.Close() // cancelled with its request: nothing to read
		}
		return nil, noFirstByte(*ref, c)
	case err != nil:
		wait.stop()
		cancel(nil)
		return nil, transportError(ctx, *ref, c.endpoint(), err, false)
	}
	ref.RequestID = RequestID(resp.Header)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		wait.stop() // an error status is the answer; its body is read as any other
		defer cancel(nil)
		defer resp.Body.Close()
		return nil, notFound(errorOf(*ref, resp), resp.StatusCode, c.URL)
	}
	// The request's context lives as long as its body.
	resp.Body = &responseBody{ReadCloser: resp.Body, cancel: cancel, wait: wait, late: noFirstByte(*ref, c)}
	return resp, nil
}

// noFirstByte is the error of a server that sent no byte of its answer
// to c within c.FirstByte.
func noFirstByte(ref contract.ProviderRef, c Call) *contract.ProviderError {
	e := NewError(ref, contract.KindTimeout, fmt.Sprintf("no response from %s within %gs",
		cmp.Or(c.endpoint(), "the server"), c.FirstByte.Seconds()))
	e.Err = ErrNoFirstByte
	return e
}

// notFound adds to e, the error of a response of status, what a 404 that
// names no model means: nothing answers at url (shown without
// credentials), whose base is likely wrong. A 404 that names a model (a
// model the server does not have) is left as the server said it.
func notFound(e *contract.ProviderError, status int, url string) *contract.ProviderError {
	if status == http.StatusNotFound && !strings.Contains(strings.ToLower(e.Message), "model") {
		e.Message += "; nothing answers POST " + shownURL(url) + ": is the base URL right?"
	}
	return e
}

// firstByteWait is the bound on the wait for the first byte of an answer:
// a timer that cancels the request with [ErrNoFirstByte] when it passes.
// A nil *firstByteWait is no bound. Its timer runs no goroutine until it
// fires, and stop or a byte in time stops it.
type firstByteWait struct {
	timer *time.Timer
	fired atomic.Bool
}

// startWait starts the bound of d on the request cancel cancels; d <= 0
// is none (nil).
func startWait(d time.Duration, cancel context.CancelCauseFunc) *firstByteWait {
	if d <= 0 {
		return nil
	}
	w := &firstByteWait{}
	w.timer = time.AfterFunc(d, func() {
		w.fired.Store(true)
		cancel(ErrNoFirstByte)
	})
	return w
}

// passed reports whether the bound passed before it was stopped: the
// request is cancelled, or about to be.
func (w *firstByteWait) passed() bool { return w != nil && w.fired.Load() }

// stop stops the bound; it reports whether it stopped before it passed.
func (w *firstByteWait) stop() bool { return w == nil || w.timer.Stop() }

// responseBody is a response body that, until its first byte, is bounded
// by wait (whose passing fails a read with late), and that releases its
// request's context when it is closed.
type responseBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
	// wait is the bound on the first byte; nil once a byte came in time,
	// or with no bound.
	wait *firstByteWait
	late *contract.ProviderError
}

// Read reads the body. A read that the first-byte bound ended fails with
// the error of a server that sent nothing in time, however often it is
// called.
func (b *responseBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.wait == nil {
		return n, err
	}
	if err != nil && b.wait.passed() {
		return n, b.late
	}
	if n > 0 && b.wait.stop() {
		b.wait = nil
	}
	return n, err
}

// Close closes the body and releases the request's context.
func (b *responseBody) Close() error {
	b.wait.stop()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}
