package contract_test

import (
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog/eventlogtest"
)

// turnLines returns the encoded lines of whole tool turns of a realistic
// session: the eleven event types of one tool call, in the order and with
// the sizes the kernel writes them.
func turnLines(b *testing.B, turns int) [][]byte {
	b.Helper()
	const prefix, perTurn = 3, 11
	var lines [][]byte
	i := 0
	for env := range eventlogtest.Session("ses_01M8NN0F0QP40ZTK2V43TFR6X5", prefix+perTurn*turns+6) {
		if i++; i <= prefix || i > prefix+perTurn*turns {
			continue
		}
		line, err := env.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, line)
	}
	return lines
}

// BenchmarkDecode decodes the lines of realistic tool turns, as opening a
// session log does: one op is one envelope, its data included.
func BenchmarkDecode(b *testing.B) {
	lines := turnLines(b, 10)
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size / len(lines)))
	n := 0
	for b.Loop() {
		var env contract.Envelope
		if err := env.UnmarshalJSON(lines[n%len(lines)]); err != nil {
			b.Fatal(err)
		}
		n++
	}
}
