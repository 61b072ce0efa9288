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

// LinkedHome makes a home directory reached through a link (home leads to
// real, as /home/u may lead to /data/u), holding a credential store of
// each kind a hidden path may name: a directory (.ssh), a link to one
// (.gnupg, to gpg), a dangling link (.aws), a file (.netrc); .kube and
// .config are missing.
func LinkedHome(t testing.TB) (home, real string) {
	t.Helper()
	base := RealTemp(t)
	real = filepath.Join(base, "real")
	Mkdir(t, filepath.Join(real, ".ssh"))
	Mkdir(t, filepath.Join(real, "gpg"))
	Symlink(t, "gpg", filepath.Join(real, ".gnupg"))
	Symlink(t, filepath.Join(base, "store", "aws"), filepath.Join(real, ".aws"))
	if err := os.WriteFile(filepath.Join(real, ".netrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(base, "home")
	Symlink(t, real, home)
	return home, real
}
