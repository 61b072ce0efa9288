package provider

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
)

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// NewError returns a ProviderError of kind for ref, retryable as the kind
// is by default.
func NewError(ref contract.ProviderRef, kind contract.ErrorKind, msg string) *contract.ProviderError {
	return &contract.ProviderError{
		Kind: kind, Retryable: kind.Retryable(), Provider: ref.Name, Model: ref.Model,
		RequestID: ref.RequestID, Message: msg,
	}
}

// ResponseError maps an HTTP response whose status is not a success to a
// ProviderError: the kind from the status and the vendor's code, type and
// message, the request id from the usual headers, and the retry hint from
// the headers or the body. It reads at most 64 KiB of the body; the caller
// closes it.
func ResponseError(ref contract.ProviderRef, resp *http.Response) *contract.ProviderError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody)) // what was read is all there is to report
	if ref.RequestID == "" {
		ref.RequestID = RequestID(resp.Header)
	}
	d := ParseErrorBody(body)
	if d.Message == "" {
		d.Message = http.StatusText(resp.StatusCode)
	}
	kind := Classify(resp.StatusCode, d)
	e := NewError(ref, kind, d.Message)
	e.HTTPStatus = resp.StatusCode
	e.RetryAfterMS = RetryAfterMS(resp.Header, body)
	return e
}

