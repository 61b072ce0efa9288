package openai

import (
	"net/http"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		header     http.Header
		body       string
		kind       contract.ErrorKind
		retryAfter int64
		message    string
	}{
		{
			name: "OpenAI rate limit, hint in the body", status: 429,
			body: `{"error":{"message":"Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 11.054s. Visit https://platform.openai.com/account/rate-limits to learn more. You can increase your rate limit by adding a payment method to your account at https://platform.openai.com/account/billing.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			kind: contract.KindRateLimit, retryAfter: 11054,
		},
		{
			name: "OpenAI quota", status: 429,
			body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			kind: contract.KindQuota, message: "You exceeded your current quota, please check your plan and billing details.",
		},
		{
			name: "Groq rate limit pointing at billing, hint in the headers", status: 429,
			header: http.Header{"X-Ratelimit-Remaining-Tokens": {"0"}, "X-Ratelimit-Reset-Tokens": {"7.66s"}, "X-Ratelimit-Remaining-Requests": {"14"}, "X-Ratelimit-Reset-Requests": {"2m59.56s"}},
			body:   `{"error":{"message":"Rate limit reached for model llama-3.3-70b-versatile on tokens per minute (TPM). Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing","type":"tokens","code":"rate_limit_exceeded"}}`,
			kind:   contract.KindRateLimit, retryAfter: 7660,
		},
		{
			name: "retry-after header wins", status: 429, header: http.Header{"Retry-After": {"3"}},
			body: `{"error":{"message":"Please try again in 20s.","code":"rate_limit_exceeded"}}`,
			kind: contract.KindRateLimit, retryAfter: 3000,
		},
		{
			name: "OpenAI context length", status: 400,
			body: `{"error":{"message":"This model's maximum context length is 1047576 tokens. However, your messages resulted in 1100000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			kind: contract.KindContextLength,
		},
		{
			name: "llama.cpp context size", status: 400,
			body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`,
			kind: contract.KindContextLength, message: "the request exceeds the available context size, try increasing it",
		},
		{
			name: "older llama.cpp context size", status: 400,
			body: `{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"invalid_request_error"}}`,
			kind: contract.KindContextLength,
		},
		{
			name: "vLLM context length", status: 400,
			body: `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens in the messages, Please reduce the length of the messages.","type":"BadRequestError","param":null,"code":400}`,
			kind: contract.KindContextLength,
		},
		{
			name: "xAI prompt length", status: 400,
			body: `{"code":"Client specified an invalid argument","error":"This model's maximum prompt length is 131072 but the request contains 140000 tokens."}`,
			kind: contract.KindContextLength,
		},
		{
			name: "OpenAI bad key", status: 401,
			body: `{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			kind: contract.KindAuth,
		},
		{
			name: "Ollama model not found", status: 404,
			body: `{"error":"model \"qwen3:70b\" not found, try pulling it first"}`,
			kind: contract.KindBadRequest, message: `model "qwen3:70b" not found, try pulling it first`,
		},
		{
			name: "Ollama model without tools", status: 400,
			body: `{"error":{"message":"registry.ollama.ai/library/gemma2:2b does not support tools","type":"api_error","param":null,"code":null}}`,
			kind: contract.KindUnsupportedFeature,
		},
		{
			name: "vLLM without a tool parser", status: 400,
			body: `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`,
			kind: contract.KindUnsupportedFeature,
		},
		{
			name: "o-series rejects a parameter", status: 400,
			body: `{"error":{"message":"Unsupported parameter: 'parallel_tool_calls' is not supported with this model.","type":"invalid_request_error","param":"parallel_tool_calls","code":"unsupported_parameter"}}`,
			kind: contract.KindUnsupportedFeature,
		},
		{
			name: "Mistral rejects a field", status: 422,
			body: `{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted","input":true}]},"type":"invalid_request_error","param":null,"code":null}`,
			kind: contract.KindUnsupportedFeature, message: "body.stream_options.include_usage: Extra inputs are not permitted (extra_forbidden)",
		},
		{
			name: "DeepSeek balance", status: 402,
			body: `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`,
			kind: contract.KindQuota,
		},
		{
			name: "OpenRouter upstream error", status: 502,
			body: `{"error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Together","raw":"upstream timed out"}}}`,
			kind: contract.KindServer, message: "Provider returned error (Together: upstream timed out)",
		},
		{
			name: "overloaded", status: 503, body: `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`,
			kind: contract.KindOverloaded,
		},
		{
			name: "plain text 500", status: 500, body: "Internal Server Error",
			kind: contract.KindServer, message: "Internal Server Error",
		},
		{
			name: "empty body", status: 403, body: "",
			kind: contract.KindPermission, message: "Forbidden",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_e"}}
			for k, v := range tc.header {
				h[k] = v
			}
			srv := providertest.Serve(t, tc.status, h, tc.body)
			r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), conversation())
			if len(r.Events) != 0 {
				t.Errorf("events before the error: %v", providertest.JSON(r.Events))
			}
			e := r.Err
			if e == nil {
				t.Fatal("no error")
			}
			if e.Kind != tc.kind || e.Retryable != tc.kind.Retryable() || e.HTTPStatus != tc.status || e.RequestID != "req_e" || e.RetryAfterMS != tc.retryAfter || e.Provider != DefaultName {
				t.Errorf("got %+v\nwant kind %s, retryable %v, status %d, request req_e, retry-after %d", e, tc.kind, tc.kind.Retryable(), tc.status, tc.retryAfter)
			}
			if tc.message != "" && e.Message != tc.message {
				t.Errorf("message %q, want %q", e.Message, tc.message)
			}
			if e.Message == "" {
				t.Error("empty message")
			}
		})
	}
}

