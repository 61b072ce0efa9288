package clipboard

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The first paste finds the program on PATH (xclip here, under X), and
// what it prints is the clipboard's text.
func TestReadAllRunsTheProgramFoundOnPATH(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the programs looked for are Linux's")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\n[ \"$*\" = \"-out -selection clipboard\" ] && printf 'pasted\\ntext'\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	got, err := ReadAll()
	if err != nil || got != "pasted\ntext" {
		t.Errorf("ReadAll() = %q, %v; want the text xclip printed", got, err)
	}
}
