package gemini

import (
	"net/http"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// TestHTTPErrors serves Gemini's error bodies, as the API sends them, and
// checks each maps to the right kind with its status, request id, message
// and retry hint, and that no event comes before the error.
func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		file       string
		status     int
		header     http.Header
		kind       contract.ErrorKind
		msg        string
		retryAfter int64
	}{
		{"http_429.json", 429, nil, contract.KindRateLimit, "You exceeded your current quota", 13000},
		{"http_429_limit0.json", 429, nil, contract.KindQuota, "limit: 0", 40000},
		{"http_400_key.json", 400, nil, contract.KindAuth, "API key not valid", 0},
		{"http_400_context.json", 400, nil, contract.KindContextLength, "input token count", 0},
		{"http_400_schema.json", 400, nil, contract.KindBadRequest, "Invalid JSON payload", 0},
		{"http_403.json", 403, nil, contract.KindPermission, "has not been used in project", 0},
		{"http_403_nokey.json", 403, nil, contract.KindAuth, "unregistered callers", 0},
		{"http_404.json", 404, nil, contract.KindBadRequest, "is not found for API version", 0},
		{"http_500.json", 500, nil, contract.KindServer, "internal error", 0},
		{"http_503.json", 503, http.Header{"Retry-After": {"4"}}, contract.KindOverloaded, "overloaded", 4000},
		{"http_504.json", 504, nil, contract.KindTimeout, "Deadline expired", 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			h := http.Header{"Content-Type": {"application/json; charset=UTF-8"}, "X-Request-Id": {"req_1"}}
			for k, v := range tc.header {
				h[k] = v
			}
			srv := providertest.Serve(t, tc.status, h, readFixture(t, tc.file))
			r := providertest.Collect(t, t.Context(), New(&Options{BaseURL: srv.URL, APIKey: "k"}), userRequest())
			if len(r.Events) != 0 {
				t.Errorf("events before the error: %v", providertest.JSON(r.Events))
			}
			e := r.Err
			if e == nil {
				t.Fatal("no error")
			}
			if e.Kind != tc.kind || e.Retryable != tc.kind.Retryable() || e.HTTPStatus != tc.status || e.RequestID != "req_1" ||
				e.Provider != "gemini" || e.Model != DefaultModel || !strings.Contains(e.Message, tc.msg) || e.RetryAfterMS != tc.retryAfter {
				t.Errorf("error %+v; want kind %s (retryable %v), status %d, request req_1, a message with %q, retry-after %d ms",
					e, tc.kind, tc.kind.Retryable(), tc.status, tc.msg, tc.retryAfter)
			}
		})
	}
}

// TestStreamErrors covers the errors written inside a 200 stream that the
// fixtures do not: each status Gemini may put there, and shapes that are
// not Google's.
func TestStreamErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       contract.ErrorKind
	}{
		{"503 as a data line", `data: {"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}`, contract.KindOverloaded},
		{"429 as a data line", `data: [{"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED"}}]`, contract.KindRateLimit},
		{"504 outside SSE", `{"error":{"code":504,"message":"Deadline expired","status":"DEADLINE_EXCEEDED"}}`, contract.KindTimeout},
		{"a status name without a code", `{"error":{"message":"nope","status":"PERMISSION_DENIED"}}`, contract.KindPermission},
		{"a bare code", `{"error":{"code":500,"message":"boom"}}`, contract.KindServer},
		{"400 context length", `{"error":{"code":400,"message":"The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`, contract.KindContextLength},
		{"an OpenAI-style error from a proxy", `data: {"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, contract.KindRateLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}\r\n\r\n" + tc.body + "\r\n"
			r := providertest.Collect(t, t.Context(), serve(t, http.StatusOK, "text/event-stream", body), userRequest())
			if r.Err == nil || r.Err.Kind != tc.kind || r.Err.Retryable != tc.kind.Retryable() || r.Err.Message == "" {
				t.Errorf("error %+v, want kind %s", r.Err, tc.kind)
			}
			if d := diffEvents([]contract.ModelEvent{started(), text("a")}, r.Events); d != "" {
				t.Errorf("events mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestGarbage covers bodies that are neither SSE nor an error, and bodies
// cut short.
func TestGarbage(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       contract.ErrorKind
	}{
		{"empty body", "", contract.KindStreamInterrupted},
		{"only a comment", ": hello\r\n\r\n", contract.KindStreamInterrupted},
		{"cut inside the field name", "da", contract.KindStreamInterrupted},
		{"cut inside JSON", `data: {"candidates":[{"content":{"parts":[{"te`, contract.KindStreamInterrupted},
		{"cut after a whole line", "data: {\"candidates\":[]}\r\n", contract.KindStreamInterrupted},
		{"a stray text line", "data: {\"candidates\":[]}\r\n\r\nhello there\r\n\r\n", contract.KindUnknown},
		{"an HTML page", "<html><body>502 Bad Gateway</body></html>\n", contract.KindUnknown},
		{"JSON that is not a response", "data: 42\r\n\r\n", contract.KindUnknown},
		{"a field of the wrong type", `data: {"candidates":[{"content":{"parts":[{"text":5}]}}]}` + "\r\n\r\n", contract.KindUnknown},
		{"a text part with a field of the wrong type", `data: {"candidates":[{"content":{"parts":[{"text":"a","thought":"yes"}]}}]}` + "\r\n\r\n", contract.KindUnknown},
		{"a signature of the wrong type on a part of no kind", `data: {"candidates":[{"content":{"parts":[{"thoughtSignature":5}]}}]}` + "\r\n\r\n", contract.KindUnknown},
		{"a call of the wrong shape", `data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":5},"inlineData":{}}]}}]}` + "\r\n\r\n", contract.KindUnknown},
		{"whole JSON cut short", `{"candidates":[{"content":`, contract.KindStreamInterrupted},
		{"whole JSON without a finish", `{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}`, contract.KindStreamInterrupted},
		{"whole JSON that is garbage", `{"candidates":[}`, contract.KindUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := providertest.Collect(t, t.Context(), serve(t, http.StatusOK, "text/event-stream", tc.body), userRequest())
			if r.Err == nil || r.Err.Kind != tc.kind {
				t.Errorf("error %+v, want kind %s; events %v", r.Err, tc.kind, providertest.JSON(r.Events))
			}
			for _, e := range r.Events {
				if _, ok := e.(*contract.ModelFinished); ok {
					t.Error("the stream finished")
				}
			}
		})
	}
}

// TestHTTPErrorsFromProxies checks that the Gemini refinements leave alone
// the error bodies of other shapes that a proxy in front of Gemini may
// send.
func TestHTTPErrorsFromProxies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		kind   contract.ErrorKind
	}{
		{"OpenAI-style quota", 429, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`, contract.KindQuota},
		{"OpenAI-style rate limit", 429, `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`, contract.KindRateLimit},
		{"plain text", 502, `Bad Gateway`, contract.KindServer},
		{"Ollama-style text error", 404, `{"error":"model not found"}`, contract.KindBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := providertest.Collect(t, t.Context(), serve(t, tc.status, "application/json", tc.body), userRequest())
			if r.Err == nil || r.Err.Kind != tc.kind || r.Err.HTTPStatus != tc.status {
				t.Errorf("error %+v, want kind %s", r.Err, tc.kind)
			}
		})
	}
}
