//go:build unix

package builtin_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// Every built-in tool writes its output through the runtime's capture: an
// output of a few KiB, shown whole, is kept as a session artifact too,
// byte for byte what the model is shown, and the observation names it.
func TestEveryToolsOutputIsKeptFromTheThreshold(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for i := range 300 {
		fmt.Fprintf(&big, "needle %d\n", i)
		name := filepath.Join(dir, fmt.Sprintf("file_%03d.txt", i))
		if err := os.WriteFile(name, []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	session := t.TempDir()
	rt := newRuntime(t, dir, permission.Yolo, nil, &tool.Options{ArtifactDir: filepath.Join(session, "artifacts")})
	intents := [][2]string{
		{"read_file", `{"path":"big.txt"}`},
		{"grep", `{"pattern":"needle \\d+"}`},
		{"glob", `{"pattern":"*.txt"}`},
		{"list_dir", `{}`},
		{"bash", `{"command":"seq 1 1000"}`},
	}
	_, obs := turn(t, rt, &state.State{}, intents...)
	for i, o := range obs {
		name := intents[i][0]
		if !o.OK || o.Truncated || len(o.Text) < 2<<10 {
			t.Fatalf("%s: want a whole output of at least 2 KiB, got %d bytes: %+v", name, len(o.Text), o)
		}
		if o.ArtifactRef == "" {
			t.Errorf("%s: an output of %d bytes has no artifact", name, len(o.Text))
			continue
		}
		data, err := os.ReadFile(filepath.Join(session, o.ArtifactRef))
		if err != nil || string(data) != o.Text {
			t.Errorf("%s: the artifact holds %d bytes (%v); want the %d the model is shown", name, len(data), err, len(o.Text))
		}
	}
}
