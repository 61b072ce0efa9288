package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A remembered answer holds only for its key, only when it says the
// sandbox is available, and only from a file ProbeRemembered wrote: a
// damaged, foreign or stale file is ignored (and then probed again).
func TestRememberedAnswerHoldsOnlyForItsKey(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state", "sandbox.json")
	available := Status{Available: true, Backend: backendName, ABI: 7}
	writeRemembered(file, "kernel A", available)
	if st, ok := readRemembered(file, "kernel A"); !ok || st != available {
		t.Fatalf("readRemembered(the key written) = %+v, %v; want %+v, true", st, ok, available)
	}
	if _, ok := readRemembered(file, "kernel B"); ok {
		t.Error("an answer for another kernel was taken")
	}
	for name, text := range map[string]string{
		"damaged":     `{"key":"kernel A","status":{"Available":tr`,
		"not json":    "\x00\x01garbage",
		"unavailable": `{"key":"kernel A","status":{"Available":false,"Reason":"no user namespaces"}}`,
		"a reason":    `{"key":"kernel A","status":{"Available":true,"Backend":"landlock+userns","Reason":"odd"}}`,
		"a backend":   `{"key":"kernel A","status":{"Available":true,"Backend":"other"}}`,
		"empty":       "",
	} {
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if st, ok := readRemembered(file, "kernel A"); ok {
			t.Errorf("%s file: taken as %+v", name, st)
		}
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(file, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, ok := readRemembered(file, "kernel A"); ok {
		t.Error("a directory was taken for the file")
	}
}

// The key changes with what the answer depends on that this test can
// see: it is the same twice in a row, and names the kernel's release.
func TestProbeKeyNamesTheKernel(t *testing.T) {
	k := platform.probeKey()
	if k == "" {
		t.Skip("no key on this platform: nothing is remembered")
	}
	if again := platform.probeKey(); again != k {
		t.Errorf("the key changed between two calls:\n%s\n%s", k, again)
	}
	if !strings.Contains(k, "kernel ") || !strings.Contains(k, "exe ") {
		t.Errorf("the key %q names neither the kernel nor the executable", k)
	}
}

// A sandboxed command that cannot start under a remembered answer fails
// (it never runs unsandboxed), says so, and the answer is forgotten.
func TestForgetRemovesTheRememberedAnswer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sandbox.json")
	writeRemembered(file, "kernel A", Status{Available: true, Backend: backendName})
	m := &memory{file: file}
	cause := errors.New("fork/exec /proc/self/exe: operation not permitted")
	err := m.forget(cause)
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), "no longer holds") || !strings.Contains(err.Error(), file) {
		t.Errorf("forget() = %v; want the cause, the file and that it no longer holds", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the remembered answer is still there: %v", err)
	}
	if err := m.forget(cause); err != cause {
		t.Errorf("forget() without a remembered answer = %v; want the cause as it is", err)
	}
}

// A sandboxed command that ends as the helper does when it cannot set the
// sandbox up has the machine asked again, once, under a remembered
// answer: the memory is forgotten only if the machine says it cannot
// sandbox; any other end asks nothing.
func TestEndedAsksAgainOnceAfterASetupFailure(t *testing.T) {
	for _, tc := range []struct {
		name      string
		code      int
		available bool
		asked     int
		kept      bool
	}{
		{"a command's own failure", 1, false, 0, true},
		{"the helper failed, the machine can sandbox", helperFailed, true, 1, true},
		{"the helper failed, the machine cannot", helperFailed, false, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "sandbox.json")
			writeRemembered(file, "kernel A", Status{Available: true, Backend: backendName})
			m := &memory{file: file}
			asked := 0
			probe := func() Status { asked++; return Status{Available: tc.available} }
			m.ended(tc.code, probe)
			m.ended(tc.code, probe) // once per process
			if asked != tc.asked {
				t.Errorf("the machine was asked %d times, want %d", asked, tc.asked)
			}
			if _, err := os.Stat(file); (err == nil) != tc.kept {
				t.Errorf("the remembered answer kept: %v, want %v", err == nil, tc.kept)
			}
		})
	}
}
