package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// terminal names the frames that end a stream, for the error of a stream
// that ends without one.
const terminal = "[DONE] or a finish_reason"

// Normalize reads a raw Chat Completions response body and yields what it
// says as events, without any network: Stream runs it on the HTTP body, and
// `rein debug normalize` on a file. It yields model.started first, with
// ref's name, model and request id, then keeps the whole stream contract of
// provider.Provider.
//
// The body is a stream of server-sent events, or a whole chat.completion
// JSON object (a server that ignored "stream": true), told apart by its
// first byte. A stream is complete at "data: [DONE]", or at its end after a
// finish_reason arrived: usage may follow the finish_reason, so reading
// goes on until one or the other. Any other end is stream_interrupted. An
// error in the stream ({"error": ...} in a frame, an "error" event, an
// error body after the events) is the terminal error, mapped into the
// taxonomy; a frame that is not JSON ends the stream with an error of kind
// unknown.
//
// Only choice 0 is read; a server that sends others is not told here (see
// Options.Logger for the adapter's notice).
func Normalize(ctx context.Context, body io.Reader, ref contract.ProviderRef) iter.Seq2[contract.ModelEvent, error] {
	return provider.Normalize(ctx, body, ref, &normalizer{ref: ref, t: newTranslator(ref), log: slog.New(slog.DiscardHandler)})
}

// normalizer reads one body for provider.Normalize.
type normalizer struct {
	ref contract.ProviderRef
	t   *translator
	// frames counts data frames; stray keeps the first lines that were
	// not SSE, to tell a body that is no event stream at all (a web page
	// at a wrong base URL) from one cut short.
	frames int
	stray  []byte
	dec    frameDecoder
	// log hears of choices other than choice 0, once (told is then set).
	log  *slog.Logger
	told bool
}

// translate translates one chunk, and tells the log, once, of choices
// other than choice 0.
func (n *normalizer) translate(c *chunk, whole bool) ([]contract.ModelEvent, *contract.ProviderError) {
	events, perr := n.t.translate(c, whole)
	if n.t.others && !n.told {
		n.told = true
		attrs := []any{"provider", n.ref.Name, "model", n.ref.Model}
		if n.ref.RequestID != "" {
			attrs = append(attrs, "request_id", n.ref.RequestID)
		}
		n.log.Warn("the server sent more than one choice; rein reads choice 0 only and ignores the others", attrs...)
	}
	return events, perr
}

// End handles the end of the events: a stream is complete at its end once
// a finish_reason came (usage may follow one, but nothing must).
func (n *normalizer) End(bool) ([]contract.ModelEvent, *contract.ProviderError) {
	switch {
	case n.t.finished:
		return n.t.end(), nil
	case n.frames == 0 && n.stray != nil:
		return nil, garbage(n.ref, "the response is not an event stream", n.stray, errors.New("no data frame"))
	}
	return nil, provider.Interrupted(n.ref, terminal)
}

// Event handles one server-sent event, for provider.Normalize.
func (n *normalizer) Event(ev *sse.Event) ([]contract.ModelEvent, *contract.ProviderError, bool) {
	data := bytes.TrimSpace(ev.Data)
	switch {
	case ev.Name == "error":
		d, status, ok := decodeError(data)
		if !ok {
			d = provider.ParseErrorBody(data)
		}
		return nil, streamError(n.ref, d, status), true
	case string(data) == "[DONE]":
		return n.t.end(), nil, true
	case len(data) > 0:
		n.frames++
		var c chunk
		if err := n.dec.decode(data, &c); err != nil {
			if stopsShort(data, err) && ev.Unterminated {
				// The body ends inside this frame (no blank line closed
				// it): its cut-off tail.
				events, perr := n.End(false)
				return events, perr, true
			}
			return nil, undecodable(n.ref, data, err), true
		}
		events, perr := n.translate(&c, false)
		if perr != nil || len(ev.Stray) == 0 {
			return events, perr, perr != nil
		}
		events = slices.Clone(events) // the translator reuses its slice
		perr = n.strayLines(ev.Stray)
		return events, perr, perr != nil
	}
	perr := n.strayLines(ev.Stray)
	return nil, perr, perr != nil
}

// undecodable is the error of a data frame that does not decode, and is
// not the cut-off tail of the body: a frame that stops short with a blank
// line after it is broken.
func undecodable(ref contract.ProviderRef, data []byte, err error) *contract.ProviderError {
	if stopsShort(data, err) {
		err = errors.New("it stops short")
	}
	return garbage(ref, "a stream frame is not valid JSON", data, err)
}

// strayLines reads lines outside any SSE field: some servers write an
// error body after (or instead of) the events. Anything else is noise.
func (n *normalizer) strayLines(stray []byte) *contract.ProviderError {
	if len(stray) == 0 {
		return nil
	}
	if d, status, ok := decodeError(bytes.TrimSpace(stray)); ok {
		return streamError(n.ref, d, status)
	}
	if n.stray == nil && !fieldStart(stray) {
		n.stray = stray
	}
	return nil
}

// stopsShort reports whether data failed to decode only because it ends
// too early: the start of [DONE], or JSON cut off. The frame decoder says
// so with io.ErrUnexpectedEOF; json.Unmarshal (a whole response) with a
// syntax error at the end of the input, or at the space it pretends
// follows it in the middle of a literal. data has no trailing whitespace
// of its own.
func stopsShort(data []byte, err error) bool {
	if len(data) < len("[DONE]") && strings.HasPrefix("[DONE]", string(data)) {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	if se, ok := errors.AsType[*json.SyntaxError](err); ok && se.Offset >= int64(len(data)) {
		msg := se.Error()
		return msg == "unexpected end of JSON input" || strings.HasPrefix(msg, "invalid character ' '")
	}
	return false
}

// Whole reads a whole chat.completion (or error) body.
func (n *normalizer) Whole(raw []byte) ([]contract.ModelEvent, *contract.ProviderError) {
	raw = bytes.TrimSpace(raw)
	var c chunk
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, garbage(n.ref, "the response is not valid JSON", raw, err)
	}
	events, perr := n.translate(&c, true)
	if perr != nil {
		return events, perr
	}
	if len(c.Choices) == 0 {
		return events, provider.NewError(n.ref, contract.KindUnknown, "openai: the response has neither choices nor an error: "+excerpt.Text(string(raw), provider.ErrorTextMax))
	}
	events = slices.Clone(events) // the translator reuses its slice
	return append(events, n.t.end()...), nil
}

// decodeError reads data as an error body; ok is false when it is not one.
func decodeError(data []byte) (provider.ErrorDetail, int, bool) {
	var b errorBody
	if len(data) == 0 || data[0] != '{' || json.Unmarshal(data, &b) != nil {
		return provider.ErrorDetail{}, 0, false
	}
	return b.detail()
}

// fieldStart reports whether a stray line is only the start of an SSE
// field, as a body cut off in its last line leaves it.
func fieldStart(stray []byte) bool {
	for _, f := range []string{"data:", "event:", "id:", "retry:"} {
		if strings.HasPrefix(f, string(stray)) {
			return true
		}
	}
	return false
}

// garbage is the error for bytes that are not what they should be.
func garbage(ref contract.ProviderRef, what string, data []byte, err error) *contract.ProviderError {
	e := provider.NewError(ref, contract.KindUnknown, fmt.Sprintf("openai: %s (%v): %q", what, err, excerpt.Bytes(data, 120)))
	e.Err = err
	return e
}
