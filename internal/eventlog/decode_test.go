package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

// seenLine is what a test keeps of a logLine.
type seenLine struct {
	Num      int
	Off      int64
	Size     int64
	Complete bool
	Last     bool
	Env      contract.Envelope
	Err      string
}

// readSequentially is the reference decodeBatches must agree with: the
// lines of data split and decoded one by one.
func readSequentially(data []byte) []seenLine {
	var want []seenLine
	var off int64
	parts := bytes.SplitAfter(data, []byte("\n"))
	for i, b := range parts {
		if len(b) == 0 {
			continue
		}
		l := seenLine{Num: i + 1, Off: off, Size: int64(len(b)), Complete: b[len(b)-1] == '\n'}
		l.Last = i == len(parts)-1 || i == len(parts)-2 && len(parts[i+1]) == 0
		if l.Complete {
			if err := l.Env.UnmarshalJSON(b); err != nil {
				l.Err = err.Error()
			}
		}
		want = append(want, l)
		off += l.Size
	}
	return want
}

// readBatches collects what decodeBatches hands over.
func readBatches(r io.Reader, size int) ([]seenLine, error) {
	var got []seenLine
	err := decodeBatches(r, size, "test", func(l *logLine) error {
		s := seenLine{Num: l.num, Off: l.off, Size: l.size, Complete: l.complete, Last: l.last, Env: l.env}
		if l.err != nil {
			s.Err = l.err.Error()
		}
		got = append(got, s)
		return nil
	})
	return got, err
}

func TestDecodeBatchesAgreesWithALineByLineRead(t *testing.T) {
	good := lines(t, 40)
	long := line(t, durable(string(bytes.Repeat([]byte("x"), 3000))), 41)
	files := map[string][]byte{
		"empty":                 {},
		"good":                  good,
		"torn tail":             append(bytes.Clone(good), `{"seq":41,"ty`...),
		"garbage in the middle": bytes.Join([][]byte{good[:len(good)/2], []byte("garbage\n"), good[len(good)/2:]}, nil),
		"long line":             append(bytes.Clone(good), long...),
		"empty lines":           []byte("\n\n\n"),
		"no newline at all":     []byte("garbage"),
	}
	readers := map[string]func([]byte) io.Reader{
		"plain":    func(b []byte) io.Reader { return bytes.NewReader(b) },
		"one byte": func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":     func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data+EOF": func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	}
	for name, data := range files {
		want := readSequentially(data)
		for rname, reader := range readers {
			for _, size := range []int{1, 2, 7, 100, 1000, batchSize} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, rname, size), func(t *testing.T) {
					got, err := readBatches(reader(data), size)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("lines mismatch (-want +got):\n%s", d)
					}
				})
			}
		}
	}
}

func TestDecodeBatchesReadError(t *testing.T) {
	boom := errors.New("boom")
	good := lines(t, 30)
	for _, cut := range []int{0, len(good) / 2, len(good)} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			r := io.MultiReader(bytes.NewReader(good[:cut]), iotest.ErrReader(boom))
			got, err := readBatches(r, 100)
			whole := bytes.Count(good[:cut], []byte("\n"))
			if want := fmt.Sprintf("test: read line %d: boom", whole+1); err == nil || err.Error() != want || !errors.Is(err, boom) {
				t.Fatalf("decodeBatches() = %v, want %q", err, want)
			}
			if len(got) != whole {
				t.Errorf("%d lines handed over before the error, want %d", len(got), whole)
			}
			for _, l := range got {
				if l.Last || !l.Complete || l.Err != "" {
					t.Errorf("line %+v: want a complete line, not known to be the last", l)
				}
			}
		})
	}
}

// TestDecodeBatchesStops stops the read at every line in turn: the error
// comes back, no line after it is handed over, and every goroutine the
// decoder started has ended (synctest fails the test otherwise).
func TestDecodeBatchesStops(t *testing.T) {
	data := lines(t, 50)
	stop := errors.New("stop")
	for at := 1; at <= 50; at += 7 {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := 0
				err := decodeBatches(bytes.NewReader(data), 300, "test", func(l *logLine) error {
					if n++; l.num == at {
						return stop
					}
					return nil
				})
				if !errors.Is(err, stop) || n != at {
					t.Errorf("decodeBatches() = %v after %d lines, want the visit error after %d", err, n, at)
				}
			})
		})
	}
}
