// Package sse reads server-sent events (the text/event-stream format) as
// model APIs send them: one small reader shared by every adapter.
//
// It follows the WHATWG rules where vendors agree with them (lines end in
// LF, CRLF or CR; "data" lines of one event are joined with newlines; lines
// starting with ':' are comments; a blank line ends an event) and departs
// from them where vendors do not: a last event with no blank line after it
// still counts, and lines that are not SSE fields at all (a JSON error body
// some servers append after the events) are kept, not dropped, so the
// adapter can read them.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line the reader accepts, and the most an event's
// lines may hold together: 16 MiB, far beyond any model's single event but
// a bound on memory all the same.
const MaxLine = 16 << 20

// BufferSize is the size of the buffer a Reader reads through: a line up
// to this long is handed on without a copy; a longer one is gathered.
// Model APIs' events are mostly under 1 KB; 16 KB is four TLS records.
const BufferSize = 16 << 10

// keepBuffer is the most a Reader keeps of an event's buffers for the
// next: a larger one, grown for one large event, is let go.
const keepBuffer = 64 << 10

// ErrLineTooLong is returned for a line longer than MaxLine, and for an
// event whose lines hold more than MaxLine together (a stream of data
// lines that never ends its event).
var ErrLineTooLong = errors.New("sse: line too long")

// Event is one server-sent event.
type Event struct {
	// Name is the "event:" field; empty means the default ("message").
	Name string
	// Data is the "data:" lines joined with '\n'.
	Data []byte
	// ID is the "id:" field.
	ID string
	// Stray holds the lines of this block that are neither fields nor
	// comments, joined with '\n': typically a JSON body a server wrote
	// without SSE framing.
	Stray []byte
	// Unterminated says the stream ended right after this event, without
	// the blank line that closes it. Vendors do send complete last events
	// that way, but a body cut in the middle of a data line looks the
	// same: an unterminated event whose data does not decode is a cut
	// stream (stream_interrupted), not bad data.
	Unterminated bool
}

// Reader reads events from a stream. It is not safe for concurrent use.
// The zero value is not usable; use NewReader.
type Reader struct {
	r       *bufio.Reader
	buf     []byte       // a line longer than the bufio buffer, gathered
	data    bytes.Buffer // the event's data lines, reused from event to event
	stray   bytes.Buffer // the event's stray lines, reused likewise
	pending [][]byte     // lines left over from a chunk that held CR-only line ends
	done    bool         // the stream has ended
}

// NewReader returns a reader of the events in r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, BufferSize)}
}

// Next returns the next event. It returns io.EOF once the stream ended
// cleanly after the last event; a last event that the stream ends without
// a blank line is returned first. Any other error is the underlying
// reader's (io.ErrUnexpectedEOF included), or ErrLineTooLong. The event's
// slices are its own: they stay valid after the next call.
func (r *Reader) Next() (Event, error) {
	var ev Event
	data, stray := &r.data, &r.stray
	for _, b := range []*bytes.Buffer{data, stray} {
		if b.Cap() > keepBuffer {
			*b = bytes.Buffer{} // one large event does not keep its memory for the stream
		}
		b.Reset()
	}
	if cap(r.buf) > keepBuffer {
		r.buf = nil // nor does one long line (pending lines keep what they point into)
	}
	hasData, hasAny := false, false
	for {
		line, err := r.line()
		if errors.Is(err, io.EOF) {
			if hasAny {
				// The stream ended without a blank line after the event:
				// vendors do this, and the event counts.
				ev.Unterminated = true
				return finish(ev, data, stray, hasData), nil
			}
			return Event{}, io.EOF
		}
		if err != nil {
			return Event{}, err
		}
		switch {
		case len(line) == 0:
			if hasAny {
				return finish(ev, data, stray, hasData), nil
			}
			continue
		case line[0] == ':':
			continue // a comment
		}
		hasAny = true
		if data.Len()+stray.Len()+len(line) > MaxLine {
			return Event{}, fmt.Errorf("%w: an event of more than %d bytes", ErrLineTooLong, MaxLine)
		}
		name, value, found := bytes.Cut(line, []byte(":"))
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch {
		case !found:
			addLine(stray, line)
		case string(name) == "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case string(name) == "event":
			ev.Name = string(value)
		case string(name) == "id":
			ev.ID = string(value)
		case string(name) == "retry":
		default:
			addLine(stray, line)
		}
	}
}

func addLine(b *bytes.Buffer, line []byte) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.Write(line)
}

func finish(ev Event, data, stray *bytes.Buffer, hasData bool) Event {
	if hasData {
		ev.Data = bytes.Clone(data.Bytes())
		if ev.Data == nil {
			ev.Data = []byte{}
		}
	}
	if stray.Len() > 0 {
		ev.Stray = bytes.Clone(stray.Bytes())
	}
	return ev
}

// line reads one line without its terminator (LF, CRLF or CR); the slice is
// valid until the next call. A last line the stream ends without a
// terminator is returned as a line; the call after it returns io.EOF.
func (r *Reader) line() ([]byte, error) {
	if len(r.pending) > 0 {
		l := r.pending[0]
		r.pending = r.pending[1:]
		return l, nil
	}
	if r.done {
		return nil, io.EOF
	}
	chunk, err := r.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.buf = append(r.buf[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(r.buf) > MaxLine {
				return nil, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, MaxLine)
			}
			chunk, err = r.r.ReadSlice('\n')
			r.buf = append(r.buf, chunk...)
		}
		chunk = r.buf
	}
	switch {
	case errors.Is(err, io.EOF):
		r.done = true
		if len(chunk) == 0 {
			return nil, io.EOF
		}
	case err != nil:
		return nil, err
	}
	// One terminator ends the chunk: LF, CR LF, or a lone CR at the end
	// of the stream.
	chunk = bytes.TrimSuffix(chunk, []byte("\n"))
	chunk = bytes.TrimSuffix(chunk, []byte("\r"))
	if bytes.IndexByte(chunk, '\r') < 0 {
		return chunk, nil
	}
	// CR-only line ends inside the chunk: each CR ends a line.
	lines := bytes.Split(chunk, []byte("\r"))
	r.pending = append(r.pending[:0], lines[1:]...)
	return lines[0], nil
}
