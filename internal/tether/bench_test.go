package tether_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/rein-agent/rein/internal/tether"
)

// BenchmarkStartTrue measures what the tether adds to a command: `true`
// run to its end, bare and tethered (the helper, this test binary, started
// again in between).
func BenchmarkStartTrue(b *testing.B) {
	for _, tethered := range []bool{false, true} {
		name := "bare"
		if tethered {
			name = "tethered"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("true")
				cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
				if tethered {
					if err := tether.Wrap(cmd); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
