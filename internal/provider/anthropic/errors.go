package anthropic

import (
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// errorKind maps an Anthropic error into the taxonomy. status is the HTTP
// status, 0 for an "error" event inside a 200 stream. The API's error type
// decides where it is exact; the shared classifier does the rest (its
// message rules catch "prompt is too long: N tokens > M maximum" and "credit
// balance is too low" inside invalid_request_error).
func errorKind(status int, d provider.ErrorDetail) contract.ErrorKind {
	switch d.Type {
	case "overloaded_error":
		return contract.KindOverloaded
	case "rate_limit_error":
		return contract.KindRateLimit
	case "authentication_error":
		return contract.KindAuth
	case "permission_error":
		return contract.KindPermission
	case "billing_error":
		return contract.KindQuota
	case "request_too_large":
		return contract.KindContextLength
	case "not_found_error":
		return contract.KindBadRequest
	case "timeout_error":
		return contract.KindTimeout
	case "api_error":
		if provider.StatusKind(status) == contract.KindOverloaded {
			return contract.KindOverloaded
		}
		return contract.KindServer
	case "invalid_request_error":
		if k := provider.Classify(status, d); k != contract.KindUnknown {
			return k
		}
		return contract.KindBadRequest // an error event inside a 200 stream has no status
	}
	return provider.Classify(status, d)
}

// streamError is the terminal error an "error" event (or an error body in a
// 200 response) carries. requestID, when the body names one, is used if
// the response headers gave none.
func streamError(ref contract.ProviderRef, d provider.ErrorDetail, requestID string) *contract.ProviderError {
	if ref.RequestID == "" {
		ref.RequestID = requestID
	}
	msg := d.Message
	if msg == "" {
		msg = d.Type
	}
	if msg == "" {
		msg = "the stream reported an error without a message"
	}
	return provider.NewError(ref, errorKind(0, d), msg)
}
