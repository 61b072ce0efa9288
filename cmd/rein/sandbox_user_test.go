package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/sandbox/sandboxtest"
)

// A user who is not root gets the sandbox too: rein is non-dumpable,
// which a child made in a new user namespace inherits until its exec, and
// the start must still be able to write the child's uid_map. When the test
// runs as root, rein runs as nobody, the case the tests as root missed.
func TestSandboxForAUserWhoIsNotRoot(t *testing.T) {
	sandboxtest.Need(t)
	u := newSandboxUser(t)
	outside := u.dir("outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "x")
	script := u.write(t, "script.json", `{"turns":[`+bashTurn("touch "+target)+`,{"steps":[{"text":"done"},{"finish":"stop"}]}]}`)
	r := u.run(t, nil, "exec", "--permission-mode", "yolo", "--provider", "scripted", "--script", script, "touch")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "rein: sandbox: workspace-write") {
		t.Errorf("stderr does not say the sandbox is on:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "the sandbox refused") {
		t.Errorf("the refusal is not said:\n%s", r.stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("%s was written outside the sandbox", target)
	}
}
