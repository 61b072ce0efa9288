package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

func response(status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
}

func TestResponseError(t *testing.T) {
	ref := contract.ProviderRef{Name: "p", Model: "m"}
	for _, tc := range []struct {
		name       string
		status     int
		header     http.Header
		body       string
		kind       contract.ErrorKind
		retryable  bool
		msg        string
		retryAfter int64
	}{
		{"openai 429 rate limit", 429, nil, `{"error":{"message":"Rate limit reached for gpt-4.1. Please try again in 11.054s.","type":"requests","code":"rate_limit_exceeded"}}`, contract.KindRateLimit, true, "Rate limit reached", 11054},
		{"openai 429 quota", 429, nil, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`, contract.KindQuota, false, "exceeded your current quota", 0},
		{"openai 400 context", 400, nil, `{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`, contract.KindContextLength, false, "maximum context length", 0},
		{"openai 401", 401, nil, `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`, contract.KindAuth, false, "Incorrect API key", 0},
		{"anthropic 529", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, contract.KindOverloaded, true, "Overloaded", 0},
		{"anthropic prompt too long", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`, contract.KindContextLength, false, "prompt is too long", 0},
		{"gemini 429", 429, nil, `[{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"13s"}]}}]`, contract.KindRateLimit, true, "Resource has been exhausted", 13000},
		{"gemini bad key", 400, nil, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}`, contract.KindAuth, false, "API key not valid", 0},
		{"ollama text error", 404, nil, `{"error":"model \"llama9\" not found, try pulling it first"}`, contract.KindBadRequest, false, "not found", 0},
		{"vllm object error", 400, nil, `{"object":"error","message":"This model's maximum context length is 4096 tokens","type":"BadRequestError","code":400}`, contract.KindContextLength, false, "maximum context length", 0},
		{"llama.cpp context", 400, nil, `{"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}`, contract.KindContextLength, false, "exceeds", 0},
		{"plain text 502", 502, nil, `Bad Gateway`, contract.KindServer, true, "Bad Gateway", 0},
		{"empty 503", 503, http.Header{"Retry-After": {"3"}}, ``, contract.KindOverloaded, true, "Service Unavailable", 3000},
		{"retry-after-ms", 429, http.Header{"Retry-After-Ms": {"250"}}, `{}`, contract.KindRateLimit, true, "Too Many Requests", 250},
		{"groq 429 pointing at billing", 429, nil, `{"error":{"message":"Rate limit reached for model in organization on tokens per minute. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing","type":"tokens","code":"rate_limit_exceeded"}}`, contract.KindRateLimit, true, "Rate limit reached", 0},
		{"mistral object message", 422, nil, `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted"}]},"type":"invalid_request_message_error","code":null}`, contract.KindBadRequest, false, "Extra inputs are not permitted", 0},
		{"xai prompt length", 400, nil, `{"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 140000 tokens."}`, contract.KindContextLength, false, "maximum prompt length", 0},
		{"anthropic not found", 404, nil, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-9"}}`, contract.KindBadRequest, false, "claude-9", 0},
		{"403", 403, nil, `{"error":{"message":"no access"}}`, contract.KindPermission, false, "no access", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := tc.header
			if h == nil {
				h = http.Header{}
			}
			h.Set("X-Request-Id", "req_1")
			e := ResponseError(ref, response(tc.status, h, tc.body))
			if e.Kind != tc.kind || e.Retryable != tc.retryable || e.HTTPStatus != tc.status || e.RequestID != "req_1" ||
				!strings.Contains(e.Message, tc.msg) || e.RetryAfterMS != tc.retryAfter || e.Provider != "p" || e.Model != "m" {
				t.Errorf("ResponseError() = %+v; want kind %s retryable %v message containing %q retry-after %d", e, tc.kind, tc.retryable, tc.msg, tc.retryAfter)
			}
		})
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	h := http.Header{"Retry-After": {time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)}}
	if ms := RetryAfterMS(h, nil); ms < 80_000 || ms > 90_000 {
		t.Errorf("RetryAfterMS(date in 90s) = %d", ms)
	}
}

func TestTransportError(t *testing.T) {
	ref := contract.ProviderRef{Name: "p"}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	deadline, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	<-deadline.Done()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		started bool
		kind    contract.ErrorKind
	}{
		{"cancelled", cancelled, false, contract.KindAborted},
		{"deadline", deadline, true, contract.KindTimeout},
		{"mid-stream", context.Background(), true, contract.KindStreamInterrupted},
		{"a cause of no known kind", context.Background(), false, contract.KindUnknown},
		{"redirect", context.Background(), false, contract.KindBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cause := errors.New("boom")
			if tc.name == "redirect" {
				cause = ErrRedirect
			}
			e := TransportError(tc.ctx, ref, cause, tc.started)
			if e.Kind != tc.kind || !errors.Is(e, cause) {
				t.Errorf("TransportError() = %+v, want %s wrapping the cause", e, tc.kind)
			}
			if tc.kind == contract.KindUnknown && !e.Retryable {
				t.Error("a failure to reach the server should be retryable")
			}
		})
	}
}
