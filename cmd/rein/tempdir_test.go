package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// deadOwner returns the owner of a process that has ended: a child that
// ran true and was reaped. Its pid is free again, and nothing else has
// taken it in the moment since, or its start time tells.
func deadOwner(t testing.TB) owner {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	o := self()
	o.pid = cmd.Process.Pid
	return o
}

// mkdir makes dir (mode 0700) and a file in it, and returns dir.
func mkdir(t testing.TB, dir string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A new session's temporary directory is named for its process, and a
// later start removes the directories of processes that are gone (a pid
// free, a pid given again to a process started at another time), read-only
// directories inside included, and only those: a live rein's (this
// process's), another PID namespace's, another user's, a symbolic link,
// names rein did not make so (an older rein's, another program's) stay.
func TestRemoveStaleTempDirs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("start times and namespaces are read from /proc")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, err := makeTempDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(tmp, tempPrefix+self().String()+"-"); !strings.HasPrefix(live, want) || self().start == 0 || self().ns == 0 {
		t.Fatalf("makeTempDir() = %s, want it to start with %s", live, want)
	}
	mkdir(t, live)

	dead := deadOwner(t)
	reused := self()
	reused.start-- // this pid, but a process started at another time
	otherNS := deadOwner(t)
	otherNS.ns++
	gone := []string{
		mkdir(t, filepath.Join(tmp, tempPrefix+dead.String()+"-123")),
		mkdir(t, filepath.Join(tmp, tempPrefix+reused.String()+"-456")),
	}
	readOnly := mkdir(t, filepath.Join(tmp, tempPrefix+dead.String()+"-789"))
	if err := os.Chmod(filepath.Join(readOnly, "sub"), 0o500); err != nil {
		t.Fatal(err)
	}
	gone = append(gone, readOnly)

	target := mkdir(t, filepath.Join(t.TempDir(), "target"))
	link := filepath.Join(tmp, tempPrefix+dead.String()+"-999")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	kept := []string{
		live,
		mkdir(t, filepath.Join(tmp, tempPrefix+otherNS.String()+"-1")),
		mkdir(t, filepath.Join(tmp, tempPrefix+"2395823958")),                              // an older rein's
		mkdir(t, filepath.Join(tmp, tempPrefix+fmt.Sprintf("%d-%d-1", dead.ns, dead.pid))), // not four numbers
		mkdir(t, filepath.Join(tmp, tempPrefix+"x-"+dead.String())),                        // not numbers
		mkdir(t, filepath.Join(tmp, "rein-demo-1")),
		link,
	}
	if os.Getuid() == 0 {
		theirs := mkdir(t, filepath.Join(tmp, tempPrefix+dead.String()+"-555"))
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, theirs)
	}

	if n := removeStale(tmp); n != len(gone) {
		t.Errorf("removeStale() = %d, want %d", n, len(gone))
	}
	for _, d := range gone {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s is still there", d)
		}
	}
	for _, d := range kept {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "sub", "f")); err != nil {
		t.Errorf("the link's target lost its file: %v", err)
	}
}

// The owner's name reads back, and nothing else reads as one.
func TestOwnerOf(t *testing.T) {
	o := owner{ns: 4026531836, pid: 4242, start: 99233}
	if got, ok := ownerOf(tempPrefix + o.String() + "-77"); !ok || got != o {
		t.Errorf("ownerOf(%s) = %+v, %v", o, got, ok)
	}
	for _, name := range []string{"rein-tmp-", "rein-tmp-77", "rein-tmp-1-2-3", "rein-tmp-1-0-3-4", "rein-tmp-1-2-3-4-5",
		"rein-tmp-1--3-4", "rein-tmp-1-+2-3-4", "rein-tmp-1-99999999-3-4", "other-1-2-3-4"} {
		if got, ok := ownerOf(name); ok {
			t.Errorf("ownerOf(%s) = %+v, want none", name, got)
		}
	}
}

// A session's close removes its temporary directory, read-only
// directories in it included.
func TestRemoveTree(t *testing.T) {
	dir := mkdir(t, filepath.Join(t.TempDir(), "d"))
	if err := os.Chmod(filepath.Join(dir, "sub"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := removeTree(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Error("the directory is still there")
	}
}

// BenchmarkRemoveStale measures what a session's start spends on the
// temporary directories earlier reins left: with a /tmp of 4,096 entries
// and none of rein's, with 1,000 directories of live reins (kept), and
// with 1,000 stale ones (removed, each with a file).
func BenchmarkRemoveStale(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("start times are read from /proc")
	}
	crowd := func(b *testing.B, dir string) {
		for i := range 4096 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("4096 entries, none of rein's", func(b *testing.B) {
		dir := b.TempDir()
		crowd(b, dir)
		for b.Loop() {
			removeStale(dir)
		}
	})
	b.Run("4096 entries and 1000 live", func(b *testing.B) {
		dir := b.TempDir()
		crowd(b, dir)
		for i := range 1000 {
			mkdir(b, filepath.Join(dir, fmt.Sprintf("%s%s-%d", tempPrefix, self(), i)))
		}
		for b.Loop() {
			if n := removeStale(dir); n != 0 {
				b.Fatalf("removed %d", n)
			}
		}
	})
	b.Run("4096 entries and 1000 stale", func(b *testing.B) {
		dir := b.TempDir()
		crowd(b, dir)
		dead := deadOwner(b)
		for b.Loop() {
			b.StopTimer()
			for i := range 1000 {
				mkdir(b, filepath.Join(dir, fmt.Sprintf("%s%s-%d", tempPrefix, dead, i)))
			}
			b.StartTimer()
			if n := removeStale(dir); n != 1000 {
				b.Fatalf("removed %d", n)
			}
		}
	})
}