// RequestID returns the vendor's request id from the response headers.
func RequestID(h http.Header) string {
	for _, k := range []string{"x-request-id", "request-id", "x-goog-request-id", "openai-request-id", "cf-ray"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// ErrorDetail is what a vendor's error body says, whatever its shape.
type ErrorDetail struct {
	// Code is the vendor's machine code (rate_limit_exceeded,
	// insufficient_quota, API_KEY_INVALID, RESOURCE_EXHAUSTED...).
	Code string
	// Type is the vendor's error type (overloaded_error, invalid_request_error...).
	Type string
	// Message is the text meant for people.
	Message string
}

// ErrorBody is the outer shape of the error bodies vendors send:
// {"error": {...}}, {"error": "text"} (Ollama), {"object": "error", ...}
// (vLLM), {"type": "error", "error": {...}} (Anthropic), and Gemini's
// {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [...]}}.
// The fields whose type differs between vendors are kept raw. Its zero
// value is an empty body; [ParseErrorBody] reads one, and an adapter
// whose vendor says more inside "error" reads that part itself.
type ErrorBody struct {
	// Error is the error object, or its text; absent or null when the
	// body has none.
	Error json.RawMessage `json:"error"`
	// Object is "error" on a vLLM-style body with its fields at the top.
	Object string `json:"object"`
	// Message is a string, or Mistral's {"detail": [...]}.
	Message json.RawMessage `json:"message"`
	// Type is the error type of a top-level body ("error" for Anthropic).
	Type string `json:"type"`
	// Code is a string or a number.
	Code json.RawMessage `json:"code"`
}

type errorObject struct {
	Message string          `json:"message"`
	Type    string          `json:"type"`
	Code    json.RawMessage `json:"code"`
	Status  string          `json:"status"`
	Details []struct {
		Reason string `json:"reason"`
	} `json:"details"`
}

// ParseErrorBody reads an error body in any of the shapes vendors use; a
// body that is not JSON is its own message (trimmed and shortened).
func ParseErrorBody(body []byte) ErrorDetail {
	body = []byte(strings.TrimSpace(string(body)))
	if len(body) > 0 && body[0] == '[' { // Gemini sometimes wraps the error in a list
		var list []json.RawMessage
		if json.Unmarshal(body, &list) == nil && len(list) > 0 {
			body = list[0]
		}
	}
	var s ErrorBody
	if err := json.Unmarshal(body, &s); err != nil {
		return ErrorDetail{Message: excerpt.Text(string(body), ErrorTextMax)}
	}
	if len(s.Error) > 0 && string(s.Error) != "null" {
		var text string
		if json.Unmarshal(s.Error, &text) == nil {
			return ErrorDetail{Message: text}
		}
		var o errorObject
		if json.Unmarshal(s.Error, &o) == nil {
			d := ErrorDetail{Message: o.Message, Type: o.Type, Code: CodeString(o.Code)}
			if o.Status != "" { // Gemini: the status is the code that matters
				d.Type = o.Status
			}
			for _, det := range o.Details {
				if det.Reason != "" {
					d.Code = det.Reason
				}
			}
			return d
		}
	}
	// A JSON object with none of the known fields says nothing a person
	// can use; the caller falls back to the status text.
	return ErrorDetail{Message: MessageText(s.Message), Type: s.Type, Code: CodeString(s.Code)}
}

// MessageText reads the message of an error body, which is a string or,
// as Mistral sends its validation errors, an object: {"detail": [{"type",
// "loc", "msg"}]} is shown as "loc: msg (type)" for each failure, any other
// value as its JSON, shortened. null is no message.
func MessageText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var v struct {
		Detail []struct {
			Type string            `json:"type"`
			Loc  []json.RawMessage `json:"loc"`
			Msg  string            `json:"msg"`
		} `json:"detail"`
	}
	if json.Unmarshal(raw, &v) != nil || len(v.Detail) == 0 {
		return excerpt.Text(string(raw), ErrorTextMax)
	}
	parts := make([]string, 0, len(v.Detail))
	for _, f := range v.Detail {
		loc := make([]string, 0, len(f.Loc))
		for _, l := range f.Loc {
			loc = append(loc, strings.Trim(string(l), `"`))
		}
		parts = append(parts, strings.Join(loc, ".")+": "+f.Msg+" ("+f.Type+")")
	}
	return strings.Join(parts, "; ")
}

// CodeString reads the code of an error body, which is a string or a
// number (given as its JSON text); anything else, null included, is no
// code.
func CodeString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// ErrorTextMax is how many bytes of what a server sent an error message
// quotes at most.
const ErrorTextMax = 500

// codeKinds maps vendors' machine codes and error types to kinds. A code
// is more reliable than a message: OpenAI's rate-limit message points to a
// billing page, for one.
var codeKinds = map[string]contract.ErrorKind{
	"rate_limit_exceeded": contract.KindRateLimit, "rate_limit_error": contract.KindRateLimit,
	"resource_exhausted": contract.KindRateLimit, "tokens": contract.KindRateLimit, "requests": contract.KindRateLimit,
	"insufficient_quota": contract.KindQuota, "billing_hard_limit_reached": contract.KindQuota,
	"context_length_exceeded": contract.KindContextLength, "exceed_context_size_error": contract.KindContextLength,
	"string_above_max_length": contract.KindContextLength,
	"invalid_api_key":         contract.KindAuth, "api_key_invalid": contract.KindAuth, "authentication_error": contract.KindAuth,
	"unauthenticated":  contract.KindAuth,
	"permission_error": contract.KindPermission, "permission_denied": contract.KindPermission,
	"overloaded_error": contract.KindOverloaded, "unavailable": contract.KindOverloaded,
	"api_error": contract.KindServer, "internal": contract.KindServer, "server_error": contract.KindServer,
	"not_found_error": contract.KindBadRequest, "model_not_found": contract.KindBadRequest,
	"tool_use_failed": contract.KindMalformedToolCall,
	// Generic codes (invalid_request_error, invalid_argument) are left out
	// on purpose: vendors use them for quota, balance and context errors
	// too, which the message and the status tell apart.
}

// Classify maps an HTTP status (0 for an error inside a 200 stream) and the
// vendor's error detail to a kind of the taxonomy: the message when it
// names a too-long context (vendors file that under generic codes), then
// overload (503, 529, or a message saying so), then the vendor's code,
// then its type, then the message, then the status.
func Classify(status int, d ErrorDetail) contract.ErrorKind {
	msg := strings.ToLower(d.Message)
	if containsAny(msg, "context_length", "context length", "prompt is too long", "exceed_context_size",
		"maximum context", "context window", "available context size", "maximum prompt length",
		"input token count", "too many tokens") {
		return contract.KindContextLength
	}
	if status == http.StatusServiceUnavailable || status == 529 || strings.Contains(msg, "overloaded") {
		return contract.KindOverloaded
	}
	for _, c := range []string{d.Code, d.Type} {
		if k, ok := codeKinds[strings.ToLower(c)]; ok {
			return k
		}
	}
	switch {
	case containsAny(msg, "insufficient_quota", "credit balance", "quota exceeded", "exceeded your current quota", "insufficient balance"):
		return contract.KindQuota
	case containsAny(msg, "invalid api key", "incorrect api key", "api key not valid", "invalid x-api-key"):
		return contract.KindAuth
	case containsAny(msg, "rate limit", "rate_limit", "too many requests"):
		return contract.KindRateLimit
	}
	return StatusKind(status)
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// StatusKind maps an HTTP status alone to a kind.
func StatusKind(status int) contract.ErrorKind {
	switch {
	case status == http.StatusUnauthorized:
		return contract.KindAuth
	case status == http.StatusForbidden:
		return contract.KindPermission
	case status == http.StatusPaymentRequired:
		return contract.KindQuota
	case status == http.StatusRequestTimeout, status == http.StatusGatewayTimeout:
		return contract.KindTimeout
	case status == http.StatusRequestEntityTooLarge:
		return contract.KindContextLength
	case status == http.StatusTooManyRequests:
		return contract.KindRateLimit
	case status == http.StatusServiceUnavailable, status == 529:
		return contract.KindOverloaded
	case status >= 500:
		return contract.KindServer
	case status == http.StatusNotFound, status == http.StatusNotImplemented:
		return contract.KindBadRequest
	case status >= 400:
		return contract.KindBadRequest
	}
	return contract.KindUnknown
}

// RetryAfterMS reads a retry hint, in milliseconds: the retry-after-ms and
// retry-after headers (seconds or an HTTP date), else the body's "try
// again in 11.054s" (OpenAI) or "retryDelay": "13s" (Gemini). Zero means
// no hint.
func RetryAfterMS(h http.Header, body []byte) int64 {
	if v := h.Get("retry-after-ms"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return int64(f)
		}
	}
	if v := h.Get("retry-after"); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
			return int64(f * 1000)
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := time.Until(t); d > 0 {
				return d.Milliseconds()
			}
		}
	}
	s := string(body)
	for _, marker := range []string{"try again in ", `"retryDelay": "`, `"retryDelay":"`} {
		i := strings.Index(s, marker)
		if i < 0 {
			continue
		}
		rest := s[i+len(marker):]
		end := strings.IndexFunc(rest, func(r rune) bool {
			return !(r >= '0' && r <= '9' || r == '.' || r == 'm' || r == 's' || r == 'h')
		})
		if end < 0 {
			end = len(rest)
		}
		if d, err := time.ParseDuration(strings.TrimSuffix(rest[:end], ".")); err == nil && d > 0 {
			return d.Milliseconds()
		}
	}
	return 0
}

