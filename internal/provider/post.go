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
	// FirstByte bounds the wait for the first byte of the response (its
	// status line) once the request is sent; 0 means no bound of Post's
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
// A server that sends no byte of its response within c.FirstByte (it
// accepted the connection and went silent, or it is stuck before its
// first token) is given up on with an error of kind timeout, retryable,
// whose cause is [ErrNoFirstByte]: "no response from ENDPOINT within
// 90s".
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
	resp, err := do(client, hreq, c.FirstByte, cancel)
	switch {
	case errors.Is(err, ErrNoFirstByte) && ctx.Err() == nil:
		cancel(nil)
		e := NewError(*ref, contract.KindTimeout, fmt.Sprintf("no response from %s within %gs",
			cmp.Or(c.endpoint(), "the server"), c.FirstByte.Seconds()))
		e.Err = err
		return nil, e
	case err != nil:
		cancel(nil)
		return nil, transportError(ctx, *ref, c.endpoint(), err, false)
	}
	ref.RequestID = RequestID(resp.Header)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer cancel(nil)
		defer resp.Body.Close()
		return nil, notFound(errorOf(*ref, resp), resp.StatusCode, c.URL)
	}
	// The request's context lives as long as its body.
	resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
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

// do sends hreq with client, cancelling its context with [ErrNoFirstByte]
// when no response has begun within firstByte (0: no bound); it then
// returns ErrNoFirstByte, and no response even if one came as the bound
// passed (its body, cancelled, could not be read).
func do(client *http.Client, hreq *http.Request, firstByte time.Duration, cancel context.CancelCauseFunc) (*http.Response, error) {
	if firstByte <= 0 {
		return client.Do(hreq)
	}
	timer := time.AfterFunc(firstByte, func() { cancel(ErrNoFirstByte) })
	resp, err := client.Do(hreq)
	if timer.Stop() || context.Cause(hreq.Context()) != ErrNoFirstByte {
		return resp, err
	}
	if err == nil {
		_ = resp.Body.Close() // cancelled with its request: nothing to read
	}
	return nil, ErrNoFirstByte
}

// cancelBody is a response body that releases its request's context when
// it is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

// Close closes the body and releases the request's context.
func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}
