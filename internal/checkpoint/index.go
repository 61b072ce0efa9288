package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxIndex is the largest .git/index read: a million paths take about a
// hundred MB; a larger file is not trusted, and the ignore rules alone
// decide.
const maxIndex = 256 << 20

// maxIndexName is the longest path an index entry may have (PATH_MAX on
// Linux), and maxIndexNames the most bytes all its paths may add up to, as
// a multiple of the index file's size and in all: a version 4 index
// compresses each path against the one before, so a forged one of a few
// MB could otherwise spell out gigabytes of paths.
const (
	maxIndexName      = 4096
	maxIndexNamesX    = 32
	maxIndexNamesSize = 256 << 20
)

// tracked is what a repository's index tracks below the workspace root:
// the files, and the directories that hold one, as slash-separated paths
// relative to the root.
type tracked struct {
	files map[string]struct{}
	dirs  map[string]struct{}
}

func (t *tracked) file(rel string) bool {
	if t == nil {
		return false
	}
	_, ok := t.files[rel]
	return ok
}

func (t *tracked) dir(rel string) bool {
	if t == nil {
		return false
	}
	_, ok := t.dirs[rel]
	return ok
}

// indexKey is what says that an index file is as it was when parsed.
type indexKey struct {
	path  string
	size  int64
	mtime int64
	ino   uint64
}

// loadTracked reads the index of the repository whose root is top (its
// .git a directory, or a file leading to the gitdir), keeping the paths
// below prefix (slash-separated, relative to top; "" for all) and
// returning them relative to prefix. The cached result is returned when
// the index file is as it was. Nil when there is no index or it cannot be
// read.
func (s *Store) loadTracked(gitDir, prefix string) *tracked {
	if gitDir == "" {
		return nil
	}
	p := filepath.Join(gitDir, "index")
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIndex {
		return nil
	}
	key := indexKey{path: p, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		key.ino = st.Ino
	}
	if s.indexKey == key {
		return s.tracked
	}
	data, err := readBounded(p, maxIndex)
	if err != nil {
		return nil
	}
	paths, err := parseIndex(data, hashLen(gitDir))
	if err != nil {
		s.indexKey, s.tracked = key, nil
		return nil
	}
	t := &tracked{files: make(map[string]struct{}, len(paths)), dirs: map[string]struct{}{}}
	for _, p := range paths {
		if prefix != "" {
			rest, ok := strings.CutPrefix(p, prefix+"/")
			if !ok {
				continue
			}
			p = rest
		}
		if d, ok := strings.CutSuffix(p, "/"); ok {
			t.dirs[d] = struct{}{}
			p = d
		} else {
			t.files[p] = struct{}{}
		}
		for d := p; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if _, ok := t.dirs[d]; ok {
				break
			}
			t.dirs[d] = struct{}{}
		}
	}
	s.indexKey, s.tracked = key, t
	return t
}

// hashLen returns the length of the repository's object names: 32 bytes
// when its configuration sets extensions.objectFormat to sha256, 20 (SHA-1)
// otherwise. The configuration (the common one, for a worktree) is only
// scanned for that setting.
func hashLen(gitDir string) int {
	dir := gitDir
	if common, err := readBounded(filepath.Join(gitDir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dir = c
	}
	data, err := readBounded(filepath.Join(dir, "config"), 1<<20)
	if err != nil {
		return 20
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "objectformat") && strings.EqualFold(strings.TrimSpace(v), "sha256") {
			return 32
		}
	}
	return 20
}

func readBounded(p string, limit int64) ([]byte, error) {
	f, err := openNoPoll(p, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only: a close error loses nothing
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, errors.New("too large")
	}
	return data, nil
}

// parseIndex returns the paths of a git index file (versions 2, 3 and 4;
// object names of hashLen bytes: 20 for SHA-1, 32 for SHA-256), as they are stored: slash-separated,
// relative to the repository's root. A sparse index's directory entries
// are paths too, ending in "/". It trusts no count or length the file gives: every read is
// bounded by the data.
func parseIndex(data []byte, hashLen int) ([]string, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("index: not an index file")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index: version %d", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	// The smallest entry is 62 bytes and a name of one.
	if uint64(count) > uint64(len(data))/40 {
		return nil, errors.New("index: more entries than the file can hold")
	}
	return parseEntries(data[12:], int(count), version, hashLen)
}

// parseEntries reads count entries of an index body whose object names
// are hashLen bytes long.
func parseEntries(b []byte, count int, version uint32, hashLen int) ([]string, error) {
	fixed := 40 + hashLen + 2 // ctime..size (40), the name, the flags
	paths := make([]string, 0, count)
	prev := ""
	budget := min(int64(len(b))*maxIndexNamesX, maxIndexNamesSize)
	for i := 0; i < count; i++ {
		if len(b) < fixed {
			return nil, errors.New("index: truncated entry")
		}
		mode := binary.BigEndian.Uint32(b[24:28])
		flags := binary.BigEndian.Uint16(b[40+hashLen:])
		n := fixed
		if flags&0x4000 != 0 { // extended: a second flags word
			if version < 3 {
				return nil, errors.New("index: extended flags in a version 2 index")
			}
			n += 2
		}
		if len(b) < n {
			return nil, errors.New("index: truncated entry")
		}
		var name string
		rest := b[n:]
		if version == 4 {
			strip, k := binary.Uvarint(rest)
			if k <= 0 || strip > uint64(len(prev)) {
				return nil, errors.New("index: bad path prefix")
			}
			rest = rest[k:]
			end := bytes.IndexByte(rest, 0)
			if end < 0 {
				return nil, errors.New("index: unterminated path")
			}
			if len(prev)-int(strip)+end > maxIndexName {
				return nil, errors.New("index: a path over 4096 bytes")
			}
			name = prev[:len(prev)-int(strip)] + string(rest[:end])
			b = rest[end+1:]
		} else {
			end := bytes.IndexByte(rest, 0)
			if end < 0 {
				return nil, errors.New("index: unterminated path")
			}
			name = string(rest[:end])
			// Padded with 1 to 8 NULs to a multiple of 8 bytes.
			size := (n + end + 8) &^ 7
			if size > len(b) {
				return nil, errors.New("index: truncated entry")
			}
			b = b[size:]
		}
		if name == "" || strings.HasPrefix(name, "/") {
			return nil, errors.New("index: bad path")
		}
		if len(name) > maxIndexName {
			return nil, errors.New("index: a path over 4096 bytes")
		}
		if budget -= int64(len(name)); budget < 0 {
			return nil, errors.New("index: its paths add up to more than a real index holds")
		}
		prev = name
		if mode&0o170000 == 0o040000 && !strings.HasSuffix(name, "/") {
			name += "/" // a sparse index's directory
		}
		paths = append(paths, name)
	}
	return paths, nil
}
