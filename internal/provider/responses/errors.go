package responses

import (
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// classify maps an error (an HTTP status, 0 for one inside a 200 stream,
// and what the body says) to a kind: the shared rules first, which know
// OpenAI's rate_limit_exceeded, insufficient_quota and
// context_length_exceeded; then, where they fell back on the status alone,
// the Responses API's own codes.
func classify(status int, d provider.ErrorDetail) contract.ErrorKind {
	kind := provider.Classify(status, d)
	if kind != provider.StatusKind(status) {
		return kind // the code or the message said more than the status
	}
	code := strings.ToLower(d.Code)
	msg := strings.ToLower(d.Message)
	switch {
	case code == "server_error" || code == "internal_error" || code == "internal_server_error":
		// response.failed's usual code for a failure on the server's side.
		return contract.KindServer
	case code == "server_is_overloaded" || code == "slow_down":
		return contract.KindOverloaded
	case code == "unsupported_parameter" || code == "unsupported_value" ||
		strings.Contains(msg, "is not supported with this model") ||
		strings.Contains(msg, "unsupported parameter"):
		// "Encrypted content is not supported with this model", a
		// parameter a model or a compatible server does not take.
		return contract.KindUnsupportedFeature
	case code == "invalid_prompt" || code == "model_not_found" || code == "invalid_request_error":
		return contract.KindBadRequest
	}
	return kind
}
