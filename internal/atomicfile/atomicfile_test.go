package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplacesContentAndKeepsMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old content, longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o750|fs.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "new" {
		t.Errorf("content = %q, %v; want new", data, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (keptBits | fs.ModeSetuid | fs.ModeSetgid); got != 0o750 {
		t.Errorf("mode = %v, want %v (setgid cleared, as a write clears it)", got, fs.FileMode(0o750))
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only f", names)
	}
}

func TestWriteNewFileGetsTheModeAsked(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	for _, perm := range []fs.FileMode{0o600, 0o640} {
		path := filepath.Join(t.TempDir(), "new")
		if err := Write(path, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != perm {
			t.Errorf("Write(perm %v) made a file of mode %v", perm, fi.Mode().Perm())
		}
	}
}

func TestWriteFailureLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	// A directory where the file should be: the rename over it fails.
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("x"), 0o644); err == nil {
		t.Fatal("Write over a directory succeeded")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "taken" {
		t.Errorf("directory holds %v, want only taken", names)
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "f")
	if err := Write(path, []byte("x"), 0o644); err == nil {
		t.Error("Write into a missing directory succeeded")
	}
}

func TestWriteReplacesALinkNotItsTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("target"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if err := Write(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "target" {
		t.Errorf("target = %q, %v; want it unchanged", data, err)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("link after Write: %v, %v; want a regular file", fi, err)
	}
}

func TestSyncDir(t *testing.T) {
	if err := SyncDir(t.TempDir()); err != nil {
		t.Error(err)
	}
	if runtime.GOOS != "windows" {
		if err := SyncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
			t.Error("SyncDir of a missing directory succeeded")
		}
	}
}

func TestMkdirAllMakesTheMissingDirectories(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	if err := MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "a/b", "a/b/c"} {
		fi, err := os.Stat(filepath.Join(root, d))
		if err != nil || !fi.IsDir() {
			t.Fatalf("%s after MkdirAll: %v, %v; want a directory", d, fi, err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
			t.Errorf("%s mode = %v, want %v", d, fi.Mode().Perm(), fs.FileMode(0o700))
		}
	}
	if err := Write(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
		t.Errorf("Write into the directories made: %v", err)
	}
	// An existing directory is left as it is.
	if err := os.Chmod(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(root, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(root, "a")); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755) {
		t.Errorf("existing directory after MkdirAll: %v, %v; want it unchanged (0755)", fi, err)
	}
}

func TestMkdirAllFileInTheWay(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(root, "f", "d"), 0o755); err == nil {
		t.Error("MkdirAll under a file succeeded")
	}
}
