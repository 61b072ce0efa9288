package sandbox_test

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
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
