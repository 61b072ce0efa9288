package builtin

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListDir(t *testing.T) {
	e := newFileEnv(t)
	e.put("b.txt", "hello\n")
	e.put("A.md", strings.Repeat("x", 2048))
	e.put("zdir/inner.txt", "")
	e.put("adir/x", "")
	e.put(".hidden", "")
	e.put(".git/config", "")
	if err := os.Symlink("b.txt", e.path("link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(e.path("empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.put("only-hidden/.env", "")
	tests := []struct {
		name  string
		input m
		want  string
	}{
		{"root by default", m{},
			"adir/\nempty/\nonly-hidden/\nzdir/\nA.md  2.0 KiB\nb.txt  6 B\nlink -> b.txt\n(2 hidden entries not shown; pass all=true to see them)\n"},
		{"all", m{"path": ".", "all": true},
			".git/\nadir/\nempty/\nonly-hidden/\nzdir/\n.hidden  0 B\nA.md  2.0 KiB\nb.txt  6 B\nlink -> b.txt\n"},
		{"subdirectory", m{"path": "zdir"}, "inner.txt  0 B\n"},
		{"absolute", m{"path": e.path("zdir")}, "inner.txt  0 B\n"},
		{"empty", m{"path": "empty"}, "empty is empty.\n"},
		{"only hidden", m{"path": "only-hidden"}, "only-hidden is empty but for 1 hidden entry; pass all=true to see them.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.run("list_dir", tt.input)
			if err != nil {
				t.Fatalf("list_dir(%v): %v", tt.input, err)
			}
			if d := cmp.Diff(tt.want, out); d != "" {
				t.Errorf("list_dir(%v) mismatch (-want +got):\n%s", tt.input, d)
			}
		})
	}
	for input, want := range map[string]string{
		"b.txt":   "b.txt is not a directory; use read_file",
		"missing": "missing does not exist",
	} {
		if _, err := e.run("list_dir", m{"path": input}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("list_dir(%s) = %v; want an error with %q", input, err, want)
		}
	}
}

func TestListDirCap(t *testing.T) {
	e := newFileEnv(t)
	for i := range listMaxEntries + 5 {
		e.put(fmt.Sprintf("many/f%04d", i), "")
	}
	out := e.mustRun("list_dir", m{"path": "many"})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != listMaxEntries+1 {
		t.Fatalf("list_dir of %d files gave %d lines; want %d entries and a remainder line", listMaxEntries+5, len(lines), listMaxEntries)
	}
	if lines[0] != "f0000  0 B" || lines[listMaxEntries-1] != fmt.Sprintf("f%04d  0 B", listMaxEntries-1) {
		t.Errorf("list_dir entries run %q..%q; want the first %d in order", lines[0], lines[listMaxEntries-1], listMaxEntries)
	}
	if want := "(5 more entries not shown; list a subdirectory, or use glob to find what you need)"; lines[listMaxEntries] != want {
		t.Errorf("list_dir remainder line = %q; want %q", lines[listMaxEntries], want)
	}
}
