//go:build linux

package eventlog

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// atime returns the access time of path.
func atime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return time.Unix(st.Atim.Unix())
}

// TestReadOnlyOpensKeepTheAccessTime sets a file's access time before its
// modification time, which makes a relatime mount update it on the next
// read, and checks the read-only opens leave it alone.
func TestReadOnlyOpensKeepTheAccessTime(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	writeFile(t, dir, lines(t, 3))
	old, mtime := time.Unix(1_000_000_000, 0), time.Unix(1_500_000_000, 0)
	stale := func() {
		t.Helper()
		if err := os.Chtimes(path, old, mtime); err != nil {
			t.Fatal(err)
		}
	}
	stale()
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if atime(t, path).Equal(old) {
		t.Skip("this file system does not update access times on read")
	}
	reads := map[string]func() error{
		"OpenFile": func() error {
			s, err := OpenFile(dir, &FileOptions{ReadOnly: true})
			if err == nil {
				err = s.Close()
			}
			return err
		},
		"ReadFile": func() error {
			_, err := ReadFile(dir, nil, nil)
			return err
		},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			stale()
			if err := read(); err != nil {
				t.Fatal(err)
			}
			if got := atime(t, path); !got.Equal(old) {
				t.Errorf("access time = %v, want it left at %v", got, old)
			}
		})
	}
}
