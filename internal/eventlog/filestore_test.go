package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
)

func TestOpenFileCreates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions", "s1")
	s := mustOpen(t, dir, nil)
	defer s.Close()
	if got, want := s.Path(), filepath.Join(dir, FileName); got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	if got := s.LastSeq(); got != 0 {
		t.Errorf("LastSeq() = %d, want 0", got)
	}
	for path, want := range map[string]fs.FileMode{dir: fs.ModeDir | 0o700, s.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != want {
			t.Errorf("mode of %s = %v, want %v", path, got, want)
		}
	}
}

func TestOpenFileMissingReadOnly(t *testing.T) {
	tests := []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"missing directory", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }},
		{"missing file", func(t *testing.T) string { return t.TempDir() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			_, err := OpenFile(dir, &FileOptions{ReadOnly: true})
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("OpenFile(read-only) = %v, want an error wrapping fs.ErrNotExist", err)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
				t.Errorf("error %q does not name the file", err)
			}
			if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a read-only open created the file (stat: %v)", err)
			}
		})
	}
}

func TestOpenFileEmpty(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprint("read-only=", readOnly), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, nil)
			rec := new(recorder)
			s := mustOpen(t, dir, &FileOptions{ReadOnly: readOnly, Logger: rec.logger()})
			l := New(s, nil)
			defer l.Close()
			if got := l.LastSeq(); got != 0 {
				t.Errorf("LastSeq() = %d, want 0", got)
			}
			if got := collect(t, l.Events(1)); len(got) != 0 {
				t.Errorf("Events(1) yielded %d events, want none", len(got))
			}
			if ws := rec.warnings(); len(ws) != 0 {
				t.Errorf("warnings %v, want none", ws)
			}
			if readOnly {
				return
			}
			if env, err := l.Append(durable("a")); err != nil || env.Seq != 1 {
				t.Errorf("Append() = seq %d, %v; want seq 1", env.Seq, err)
			}
		})
	}
}

func TestTornTail(t *testing.T) {
	const n = 5
	good := lines(t, n)
	next := line(t, numbered(n+1), n+1)
	tests := []struct {
		name string
		tail []byte
	}{
		{"half a line", next[:len(next)/2]},
		{"a whole line without its newline", next[:len(next)-1]},
		{"a garbage line", []byte("garbage\n")},
		{"an empty line", []byte("\n")},
		{"zeros", make([]byte, 100)},
		{"a valid prefix of a long line", bytes.Repeat([]byte(`{"seq":6,"type":"model.text","data":{"text":"`), 5000)},
	}
	for _, tc := range tests {
		torn := append(append([]byte(nil), good...), tc.tail...)
		wantWarning := []warning{{Line: n + 1, Bytes: int64(len(tc.tail))}}
		t.Run(tc.name+"/writable", func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, torn)
			rec := new(recorder)
			l := New(mustOpen(t, dir, &FileOptions{Logger: rec.logger()}), nil)
			if got := l.LastSeq(); got != n {
				t.Errorf("LastSeq() = %d, want %d", got, n)
			}
			if d := cmp.Diff(wantWarning, rec.warnings()); d != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", d)
			}
			if got := readFile(t, dir); !bytes.Equal(got, good) {
				t.Errorf("file not cut back to its last good line:\n%q", got)
			}
			env, err := l.Append(numbered(n + 1))
			if err != nil || env.Seq != n+1 {
				t.Fatalf("Append() = seq %d, %v; want seq %d", env.Seq, err, n+1)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got, want := readFile(t, dir), append(good, next...); !bytes.Equal(got, want) {
				t.Errorf("file after the next append:\n%q\nwant\n%q", got, want)
			}
			rec = new(recorder)
			s := mustOpen(t, dir, &FileOptions{ReadOnly: true, Logger: rec.logger()})
			defer s.Close()
			if got := len(collect(t, s.Events(1))); got != n+1 || len(rec.warnings()) != 0 {
				t.Errorf("reopened: %d events and warnings %v, want %d and none", got, rec.warnings(), n+1)
			}
		})
		t.Run(tc.name+"/read-only", func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, torn)
			rec := new(recorder)
			s := mustOpen(t, dir, &FileOptions{ReadOnly: true, Logger: rec.logger()})
			defer s.Close()
			want := collect(t, New(NewMemStoreOf(t, n), nil).Events(1))
			if d := cmp.Diff(want, collect(t, s.Events(1))); d != "" {
				t.Errorf("Events(1) mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(wantWarning, rec.warnings()); d != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", d)
			}
			if _, err := s.Append(withSeq(numbered(n+1), n+1)); err == nil {
				t.Error("Append() to a read-only store succeeded")
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, dir); !bytes.Equal(got, torn) {
				t.Error("a read-only open modified the file")
			}
		})
	}
}