// TransportError maps a failure to get a response, or to read the body, to
// a ProviderError: aborted when ctx was cancelled, timeout on a deadline,
// stream_interrupted once the response had begun (started); before it,
// network for a connection that could not be made (refused, DNS, TLS,
// reset or closed before any byte), timeout for a response that took too
// long, and otherwise a retryable unknown. The message never holds the
// request's URL, where credentials may hide; [Post] names the endpoint in
// a network error.
func TransportError(ctx context.Context, ref contract.ProviderRef, err error, started bool) *contract.ProviderError {
	return transportError(ctx, ref, "", err, started)
}

// transportError is TransportError, naming endpoint (already shown
// without credentials) in a network error.
func transportError(ctx context.Context, ref contract.ProviderRef, endpoint string, err error, started bool) *contract.ProviderError {
	var e *contract.ProviderError
	var ne net.Error
	switch {
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		e = NewError(ref, contract.KindTimeout, "the request timed out: "+errorText(err))
	case ctx.Err() != nil:
		e = NewError(ref, contract.KindAborted, "the request was cancelled")
	case errors.Is(err, ErrRedirect):
		e = NewError(ref, contract.KindBadRequest, errorText(err)+"; set the base URL to where the server redirects, if you trust it")
	case started:
		e = NewError(ref, contract.KindStreamInterrupted, "the stream broke off: "+errorText(err))
	default:
		e = connectError(ref, endpoint, err)
	}
	switch {
	case e != nil:
	case errors.As(err, &ne) && ne.Timeout():
		e = NewError(ref, contract.KindTimeout, errorText(err))
	default:
		e = NewError(ref, contract.KindUnknown, "cannot reach the server: "+errorText(err))
		e.Retryable = true
	}
	e.Err = err
	return e
}

// errorText is err's text without the request's method and URL that a
// *url.Error adds: the URL may hold credentials (a key in the query).
func errorText(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok && ue.Err != nil {
		return ue.Err.Error()
	}
	return err.Error()
}

// Interrupted is the error of a stream that ended without its terminal
// frame.
func Interrupted(ref contract.ProviderRef, what string) *contract.ProviderError {
	return NewError(ref, contract.KindStreamInterrupted, "the stream ended without "+what)
}
