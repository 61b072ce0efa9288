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
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

// readAll reads the log of dir with ReadFile, returning the events
// visited, what ReadFile said and the warnings it logged.
func readAll(t *testing.T, dir string) ([]contract.Envelope, ReadInfo, []warning, error) {
	t.Helper()
	rec := new(recorder)
	var got []contract.Envelope
	info, err := ReadFile(dir, &ReadOptions{Logger: rec.logger()}, func(env contract.Envelope) error {
		got = append(got, env)
		return nil
	})
	return got, info, rec.warnings(), err
}

// seqs returns the Seq of each envelope.
func seqs(envs []contract.Envelope) []uint64 {
	var s []uint64
	for _, env := range envs {
		s = append(s, env.Seq)
	}
	return s
}

func TestReadFile(t *testing.T) {
	l := func(i int, seq uint64) []byte { return line(t, numbered(i), seq) }
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	good := lines(t, 5)
	at := func(n int) int64 { // the offset of line n of good
		return int64(len(bytes.Join(bytes.SplitAfter(good, []byte("\n"))[:n-1], nil)))
	}
	half := l(6, 6)[:40]
	tests := []struct {
		name     string
		file     []byte
		wantSeqs []uint64
		wantLast uint64
		torn     *Damage
		damaged  []Damage
		warnings []warning
	}{
		{
			name: "good", file: good, wantSeqs: []uint64{1, 2, 3, 4, 5}, wantLast: 5,
		},
		{
			name: "torn tail", file: join(good, half), wantSeqs: []uint64{1, 2, 3, 4, 5}, wantLast: 5,
			torn:     &Damage{Line: 6, Offset: int64(len(good)), Bytes: int64(len(half)), Reason: "no trailing newline"},
			warnings: []warning{{Line: 6, Bytes: int64(len(half))}},
		},
		{
			name:     "garbage in the middle",
			file:     join(l(1, 1), l(2, 2), []byte("garbage\n"), l(3, 3), l(4, 4)),
			wantSeqs: []uint64{1, 2, 3, 4}, wantLast: 4,
			damaged:  []Damage{{Line: 3, Offset: int64(len(l(1, 1)) + len(l(2, 2))), Bytes: 8, Reason: "contract: decode envelope: invalid character 'g' looking for beginning of value"}},
			warnings: []warning{{Line: 3, Bytes: 8}},
		},
		{
			name: "a gap", file: join(good[:at(3)], good[at(4):]), wantSeqs: []uint64{1, 2, 4, 5}, wantLast: 5,
			damaged:  []Damage{{Line: 3, Offset: at(3), Bytes: at(5) - at(4), Reason: "seq jumps from 2 to 4: 1 event missing"}},
			warnings: []warning{{Line: 3, Bytes: at(5) - at(4)}},
		},
		{
			name: "a first seq other than 1", file: good[at(4):], wantSeqs: []uint64{4, 5}, wantLast: 5,
			damaged:  []Damage{{Line: 1, Offset: 0, Bytes: at(5) - at(4), Reason: "seq jumps from 0 to 4: 3 events missing"}},
			warnings: []warning{{Line: 1, Bytes: at(5) - at(4)}},
		},
		{
			name: "a repeated seq", file: join(good[:at(4)], good[at(3):]), wantSeqs: []uint64{1, 2, 3, 4, 5}, wantLast: 5,
			damaged:  []Damage{{Line: 4, Offset: at(4), Bytes: at(4) - at(3), Reason: "seq 3 does not come after 3"}},
			warnings: []warning{{Line: 4, Bytes: at(4) - at(3)}},
		},
		{
			name: "a delta", file: join(l(1, 1), line(t, textDelta("c", "x"), 2), l(2, 2)), wantSeqs: []uint64{1, 2}, wantLast: 2,
			damaged:  []Damage{{Line: 2, Offset: int64(len(l(1, 1))), Bytes: int64(len(line(t, textDelta("c", "x"), 2))), Reason: "model.text_delta is a delta, which is never stored"}},
			warnings: []warning{{Line: 2, Bytes: int64(len(line(t, textDelta("c", "x"), 2)))}},
		},
		{
			name: "empty", file: []byte{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, tc.file)
			got, info, warnings, err := readAll(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantSeqs, seqs(got)); d != "" {
				t.Errorf("visited seqs mismatch (-want +got):\n%s", d)
			}
			want := ReadInfo{Events: len(tc.wantSeqs), LastSeq: tc.wantLast, Torn: tc.torn, Damaged: tc.damaged}
			if d := cmp.Diff(want, info); d != "" {
				t.Errorf("ReadInfo mismatch (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.warnings, warnings); d != "" {
				t.Errorf("warnings mismatch (-want +got):\n%s", d)
			}
			if got := readFile(t, dir); !bytes.Equal(got, tc.file) {
				t.Error("ReadFile() modified the file")
			}
		})
	}
}

