package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The bundled project really fails its test, for the reason the demo is
// about: Mean divides by one sample too few.
func TestWorkspaceHasAFailingTest(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Workspace()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "stats.go", "stats_test.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("workspace lacks %s: %v", f, err)
		}
	}
	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Mean([1 2 3 4]) = 3.3333333333333335, want 2.5") {
		t.Errorf("go test in the demo workspace: err %v, output:\n%s\nwant a failing Mean test", err, out)
	}
}
