package markdown

import (
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/tui/style"
)

// answer5000 is an answer of about 5,000 words: paragraphs, lists and
// code blocks, as a model writes them.
func answer5000() string {
	var b strings.Builder
	para := "The parser reads each **line** of the file, keeps the `state` it needs and hands the rest to the [renderer](https://example.com/r), which wraps words to the width of the terminal. "
	for len(strings.Fields(b.String())) < 5000 {
		b.WriteString("## Step\n\n")
		for range 3 {
			b.WriteString(para + para + "\n\n")
		}
		b.WriteString("- first point of the list\n- second point, with `code`\n  - nested\n\n")
		b.WriteString("```go\nfunc f(x int) int {\n\treturn x * 2 // double\n}\n```\n\n")
	}
	return b.String()
}

func BenchmarkStream5000Words(b *testing.B) {
	md := answer5000()
	var deltas []string
	for i := 0; i < len(md); i += 3 {
		deltas = append(deltas, md[i:min(i+3, len(md))])
	}
	th := style.New(true, true)
	b.ReportAllocs()
	for b.Loop() {
		s := NewStream(100, th)
		for i, d := range deltas {
			s.Write(d)
			s.Done()
			if i%16 == 0 {
				s.Live()
			}
		}
		s.Close()
	}
	b.ReportMetric(float64(len(deltas)), "deltas")
	b.ReportMetric(float64(len(strings.Fields(md))), "words")
}

// BenchmarkStreamLongCodeBlock streams one code block of 2,000 lines, the
// case where re-rendering the block per frame would cost the square of
// its length.
func BenchmarkStreamLongCodeBlock(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("```go\n")
	for range 2000 {
		sb.WriteString("\tx := compute(a, \"text\", 42) // note\n")
	}
	sb.WriteString("```\n")
	md := sb.String()
	th := style.New(true, true)
	b.ReportAllocs()
	for b.Loop() {
		s := NewStream(100, th)
		for i := 0; i < len(md); i += 3 {
			s.Write(md[i:min(i+3, len(md))])
			s.Done()
			if i%48 == 0 {
				s.Live()
			}
		}
		s.Close()
	}
}
