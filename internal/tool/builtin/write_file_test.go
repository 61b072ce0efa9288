package builtin

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFileCreates(t *testing.T) {
	e := newFileEnv(t)
	out := e.mustRun("write_file", m{"path": "a/b/c.txt", "content": "one\ntwo\n"})
	if want := "created a/b/c.txt (2 lines)\n"; out != want {
		t.Errorf("write_file output = %q; want %q", out, want)
	}
	if got := e.get("a/b/c.txt"); got != "one\ntwo\n" {
		t.Errorf("a/b/c.txt = %q; want the content written", got)
	}
	out = e.mustRun("write_file", m{"path": e.path("abs.txt"), "content": "x"})
	if want := "created abs.txt (1 line)\n"; out != want {
		t.Errorf("write_file by absolute path output = %q; want %q", out, want)
	}
	// What rein wrote counts as read: it may be written again at once.
	out = e.mustRun("write_file", m{"path": "a/b/c.txt", "content": "one\n2\n"})
	want := "updated a/b/c.txt\n--- a/a/b/c.txt\n+++ b/a/b/c.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("second write_file mismatch (-want +got):\n%s", d)
	}
	out = e.mustRun("write_file", m{"path": "a/b/c.txt", "content": "one\n2\n"})
	if want := "updated a/b/c.txt (content unchanged)\n"; out != want {
		t.Errorf("write_file of the same content = %q; want %q", out, want)
	}
	entries, err := os.ReadDir(e.path("a/b"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("a/b holds %d entries; want only c.txt, no temporary files left", len(entries))
	}
}

func TestWriteFileStale(t *testing.T) {
	e := newFileEnv(t)
	e.put("x.txt", "original\n")

	_, err := e.run("write_file", m{"path": "x.txt", "content": "new\n"})
	if checkCode(err) != "stale_file" || !strings.Contains(err.Error(), "call read_file on it first") {
		t.Fatalf("write_file over an unread file = %v; want stale_file asking for a read", err)
	}

	e.mustRun("read_file", m{"path": "x.txt"})
	e.put("x.txt", "changed by someone else\n")
	_, err = e.run("write_file", m{"path": "x.txt", "content": "new\n"})
	if checkCode(err) != "stale_file" || !strings.Contains(err.Error(), "changed on disk since you last read it") {
		t.Fatalf("write_file over a file changed since read = %v; want stale_file", err)
	}
	if got := e.get("x.txt"); got != "changed by someone else\n" {
		t.Errorf("x.txt = %q; a refused write must not touch it", got)
	}

	// Check passes, then the file changes before Execute (an earlier
	// intent of the turn, or another process): Execute refuses too.
	e.mustRun("read_file", m{"path": "x.txt"})
	if err := e.check("write_file", m{"path": "x.txt", "content": "new\n"}); err != nil {
		t.Fatalf("Check after a fresh read: %v", err)
	}
	e.put("x.txt", "changed again\n")
	if _, err := e.execute("write_file", m{"path": "x.txt", "content": "new\n"}); checkCode(err) != "stale_file" {
		t.Fatalf("Execute over a file changed since Check = %v; want stale_file", err)
	}

	// A file only touched, not changed, is still what was read.
	e.mustRun("read_file", m{"path": "x.txt"})
	y2k := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(e.path("x.txt"), y2k, y2k); err != nil {
		t.Fatal(err)
	}
	e.mustRun("write_file", m{"path": "x.txt", "content": "new\n"})
}

func TestWriteFileKeepsMode(t *testing.T) {
	e := newFileEnv(t)
	e.put("run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(e.path("run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	e.mustRun("read_file", m{"path": "run.sh"})
	e.mustRun("write_file", m{"path": "run.sh", "content": "#!/bin/sh\necho bye\n"})
	fi, err := os.Stat(e.path("run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("run.sh mode after write_file = %v; want 0750 kept", fi.Mode().Perm())
	}
	e.mustRun("edit_file", m{"path": "run.sh", "old_string": "bye", "new_string": "again"})
	if fi, err = os.Stat(e.path("run.sh")); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("run.sh mode after edit_file = %v, %v; want 0750 kept", fi.Mode().Perm(), err)
	}
}

func TestWriteFileRefusesDirectory(t *testing.T) {
	e := newFileEnv(t)
	if err := os.Mkdir(e.path("d"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := e.run("write_file", m{"path": "d", "content": "x"})
	if checkCode(err) != "precondition_failed" || !strings.Contains(err.Error(), "d is a directory") {
		t.Fatalf("write_file over a directory = %v; want precondition_failed", err)
	}
}
