package builtin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("hello")
}

func helper() int {
	return 1
}
`

func TestEditFileStale(t *testing.T) {
	e := newFileEnv(t)
	e.put("main.go", goSource)
	edit := m{"path": "main.go", "old_string": "return 1", "new_string": "return 2"}

	_, err := e.run("edit_file", edit)
	if checkCode(err) != "stale_file" || !strings.Contains(err.Error(), "main.go has not been read in this session") {
		t.Fatalf("edit_file without a read = %v; want stale_file", err)
	}

	e.mustRun("read_file", m{"path": "main.go"})
	e.put("main.go", strings.Replace(goSource, "hello", "bye", 1))
	_, err = e.run("edit_file", edit)
	if checkCode(err) != "stale_file" || !strings.Contains(err.Error(), "call read_file again") {
		t.Fatalf("edit_file after a change on disk = %v; want stale_file", err)
	}

	// Check passed, then the file changed before Execute.
	e.mustRun("read_file", m{"path": "main.go"})
	if err := e.check("edit_file", edit); err != nil {
		t.Fatalf("Check after a fresh read: %v", err)
	}
	e.put("main.go", goSource)
	if _, err := e.execute("edit_file", edit); checkCode(err) != "stale_file" {
		t.Fatalf("Execute after a change since Check = %v; want stale_file", err)
	}
	if got := e.get("main.go"); got != goSource {
		t.Errorf("main.go = %q; a refused edit must not touch it", got)
	}
}

// TestEditFileSuccessive proves rein's own changes keep the ledger fresh:
// two edits after one read, and an edit after a write, need no re-read.
func TestEditFileSuccessive(t *testing.T) {
	e := newFileEnv(t)
	e.put("main.go", goSource)
	e.mustRun("read_file", m{"path": "main.go", "offset": 10, "limit": 1})
	e.mustRun("edit_file", m{"path": "main.go", "old_string": "return 1", "new_string": "return 2"})
	e.mustRun("edit_file", m{"path": "main.go", "old_string": "import \"fmt\"", "new_string": "import \"os\""})
	want := strings.Replace(strings.Replace(goSource, "return 1", "return 2", 1), `"fmt"`, `"os"`, 1)
	if got := e.get("main.go"); got != want {
		t.Errorf("main.go after two edits = %q; want %q", got, want)
	}
	e.mustRun("write_file", m{"path": "new.go", "content": "package new\n"})
	e.mustRun("edit_file", m{"path": "new.go", "old_string": "new", "new_string": "fresh"})
	if got := e.get("new.go"); got != "package fresh\n" {
		t.Errorf("new.go = %q; want the edit applied", got)
	}
}

func TestEditFileGoldenDiff(t *testing.T) {
	e := newFileEnv(t)
	e.put("main.go", goSource)
	e.mustRun("read_file", m{"path": "main.go"})
	out := e.mustRun("edit_file", m{"path": "main.go", "old_string": "func helper() int {\n\treturn 1\n}", "new_string": "// helper returns two.\nfunc helper() int {\n\treturn 2\n}"})
	want := `edited main.go: 1 replacement
--- a/main.go
+++ b/main.go
@@ -7,6 +7,7 @@
 	fmt.Println("hello")
 }
 
+// helper returns two.
 func helper() int {
-	return 1
+	return 2
 }
`
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("edit_file output mismatch (-want +got):\n%s", d)
	}
}

func TestEditFileReplacements(t *testing.T) {
	e := newFileEnv(t)
	e.put("main.go", goSource)
	e.mustRun("read_file", m{"path": "main.go"})

	_, err := e.run("edit_file", m{"path": "main.go", "old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("hi")`})
	if err == nil || !strings.Contains(err.Error(), "old_string appears 2 times in main.go") || !strings.Contains(err.Error(), "replace_all") {
		t.Fatalf("edit_file of a repeated old_string = %v; want a refusal naming 2 occurrences", err)
	}
	if got := e.get("main.go"); got != goSource {
		t.Fatalf("main.go = %q; a refused edit must not touch it", got)
	}
	out := e.mustRun("edit_file", m{"path": "main.go", "old_string": `"hello"`, "new_string": `"hi"`, "replace_all": true})
	if !strings.HasPrefix(out, "edited main.go: 2 replacements\n") {
		t.Errorf("replace_all output starts %q; want 2 replacements", out)
	}
	if got, want := e.get("main.go"), strings.ReplaceAll(goSource, "hello", "hi"); got != want {
		t.Errorf("main.go after replace_all = %q; want %q", got, want)
	}
}

func TestEditFileRefusals(t *testing.T) {
	e := newFileEnv(t)
	e.put("main.go", goSource)
	e.mustRun("read_file", m{"path": "main.go"})
	tests := []struct {
		name  string
		input m
		want  string // in the error
	}{
		{"not found", m{"path": "main.go", "old_string": "return 3", "new_string": "return 4"},
			"old_string was not found in main.go; read_file it again"},
		{"indentation differs", m{"path": "main.go", "old_string": "func helper() int {\n    return 1\n}", "new_string": "x"},
			"it matches lines 10-12 when leading and trailing whitespace is ignored"},
		{"line-number prefixes", m{"path": "main.go", "old_string": "    11\t\treturn 1\n    12\t}", "new_string": "x"},
			"read_file's line-number prefixes"},
		{"same strings", m{"path": "main.go", "old_string": "return 1", "new_string": "return 1"},
			"old_string and new_string are the same"},
		{"empty old_string on an existing file", m{"path": "main.go", "old_string": "", "new_string": "x"},
			"old_string is empty but main.go exists"},
		{"missing file", m{"path": "nope.go", "old_string": "a", "new_string": "b"},
			"nope.go does not exist; create it with write_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := e.run("edit_file", tt.input)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("edit_file(%v) = %q, %v; want an error with %q", tt.input, out, err, tt.want)
			}
		})
	}
	if got := e.get("main.go"); got != goSource {
		t.Errorf("main.go = %q; refused edits must not touch it", got)
	}
}

func TestEditFileCreatesWithEmptyOldString(t *testing.T) {
	e := newFileEnv(t)
	out := e.mustRun("edit_file", m{"path": "pkg/doc.go", "old_string": "", "new_string": "// Package pkg.\npackage pkg\n"})
	if want := "created pkg/doc.go (2 lines)\n"; out != want {
		t.Errorf("edit_file creating a file = %q; want %q", out, want)
	}
	if got := e.get("pkg/doc.go"); got != "// Package pkg.\npackage pkg\n" {
		t.Errorf("pkg/doc.go = %q", got)
	}
}

// TestEditFileCRLF proves an old_string copied from read_file's output
// (which hides the \r of CRLF lines) still applies, and keeps CRLFs.
func TestEditFileCRLF(t *testing.T) {
	e := newFileEnv(t)
	e.put("win.txt", "one\r\ntwo\r\nthree\r\n")
	e.mustRun("read_file", m{"path": "win.txt"})
	e.mustRun("edit_file", m{"path": "win.txt", "old_string": "one\ntwo\n", "new_string": "one\n2\n"})
	if got, want := e.get("win.txt"), "one\r\n2\r\nthree\r\n"; got != want {
		t.Errorf("win.txt = %q; want %q", got, want)
	}
}