// TestTransportErrors: an empty body and a request that cannot be built (a
// server that cannot be reached is the conformance suite's "refused").
func TestTransportErrors(t *testing.T) {
	t.Run("empty 200 body", func(t *testing.T) {
		srv := providertest.Serve(t, 200, http.Header{"Content-Type": {"text/event-stream"}}, "")
		r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL}), conversation())
		if r.Err == nil || r.Err.Kind != contract.KindStreamInterrupted {
			t.Errorf("error %v, want stream_interrupted", r.Err)
		}
	})
	t.Run("a bad request cannot be built", func(t *testing.T) {
		req := &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleTool}}}
		r := providertest.Collect(t, t.Context(), New(nil), req)
		if r.Err == nil || r.Err.Kind != contract.KindBadRequest || len(r.Events) != 0 {
			t.Errorf("error %v events %d, want bad_request before any request", r.Err, len(r.Events))
		}
	})
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		d      provider.ErrorDetail
		want   contract.ErrorKind
	}{
		{"the code beats a message about billing", 429, provider.ErrorDetail{Code: "rate_limit_exceeded", Message: "add a payment method at /account/billing"}, contract.KindRateLimit},
		{"quota by code", 429, provider.ErrorDetail{Code: "insufficient_quota"}, contract.KindQuota},
		{"mid-stream server_error", 0, provider.ErrorDetail{Type: "server_error", Message: "oops"}, contract.KindServer},
		{"mid-stream invalid request", 0, provider.ErrorDetail{Type: "invalid_request_error", Message: "bad"}, contract.KindBadRequest},
		{"mid-stream unknown", 0, provider.ErrorDetail{Message: "something"}, contract.KindUnknown},
		{"mid-stream with an HTTP-like code", 503, provider.ErrorDetail{Message: "busy"}, contract.KindOverloaded},
		{"llama.cpp without --jinja", 500, provider.ErrorDetail{Message: "tools param requires --jinja flag"}, contract.KindUnsupportedFeature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.status, tc.d); got != tc.want {
				t.Errorf("classify(%d, %+v) = %s, want %s", tc.status, tc.d, got, tc.want)
			}
		})
	}
}
