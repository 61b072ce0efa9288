package provider

import (
	"context"
	"iter"

	"github.com/rein-agent/rein/internal/contract"
)

// Provider streams one model call.
//
// Implementations are request-scoped: state lives only for the duration of
// one Stream call. They are safe for concurrent use unless their own
// documentation says otherwise, since every call is independent.
type Provider interface {
	// Stream sends req and yields the model's events in order. A non-nil
	// error is always the last pair yielded, with a nil event, and is a
	// *contract.ProviderError. A stream that ends normally ends with a
	// *contract.ModelFinished; one that ends without its terminal frame
	// ends with a stream_interrupted error (retryable); a cancelled ctx
	// ends it with an aborted error. A *contract.ProviderError of kind
	// malformed_tool_call may also be yielded mid-stream as an event, with
	// a nil error, when one tool call's arguments cannot be parsed; the
	// stream may go on after it.
	//
	// Stream returns a single-use iterator: the request starts when the
	// iteration does, and breaking out of the loop early releases
	// everything it holds. Stream must not modify req.
	Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error]
}