// NewMemStoreOf returns a memory store holding numbered(1) to numbered(n).
func NewMemStoreOf(t *testing.T, n int) *memstore.Store {
	t.Helper()
	s := memstore.New()
	for i := 1; i <= n; i++ {
		if _, err := s.Append(withSeq(numbered(i), uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestOpenFileCorrupt(t *testing.T) {
	l := func(i int, seq uint64) []byte { return line(t, numbered(i), seq) }
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name     string
		file     []byte
		wantLine int
	}{
		{"garbage in the middle", join(l(1, 1), l(2, 2), []byte("garbage\n"), l(4, 4)), 3},
		{"an empty line in the middle", join(l(1, 1), []byte("\n"), l(2, 2)), 2},
		{"a torn line in the middle", join(l(1, 1), l(2, 2)[:20], l(3, 3), l(4, 4)), 2},
		{"a gap", join(l(1, 1), l(2, 2), l(4, 4), l(5, 5)), 3},
		{"a repeated seq", join(l(1, 1), l(2, 2), l(2, 2), l(3, 3)), 3},
		{"a first seq other than 1", join(l(2, 2), l(3, 3)), 1},
		{"a last line out of sequence", join(l(1, 1), l(2, 2), l(7, 7)), 3},
		{"a known type whose data does not decode", join(l(1, 1),
			[]byte(`{"seq":2,"id":"x","time":"2025-01-01T00:00:00Z","session":"s","turn":0,"type":"model.text","data":{"text":5}}`+"\n"),
			l(3, 3)), 2},
		{"a delta", join(l(1, 1), line(t, textDelta("c", "x"), 2), l(3, 3)), 2},
		// Well-formed, so a whole write (a newer rein's, say), not a torn
		// one: never cut.
		{"a last line well-formed but undecodable", join(l(1, 1),
			[]byte(`{"seq":2,"id":"x","time":"2025-01-01T00:00:00Z","session":"s","turn":0,"type":"model.text","data":{"text":5}}`+"\n")), 2},
	}
	for _, tc := range tests {
		for _, readOnly := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/read-only=%v", tc.name, readOnly), func(t *testing.T) {
				dir := t.TempDir()
				writeFile(t, dir, tc.file)
				_, err := OpenFile(dir, &FileOptions{ReadOnly: readOnly})
				if err == nil {
					t.Fatal("OpenFile() succeeded, want an error")
				}
				path := filepath.Join(dir, FileName)
				if want := fmt.Sprintf("%s: line %d:", path, tc.wantLine); !strings.Contains(err.Error(), want) {
					t.Errorf("OpenFile() = %q, want it to say %q", err, want)
				}
				if got := readFile(t, dir); !bytes.Equal(got, tc.file) {
					t.Error("OpenFile() modified a damaged file")
				}
			})
		}
	}
}

func TestLongLines(t *testing.T) {
	dir := t.TempDir()
	// Far past the buffers, and past bufio.Scanner's default limit. Kept
	// at 2 MiB because decoding it is slow under the race detector.
	big := strings.Repeat("0123456789abcdef", 2<<20/16)
	in := []contract.Envelope{durable("a"), durable(big), durable("b"), durable(big[:bufferSize-50]), durable("c")}
	l := New(mustOpen(t, dir, nil), nil)
	var want []contract.Envelope
	for _, env := range in {
		got, err := l.Append(env)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, got)
	}
	for _, from := range []uint64{1, 3} {
		if d := cmp.Diff(want[from-1:], collect(t, l.Events(from))); d != "" {
			t.Errorf("Events(%d) mismatch (-want +got):\n%s", from, d)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	s := mustOpen(t, dir, &FileOptions{ReadOnly: true})
	defer s.Close()
	if d := cmp.Diff(want[3:], collect(t, s.Events(4))); d != "" {
		t.Errorf("reopened Events(4) mismatch (-want +got):\n%s", d)
	}
}

func TestFileStoreAppendChecks(t *testing.T) {
	s := mustOpen(t, t.TempDir(), nil)
	defer s.Close()
	tests := []struct {
		name string
		env  contract.Envelope
	}{
		{"seq not next", withSeq(durable("a"), 2)},
		{"seq zero", durable("a")},
		{"a delta", withSeq(textDelta("c", "x"), 1)},
		{"no data", contract.Envelope{Seq: 1}},
		{"data that does not encode", withSeq(contract.Envelope{Data: &contract.ModelFinished{
			Reason: "stop", ProviderState: []byte("{not json")}}, 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Append(tc.env); err == nil {
				t.Error("Append() succeeded, want an error")
			}
		})
	}
	// None of those broke the store.
	if _, err := s.Append(withSeq(durable("a"), 1)); err != nil {
		t.Errorf("Append() after refused appends: %v", err)
	}
}

func TestFileStoreBroken(t *testing.T) {
	s := mustOpen(t, t.TempDir(), nil)
	if _, err := s.Append(withSeq(durable("a"), 1)); err != nil {
		t.Fatal(err)
	}
	// Pull the file out from under the store: the buffered line cannot
	// be written.
	if err := s.f.Close(); err != nil {
		t.Fatal(err)
	}
	err := s.Sync()
	if err == nil {
		t.Fatal("Sync() succeeded on a closed file")
	}
	if _, err2 := s.Append(withSeq(durable("b"), 2)); !errors.Is(err2, fs.ErrClosed) {
		t.Errorf("Append() after a failed Sync = %v, want the sync failure", err2)
	}
	if err2 := s.Sync(); !errors.Is(err2, fs.ErrClosed) {
		t.Errorf("Sync() after a failed Sync = %v, want the sync failure", err2)
	}
	if err2 := lastErr(s.Events(1)); err2 == nil {
		t.Error("Events() on a broken store yielded no error")
	}
	if err2 := s.Close(); err2 == nil {
		t.Error("Close() of a broken store = nil, want the failure")
	}
}

func TestFileChangedBehindTheStore(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, lines(t, 10))
	s := mustOpen(t, dir, &FileOptions{ReadOnly: true})
	defer s.Close()
	b := readFile(t, dir)
	i := bytes.Index(b, []byte(`"seq":7`))
	copy(b[i:], `"seq":8`)
	writeFile(t, dir, b)
	err := lastErr(s.Events(1))
	if want := fmt.Sprintf("%s: line 7", s.Path()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Events() = %v, want an error saying %q", err, want)
	}
}

