package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// googleError is Google's error body: {"error": {"code": 429, "message":
// "...", "status": "RESOURCE_EXHAUSTED", "details": [...]}}, sometimes
// wrapped in a JSON array.
type googleError struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Status  string `json:"status"`
		Details []struct {
			Reason string `json:"reason"`
		} `json:"details"`
	} `json:"error"`
}

// decodeGoogleError reads body as Google's error shape; ok is false when it
// is not one.
func decodeGoogleError(body []byte) (g googleError, ok bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(body, &list) != nil || len(list) == 0 {
			return g, false
		}
		body = list[0]
	}
	if json.Unmarshal(body, &g) != nil || g.Error == nil {
		return g, false
	}
	return g, true
}

// streamError maps an error object found inside a 200 stream: a data line
// {"error": {...}}, or a JSON body written after the SSE lines. Its kind
// comes from the error's own code and status, since the HTTP status (200)
// says nothing.
func streamError(ref contract.ProviderRef, body []byte) *contract.ProviderError {
	d := provider.ParseErrorBody(body)
	status := 0
	if g, ok := decodeGoogleError(body); ok {
		status = g.Error.Code
		if s := statusOf(g.Error.Status); s != 0 {
			status = s
		}
	}
	kind := provider.Classify(status, d)
	if k, ok := refine(body); ok {
		kind = k
	}
	msg := d.Message
	if msg == "" {
		msg = "the stream reported an error"
	}
	e := provider.NewError(ref, kind, msg)
	e.RetryAfterMS = provider.RetryAfterMS(http.Header{}, body)
	return e
}

// refine returns the kind Google's error body calls for where the general
// classification would get it wrong, and ok false when it has nothing to
// add.
func refine(body []byte) (contract.ErrorKind, bool) {
	g, ok := decodeGoogleError(body)
	if !ok {
		return "", false
	}
	e := g.Error
	msg := strings.ToLower(e.Message)
	reason := ""
	for _, d := range e.Details {
		if d.Reason != "" {
			reason = d.Reason
		}
	}
	switch {
	case reason == "API_KEY_INVALID" || e.Status == "UNAUTHENTICATED":
		return contract.KindAuth, true
	case e.Status == "PERMISSION_DENIED" && (strings.Contains(msg, "unregistered callers") || strings.Contains(msg, "reported as leaked")):
		// No key at all, or a key Google revoked: a key problem, which the
		// user fixes by setting another key, not a permission to ask for.
		return contract.KindAuth, true
	case e.Status == "RESOURCE_EXHAUSTED":
		// Gemini's 429 says "You exceeded your current quota, please check
		// your plan and billing details" for per-minute limits that lift
		// after RetryInfo.retryDelay: a rate limit, whatever the words.
		// "limit: 0" is a quota the project does not have at all.
		if strings.Contains(msg, "limit: 0") {
			return contract.KindQuota, true
		}
		return contract.KindRateLimit, true
	case strings.Contains(msg, "input token count") && strings.Contains(msg, "exceeds"):
		// "The input token count (1200000) exceeds the maximum number of
		// tokens allowed (1048576)."
		return contract.KindContextLength, true
	}
	return "", false
}

// statusOf maps a google.rpc status name to the HTTP status Google pairs it
// with; 0 for names it does not know.
func statusOf(name string) int {
	switch name {
	case "INVALID_ARGUMENT", "FAILED_PRECONDITION", "OUT_OF_RANGE":
		return http.StatusBadRequest
	case "UNAUTHENTICATED":
		return http.StatusUnauthorized
	case "PERMISSION_DENIED":
		return http.StatusForbidden
	case "NOT_FOUND":
		return http.StatusNotFound
	case "RESOURCE_EXHAUSTED":
		return http.StatusTooManyRequests
	case "INTERNAL", "UNKNOWN", "DATA_LOSS":
		return http.StatusInternalServerError
	case "UNIMPLEMENTED":
		return http.StatusNotImplemented
	case "UNAVAILABLE":
		return http.StatusServiceUnavailable
	case "DEADLINE_EXCEEDED":
		return http.StatusGatewayTimeout
	}
	return 0
}
