package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// maxWholeBody bounds a whole (non-streamed) JSON response.
const maxWholeBody = 64 << 20

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
	return func(yield func(contract.ModelEvent, error) bool) {
		if !yield(&contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID}, nil) {
			return
		}
		br := bufio.NewReaderSize(body, 64<<10) // the size sse.NewReader asks for, so it reuses this reader
		t := newTranslator(ref)
		if isJSON(br) {
			normalizeWhole(ctx, br, t, yield)
			return
		}
		r := sse.NewReader(br)
		for {
			if ctx.Err() != nil {
				yield(nil, provider.TransportError(ctx, ref, context.Cause(ctx), true))
				return
			}
			ev, err := r.Next()
			switch {
			case errors.Is(err, io.EOF):
				// The calls still open are dropped, never proposed: their
				// input may be cut short.
				yield(nil, provider.Interrupted(ref, "its message_stop event"))
				return
			case errors.Is(err, sse.ErrLineTooLong):
				e := provider.NewError(ref, contract.KindUnknown, err.Error())
				e.Err = err
				yield(nil, e)
				return
			case err != nil:
				yield(nil, provider.TransportError(ctx, ref, err, true))
				return
			}
			if ev.Unterminated && !wholeJSON(&ev) {
				// The body ended inside this event, before its data was
				// whole: a cut, not garbage.
				yield(nil, provider.Interrupted(ref, "its message_stop event (the last event is cut short)"))
				return
			}
			f, err := decodeFrame(&ev)
			if err != nil {
				yield(nil, undecodable(ref, err))
				return
			}
			if !emit(t, f, yield) {
				return
			}
		}
	}
}

// emit translates f and yields its events, then its error. It reports
// whether the stream goes on.
func emit(t *translator, f frame, yield func(contract.ModelEvent, error) bool) bool {
	events, perr := t.frame(f)
	for _, ev := range events {
		if !yield(ev, nil) {
			return false
		}
	}
	if perr != nil {
		yield(nil, perr)
		return false
	}
	return !t.done
}

// normalizeWhole translates a body that is one JSON message, or one JSON
// error.
func normalizeWhole(ctx context.Context, r io.Reader, t *translator, yield func(contract.ModelEvent, error) bool) {
	body, err := io.ReadAll(io.LimitReader(r, maxWholeBody))
	if err != nil {
		yield(nil, provider.TransportError(ctx, t.ref, err, true))
		return
	}
	if ctx.Err() != nil {
		yield(nil, provider.TransportError(ctx, t.ref, context.Cause(ctx), true))
		return
	}
	f, err := decodeWhole(body)
	if err != nil {
		if truncated(body) {
			e := provider.Interrupted(t.ref, "the end of its JSON message")
			e.Err = err
			yield(nil, e)
			return
		}
		yield(nil, undecodable(t.ref, err))
		return
	}
	if emit(t, f, yield) {
		// Only an error or a whole message decode from a body: both are
		// terminal, so this is not reached.
		yield(nil, provider.Interrupted(t.ref, "a message"))
	}
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

// isJSON reports whether the body starts, after white space, with '{': a
// whole JSON response rather than server-sent events, which start with a
// field name, a comment or a blank line. It only peeks.
func isJSON(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n++ {
		b, _ := br.Peek(n) // fewer than n bytes: the error is the body's end or failure, seen again by whoever reads next
		if len(b) < n {
			return false
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// truncated reports whether body is the start of a JSON value cut short,
// so that a decoding failure is told apart from a body of the wrong shape.
func truncated(body []byte) bool {
	var v json.RawMessage
	err := json.NewDecoder(bytes.NewReader(body)).Decode(&v)
	return errors.Is(err, io.ErrUnexpectedEOF)
}
