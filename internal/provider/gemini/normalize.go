package gemini

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// maxWholeBody bounds a response read whole (a server that answered JSON
// instead of SSE).
const maxWholeBody = 64 << 20

// Normalize reads a raw response body of streamGenerateContent and yields
// what it says as events, without any network: [Adapter.Stream] runs it on
// the HTTP body, `rein debug normalize --api gemini` on a file.
//
// It yields model.started first, with ref's name, model and request id,
// then the deltas, intents and usage, and ends with model.finished once
// the body ends after its terminal frame (a candidate with a
// finishReason, or a blocked prompt). A body that ends before it ends with
// a stream_interrupted error; an error object in the body ends it with
// that error, mapped into the taxonomy; a line that is neither SSE nor an
// error ends it with an error of kind unknown. A body that is one JSON
// response, or a JSON array of them (a server that ignored alt=sse), is
// read whole and translated the same way. A cancelled ctx ends the stream
// with aborted.
//
// The iterator is single-use. Normalize does not close body.
func Normalize(ctx context.Context, body io.Reader, ref contract.ProviderRef) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		if !yield(&contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID}, nil) {
			return
		}
		n := normalizer{ctx: ctx, ref: ref, tr: newTranslator(ref), tail: &tailReader{r: body}}
		n.run(yield)
	}
}

// normalizer reads one body.
type normalizer struct {
	ctx  context.Context
	ref  contract.ProviderRef
	tr   *translator
	tail *tailReader
}

// tailReader remembers the last byte read, so that a body that stops in
// the middle of a line can be told from one whose last line is complete.
type tailReader struct {
	r    io.Reader
	last byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.last = p[n-1]
	}
	return n, err
}

// cut reports whether the body ended in the middle of a line. It is only
// meaningful once the body has been read to its end.
func (t *tailReader) cut() bool { return t.last != '\n' && t.last != '\r' && t.last != 0 }

func (n *normalizer) run(yield func(contract.ModelEvent, error) bool) {
	br := bufio.NewReaderSize(n.tail, 64<<10)
	if first, err := firstByte(br); err == nil && (first == '{' || first == '[') {
		n.whole(br, yield)
		return
	}
	r := sse.NewReader(br) // reuses br, which is large enough
	for {
		if n.ctx.Err() != nil {
			yield(nil, provider.TransportError(n.ctx, n.ref, n.ctx.Err(), true))
			return
		}
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			n.end(yield)
			return
		}
		if err != nil {
			yield(nil, n.readError(err))
			return
		}
		events, perr, bad := n.event(ev)
		if bad {
			perr = n.badFrame(r, ev)
		}
		for _, e := range events {
			if !yield(e, nil) {
				return
			}
		}
		if perr != nil {
			yield(nil, perr)
			return
		}
	}
}

// event translates one SSE event: its data (one chunk, or an array of
// them), then any line outside SSE framing, which Gemini uses to write an
// error into a 200 stream. bad reports an event that could not be read, for
// run to tell a body cut short from one that carries garbage.
func (n *normalizer) event(ev sse.Event) (events []contract.ModelEvent, perr *contract.ProviderError, bad bool) {
	data := bytes.TrimSpace(ev.Data)
	if len(data) > 0 && !bytes.Equal(data, []byte("[DONE]")) {
		chunks, err := decodeChunks(data)
		if err != nil {
			if _, ok := decodeGoogleError(ev.Stray); ok {
				return nil, streamError(n.ref, ev.Stray), false
			}
			return nil, nil, true
		}
		for i := range chunks {
			evs, perr := n.tr.frame(&chunks[i])
			events = append(events, evs...)
			if perr != nil {
				return events, perr, false
			}
		}
	}
	if len(ev.Stray) > 0 {
		if _, ok := decodeGoogleError(ev.Stray); ok {
			return events, streamError(n.ref, ev.Stray), false
		}
		return events, nil, true
	}
	return events, nil, false
}

