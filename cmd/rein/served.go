package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/catalog"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/provider"
)

// compatible says whether provider name speaks OpenAI's APIs, whose
// servers list their models at {base}/models.
func compatible(name string) bool { return name == "openai" || name == "responses" }

// choiceNeeded is the error of model for a server that offers several
// models when neither the flags nor the configuration named one: the
// caller asks the person, or says how to name one.
type choiceNeeded struct {
	// server is the endpoint, shown without credentials.
	server string
	// models are the models it offers, in its order: two or more.
	models []string
}

// Error says that no model was named and which the server offers: "no
// model named, and http://127.0.0.1:11434/v1 offers 2: qwen3:8b,
// llama3.2".
func (e *choiceNeeded) Error() string {
	return fmt.Sprintf("no model named, and %s offers %d: %s", e.server, len(e.models), listed(e.models))
}

// listed names models for a message: the first ten, then how many more.
func listed(models []string) string {
	const shown = 10
	if len(models) <= shown {
		return strings.Join(models, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(models[:shown], ", "), len(models)-shown)
}

// unlisted is the error of a server that did not say which model to
// ask of it: it lists none, or could not be asked. It is no usage error:
// the server is not running, or serves nothing yet.
type unlisted struct{ msg string }

// Error returns the message as it is: it says what the server answered
// and how to name a model.
func (e *unlisted) Error() string { return e.msg }

// serverModel is the model to ask of the OpenAI-compatible server at
// baseURL when nobody named one: the one it serves, when it lists one.
// When it lists several, the error is a *choiceNeeded; when it lists
// none, or cannot say, an *unlisted that says so and how to name one
// (rein never sends a vendor's default model to someone's own server).
func serverModel(ctx context.Context, baseURL, key string) (string, error) {
	shown := recordable(baseURL, "")
	models, err := catalog.Served(ctx, serverClient(key), baseURL)
	switch {
	case errors.Is(err, catalog.ErrNoModels):
		return "", &unlisted{fmt.Sprintf("no model named, and %s lists none: load or pull one on the server, or name one with --model NAME", shown)}
	case err != nil:
		if v1, ok := answersAtV1(ctx, serverClient(key), baseURL); ok {
			return "", &unlisted{fmt.Sprintf("no model named, and %s does not list its models (%v), but the server answers at %s: use --base-url %s", shown, err, v1, v1)}
		}
		return "", &unlisted{unlistedReason(shown, err)}
	case len(models) == 1:
		return models[0], nil
	}
	return "", &choiceNeeded{server: shown, models: models}
}

// unlistedReason says why the server at shown, whose listing of its
// models failed with err, did not say which model to ask of it: what it
// answered, when it answered (it runs); that it may not run, when it
// could not be reached; else what came back.
func unlistedReason(shown string, err error) string {
	if se, ok := errors.AsType[*catalog.StatusError](err); ok {
		why := "it did not list its models"
		switch se.Status {
		case http.StatusNotFound:
			why = "it lists no models there"
		case http.StatusUnauthorized, http.StatusForbidden:
			why = "it wants a valid key to list them (OPENAI_API_KEY)"
		}
		return fmt.Sprintf("no model named, and %s answered HTTP %d at /models: %s; name one with --model NAME", shown, se.Status, why)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no model named, and %s did not say which it serves (%v): is the server running? name one with --model NAME", shown, err)
	}
	return fmt.Sprintf("no model named, and %s did not say which it serves (%v); name one with --model NAME", shown, err)
}

// serverClient is the client that asks a server about its models: the
// key, when there is one, as a bearer token (a vLLM started with
// --api-key wants it on /models too), never in the URL.
func serverClient(key string) *http.Client {
	if key == "" {
		return http.DefaultClient
	}
	return &http.Client{Transport: bearer{key: key, next: http.DefaultTransport}}
}

// explainer returns the kernel.Model.Explain of model modelName of
// provider name at baseURL: what more to say when a run stops on its
// failure. A first byte that never came says which setting gives a slow
// server more time (it waited firstByte); a 404 of an OpenAI-compatible
// server of the person's (listing true) says which models it offers, or
// where it answers when its base URL lacks /v1.
func explainer(name, modelName, baseURL, key string, listing bool, firstByte time.Duration) func(context.Context, *contract.ProviderError) string {
	return func(ctx context.Context, perr *contract.ProviderError) string {
		switch {
		case perr.Kind == contract.KindTimeout && errors.Is(perr, provider.ErrNoFirstByte):
			return fmt.Sprintf("a server slow to start (loading the model, say) may need more than %gs: raise first_byte_timeout in your config.toml",
				firstByte.Seconds())
		case listing && notFound(perr):
			return offered(ctx, name, modelName, baseURL, key)
		}
		return ""
	}
}

// notFound says whether perr is a server's "not found": a 404, or a
// refusal that says the model is not there.
func notFound(perr *contract.ProviderError) bool {
	if perr.HTTPStatus == http.StatusNotFound {
		return true
	}
	msg := strings.ToLower(perr.Message)
	return perr.Kind == contract.KindBadRequest && strings.Contains(msg, "model") &&
		(strings.Contains(msg, "not found") || strings.Contains(msg, "does not exist"))
}

// offered says what the server at baseURL offers, after it did not find
// modelName: its models, or that it lists modelName (then the path is
// wrong), or where it answers when baseURL lacks its /v1; "" when it does
// not say.
func offered(ctx context.Context, name, modelName, baseURL, key string) string {
	client := serverClient(key)
	shown := recordable(baseURL, "")
	models, err := catalog.Served(ctx, client, baseURL)
	switch {
	case err == nil && slices.Contains(models, modelName):
		api := "Chat Completions API (/chat/completions)"
		if name == "responses" {
			api = "Responses API (/responses)"
		}
		return fmt.Sprintf("%s lists %s among its models, yet did not find it: does it serve the %s at this base URL?", shown, modelName, api)
	case err == nil:
		return fmt.Sprintf("%s offers %s; choose one with --model NAME (/model NAME in a session)", shown, listed(models))
	}
	if v1, ok := answersAtV1(ctx, client, baseURL); ok {
		return fmt.Sprintf("the server answers at %s: use --base-url %s", v1, v1)
	}
	return ""
}

// answersAtV1 says whether the server at baseURL, which does not end in
// /v1, lists its models under /v1 (the usual root of OpenAI-compatible
// servers, which a base URL without it misses), and that URL, shown
// without credentials.
func answersAtV1(ctx context.Context, client *http.Client, baseURL string) (string, bool) {
	trimmed := strings.TrimSuffix(baseURL, "/")
	if strings.HasSuffix(trimmed, "/v1") {
		return "", false
	}
	_, err := catalog.Served(ctx, client, trimmed+"/v1")
	return recordable(trimmed+"/v1", ""), err == nil
}

// offeredModels returns the Session.Models of a session whose primary
// model is m and whose catalogue knows known ("provider:model"): for an
// OpenAI-compatible server of the person's, the models it lists (asked
// when /model opens, not at start) in place of the vendor's catalogue,
// which that server does not serve; else known as it is.
func offeredModels(m kernel.Model, known []string) func(ctx context.Context) ([]string, error) {
	a, ok := adapters[m.Name]
	if !ok || !compatible(m.Name) || recordable(m.BaseURL, a.defaultBaseURL) == "" {
		return func(context.Context) ([]string, error) { return known, nil }
	}
	key := ""
	for _, v := range a.keyVars {
		if key = os.Getenv(v); key != "" {
			break
		}
	}
	return func(ctx context.Context) ([]string, error) {
		var out []string
		for _, k := range known {
			if !strings.HasPrefix(k, m.Name+":") {
				out = append(out, k)
			}
		}
		served, err := catalog.Served(ctx, serverClient(key), m.BaseURL)
		if err != nil {
			return out, fmt.Errorf("%s did not list its models: %w", recordable(m.BaseURL, ""), err)
		}
		for _, s := range served {
			out = append(out, m.Name+":"+s)
		}
		return out, nil
	}
}
