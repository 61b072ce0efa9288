// Package sandboxtest is for the tests that need the OS sandbox: they are
// skipped, with the reason, on a machine that has none, unless the
// environment says the sandbox is required (CI's .ci/run sets
// REIN_REQUIRE_SANDBOX=1), where a missing sandbox fails them instead, so
// that a suite can never pass by skipping what it was meant to show.
package sandboxtest

import (
	"os"
	"testing"

	"github.com/rein-agent/rein/internal/sandbox"
)

// Need skips t when this machine has no sandbox, or fails it when
// REIN_REQUIRE_SANDBOX is set.
func Need(t testing.TB) {
	t.Helper()
	st := sandbox.Probe()
	if st.Available {
		return
	}
	if os.Getenv("REIN_REQUIRE_SANDBOX") != "" {
		t.Fatalf("no sandbox on this machine, and REIN_REQUIRE_SANDBOX is set: %s", st.Reason)
	}
	t.Skipf("no sandbox on this machine: %s", st.Reason)
}
