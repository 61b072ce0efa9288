package sandbox

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// dirent returns a linux_dirent64 record for name of type typ, padded
// to 8 bytes as the kernel pads it.
func dirent(name string, typ byte) []byte {
	n := (direntName + len(name) + 1 + 7) &^ 7
	rec := make([]byte, n)
	binary.NativeEndian.PutUint16(rec[direntReclen:], uint16(n))
	rec[direntType] = typ
	copy(rec[direntName:], name)
	return rec
}

// entries returns what eachDirent gives for buf read from dir, and
// whether it asked for more.
func entries(t *testing.T, dir string, buf []byte) (map[string]fs.FileMode, bool) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	got := map[string]fs.FileMode{}
	more := eachDirent(fd, buf, func(name []byte, typ fs.FileMode) bool {
		got[string(name)] = typ
		return true
	})
	return got, more
}

// A file system that does not keep the type in the directory
// (DT_UNKNOWN: some XFS, network and FUSE file systems) has each entry
// looked at instead, without following a symbolic link: a socket and a
// directory are found as with d_type, and an entry removed since is left
// out. No such file system can be mounted here, so the records are
// written by hand for entries that do exist.
func TestEachDirentLooksAtAnEntryOfUnknownType(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Skipf("cannot listen: %v", err)
	}
	defer l.Close()
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, name := range []string{".", "..", "s", "d", "f", "l", "gone"} {
		buf = append(buf, dirent(name, unix.DT_UNKNOWN)...)
	}
	// A type the record gives is taken as it is.
	buf = append(buf, dirent("typed", unix.DT_SOCK)...)
	buf = append(buf, dirent("a file", unix.DT_REG)...)
	got, more := entries(t, dir, buf)
	want := map[string]fs.FileMode{"s": fs.ModeSocket, "d": fs.ModeDir, "f": 0, "l": 0, "typed": fs.ModeSocket, "a file": 0}
	if d := cmp.Diff(want, got); d != "" || !more {
		t.Errorf("eachDirent() mismatch (-want +got), more %v:\n%s", more, d)
	}
}

// A record that runs past what was read, or whose length could not hold
// it, ends the reading of the directory rather than looping or reading
// beyond; one that fn refuses ends it too.
func TestEachDirentStopsAtABadRecord(t *testing.T) {
	dir := t.TempDir()
	good := dirent("x.sock", unix.DT_SOCK)
	zero := dirent("zero", unix.DT_SOCK)
	binary.NativeEndian.PutUint16(zero[direntReclen:], 0)
	long := dirent("long", unix.DT_SOCK)
	binary.NativeEndian.PutUint16(long[direntReclen:], uint16(len(long)+8))
	for name, buf := range map[string][]byte{
		"a length of 0":           append(append([]byte{}, good...), zero...),
		"a length past the end":   append(append([]byte{}, good...), long...),
		"a record cut short":      append(append([]byte{}, good...), dirent("cut", unix.DT_SOCK)[:direntName+1]...),
		"a record without a name": append(append([]byte{}, good...), make([]byte, direntName)...),
	} {
		got, more := entries(t, dir, buf)
		if d := cmp.Diff(map[string]fs.FileMode{"x.sock": fs.ModeSocket}, got); d != "" || more {
			t.Errorf("%s: eachDirent() mismatch (-want +got), more %v:\n%s", name, more, d)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	calls := 0
	buf := append(append([]byte{}, good...), good...)
	if more := eachDirent(fd, buf, func([]byte, fs.FileMode) bool { calls++; return false }); more || calls != 1 {
		t.Errorf("eachDirent() called fn %d times after it refused, more %v", calls, more)
	}
}

// The look at a crowded directory's top level allocates for the sockets
// it finds, not for each entry it reads: os.ReadDir's 1,500 DirEntries
// and names were a few hundred kilobytes of garbage at every start.
func TestSocketsUnderAllocatesForWhatItKeeps(t *testing.T) {
	root := t.TempDir()
	for i := range 1500 {
		p := filepath.Join(root, fmt.Sprintf("go-build%010d", i))
		var err error
		if i%2 == 0 {
			err = os.Mkdir(p, 0o700)
		} else {
			err = os.WriteFile(p, nil, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("unix", filepath.Join(root, "s.sock"))
	if err != nil {
		t.Skipf("cannot listen: %v", err)
	}
	defer l.Close()
	// The buffer, the socket's path and the slice that holds it, give
	// or take what the runtime allocates meanwhile.
	if n := testing.AllocsPerRun(5, func() { socketsUnder([]string{root}, 0, 4096) }); n > 20 {
		t.Errorf("socketsUnder() allocated %v times for one socket among 1,500 entries", n)
	}
}

// A directory that is a symbolic link is read only when asked to follow
// it: the look below /tmp's top level never follows a link put in place
// of a folder it found.
func TestEachFollowsALinkOnlyWhenAsked(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "d", "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "d"), filepath.Join(root, "l")); err != nil {
		t.Fatal(err)
	}
	r := newDirReader()
	for _, follow := range []bool{true, false} {
		var got []string
		r.each(filepath.Join(root, "l"), follow, func(name []byte, _ fs.FileMode) bool {
			got = append(got, string(name))
			return true
		})
		if want := follow; (len(got) == 1) != want {
			t.Errorf("each(link, follow=%v) = %q", follow, got)
		}
	}
}
