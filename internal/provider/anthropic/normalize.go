package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"iter"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// Normalize reads a raw Messages API response body and yields what it says
// as contract events, without any network: Stream uses it on the HTTP body,
// and `rein debug normalize` on a file.
//
// It yields model.started first, with ref's name, model and request id,
// then the text and reasoning deltas, the tool intents (deltas, then each
// proposed once its block has ended, or a malformed_tool_call error event
// when its input does not parse), the usage and model.finished, which
// carries the thinking to send back next turn as its provider state. A body
// that is one JSON message (a server that ignored "stream": true) is
// translated into the same events. It keeps the stream contract of
// provider.Provider: an "error" event ends the stream with that error
// mapped into the taxonomy; a body that ends before message_stop ends with
// stream_interrupted, and no call whose block has not ended is proposed; a
// cancelled ctx ends it with aborted; data that does not decode ends it
// with an error of kind unknown.
//
// The iterator is single-use; breaking out of the loop stops reading. It
// does not close body.
func Normalize(ctx context.Context, body io.Reader, ref contract.ProviderRef) iter.Seq2[contract.ModelEvent, error] {
	return provider.Normalize(ctx, body, ref, newTranslator(ref))
}

// Event decodes and translates one server-sent event, for
// provider.Normalize.
func (t *translator) Event(ev *sse.Event) ([]contract.ModelEvent, *contract.ProviderError, bool) {
	if ev.Unterminated && !wholeJSON(ev) {
		// The body ended inside this event, before its data was whole: a
		// cut, not garbage.
		return nil, provider.Interrupted(t.ref, "its message_stop event (the last event is cut short)"), true
	}
	f, err := decodeFrame(ev)
	if err != nil {
		return nil, undecodable(t.ref, err), true
	}
	events, perr := t.translate(f)
	return events, perr, t.done
}

// End is the end of a body before message_stop: the calls still open are
// dropped, never proposed, since their input may be cut short.
func (t *translator) End(bool) ([]contract.ModelEvent, *contract.ProviderError) {
	return nil, provider.Interrupted(t.ref, "its message_stop event")
}

// Whole translates a body that is one JSON message, or one JSON error.
func (t *translator) Whole(body []byte) ([]contract.ModelEvent, *contract.ProviderError) {
	f, err := decodeWhole(body)
	if err != nil {
		return nil, undecodable(t.ref, err)
	}
	events, perr := t.translate(f)
	if perr == nil && !t.done {
		// Only an error or a whole message decode from a body: both are
		// terminal, so this is not reached.
		perr = provider.Interrupted(t.ref, "a message")
	}
	return events, perr
}

// wholeJSON reports whether an event holds a whole JSON value: its data,
// or, for an event of stray lines only, those lines (an error body written
// without SSE framing).
func wholeJSON(ev *sse.Event) bool {
	if ev.Data != nil {
		return json.Valid(ev.Data)
	}
	return ev.Name == "" && json.Valid(ev.Stray)
}

// undecodable is the error of data that does not decode: the server sent
// something that is not the Messages API.
func undecodable(ref contract.ProviderRef, err error) *contract.ProviderError {
	e := provider.NewError(ref, contract.KindUnknown, err.Error())
	e.Err = err
	return e
}
