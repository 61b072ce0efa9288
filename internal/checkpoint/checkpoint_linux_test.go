//go:build linux

package checkpoint

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A fork's store reads its parent's objects, hard-linked, without a write
// to the parent's: Link and what the linked store reads leave the access
// times of the parent's files and directories as they were.
func TestLinkLeavesTheParentUntouched(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a", "one", 0o644)
	write(t, root, "big", strings.Repeat("b", 2<<20), 0o644)
	s := newStore(t, root, Options{})
	first := take(t, s)
	write(t, root, "a", "two", 0o644)
	take(t, s)
	old := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	atimes := map[string]int64{}
	var paths []string
	err := filepath.WalkDir(s.dir, func(p string, d os.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths { // after the walk, which reads the directories
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		atimes[p] = old.UnixNano()
	}
	fork := filepath.Join(t.TempDir(), "fork")
	if err := Link(s.dir, fork); err != nil {
		t.Fatal(err)
	}
	f := newStore(t, root, Options{Dir: fork})
	if err := f.Base(first.ID); err != nil {
		t.Fatal(err)
	}
	last := take(t, f)
	if _, err := f.Plan(first.ID, last.ID); err != nil {
		t.Fatal(err)
	}
	r, _, err := f.Open(first.ID, "big")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r)
	r.Close()
	for p, want := range atimes {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Atim.Nano() != want {
			t.Errorf("%s was read with its access time updated", p)
		}
	}
}
