package projection

import (
	"fmt"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// BenchmarkProject measures the projection of one turn in a long session:
// messages is how many the conversation holds (a user message, then
// assistant messages and results of 2 to 8 KB), the window large enough
// that it is never compacted, with or without the older half of the
// results elided (each elided result's stub is made afresh every turn).
func BenchmarkProject(b *testing.B) {
	for _, tc := range []struct {
		messages int
		elide    bool
	}{{1000, false}, {1000, true}, {10000, false}, {10000, true}} {
		messages := tc.messages
		b.Run(fmt.Sprintf("%d/elided=%v", messages, tc.elide), func(b *testing.B) {
			s := newSim(b, "sys", 10_000_000)
			s.user("go")
			for i := 0; len(s.s.Messages) < messages; i++ {
				s.call(fmt.Sprintf("go test ./pkg%d", i), output("o", 2000+i%7*1000), true)
			}
			var elided []string
			for _, m := range s.s.Messages[:len(s.s.Messages)/2] {
				if m.Result != nil {
					elided = append(elided, m.Result.IntentID)
				}
			}
			if tc.elide {
				s.add(&contract.ContextProjected{Elided: elided})
			}
			reg := testRegistry(b)
			opts := &Options{System: "sys", SessionDir: "/s", Budget: NewBudget(s.s.ModelInfo, 0)}
			b.ReportAllocs()
			for b.Loop() {
				p := Project(&s.s, reg, opts)
				if p.Compact {
					b.Fatal("compaction asked for")
				}
			}
		})
	}
}
