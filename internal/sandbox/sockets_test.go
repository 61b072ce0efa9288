package sandbox_test

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/sandbox"
)

// The kernel's table of bound sockets is read for the paths under the
// directories asked about, whatever their depth: a path with spaces is
// whole, an abstract or unbound socket and one elsewhere are not listed.
func TestBoundSocketsReadsTheTable(t *testing.T) {
	table := filepath.Join(t.TempDir(), "unix")
	text := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 11 /tmp/a/b/c/deep.sock\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 12 /tmp/with two  spaces.sock\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 13 @abstract\n" +
		"0000000000000000: 00000003 00000000 00000000 0001 03 14\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 15 /run/elsewhere.sock\n" +
		"0000000000000000: 00000002 00000000 00010000 0002 01 16 /var/tmp/dgram\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 17 /tmpfoo/not-under.sock\n"
	if err := os.WriteFile(table, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := sandbox.BoundSockets(table, []string{"/tmp", "/var/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/tmp/a/b/c/deep.sock", "/tmp/with two  spaces.sock", "/var/tmp/dgram"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BoundSockets() mismatch (-want +got):\n%s", d)
	}
	if _, err := sandbox.BoundSockets(filepath.Join(t.TempDir(), "missing"), []string{"/tmp"}); err == nil {
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
	got, err := sandbox.BoundSockets("/proc/net/unix", []string{filepath.Dir(filepath.Dir(filepath.Dir(dir)))})
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
