package checkpoint

import (
	"encoding/binary"
	"slices"
	"strings"
	"sync"
	"testing"
)

// indexFile builds a git index of the given version (2 or 3; 4 compresses
// the paths) with SHA-1 names.
func indexFile(version uint32, paths ...string) []byte {
	b := []byte("DIRC")
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(paths)))
	prev := ""
	for _, p := range paths {
		start := len(b)
		b = append(b, make([]byte, 24)...)             // ctime, mtime, dev, ino
		b = binary.BigEndian.AppendUint32(b, 0o100644) // mode
		b = append(b, make([]byte, 12+20)...)          // uid, gid, size, sha-1
		b = binary.BigEndian.AppendUint16(b, uint16(min(len(p), 0xfff)))
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(p) && prev[common] == p[common] {
				common++
			}
			b = binary.AppendUvarint(b, uint64(len(prev)-common))
			b = append(b, p[common:]...)
			b = append(b, 0)
		} else {
			b = append(b, p...)
			n := len(b) - start
			b = append(b, make([]byte, 8-n%8)...)
		}
		prev = p
	}
	return append(b, make([]byte, 20)...) // the checksum, not read
}

func TestParseIndex(t *testing.T) {
	paths := []string{"README.md", "cmd/main.go", "cmd/main_test.go", "internal/a/b/c.go"}
	for _, v := range []uint32{2, 3, 4} {
		got, err := parseIndex(indexFile(v, paths...), 20)
		if err != nil || !slices.Equal(got, paths) {
			t.Errorf("version %d: parseIndex = %v, %v; want %v", v, got, err, paths)
		}
	}
	bad := map[string][]byte{
		"not an index":         []byte("hello, world"),
		"version 5":            append([]byte("DIRC\x00\x00\x00\x05"), make([]byte, 100)...),
		"count beyond the end": append([]byte("DIRC\x00\x00\x00\x02\x7f\xff\xff\xff"), make([]byte, 100)...),
		"truncated":            indexFile(2, paths...)[:100],
		"v4 strips too much":   append(indexFile(4, "a")[:12+62], 9, 'x', 0),
	}
	for name, data := range bad {
		if _, err := parseIndex(data, 20); err == nil {
			t.Errorf("%s: parseIndex accepted it", name)
		}
	}
}

// forgedV4 is a version 4 index of n entries: the first spells out a path
// of first bytes, each of the others strips strip bytes of the path before
// and adds add.
func forgedV4(n, first, strip, add int) []byte {
	b := []byte("DIRC")
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	for i := range n {
		b = append(b, make([]byte, 24)...)
		b = binary.BigEndian.AppendUint32(b, 0o100644)
		b = append(b, make([]byte, 12+20)...)
		b = binary.BigEndian.AppendUint16(b, 0xfff)
		if i == 0 {
			b = binary.AppendUvarint(b, 0)
			b = append(b, strings.Repeat("a", first)...)
		} else {
			b = binary.AppendUvarint(b, uint64(strip))
			b = append(b, strings.Repeat(string(rune('a'+i%26)), add)...)
		}
		b = append(b, 0)
	}
	return append(b, make([]byte, 20)...)
}

// A forged version 4 index, whose paths each grow the one before or
// repeat a long one at a byte's cost, is refused before its paths add up
// to more than a small multiple of its size; a real one with long paths
// is read.
func TestParseIndexForged(t *testing.T) {
	tests := []struct {
		name                 string
		n, first, strip, add int
		ok                   bool
	}{
		{"a path growing by a byte an entry", 10_000, 1, 0, 1, false},
		{"a 4000-byte path repeated", 20_000, 4000, 1, 1, false},
		{"a path over 4096 bytes at once", 2, 4097, 0, 1, false},
		{"long paths in one directory", 2000, 300, 8, 8, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := forgedV4(tt.n, tt.first, tt.strip, tt.add)
			paths, err := parseIndex(data, 20)
			if (err == nil) != tt.ok {
				t.Fatalf("parseIndex = %d paths, %v; want ok %v", len(paths), err, tt.ok)
			}
			if tt.ok && len(paths) != tt.n {
				t.Errorf("parseIndex = %d paths, want %d", len(paths), tt.n)
			}
		})
	}
}

// parseIndex reads untrusted bytes: it never panics, and what it returns
// are paths.
func FuzzParseIndex(f *testing.F) {
	for _, v := range []uint32{2, 3, 4} {
		f.Add(indexFile(v, "a", "b/c", "b/d"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := parseIndex(data, 20)
		if err != nil {
			return
		}
		for _, p := range paths {
			if p == "" {
				t.Errorf("an empty path")
			}
		}
	})
}

// Takes, Diffs and Plans from several goroutines on one Store (a parent
// and its children) are safe, and each Take is whole.
func TestConcurrentUse(t *testing.T) {
	root := workspaceDir(t)
	for i := range 40 {
		write(t, root, "d/f"+string(rune('a'+i%26))+string(rune('a'+i/26)), "content", 0o644)
	}
	s := newStore(t, root, Options{})
	first := take(t, s)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			snap, err := s.Take(t.Context())
			if err != nil {
				t.Error(err)
				return
			}
			if snap.Files != 40 {
				t.Errorf("Files = %d, want 40", snap.Files)
			}
			if _, err := s.Plan(first.ID, snap.ID); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}
