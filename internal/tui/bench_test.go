package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// answer5000 is a markdown answer of about 5,000 words: paragraphs, lists
// and code blocks.
func answer5000() string {
	var b strings.Builder
	for i := 0; b.Len() < 30000; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nThe function `mean` divides the **sum** of the values by their count, and an empty slice "+
			"makes that a division by zero, which in Go yields NaN for floats; the test expects zero instead.\n\n", i)
		b.WriteString("- check the length first\n- return zero for an empty slice\n- keep the rest as it is\n\n")
		b.WriteString("```go\nfunc Mean(xs []float64) float64 {\n\tif len(xs) == 0 {\n\t\treturn 0 // nothing to average\n\t}\n\treturn sum(xs) / float64(len(xs))\n}\n```\n\n")
	}
	return b.String()
}

// BenchmarkStreamAnswer measures the UI's CPU for a 5,000-word answer
// streamed in deltas of 4 bytes, delivered as the pump does: batched at
// 60 frames a second, each batch folded and the live region drawn once.
// A model streaming at 100 tokens a second takes about 65 s for it,
// about 3,900 frames.
func BenchmarkStreamAnswer(b *testing.B) {
	text := answer5000()
	b.ReportMetric(float64(len(strings.Fields(text))), "words")
	const frames = 3900
	var deltas []contract.Envelope
	for i := 0; i < len(text); i += 4 {
		deltas = append(deltas, env(0, &contract.TextDelta{Text: text[i:min(len(text), i+4)]}))
	}
	per := max(1, len(deltas)/frames)
	for b.Loop() {
		h := newHarness(b, 100, &fakeRuntime{})
		h.m.running, h.m.run = true, 1
		for i := 0; i < len(deltas); i += per {
			h.m.Update(eventsMsg{run: 1, events: deltas[i:min(len(deltas), i+per)]})
			h.m.View()
		}
		h.m.Update(eventsMsg{run: 1, events: []contract.Envelope{env(9, &contract.ModelText{Text: text}), env(10, &contract.RunFinished{Outcome: contract.OutcomeCompleted})}})
		h.m.View()
	}
}
