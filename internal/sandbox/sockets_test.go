package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/sandbox"
)

// The kernel's table of bound sockets is read for the paths under the
// directories asked about, whatever their depth: a path with spaces is
// whole, an abstract or unbound socket and one elsewhere are not listed.
// A socket the table names but rein cannot find by its path (bound by a
// relative path, or renamed or removed since) makes it say so, so that
// it looks for itself.
func TestBoundSocketsReadsTheTable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sockets are made with Linux's unix sockets")
	}
	dir := t.TempDir()
	deep := filepath.Join(dir, "a", "b", "c", "deep.sock")
	spaces := filepath.Join(dir, "with two  spaces.sock")
	if err := os.MkdirAll(filepath.Dir(deep), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{deep, spaces} {
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", p, err)
		}
		defer l.Close()
	}
	notSocket := filepath.Join(dir, "file")
	if err := os.WriteFile(notSocket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	row := func(path string) string {
		return "0000000000000000: 00000002 00000000 00010000 0001 01 11 " + path + "\n"
	}
	read := func(rows ...string) ([]string, bool) {
		t.Helper()
		table := filepath.Join(t.TempDir(), "unix")
		text := "Num       RefCount Protocol Flags    Type St Inode Path\n" + strings.Join(rows, "")
		if err := os.WriteFile(table, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, unplaced, err := sandbox.BoundSockets(table, []string{dir})
		if err != nil {
			t.Fatal(err)
		}
		return got, unplaced
	}
	got, unplaced := read(row(deep), row(spaces), row("@abstract"), "0000000000000000: 00000003 00000000 00000000 0001 03 14\n",
		row("/run/elsewhere.sock"), row(dir+"foo/not-under.sock"), row(deep))
	if d := cmp.Diff([]string{deep, spaces}, got); d != "" || unplaced {
		t.Errorf("BoundSockets() mismatch (-want +got), unplaced %v:\n%s", unplaced, d)
	}
	for name, r := range map[string]string{
		"a relative path":        row("rel.sock"),
		"a socket gone since":    row(filepath.Join(dir, "gone.sock")),
		"a file that is not one": row(notSocket),
	} {
		if got, unplaced := read(row(deep), r); !unplaced || len(got) != 1 {
			t.Errorf("%s: %q, unplaced %v; want the one socket found and the table said unsure", name, got, unplaced)
		}
	}
	if _, _, err := sandbox.BoundSockets(filepath.Join(t.TempDir(), "missing"), []string{"/tmp"}); err == nil {
		t.Error("a table that cannot be read gave no error")
	}
}

// A server listening deeper than the scan of /tmp goes is found in
// the kernel's own table.
func TestBoundSocketsFindsAListeningServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/net/unix is Linux's")
	}
	dir := filepath.Join(t.TempDir(), "one", "two", "three")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "server.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", sock, err)
	}
	defer l.Close()
	got, _, err := sandbox.BoundSockets("/proc/net/unix", []string{filepath.Dir(filepath.Dir(filepath.Dir(dir)))})
	if err != nil {
		t.Skipf("no /proc/net/unix here: %v", err)
	}
	found := false
	for _, p := range got {
		found = found || p == sock
	}
	if !found {
		t.Errorf("BoundSockets() = %q, without %s", got, sock)
	}
}

// The scan of a directory does not enter the temporary directories of
// rein's sessions: a crowd of them would use its budget up.
func TestSocketsUnderSkipsSessionsTemporaryDirectories(t *testing.T) {
	root := t.TempDir()
	session := filepath.Join(root, sandbox.SessionTempPrefix+"1-2-3-x")
	if err := os.MkdirAll(session, 0o700); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	var socks []string
	for _, d := range []string{session, other} {
		sock := filepath.Join(d, "s")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", sock, err)
		}
		defer l.Close()
		socks = append(socks, sock)
	}
	got := sandbox.SocketsUnder([]string{root}, 2, 4096)
	if d := cmp.Diff([]string{socks[1]}, got); d != "" {
		t.Errorf("SocketsUnder() mismatch (-want +got):\n%s", d)
	}
}

// listen binds a Unix socket at path for the rest of the test, or skips
// it where that cannot be done.
func listen(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", path, err)
	}
	t.Cleanup(func() { l.Close() })
}

// The scan finds the sockets of each level down to the depth asked,
// level by level and each directory's in the order of their names,
// among more entries than one read of a directory returns; it does not
// follow a symbolic link, and a directory that is not there is passed
// over.
func TestSocketsUnderFindsEachLevel(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "d1", "d2", "d3")
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	var top []string
	for i := range 1500 {
		p := filepath.Join(root, fmt.Sprintf("%04d-%s", i, strings.Repeat("x", 100)))
		if i%300 == 7 {
			p = filepath.Join(root, fmt.Sprintf("%04d.sock", i))
			listen(t, p)
			top = append(top, p)
			continue
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	levels := []string{filepath.Join(root, "d1", "b.sock"), filepath.Join(root, "d1", "d2", "c.sock"), filepath.Join(deep, "d.sock")}
	for _, p := range levels {
		listen(t, p)
	}
	if err := os.Symlink(top[0], filepath.Join(root, "link.sock")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("d1", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(root, "missing")
	for depth := range 3 {
		want := append(slices.Clone(top), levels[:depth]...)
		if got := sandbox.SocketsUnder([]string{missing, root + "/"}, depth, 4096); !cmp.Equal(want, got) {
			t.Errorf("SocketsUnder(depth %d) mismatch (-want +got):\n%s", depth, cmp.Diff(want, got))
		}
	}
}

// The limit counts the entries read, breadth first: it cuts the deepest
// levels first, and the entries of sessions' temporary directories,
// which are not entered, do not count.
func TestSocketsUnderLimit(t *testing.T) {
	root := t.TempDir()
	for i := range 20 {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("%s%d-x", sandbox.SessionTempPrefix, i)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sock, sub := filepath.Join(root, "top.sock"), filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	below := filepath.Join(sub, "below.sock")
	listen(t, sock)
	listen(t, below)
	for limit, want := range map[int][]string{2: {sock}, 3: {sock, below}} {
		if d := cmp.Diff(want, sandbox.SocketsUnder([]string{root}, 1, limit)); d != "" {
			t.Errorf("SocketsUnder(limit %d) mismatch (-want +got):\n%s", limit, d)
		}
	}
	// One entry read: top.sock or sub, whichever the directory keeps first.
	if got := sandbox.SocketsUnder([]string{root}, 1, 1); len(got) > 1 || len(got) == 1 && got[0] != sock {
		t.Errorf("SocketsUnder(limit 1) = %q; want %s or nothing", got, sock)
	}
}