func TestReadFileKeepsEvents(t *testing.T) {
	dir := t.TempDir()
	unknown := []byte(`{"seq":4,"id":"e","time":"2026-11-30T05:01:02Z","session":"s","turn":0,"type":"tool.sandboxed","data":{"profile":"strict"}}` + "\n")
	writeFile(t, dir, append(lines(t, 3), unknown...))
	got, info, warnings, err := readAll(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := append(collect(t, New(NewMemStoreOf(t, 3), nil).Events(1)), contract.Envelope{
		Seq: 4, ID: "e", Time: time.Date(2026, 11, 30, 5, 1, 2, 0, time.UTC), Session: "s",
		Data: &contract.Unknown{Type: "tool.sandboxed", Data: []byte(`{"profile":"strict"}`)},
	})
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("visited mismatch (-want +got):\n%s", d)
	}
	if info.Events != 4 || info.LastSeq != 4 || info.Torn != nil || info.Damaged != nil || warnings != nil {
		t.Errorf("ReadFile() = %+v, warnings %v; want 4 events and no damage", info, warnings)
	}
}

func TestReadFileMissing(t *testing.T) {
	for name, dir := range map[string]string{
		"missing directory": filepath.Join(t.TempDir(), "nope"),
		"missing file":      t.TempDir(),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadFile(dir, nil, nil)
			if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
				t.Errorf("ReadFile() = %v, want an error naming the file and wrapping fs.ErrNotExist", err)
			}
			if _, err := os.Stat(dir); name == "missing directory" && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadFile() created the directory (stat: %v)", err)
			}
		})
	}
}

func TestReadFileVisitError(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, lines(t, 10))
	stop := errors.New("stop")
	n := 0
	info, err := ReadFile(dir, nil, func(env contract.Envelope) error {
		if n++; env.Seq == 4 {
			return stop
		}
		return nil
	})
	if want := fmt.Sprintf("eventlog: read %s: line 4: stop", filepath.Join(dir, FileName)); !errors.Is(err, stop) || err.Error() != want {
		t.Fatalf("ReadFile() = %v, want %q", err, want)
	}
	if n != 4 || info.Events != 3 || info.LastSeq != 3 {
		t.Errorf("ReadFile() visited %d events and says %+v, want 4 visits and 3 events read", n, info)
	}
}

// listing describes every entry under dir: name, mode, size and times.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var l []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		l = append(l, fmt.Sprintf("%s %v %d %v", path, fi.Mode(), fi.Size(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestReadFileInAReadOnlyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, append(lines(t, 5), `{"seq":6,"ty`...))
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) }) // so that TempDir can remove it
	before := listing(t, dir)
	got, info, _, err := readAll(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || info.Torn == nil {
		t.Errorf("ReadFile() visited %d events and says %+v, want 5 and a torn tail", len(got), info)
	}
	if d := cmp.Diff(before, listing(t, dir)); d != "" {
		t.Errorf("ReadFile() changed the directory (-before +after):\n%s", d)
	}
}

// FuzzReadFile reads arbitrary bytes as a log, as replay does. ReadFile
// must never panic nor change the file; it visits events in strictly
// increasing seq, counts what it visits, and when a strict open accepts the
// file it visits exactly what that open holds, with no damage reported.
func FuzzReadFile(f *testing.F) {
	good := lines(f, 3)
	f.Add([]byte{})
	f.Add(good)
	f.Add(good[:len(good)-7])
	f.Add(append(bytes.Clone(good), "garbage\n"...))
	f.Add(append([]byte("garbage\n"), good...))
	f.Add(append(bytes.Clone(good), good...))
	f.Add([]byte(`{"seq":1,"type":"some.future_event","data":[1,2]}` + "\n" + `{"seq":3,"type":"x","data":null}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		writeFile(t, dir, data)
		var visited []uint64
		info, err := ReadFile(dir, nil, func(env contract.Envelope) error {
			if n := len(visited); n > 0 && env.Seq <= visited[n-1] {
				t.Fatalf("seq %d visited after %d", env.Seq, visited[n-1])
			}
			visited = append(visited, env.Seq)
			return nil
		})
		if err != nil {
			t.Fatalf("ReadFile() = %v; damage is skipped, never an error", err)
		}
		if got := readFile(t, dir); !bytes.Equal(got, data) {
			t.Fatal("ReadFile modified the file")
		}
		if info.Events != len(visited) || (len(visited) > 0 && info.LastSeq != visited[len(visited)-1]) {
			t.Fatalf("info %+v, visited %v", info, visited)
		}
		s, err := OpenFile(dir, &FileOptions{ReadOnly: true})
		if err != nil {
			return
		}
		defer s.Close()
		if s.LastSeq() != uint64(len(visited)) || len(info.Damaged) > 0 {
			t.Fatalf("a strict open holds %d events; ReadFile visited %d with damage %+v", s.LastSeq(), len(visited), info.Damaged)
		}
	})
}
