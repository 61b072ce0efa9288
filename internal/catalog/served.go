package catalog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ServedTimeout bounds a [Served] request.
const ServedTimeout = 5 * time.Second

// servedLimit bounds what [Served] reads of a list: a hosted router's
// (OpenRouter's) lists hundreds of models, with their descriptions.
const servedLimit = 16 << 20

// ErrNoModels is the error of a server whose list of models is empty.
var ErrNoModels = errors.New("the server lists no models")

// Served asks the OpenAI-compatible server at baseURL (its /v1 endpoint,
// http://127.0.0.1:11434/v1) which models it serves: the ids of GET
// {base}/models, in the server's order, without repeats or empty ids.
// It takes at most ServedTimeout and reads at most 16 MiB; like [Probe],
// it follows no redirect to another host nor from https to http, and a
// nil client is http.DefaultClient (the caller's client carries the key,
// in a header: a URL never does). An empty list is [ErrNoModels]; a
// server that does not answer with a list is an error that says what it
// answered ("GET /models: HTTP 404", a [*StatusError] for a status other
// than 200), never the URL asked (the caller names the server as it may
// be shown).
func Served(ctx context.Context, client *http.Client, baseURL string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, ServedTimeout)
	defer cancel()
	p := prober{client: sameHost(client), base: strings.TrimSuffix(baseURL, "/")}
	var list modelList
	if err := p.read(ctx, http.MethodGet, p.base+"/models", nil, servedLimit, &list); err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // without the URL, where credentials may hide
		}
		return nil, fmt.Errorf("GET /models: %w", err)
	}
	var ids []string
	for _, m := range list.Data {
		if id := strings.TrimSpace(m.ID); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, ErrNoModels
	}
	return ids, nil
}