// FuzzOpen opens arbitrary bytes as a log. OpenFile must never panic, and
// either fails leaving the file as it was, or yields a consistent log: the
// file is cut to a prefix of whole lines, read-only and writable opens
// agree, events are numbered 1 to LastSeq, and appending continues the
// sequence.
func FuzzOpen(f *testing.F) {
	good := lines(f, 3)
	f.Add([]byte{})
	f.Add(good)
	f.Add(good[:len(good)-7])
	f.Add(append(bytes.Clone(good), "garbage\n"...))
	f.Add(append([]byte("garbage\n"), good...))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"seq":1,"type":"model.text","data":{"text":"x"}}` + "\n"))
	f.Add([]byte(`{"seq":1,"type":"some.future_event","data":[1,2]}` + "\n" + `{"seq":2,"type":"x","data":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		writeFile(t, dir, data)

		ro, roErr := OpenFile(dir, &FileOptions{ReadOnly: true})
		if got := readFile(t, dir); !bytes.Equal(got, data) {
			t.Fatal("a read-only open modified the file")
		}
		s, err := OpenFile(dir, nil)
		if (err == nil) != (roErr == nil) {
			t.Fatalf("writable open: %v, read-only open: %v", err, roErr)
		}
		if err != nil {
			if got := readFile(t, dir); !bytes.Equal(got, data) {
				t.Fatal("a failed open modified the file")
			}
			return
		}
		defer ro.Close()
		defer s.Close()
		kept := readFile(t, dir)
		if !bytes.HasPrefix(data, kept) || (len(kept) > 0 && kept[len(kept)-1] != '\n') {
			t.Fatalf("the file was cut to %q, not to whole lines of %q", kept, data)
		}
		if got, want := bytes.Count(kept, []byte("\n")), int(s.LastSeq()); got != want {
			t.Fatalf("%d lines kept, LastSeq() = %d", got, want)
		}
		if s.LastSeq() != ro.LastSeq() {
			t.Fatalf("LastSeq(): writable %d, read-only %d", s.LastSeq(), ro.LastSeq())
		}
		for _, store := range []Store{s, ro} {
			var seq uint64
			for env, err := range store.Events(1) {
				if err != nil {
					t.Fatalf("Events(1): %v", err)
				}
				if seq++; env.Seq != seq {
					t.Fatalf("event %d has seq %d", seq, env.Seq)
				}
			}
			if seq != s.LastSeq() {
				t.Fatalf("Events(1) yielded %d events, LastSeq() = %d", seq, s.LastSeq())
			}
		}
		l := New(s, nil)
		if env, err := l.Append(durable("next")); err != nil || env.Seq != ro.LastSeq()+1 {
			t.Fatalf("Append() = seq %d, %v; want seq %d", env.Seq, err, ro.LastSeq()+1)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		again := mustOpen(t, dir, &FileOptions{ReadOnly: true})
		defer again.Close()
		if again.LastSeq() != ro.LastSeq()+1 {
			t.Fatalf("after an append, reopened LastSeq() = %d, want %d", again.LastSeq(), ro.LastSeq()+1)
		}
	})
}
