package sandbox_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/rein-agent/rein/internal/sandbox"
)

// BenchmarkStartTrue measures what the sandbox adds to starting a
// command: `bash -c true` run to its end, bare and sandboxed (a
// workspace with a repository, the default writable and hidden paths,
// the network off). Two more show where the time goes: with the network
// on (no network namespace to make), and read-only with nothing hidden
// and the network on (the fewest mounts).
//
// The helper is this test binary, which is smaller and starts sooner than
// rein; with REIN_BENCH_HELPER set to a rein binary, the sandboxed
// commands start that one instead, as rein's own do:
//
//	go build -o /tmp/rein ./cmd/rein
//	REIN_BENCH_HELPER=/tmp/rein go test ./internal/sandbox -run '^$' -bench StartTrue -count 5
func BenchmarkStartTrue(b *testing.B) {
	helper := os.Getenv("REIN_BENCH_HELPER")
	ws := b.TempDir()
	if err := os.MkdirAll(ws+"/.git/hooks", 0o755); err != nil {
		b.Fatal(err)
	}
	policy := &sandbox.Policy{
		Writable: append([]string{ws}, sandbox.DefaultWritable()...), ReadOnly: sandbox.Protected([]string{ws}),
		DenyRead: sandbox.DefaultDenyRead(), TempDir: b.TempDir(),
	}
	network := *policy
	network.Network = true
	minimal := &sandbox.Policy{Mode: sandbox.ModeReadOnly, TempDir: policy.TempDir, Network: true}
	for _, bc := range []struct {
		name   string
		policy *sandbox.Policy
	}{{"bare", nil}, {"sandboxed", policy}, {"network on", &network}, {"read-only, nothing hidden, network on", minimal}} {
		b.Run(bc.name, func(b *testing.B) {
			if bc.policy != nil {
				if st := sandbox.Probe(); !st.Available {
					b.Skip("no sandbox here: " + st.Reason)
				}
			}
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "true")
				cmd.Dir, cmd.Env = ws, []string{"PATH=" + os.Getenv("PATH")}
				if err := sandbox.Wrap(cmd, bc.policy); err != nil {
					b.Fatal(err)
				}
				if helper != "" && bc.policy != nil {
					cmd.Path = helper // the same arguments, rein's start
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
