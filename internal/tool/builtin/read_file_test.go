package builtin

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// numbered returns lines first to last of a file whose line n is "line n",
// as read_file shows them.
func numbered(first, last int) string {
	var b strings.Builder
	for n := first; n <= last; n++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", n, n)
	}
	return b.String()
}

func linesFile(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	e := newFileEnv(t)
	e.put("five.txt", linesFile(5))
	e.put("big.txt", linesFile(2500))
	e.put("nonl.txt", "a\nb")
	e.put("crlf.txt", "a\r\nb\r\n")
	e.put("blank.txt", "\n\n")
	e.put("empty.txt", "")
	e.put("long.txt", "short\n"+strings.Repeat("x", 2500)+"\nafter\n")
	e.put("wide.txt", strings.Repeat("é", 2100)+"\n")
	e.put("huge-line.txt", strings.Repeat("y", 200_000)+"\nnext\n")
	e.put("latin1.txt", "caf\xe9 cr\xe8me, a text with a couple of Latin-1 bytes in it\n")
	tests := []struct {
		name  string
		input m
		want  string
	}{
		{"whole", m{"path": "five.txt"}, numbered(1, 5)},
		{"offset", m{"path": "five.txt", "offset": 4}, numbered(4, 5)},
		{"range with lines left", m{"path": "five.txt", "offset": 2, "limit": 2},
			numbered(2, 3) + "(2 lines more after line 3; to read on, call read_file with offset=4)\n"},
		{"one line left", m{"path": "five.txt", "limit": 4},
			numbered(1, 4) + "(1 line more after line 4; to read on, call read_file with offset=5)\n"},
		{"default limit", m{"path": "big.txt"},
			numbered(1, 2000) + "(500 lines more after line 2000; to read on, call read_file with offset=2001)\n"},
		{"continuation", m{"path": "big.txt", "offset": 2001}, numbered(2001, 2500)},
		{"absolute path inside", m{"path": e.path("five.txt"), "limit": 1},
			numbered(1, 1) + "(4 lines more after line 1; to read on, call read_file with offset=2)\n"},
		{"no final newline", m{"path": "nonl.txt"}, "     1\ta\n     2\tb\n"},
		{"crlf", m{"path": "crlf.txt"}, "     1\ta\n     2\tb\n"},
		{"blank lines", m{"path": "blank.txt"}, "     1\t\n     2\t\n"},
		{"empty", m{"path": "empty.txt"}, "empty.txt is empty (0 bytes).\n"},
		{"long line cut", m{"path": "long.txt"},
			"     1\tshort\n     2\t" + strings.Repeat("x", 2000) + " [… line cut here: 500 more bytes]\n     3\tafter\n"},
		{"cut counts characters", m{"path": "wide.txt"},
			"     1\t" + strings.Repeat("é", 2000) + " [… line cut here: 200 more bytes]\n"},
		{"line longer than the read buffer", m{"path": "huge-line.txt", "offset": 2},
			"     2\tnext\n"},
		{"a few invalid bytes are still text", m{"path": "latin1.txt"},
			"     1\tcaf\xe9 cr\xe8me, a text with a couple of Latin-1 bytes in it\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.run("read_file", tt.input)
			if err != nil {
				t.Fatalf("read_file(%v): %v", tt.input, err)
			}
			if d := cmp.Diff(tt.want, out); d != "" {
				t.Errorf("read_file(%v) mismatch (-want +got):\n%s", tt.input, d)
			}
		})
	}
}

func TestReadFileRefusals(t *testing.T) {
	e := newFileEnv(t)
	e.put("five.txt", linesFile(5))
	e.put("nul.bin", "ELF\x00\x01\x02 header and more")
	e.put("noise.bin", strings.Repeat("\xff\xfe\x80abc", 100))
	if err := os.Mkdir(e.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		input m
		want  string // in the error
	}{
		{"nul byte", m{"path": "nul.bin"}, "nul.bin looks binary (it has NUL bytes)"},
		{"invalid utf-8", m{"path": "noise.bin"}, "noise.bin looks binary (much of it is not valid UTF-8)"},
		{"directory", m{"path": "dir"}, "dir is a directory; use list_dir"},
		{"missing", m{"path": "nope.txt"}, "nope.txt does not exist"},
		{"offset past the end", m{"path": "five.txt", "offset": 9}, "offset 9 is past the end of five.txt, which has 5 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.run("read_file", tt.input)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("read_file(%v) = %q, %v; want an error with %q", tt.input, out, err, tt.want)
			}
		})
	}
}

