package catalog

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// ProbeTimeout bounds all of a Probe's requests together.
const ProbeTimeout = 2 * time.Second

// probeLimit bounds what a Probe reads of one answer: an Ollama /api/show
// carries the model's license and template, a vLLM /models a few entries.
const probeLimit = 1 << 20

// Probe asks the OpenAI-compatible server at baseURL (its /v1 endpoint,
// http://127.0.0.1:11434/v1) what context window it serves model with,
// in the three shapes local servers answer: vLLM's GET {base}/models
// (max_model_len of model's entry), Ollama's POST {root}/api/show (see
// ollamaWindow) and llama.cpp's GET {root}/props (n_ctx), root being base
// without its /v1. All of it takes at most ProbeTimeout; each answer is
// read up to 1 MiB; a redirect to another host, or from https to http, is
// not followed. The
// result's Source is contract.InfoServer; the error says what each shape
// answered when none gave a window. A nil client is http.DefaultClient.
func Probe(ctx context.Context, client *http.Client, baseURL, model string) (Model, error) {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	p := prober{client: sameHost(client), base: strings.TrimSuffix(baseURL, "/"), model: model}
	p.root = strings.TrimSuffix(p.base, "/v1")
	var errs []error
	for _, shape := range []struct {
		name string
		ask  func(context.Context) (int, error)
	}{{"vLLM /models", p.vllm}, {"Ollama /api/show", p.ollama}, {"llama.cpp /props", p.llamacpp}} {
		window, err := shape.ask(ctx)
		if err == nil && window > 0 {
			return Model{ID: model, ContextWindow: window, Source: contract.InfoServer}, nil
		}
		if err == nil {
			err = errors.New("no window")
		}
		errs = append(errs, fmt.Errorf("%s: %w", shape.name, err))
		if ctx.Err() != nil {
			break
		}
	}
	return Model{}, fmt.Errorf("%s does not say what window it serves %s with (%w)", baseURL, model, errors.Join(errs...))
}

// sameHost is client, or the default one, refusing redirects to another
// host (the probe goes to the server the person named and nowhere else)
// and from https to http (the client may carry the person's key, which
// would travel in clear).
func sameHost(client *http.Client) *http.Client {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
			return fmt.Errorf("refused a redirect from https to %s: the key would travel in clear", req.URL.Scheme)
		}
		if len(via) >= 3 || req.URL.Host != via[0].URL.Host {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &c
}

// prober is one Probe's server and model.
type prober struct {
	client            *http.Client
	base, root, model string
}

// get sends method to url with body (nil for none) and decodes the answer,
// read up to probeLimit, into v; an answer that is not 200 or not JSON is
// an error.
func (p *prober) get(ctx context.Context, method, url string, body []byte, v any) error {
	return p.read(ctx, method, url, body, probeLimit, v)
}

// read is get, reading up to limit bytes of the answer.
func (p *prober) read(ctx context.Context, method, url string, body []byte, limit int64, v any) error {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Status: resp.StatusCode}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// StatusError is the error of a server that answered a question about
// its models with a status other than 200 OK: it runs, and said no.
type StatusError struct {
	// Status is the HTTP status it answered.
	Status int
}

// Error says the status: "HTTP 404".
func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d", e.Status) }

// modelList is the answer of an OpenAI-compatible {base}/models: the
// entries of the models served, with vLLM's window.
type modelList struct {
	Data []struct {
		ID          string `json:"id"`
		MaxModelLen int    `json:"max_model_len"`
	} `json:"data"`
}

// vllm reads max_model_len from the entry of {base}/models whose id is
// the model.
func (p *prober) vllm(ctx context.Context) (int, error) {
	var list modelList
	if err := p.get(ctx, http.MethodGet, p.base+"/models", nil, &list); err != nil {
		return 0, err
	}
	for _, m := range list.Data {
		if m.ID == p.model {
			return m.MaxModelLen, nil
		}
	}
	return 0, fmt.Errorf("no entry for %s", p.model)
}

// ollama is the window Ollama's OpenAI endpoint gives the model. That
// endpoint takes no num_ctx, so the window is the model's num_ctx
// parameter when its Modelfile sets one; otherwise the server's default
// context (OLLAMA_CONTEXT_LENGTH, or 2,048 to 256k by version and
// memory), which /api/show does not tell but /api/ps does for a loaded
// model. Either is bounded by the model's own <arch>.context_length. A
// model with neither is an error: its trained length is not what the
// server serves.
func (p *prober) ollama(ctx context.Context) (int, error) {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	body, _ := json.Marshal(map[string]string{"model": p.model})
	if err := p.get(ctx, http.MethodPost, p.root+"/api/show", body, &show); err != nil {
		return 0, err
	}
	trained := 0
	if arch, ok := show.ModelInfo["general.architecture"].(string); ok {
		if n, ok := show.ModelInfo[arch+".context_length"].(float64); ok {
			trained = int(n)
		}
	}
	served := numCtx(show.Parameters)
	if served == 0 {
		served = p.ollamaLoaded(ctx)
	}
	switch {
	case served == 0:
		return 0, fmt.Errorf("%s sets no num_ctx and is not loaded, so it gets the server's default context, which Ollama does not tell", p.model)
	case trained > 0:
		return min(served, trained), nil
	}
	return served, nil
}

// numCtx is the num_ctx of an Ollama model's parameters ("num_ctx 8192"
// on a line of its own), or 0.
func numCtx(parameters string) int {
	for line := range strings.SplitSeq(parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// ollamaLoaded is the context Ollama allocated to the model, when it is
// loaded (/api/ps), or 0.
func (p *prober) ollamaLoaded(ctx context.Context) int {
	var ps struct {
		Models []struct {
			Name          string `json:"name"`
			Model         string `json:"model"`
			ContextLength int    `json:"context_length"`
		} `json:"models"`
	}
	if p.get(ctx, http.MethodGet, p.root+"/api/ps", nil, &ps) != nil {
		return 0
	}
	for _, m := range ps.Models {
		for _, n := range []string{m.Name, m.Model} {
			if n == p.model || n == p.model+":latest" {
				return m.ContextLength
			}
		}
	}
	return 0
}

// llamacpp reads the context of one of llama.cpp's slots (what a request
// gets) from {root}/props, else the server's whole n_ctx.
func (p *prober) llamacpp(ctx context.Context) (int, error) {
	var props struct {
		Settings struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		NCtx int `json:"n_ctx"`
	}
	if err := p.get(ctx, http.MethodGet, p.root+"/props", nil, &props); err != nil {
		return 0, err
	}
	return cmp.Or(props.Settings.NCtx, props.NCtx), nil
}
