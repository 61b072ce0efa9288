package contract

import (
	"fmt"
	"time"
)

// ErrorKind classifies a provider failure so the kernel can decide what to
// do next (retry, fall back, compact, stop). The zero value is not a valid
// kind; use [KindUnknown] when nothing better is known.
type ErrorKind string

// The provider error taxonomy of DESIGN.md section 3.
const (
	KindAuth               ErrorKind = "auth"
	KindPermission         ErrorKind = "permission"
	KindRateLimit          ErrorKind = "rate_limit"
	KindQuota              ErrorKind = "quota"
	KindTimeout            ErrorKind = "timeout"
	KindNetwork            ErrorKind = "network"
	KindOverloaded         ErrorKind = "overloaded"
	KindServer             ErrorKind = "server"
	KindBadRequest         ErrorKind = "bad_request"
	KindContextLength      ErrorKind = "context_length"
	KindStreamInterrupted  ErrorKind = "stream_interrupted"
	KindUnsupportedFeature ErrorKind = "unsupported_feature"
	KindMalformedToolCall  ErrorKind = "malformed_tool_call"
	KindAborted            ErrorKind = "aborted"
	KindUnknown            ErrorKind = "unknown"
)

// ErrorKinds lists every kind of the taxonomy, in catalogue order.
var ErrorKinds = []ErrorKind{
	KindAuth, KindPermission, KindRateLimit, KindQuota, KindTimeout, KindNetwork,
	KindOverloaded, KindServer, KindBadRequest, KindContextLength,
	KindStreamInterrupted, KindUnsupportedFeature, KindMalformedToolCall,
	KindAborted, KindUnknown,
}

// Retryable reports whether a failure of this kind is worth retrying by
// default: rate limits, timeouts, connections that could not be made,
// overload, server errors and interrupted streams are; everything else is
// not.
func (k ErrorKind) Retryable() bool {
	switch k {
	case KindRateLimit, KindTimeout, KindNetwork, KindOverloaded, KindServer, KindStreamInterrupted:
		return true
	}
	return false
}

// Phrase is the kind in a few words for people: "rate limited", "server
// overloaded", "no response"...
func (k ErrorKind) Phrase() string {
	switch k {
	case KindAuth:
		return "key refused"
	case KindPermission:
		return "not permitted"
	case KindRateLimit:
		return "rate limited"
	case KindQuota:
		return "out of quota"
	case KindTimeout:
		return "no response in time"
	case KindNetwork:
		return "cannot connect"
	case KindOverloaded:
		return "server overloaded"
	case KindServer:
		return "server error"
	case KindBadRequest:
		return "request refused"
	case KindContextLength:
		return "conversation too long"
	case KindStreamInterrupted:
		return "the stream broke off"
	case KindUnsupportedFeature:
		return "feature not supported"
	case KindMalformedToolCall:
		return "malformed tool call"
	case KindAborted:
		return "stopped"
	}
	return "unknown error"
}

// ProviderError is a model provider's failure, mapped into the taxonomy. It
// is both a Go error (the last pair a provider stream yields) and the
// payload of the durable "provider.error" event.
//
// A ProviderError is plain data: it is safe to copy and to share once built.
// It never carries credentials: adapters put only the vendor's message here.
type ProviderError struct {
	Kind       ErrorKind `json:"kind"`
	Retryable  bool      `json:"retryable"`
	Provider   string    `json:"provider,omitempty"`
	Model      string    `json:"model,omitempty"`
	RequestID  string    `json:"request_id,omitempty"`
	HTTPStatus int       `json:"http_status,omitempty"`
	Message    string    `json:"message"`
	// RetryAfterMS is the server's hint of how long to wait before trying
	// again, in milliseconds; zero means no hint.
	RetryAfterMS int64 `json:"retry_after_ms,omitempty"`

	// Err is the underlying cause, if any. It is not serialised.
	Err error `json:"-"`
}

// Error formats the error as "provider: kind: message (http N, request R)".
func (e *ProviderError) Error() string {
	s := string(e.Kind)
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	switch {
	case e.HTTPStatus != 0 && e.RequestID != "":
		s += fmt.Sprintf(" (http %d, request %s)", e.HTTPStatus, e.RequestID)
	case e.HTTPStatus != 0:
		s += fmt.Sprintf(" (http %d)", e.HTTPStatus)
	case e.RequestID != "":
		s += fmt.Sprintf(" (request %s)", e.RequestID)
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *ProviderError) Unwrap() error { return e.Err }

// RetryAfter returns the retry hint as a duration; zero means none.
func (e *ProviderError) RetryAfter() time.Duration {
	return time.Duration(e.RetryAfterMS) * time.Millisecond
}

// EventType returns "provider.error".
func (*ProviderError) EventType() string { return TypeProviderError }

func (*ProviderError) isEvent()      {}
func (*ProviderError) isModelEvent() {}