// TestReadFileLarge proves a file over the size cap is refused whole but
// read in ranges, and that a ranged read still lets the file be edited.
func TestReadFileLarge(t *testing.T) {
	e := newFileEnv(t)
	line := strings.Repeat("z", 99) + "\n"
	big := "first\n" + strings.Repeat(line, maxFileSize/len(line)+10) + "last\n"
	e.put("big.log", big)
	total := strings.Count(big, "\n")

	_, err := e.run("read_file", m{"path": "big.log"})
	if err == nil || !strings.Contains(err.Error(), "pass offset and limit") {
		t.Fatalf("read_file of a file over the cap = %v; want a refusal asking for a range", err)
	}
	out := e.mustRun("read_file", m{"path": "big.log", "offset": total, "limit": 1})
	if want := fmt.Sprintf("%6d\tlast\n", total); out != want {
		t.Errorf("read_file of the last line = %q; want %q", out, want)
	}
	out = e.mustRun("read_file", m{"path": "big.log", "limit": 1})
	if want := fmt.Sprintf("     1\tfirst\n(%d lines more after line 1; to read on, call read_file with offset=2)\n", total-1); out != want {
		t.Errorf("read_file of the first line = %q; want %q", out, want)
	}
	// The ranged read recorded the whole file: a write needs no other read.
	if _, err := e.run("write_file", m{"path": "big.log", "content": "small\n"}); err != nil {
		t.Fatalf("write_file after a ranged read: %v", err)
	}
}

// TestReadFileConcurrent runs reads of one session side by side, as the
// runtime may for a Safe tool, all with one ledger; -race checks that the
// tools share nothing mutable.
func TestReadFileConcurrent(t *testing.T) {
	e := newFileEnv(t)
	for i := range 8 {
		e.put(fmt.Sprintf("f%d.txt", i), linesFile(50))
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range 8 {
		wg.Go(func() {
			_, errs[i] = e.run("read_file", m{"path": fmt.Sprintf("f%d.txt", i%4)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("read %d: %v", i, err)
		}
	}
	if _, err := e.run("edit_file", m{"path": "f3.txt", "old_string": "line 7\n", "new_string": "seven\n"}); err != nil {
		t.Errorf("edit after concurrent reads: %v", err)
	}
}

// FuzzReadLines checks the streaming reader against a plain split of the
// whole content: the same numbered lines, line count, size and hash.
func FuzzReadLines(f *testing.F) {
	f.Add("a\nb\n", 1, 5)
	f.Add("a\r\nb", 2, 1)
	f.Add("\n\n\r\n", 1, 2)
	f.Add(strings.Repeat("é", 2001)+"\r\nx", 1, 3)
	f.Fuzz(func(t *testing.T, content string, first, limit int) {
		first, limit = 1+abs(first)%8, 1+abs(limit)%8
		var out bytes.Buffer
		res, err := readLines(t.Context(), strings.NewReader(content), &out, first, limit)
		if errors.Is(err, errBinary) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		want, total := naiveRead(content, first, limit)
		if out.String() != want || res.total != total {
			t.Fatalf("readLines(%q, %d, %d) = %q, %d lines; want %q, %d", content, first, limit, out.String(), res.total, want, total)
		}
		if sum := sha256.Sum256([]byte(content)); res.size != int64(len(content)) || !bytes.Equal(res.sum, sum[:]) {
			t.Fatalf("readLines(%q) stamp = %d bytes %x; want %d bytes %x", content, res.size, res.sum, len(content), sum)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// naiveRead is what readLines shows, computed the simple way.
func naiveRead(content string, first, limit int) (string, int) {
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	for i, l := range lines {
		if n := i + 1; n >= first && n < first+limit {
			l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
			cut := len(l)
			for j, runes := 0, 0; j < len(l); runes++ {
				if runes == readMaxLineRunes {
					cut = j
					break
				}
				_, size := utf8.DecodeRuneInString(l[j:])
				j += size
			}
			fmt.Fprintf(&b, "%6d\t%s", n, l[:cut])
			if cut < len(l) {
				fmt.Fprintf(&b, " [… line cut here: %d more bytes]", len(l)-cut)
			}
			b.WriteByte('\n')
		}
	}
	return b.String(), len(lines)
}
