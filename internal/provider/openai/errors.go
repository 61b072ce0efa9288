package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/provider"
)

// errorBody is every error shape of this API family, in a response body or
// in a stream frame, all of them shapes of provider.ErrorBody:
//
//	{"error": {"message", "type", "code", "param"}}        OpenAI, Groq, DeepSeek, llama.cpp...
//	{"error": {"message", "code": 502, "metadata": {...}}} OpenRouter
//	{"error": "text"}                                       Ollama
//	{"object": "error", "message": "...", "code": 400}      vLLM
//	{"object": "error", "message": {"detail": [...]}}       Mistral's validation errors
//
// What it reads inside "error" (OpenRouter's metadata, Groq's
// failed_generation) is its own: see detail.
type errorBody provider.ErrorBody

type errorObject struct {
	Message looseString     `json:"message"`
	Type    looseString     `json:"type"`
	Code    json.RawMessage `json:"code"`
	// FailedGeneration is what the model wrote when Groq could not parse
	// it as a tool call (code tool_use_failed).
	FailedGeneration looseString `json:"failed_generation"`
	Metadata         *struct {
		// Raw is the upstream provider's own error, as OpenRouter relays
		// it: text, or JSON of any shape.
		Raw          json.RawMessage `json:"raw"`
		ProviderName string          `json:"provider_name"`
	} `json:"metadata"`
}

// detail reads the error; status is a numeric code in the HTTP range when
// the body has one (vLLM, OpenRouter, llama.cpp), else 0; ok is false when
// the body is not an error at all.
func (b *errorBody) detail() (d provider.ErrorDetail, status int, ok bool) {
	code := b.Code
	switch {
	case len(b.Error) > 0 && string(b.Error) != "null":
		var o errorObject
		switch {
		case b.Error[0] == '"':
			var s looseString
			_ = s.UnmarshalJSON(b.Error) // a bad string is no message
			d.Message = string(s)
		case json.Unmarshal(b.Error, &o) == nil:
			d = provider.ErrorDetail{Message: string(o.Message), Type: string(o.Type), Code: provider.CodeString(o.Code)}
			code = o.Code
			if o.FailedGeneration != "" {
				d.Message += " (failed_generation: " + excerpt.Text(string(o.FailedGeneration), provider.ErrorTextMax) + ")"
			}
			if o.Metadata != nil {
				if up := upstreamMessage(o.Metadata.Raw); up != "" && up != d.Message {
					d.Message = strings.TrimSpace(d.Message + " (" + o.Metadata.ProviderName + ": " + up + ")")
				}
			}
		}
	case b.Object == "error":
		d = provider.ErrorDetail{Message: provider.MessageText(b.Message), Type: b.Type, Code: provider.CodeString(b.Code)}
	default:
		return d, 0, false
	}
	if n, err := strconv.Atoi(provider.CodeString(code)); err == nil && n >= 400 && n <= 599 {
		status = n
	}
	if d.Code == strconv.Itoa(status) {
		d.Code = "" // the status says it already
	}
	return d, status, true
}

// upstreamMessage reads OpenRouter's metadata.raw: a JSON string holding
// the upstream's body (or plain text), or that body itself.
func upstreamMessage(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	text := string(raw)
	if raw[0] == '"' {
		var s looseString
		_ = s.UnmarshalJSON(raw) // a bad string is no message
		text = string(s)
	}
	if d := provider.ParseErrorBody([]byte(text)); d.Message != "" {
		return excerpt.Text(d.Message, provider.ErrorTextMax)
	}
	return excerpt.Text(text, provider.ErrorTextMax)
}

// Refine refines the mapping of an error response with what this API
// family's bodies say, for provider.HTTP.Stream; a 429 without a retry
// hint takes it from the rate-limit headers.
func (a *Adapter) Refine(e *contract.ProviderError, resp *http.Response, raw []byte) {
	var b errorBody
	if json.Unmarshal(bytes.TrimSpace(raw), &b) == nil {
		if d, _, ok := b.detail(); ok {
			if d.Message != "" {
				e.Message = d.Message
			}
			provider.Reclassify(e, classify(resp.StatusCode, d))
		}
	}
	if e.RetryAfterMS == 0 && resp.StatusCode == http.StatusTooManyRequests {
		e.RetryAfterMS = rateLimitReset(resp.Header)
	}
}

// streamError maps an error that came inside a 200 stream (a data frame,
// an error event, a JSON body after the events). status is the error's own
// numeric code, if any; the error keeps HTTPStatus 0, since the response
// itself succeeded.
func streamError(ref contract.ProviderRef, d provider.ErrorDetail, status int) *contract.ProviderError {
	msg := d.Message
	if msg == "" {
		msg = "the server sent an error in the stream"
	}
	e := provider.NewError(ref, classify(status, d), msg)
	e.RetryAfterMS = provider.RetryAfterMS(http.Header{}, []byte(d.Message))
	return e
}

// classify maps an error to a kind: the vendor's machine code first, since
// it is exact where the message is prose (OpenAI's and Groq's rate-limit
// messages point at their billing pages, which provider.Classify would
// read as quota), then the shapes of the compatible servers, then the
// shared rules.
func classify(status int, d provider.ErrorDetail) contract.ErrorKind {
	switch strings.ToLower(d.Code) {
	case "rate_limit_exceeded":
		return contract.KindRateLimit
	case "insufficient_quota":
		return contract.KindQuota
	case "context_length_exceeded":
		return contract.KindContextLength
	case "invalid_api_key":
		return contract.KindAuth
	case "tool_use_failed":
		return contract.KindMalformedToolCall
	case "unsupported_parameter", "unsupported_value":
		return contract.KindUnsupportedFeature
	}
	all := strings.ToLower(d.Code + " " + d.Type + " " + d.Message)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(all, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("available context size", "context size", // llama.cpp
		"maximum prompt length", // xAI
		"context_window_exceeded", "input is too long"):
		return contract.KindContextLength
	case has("does not support tools", // Ollama
		"does not support function", "--enable-auto-tool-choice", // vLLM without a tool parser
		"--jinja",                                            // llama.cpp without templates
		"extra_forbidden", "extra inputs are not permitted"): // Mistral
		return contract.KindUnsupportedFeature
	}
	kind := provider.Classify(status, d)
	if kind == contract.KindUnknown && status == 0 {
		// An error inside a 200 stream has only its type to go by.
		switch strings.ToLower(d.Type) {
		case "server_error", "internal_error", "internal_server_error", "api_error", "service_unavailable_error":
			return contract.KindServer
		case "invalid_request_error", "badrequesterror", "bad_request":
			return contract.KindBadRequest
		}
	}
	return kind
}

// rateLimitReset reads OpenAI's and Groq's x-ratelimit-reset-requests and
// -tokens headers ("1s", "6m0s", "7.66s"), for the limit that ran out, as a
// retry hint in milliseconds; 0 when they say nothing.
func rateLimitReset(h http.Header) int64 {
	var ms int64
	for _, which := range []string{"requests", "tokens"} {
		if h.Get("x-ratelimit-remaining-"+which) != "0" {
			continue
		}
		if d, err := time.ParseDuration(h.Get("x-ratelimit-reset-" + which)); err == nil && d > 0 {
			ms = max(ms, d.Milliseconds())
		}
	}
	return ms
}