// badFrame returns the error for an event that could not be read. When it
// is the last thing in a body that stops in the middle of a line, the body
// was cut short: stream_interrupted. Otherwise the server sent something
// that is neither a chunk nor an error.
func (n *normalizer) badFrame(r *sse.Reader, ev sse.Event) *contract.ProviderError {
	_, err := r.Next()
	if errors.Is(err, io.EOF) && n.tail.cut() {
		return provider.Interrupted(n.ref, "its terminal frame (the body stops in the middle of a line)")
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n.readError(err)
	}
	what, text := "data line", ev.Data
	if len(ev.Stray) > 0 && (ev.Data == nil || json.Valid(bytes.TrimSpace(ev.Data))) {
		what, text = "line outside SSE framing", ev.Stray
	}
	return provider.NewError(n.ref, contract.KindUnknown,
		fmt.Sprintf("the stream sent a %s that is not a Gemini response: %s", what, shorten(text)))
}

// end closes a body read to its end.
func (n *normalizer) end(yield func(contract.ModelEvent, error) bool) {
	if !n.tr.terminal() {
		yield(nil, provider.Interrupted(n.ref, "a candidate with a finishReason"))
		return
	}
	for _, e := range n.tr.finishEvents() {
		if !yield(e, nil) {
			return
		}
	}
}

// whole reads a body that is JSON instead of SSE: one GenerateContentResponse,
// a JSON array of them (streamGenerateContent without alt=sse), an error
// object, or several of these one after the other.
func (n *normalizer) whole(r io.Reader, yield func(contract.ModelEvent, error) bool) {
	body, err := io.ReadAll(io.LimitReader(r, maxWholeBody+1))
	if err != nil {
		yield(nil, n.readError(err))
		return
	}
	if len(body) > maxWholeBody {
		yield(nil, provider.NewError(n.ref, contract.KindUnknown, fmt.Sprintf("the response is over %d bytes", maxWholeBody)))
		return
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			yield(nil, provider.Interrupted(n.ref, "the end of its JSON"))
			return
		}
		var chunks []chunk
		if err == nil {
			chunks, err = decodeChunks(raw)
		}
		if err != nil {
			yield(nil, provider.NewError(n.ref, contract.KindUnknown, "the response is not a Gemini response: "+err.Error()))
			return
		}
		for i := range chunks {
			events, perr := n.tr.frame(&chunks[i])
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
			}
			if perr != nil {
				yield(nil, perr)
				return
			}
		}
	}
	n.end(yield)
}

// readError maps a failure to read the body.
func (n *normalizer) readError(err error) *contract.ProviderError {
	if errors.Is(err, sse.ErrLineTooLong) {
		e := provider.NewError(n.ref, contract.KindUnknown, err.Error())
		e.Err = err
		return e
	}
	return provider.TransportError(n.ctx, n.ref, err, true)
}

// decodeChunks reads one chunk, or a JSON array of chunks, each as
// decodeChunk does.
func decodeChunks(data []byte) ([]chunk, error) {
	if data[0] != '[' {
		chunks := make([]chunk, 1)
		return chunks, decodeChunk(data, &chunks[0])
	}
	var chunks []chunk
	err := json.Unmarshal(data, &chunks)
	if err == nil {
		return chunks, nil
	}
	var raws []json.RawMessage
	if json.Unmarshal(data, &raws) != nil {
		return nil, err
	}
	chunks = make([]chunk, len(raws))
	for i, raw := range raws {
		if decodeChunk(raw, &chunks[i]) != nil {
			return nil, err
		}
	}
	return chunks, nil
}

// firstByte returns the first byte of r that is not white space, without
// consuming anything.
func firstByte(r *bufio.Reader) (byte, error) {
	for i := 1; i <= 4096; i++ {
		b, err := r.Peek(i)
		if len(b) < i {
			return 0, err
		}
		switch c := b[i-1]; c {
		case ' ', '\t', '\r', '\n':
			continue
		default:
			return c, nil
		}
	}
	return 0, io.EOF
}

func shorten(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
