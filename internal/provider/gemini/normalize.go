package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

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
	return provider.Normalize(ctx, body, ref, &frames{tr: newTranslator(ref)})
}

// frames reads one body for provider.Normalize: it decodes each event into
// chunks and has the translator translate them.
type frames struct {
	tr *translator
	// bad is an event that could not be read, held until what follows it
	// tells a body cut short (it ends there, in the middle of a line) from
	// one that carries garbage.
	bad *sse.Event
}

// Event translates one SSE event: its data (one chunk, or an array of
// them), then any line outside SSE framing, which Gemini uses to write an
// error into a 200 stream.
func (f *frames) Event(ev *sse.Event) ([]contract.ModelEvent, *contract.ProviderError, bool) {
	if f.bad != nil {
		return nil, f.garbage(), true
	}
	events, perr, bad := f.event(ev)
	if bad {
		kept := *ev // *ev is reused for the next event
		f.bad = &kept
	}
	return events, perr, perr != nil
}

// event translates ev; bad reports an event that could not be read.
func (f *frames) event(ev *sse.Event) (events []contract.ModelEvent, perr *contract.ProviderError, bad bool) {
	data := bytes.TrimSpace(ev.Data)
	if len(data) > 0 && !bytes.Equal(data, []byte("[DONE]")) {
		chunks, err := decodeChunks(data)
		if err != nil {
			if _, ok := decodeGoogleError(ev.Stray); ok {
				return nil, streamError(f.tr.ref, ev.Stray), false
			}
			return nil, nil, true
		}
		for i := range chunks {
			evs, perr := f.tr.translate(&chunks[i])
			events = append(events, evs...)
			if perr != nil {
				return events, perr, false
			}
		}
	}
	if len(ev.Stray) > 0 {
		if _, ok := decodeGoogleError(ev.Stray); ok {
			return events, streamError(f.tr.ref, ev.Stray), false
		}
		return events, nil, true
	}
	return events, nil, false
}

// garbage is the error of the event that could not be read, in a body that
// goes on after it: the server sent something that is neither a chunk nor
// an error.
func (f *frames) garbage() *contract.ProviderError {
	what, text := "data line", f.bad.Data
	if len(f.bad.Stray) > 0 && (f.bad.Data == nil || json.Valid(bytes.TrimSpace(f.bad.Data))) {
		what, text = "line outside SSE framing", f.bad.Stray
	}
	return provider.NewError(f.tr.ref, contract.KindUnknown,
		fmt.Sprintf("the stream sent a %s that is not a Gemini response: %s", what, excerpt.Bytes(text, 200)))
}

// End closes a body read to its end: after an event that could not be
// read, a body that stops in the middle of a line was cut short; without
// the terminal frame, the stream was interrupted.
func (f *frames) End(cut bool) ([]contract.ModelEvent, *contract.ProviderError) {
	switch {
	case f.bad != nil && cut:
		return nil, provider.Interrupted(f.tr.ref, "its terminal frame (the body stops in the middle of a line)")
	case f.bad != nil:
		return nil, f.garbage()
	case !f.tr.terminal():
		return nil, provider.Interrupted(f.tr.ref, "a candidate with a finishReason")
	}
	return f.tr.finishEvents(), nil
}

// WholeArrays marks frames as a provider.ArrayFrames: Gemini may answer a
// JSON array of responses.
func (f *frames) WholeArrays() {}

// Whole reads a body that is JSON instead of SSE: one
// GenerateContentResponse, a JSON array of them (streamGenerateContent
// without alt=sse), an error object, or several of these one after the
// other.
func (f *frames) Whole(body []byte) ([]contract.ModelEvent, *contract.ProviderError) {
	var events []contract.ModelEvent
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		var chunks []chunk
		if err == nil {
			chunks, err = decodeChunks(raw)
		}
		if err != nil {
			return events, provider.NewError(f.tr.ref, contract.KindUnknown, "the response is not a Gemini response: "+err.Error())
		}
		for i := range chunks {
			evs, perr := f.tr.translate(&chunks[i])
			events = append(events, evs...)
			if perr != nil {
				return events, perr
			}
		}
	}
	more, perr := f.End(false)
	return append(events, more...), perr
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
