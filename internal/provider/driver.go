package provider

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
	"github.com/rein-agent/rein/internal/provider/sse"
)

// MaxWholeBody bounds a response read whole: a body that is one JSON
// document instead of server-sent events, from a server that ignored the
// request to stream. A longer one ends the stream with an error of kind
// unknown. 16 MiB, as an MCP message and one server-sent event: a model's
// whole answer is a few hundred KiB at most, and reading a body whole
// holds about twice its size while it grows.
const MaxWholeBody = 16 << 20

// Frames is what an adapter gives [Normalize] to read one response body:
// its frame decoder and its translator, behind one method per way a body
// goes on or ends. It holds the state of that one body, so each body gets
// its own; it is not safe for concurrent use. No method does I/O.
type Frames interface {
	// Event decodes one server-sent event and translates it. It returns
	// the events to yield, then the error that ends the stream, if any;
	// over reports that the stream is over once they are yielded (its
	// terminal frame came, or an error). *ev is only valid during the call;
	// its slices stay valid.
	Event(ev *sse.Event) (events []contract.ModelEvent, perr *contract.ProviderError, over bool)
	// End is called when the events end, cut reporting that the body stops
	// in the middle of a line. It returns what a stream complete at its
	// end still yields, or the error of one cut short.
	End(cut bool) ([]contract.ModelEvent, *contract.ProviderError)
	// Whole translates a body that is one JSON document (its first byte,
	// after white space, is '{', or '[' for an [ArrayFrames]), read to its
	// end. A body that does not decode is an error of kind unknown; when
	// it is JSON cut short, Normalize makes that error stream_interrupted,
	// so Whole need not tell the two apart.
	Whole(body []byte) ([]contract.ModelEvent, *contract.ProviderError)
}

// ArrayFrames is the Frames of an API whose whole answer may be a JSON
// array (Gemini's streamGenerateContent without alt=sse answers an array
// of responses). For the other APIs a body that starts with '[' is read as
// server-sent events, which it is not, and ends as they end.
type ArrayFrames interface {
	Frames
	// WholeArrays marks the Frames; it does nothing.
	WholeArrays()
}

// Normalize reads a raw response body and yields what f makes of it, as the
// adapters' Normalize and Stream do: model.started first, with ref's name,
// model and request id; then, for a body of server-sent events, f's
// translation of each event, until f says the stream is over or the body
// ends; for a body that is one JSON document, f's translation of it whole.
// It keeps the stream contract of [Provider]: a non-nil error is the last
// pair yielded and is a *contract.ProviderError. A cancelled ctx ends the
// stream with aborted (timeout on a deadline); a failed read with its
// error when that is a *contract.ProviderError already (see [Post]), else
// with what [TransportError] makes of it; a line over sse.MaxLine and a
// JSON body over [MaxWholeBody] with an error of kind unknown.
//
// The iterator is single-use; breaking out of the loop stops reading. It
// does not close body.
func Normalize(ctx context.Context, body io.Reader, ref contract.ProviderRef, f Frames) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		if !yield(&contract.ModelStarted{Provider: ref.Name, Model: ref.Model, RequestID: ref.RequestID}, nil) {
			return
		}
		tail := &tailReader{r: body}
		br := bufio.NewReaderSize(tail, sse.BufferSize) // the size sse.NewReader asks for, so it reuses this reader
		_, arrays := f.(ArrayFrames)
		blanks, isJSON := sniff(br, arrays)
		if isJSON {
			whole(ctx, br, ref, f, yield)
			return
		}
		// White space before the first field is no part of any event (a
		// proxy's keep-alive newline, a server's stray space).
		_, _ = br.Discard(blanks) // peeked bytes are always there to discard
		r := sse.NewReader(br)
		var ev sse.Event // one for the whole body: f.Event takes its address, so it lives on the heap
		for {
			if ctx.Err() != nil {
				yield(nil, TransportError(ctx, ref, context.Cause(ctx), true))
				return
			}
			var err error
			ev, err = r.Next()
			if errors.Is(err, io.EOF) {
				events, perr := f.End(tail.cut())
				emit(yield, events, perr)
				return
			}
			if err != nil {
				yield(nil, readError(ctx, ref, err))
				return
			}
			events, perr, over := f.Event(&ev)
			if !emit(yield, events, perr) || over {
				return
			}
		}
	}
}

// whole reads a body that is one JSON document and yields f's translation.
func whole(ctx context.Context, r io.Reader, ref contract.ProviderRef, f Frames, yield func(contract.ModelEvent, error) bool) {
	body, err := io.ReadAll(io.LimitReader(r, MaxWholeBody+1))
	switch {
	case err != nil:
		yield(nil, readError(ctx, ref, err))
		return
	case ctx.Err() != nil:
		yield(nil, TransportError(ctx, ref, context.Cause(ctx), true))
		return
	case len(body) > MaxWholeBody:
		yield(nil, NewError(ref, contract.KindUnknown, fmt.Sprintf("the response is over %d bytes", MaxWholeBody)))
		return
	}
	events, perr := f.Whole(body)
	if perr != nil && perr.Kind == contract.KindUnknown && cutShort(body) {
		// Not garbage: a whole answer that broke off, worth another try.
		e := Interrupted(ref, "the end of its JSON body")
		e.Err = perr
		perr = e
	}
	emit(yield, events, perr)
}

// cutShort reports whether body is JSON (one value or several, one after
// another) that stops before its last value is whole.
func cutShort(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		var v json.RawMessage
		switch err := dec.Decode(&v); {
		case err == nil:
			continue
		case errors.Is(err, io.ErrUnexpectedEOF):
			return true
		default:
			return false
		}
	}
}

// emit yields events, then perr when there is one. It reports whether the
// stream goes on: the consumer wants more and there was no error.
func emit(yield func(contract.ModelEvent, error) bool, events []contract.ModelEvent, perr *contract.ProviderError) bool {
	for _, ev := range events {
		if !yield(ev, nil) {
			return false
		}
	}
	if perr != nil {
		yield(nil, perr)
		return false
	}
	return true
}

// readError maps a failure to read a body once the response began: an
// error the body's reader already put in the taxonomy is yielded as it is
// ([Post]'s body that sent nothing in time), a line too long for the SSE
// reader is unknown (the server sent what no model API does), anything
// else goes through [TransportError].
func readError(ctx context.Context, ref contract.ProviderRef, err error) *contract.ProviderError {
	if pe, ok := errors.AsType[*contract.ProviderError](err); ok {
		return pe
	}
	if errors.Is(err, sse.ErrLineTooLong) {
		e := NewError(ref, contract.KindUnknown, err.Error())
		e.Err = err
		return e
	}
	return TransportError(ctx, ref, err, true)
}

// sniff reports how many bytes of white space the body starts with, and
// whether what follows is '{' (or '[' when arrays says so): one JSON
// document rather than server-sent events, which start with a field name
// or a comment. It only peeks, and looks no further than br's buffer.
func sniff(br *bufio.Reader, arrays bool) (blanks int, json bool) {
	for n := 1; n <= br.Size(); n++ {
		b, _ := br.Peek(n) // fewer than n bytes: the body's end or failure, seen again by whoever reads next
		if len(b) < n {
			return n - 1, false
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return n - 1, true
		case '[':
			return n - 1, arrays
		}
		return n - 1, false
	}
	return br.Size(), false
}

// tailReader remembers the last byte read, so that a body that stops in
// the middle of a line can be told from one whose last line is complete.
type tailReader struct {
	r    io.Reader
	last byte
}

// Read reads from the body, keeping its last byte.
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
