package provider

import (
	"bytes"
	"context"
	"net/http"
	"net/url"

	"github.com/rein-agent/rein/internal/contract"
)

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
// of its vendor's error body. It sets ref.RequestID from the response
// headers.
func Post(ctx context.Context, client *http.Client, ref *contract.ProviderRef, c Call,
	errorOf func(contract.ProviderRef, *http.Response) *contract.ProviderError) (*http.Response, *contract.ProviderError) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(c.Body))
	if err != nil {
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
	resp, err := client.Do(hreq)
	if err != nil {
		return nil, transportError(ctx, *ref, c.endpoint(), err, false)
	}
	ref.RequestID = RequestID(resp.Header)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, errorOf(*ref, resp)
	}
	return resp, nil
}
