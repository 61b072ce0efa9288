package sandbox_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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

// BenchmarkSocketsUnder measures the look for sockets that a process's
// first sandboxed command pays for, in a directory crowded as a /tmp on a
// machine that runs tests is (1,500 entries: files, folders with a file
// each, rein's sessions' temporary directories, six sockets): at its top
// level, as at every start, and two levels down, as when the kernel's
// table names a socket rein cannot place. Run with -benchmem: what it
// allocates is garbage that brings the first collection nearer.
func BenchmarkSocketsUnder(b *testing.B) {
	root := b.TempDir()
	for i := range 1500 {
		p := filepath.Join(root, fmt.Sprintf("go-build%010d", i))
		var err error
		switch {
		case i%250 == 0: // 6
			var l net.Listener
			if l, err = net.Listen("unix", filepath.Join(root, fmt.Sprintf("server-%d.sock", i))); err == nil {
				b.Cleanup(func() { l.Close() })
			}
		case i%16 == 1: // 94
			err = os.Mkdir(filepath.Join(root, fmt.Sprintf("%s%d-%d-x", sandbox.SessionTempPrefix, i, i)), 0o700)
		case i%4 == 2: // 375
			if err = os.Mkdir(p, 0o700); err == nil {
				err = os.WriteFile(filepath.Join(p, "out"), nil, 0o600)
			}
		default:
			err = os.WriteFile(p, nil, 0o600)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, depth := range []int{0, 2} {
		b.Run(fmt.Sprintf("depth %d", depth), func(b *testing.B) {
			for b.Loop() {
				if got := sandbox.SocketsUnder([]string{root}, depth, 4096); len(got) != 6 {
					b.Fatalf("found %q, want 6 sockets", got)
				}
			}
		})
	}
}
