// Package workspacetest has the helpers the tests of a workspace need: a
// directory made, a symbolic link made (or the test skipped where there
// are none), and a temporary directory with its own links resolved.
package workspacetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Mkdir makes path and its parents, and returns path.
func Mkdir(t testing.TB, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Symlink makes link point to target, or skips the test where the system
// has no symbolic links.
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// RealTemp is a temporary directory with its own symlinks resolved (macOS
// puts them under a linked /var).
func RealTemp(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
