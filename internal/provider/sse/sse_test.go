package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t *testing.T, r io.Reader) ([]Event, error) {
	t.Helper()
	sr := NewReader(r)
	var out []Event
	for {
		ev, err := sr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Event
	}{
		{"two events", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []Event{{Data: []byte(`{"a":1}`)}, {Data: []byte("[DONE]")}}},
		{"named", "event: message_start\ndata: {}\n\nevent: ping\ndata: {}\n\n", []Event{{Name: "message_start", Data: []byte("{}")}, {Name: "ping", Data: []byte("{}")}}},
		{"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", []Event{{Data: []byte("x")}, {Data: []byte("y")}}},
		{"cr only", "data: x\r\rdata: y\r\r", []Event{{Data: []byte("x")}, {Data: []byte("y")}}},
		{"multi-line data", "data: a\ndata: b\n\n", []Event{{Data: []byte("a\nb")}}},
		{"no space after colon", "data:x\n\n", []Event{{Data: []byte("x")}}},
		{"comments", ": OPENROUTER PROCESSING\n\n: ping\ndata: x\n\n", []Event{{Data: []byte("x")}}},
		{"last event without blank line", "data: a\n\ndata: b", []Event{{Data: []byte("a")}, {Data: []byte("b"), Unterminated: true}}},
		{"last event with one newline", "data: a\n", []Event{{Data: []byte("a"), Unterminated: true}}},
		{"empty data", "data:\n\n", []Event{{Data: []byte{}}}},
		{"id and retry", "id: 7\nretry: 100\ndata: x\n\n", []Event{{ID: "7", Data: []byte("x")}}},
		{"stray json after events", "data: {\"a\":1}\n\n{\n  \"error\": {\"code\": 429}\n}\n", []Event{
			{Data: []byte(`{"a":1}`)},
			{Stray: []byte("{\n  \"error\": {\"code\": 429}\n}"), Unterminated: true},
		}},
		{"empty", "", nil},
		{"blank lines only", "\n\n\r\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("events mismatch (-want +got):\n%s", d)
			}
			// Byte-at-a-time delivery gives the same events.
			got, err = readAll(t, iotest.OneByteReader(strings.NewReader(tc.in)))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("one byte at a time (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadErrorIsReturned(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(io.ErrUnexpectedEOF))
	got, err := readAll(t, r)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	if len(got) != 1 {
		t.Errorf("got %d events before the error, want 1 (the cut one is not an event)", len(got))
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("event: a\ndata: {}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: x\r\n\r\n: c\r\nid: 1\r\n{\"error\":1}\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		whole, err1 := readAll(t, strings.NewReader(string(b)))
		split, err2 := readAll(t, iotest.HalfReader(strings.NewReader(string(b))))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("errors differ: %v vs %v", err1, err2)
		}
		if d := cmp.Diff(whole, split); d != "" {
			t.Fatalf("split delivery changed the events (-whole +split):\n%s", d)
		}
	})
}

// An event that never ends (data lines without the blank line that
// closes it) is refused once its lines pass MaxLine together: the reader
// neither holds nor reads a stream without end.
func TestAnEventIsBounded(t *testing.T) {
	line := "data: " + strings.Repeat("x", 1<<20) + "\n"
	endless := &repeater{line: line}
	_, err := readAll(t, endless)
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "an event of more than") {
		t.Fatalf("err = %v, want ErrLineTooLong for the event", err)
	}
	if endless.n > MaxLine+2*len(line)+64<<10 {
		t.Errorf("read %d bytes of an endless event; want about MaxLine (%d)", endless.n, MaxLine)
	}
}

// repeater is a stream of line, again and again, that counts what was
// read of it.
type repeater struct {
	line string
	off  int
	n    int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	r.n += n
	return n, nil
}

// A reader keeps an event's buffers for the next, but not those one
// large event (a line longer than the reader's buffer) grew: they go with
// the next event.
func TestReaderLetsGoOfALargeEventsBuffer(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	r := NewReader(strings.NewReader("data: " + big + "\n\ndata: small\n\ndata: again\n\n"))
	if ev, err := r.Next(); err != nil || len(ev.Data) != len(big) {
		t.Fatalf("first event: %d bytes, %v", len(ev.Data), err)
	}
	if r.data.Cap() < len(big) {
		t.Fatalf("the large event's buffer has %d bytes, want it kept until the next event", r.data.Cap())
	}
	if ev, err := r.Next(); err != nil || string(ev.Data) != "small" {
		t.Fatalf("second event: %q, %v", ev.Data, err)
	}
	if c := r.data.Cap(); c > keepBuffer {
		t.Errorf("after a small event the buffer holds %d bytes, want at most %d", c, keepBuffer)
	}
	if c := cap(r.buf); c > keepBuffer {
		t.Errorf("after a small event the line buffer holds %d bytes, want at most %d", c, keepBuffer)
	}
	kept := r.data.Cap()
	if ev, err := r.Next(); err != nil || string(ev.Data) != "again" {
		t.Fatalf("third event: %q, %v", ev.Data, err)
	}
	if r.data.Cap() != kept {
		t.Errorf("a small event's buffer is not reused: %d bytes, then %d", kept, r.data.Cap())
	}
}
