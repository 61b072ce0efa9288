package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// maxWhole bounds a whole (non-streamed) response body.
const maxWhole = sse.MaxLine

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
	return normalize(ctx, body, ref, slog.New(slog.DiscardHandler))
}

// normalize is Normalize, telling log once when the server sends choices
// other than choice 0.
func normalize(ctx context.Context, body io.Reader, ref contract.ProviderRef, log *slog.Logger) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		if !yield(&contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID}, nil) {
			return
		}
		n := &normalizer{ctx: ctx, ref: ref, t: newTranslator(ref), yield: yield, log: log}
		br := bufio.NewReaderSize(body, 4096)
		first, err := firstByte(br)
		switch {
		case errors.Is(err, io.EOF):
			n.fail(provider.Interrupted(ref, terminal))
		case err != nil:
			n.fail(provider.TransportError(ctx, ref, err, true))
		case first == '{':
			n.whole(br)
		default:
			n.stream(sse.NewReader(br))
		}
	}
}

// firstByte skips leading whitespace and returns the first byte of the
// body without consuming it.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.Discard(1) // a peeked byte is always there to discard
		default:
			return b[0], nil
		}
	}
}

// normalizer is one run of Normalize.
type normalizer struct {
	ctx   context.Context
	ref   contract.ProviderRef
	t     *translator
	yield func(contract.ModelEvent, error) bool
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
	events, perr := n.t.chunk(c, whole)
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

// emit yields events; it reports false when the consumer stopped.
func (n *normalizer) emit(events []contract.ModelEvent) bool {
	for _, ev := range events {
		if !n.yield(ev, nil) {
			return false
		}
	}
	return true
}

func (n *normalizer) fail(e *contract.ProviderError) {
	n.yield(nil, e)
}

// stream reads server-sent events to the terminal frame.
func (n *normalizer) stream(rd *sse.Reader) {
	for {
		if err := n.ctx.Err(); err != nil {
			n.fail(provider.TransportError(n.ctx, n.ref, err, true))
			return
		}
		ev, err := rd.Next()
		if err != nil {
			n.end(err)
			return
		}
		switch n.event(&ev) {
		case over:
			return
		case cut:
			// A frame that stops short is the body's cut-off tail when the
			// body ends inside it (no blank line closed it), and a broken
			// frame otherwise.
			if _, err := rd.Next(); err != nil && ev.Unterminated {
				n.end(err)
				return
			}
			n.fail(garbage(n.ref, "a stream frame is not valid JSON", ev.Data, errors.New("it stops short")))
			return
		}
	}
}

// end handles the end of the events: err is io.EOF when the body ended
// cleanly, another error when reading it failed.
func (n *normalizer) end(err error) {
	switch {
	case errors.Is(err, io.EOF) && n.t.finished:
		n.emit(n.t.end()) // usage may follow a finish_reason, but nothing must
	case errors.Is(err, io.EOF) && n.frames == 0 && n.stray != nil:
		n.fail(garbage(n.ref, "the response is not an event stream", n.stray, errors.New("no data frame")))
	case errors.Is(err, io.EOF):
		n.fail(provider.Interrupted(n.ref, terminal))
	case errors.Is(err, sse.ErrLineTooLong):
		n.fail(provider.NewError(n.ref, contract.KindUnknown, "openai: "+err.Error()))
	default:
		n.fail(provider.TransportError(n.ctx, n.ref, err, true))
	}
}

// outcome is what became of one event.
type outcome int

const (
	more outcome = iota // go on reading
	over                // the stream is over: its end, an error, or a consumer that stopped
	cut                 // the event's data stops short, as a cut-off body does
)

// event handles one server-sent event.
func (n *normalizer) event(ev *sse.Event) outcome {
	data := bytes.TrimSpace(ev.Data)
	switch {
	case ev.Name == "error":
		d, status, ok := decodeError(data)
		if !ok {
			d = provider.ParseErrorBody(data)
		}
		n.fail(streamError(n.ref, d, status))
		return over
	case string(data) == "[DONE]":
		n.emit(n.t.end())
		return over
	case len(data) > 0:
		n.frames++
		var c chunk
		if err := n.dec.decode(data, &c); err != nil {
			if stopsShort(data, err) {
				return cut
			}
			n.fail(garbage(n.ref, "a stream frame is not valid JSON", data, err))
			return over
		}
		events, perr := n.translate(&c, false)
		if !n.emit(events) {
			return over
		}
		if perr != nil {
			n.fail(perr)
			return over
		}
	}
	if len(ev.Stray) > 0 {
		// Lines outside any SSE field: some servers write an error body
		// after (or instead of) the events. Anything else is noise.
		if d, status, ok := decodeError(bytes.TrimSpace(ev.Stray)); ok {
			n.fail(streamError(n.ref, d, status))
			return over
		}
		if n.stray == nil && !fieldStart(ev.Stray) {
			n.stray = ev.Stray
		}
	}
	return more
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

// whole reads a whole chat.completion (or error) body.
func (n *normalizer) whole(br *bufio.Reader) {
	raw, err := io.ReadAll(io.LimitReader(br, maxWhole+1))
	if err != nil {
		n.fail(provider.TransportError(n.ctx, n.ref, err, true))
		return
	}
	if len(raw) > maxWhole {
		n.fail(provider.NewError(n.ref, contract.KindUnknown, fmt.Sprintf("openai: the response is larger than %d bytes", maxWhole)))
		return
	}
	raw = bytes.TrimSpace(raw)
	var c chunk
	if err := json.Unmarshal(raw, &c); err != nil {
		if stopsShort(raw, err) {
			n.fail(provider.Interrupted(n.ref, "the end of its JSON body"))
			return
		}
		n.fail(garbage(n.ref, "the response is not valid JSON", raw, err))
		return
	}
	events, perr := n.translate(&c, true)
	if !n.emit(events) {
		return
	}
	if perr != nil {
		n.fail(perr)
		return
	}
	if len(c.Choices) == 0 {
		n.fail(provider.NewError(n.ref, contract.KindUnknown, "openai: the response has neither choices nor an error: "+shorten(string(raw))))
		return
	}
	n.emit(n.t.end())
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
	excerpt := string(data)
	if len(excerpt) > 120 {
		excerpt = excerpt[:120] + "…"
	}
	e := provider.NewError(ref, contract.KindUnknown, fmt.Sprintf("openai: %s (%v): %q", what, err, excerpt))
	e.Err = err
	return e
}
