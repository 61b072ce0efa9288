package openai

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// benchStream builds a stream of n deltas: text deltas, then one tool call
// in n/10 argument fragments.
func benchStream(n int) []byte {
	var b strings.Builder
	frame := func(delta string) {
		b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1741569952,"model":"gpt-4.1-2025-04-14","system_fingerprint":"fp_a1b2","choices":[{"index":0,"delta":`)
		b.WriteString(delta)
		b.WriteString(`,"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	}
	calls := n / 10
	for i := range n - calls {
		frame(`{"content":` + strconv.Quote(fmt.Sprintf("word %d ", i)) + `}`)
	}
	frame(`{"tool_calls":[{"index":0,"id":"call_bench","type":"function","function":{"name":"write_file","arguments":"{\"content\":\""}}]}`)
	for range calls - 1 {
		frame(`{"tool_calls":[{"index":0,"function":{"arguments":"line of text\\n"}}]}`)
	}
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5000}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// BenchmarkNormalize normalizes a 5,000-delta stream.
func BenchmarkNormalize(b *testing.B) {
	const deltas = 5000
	body := benchStream(deltas)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range Normalize(b.Context(), bytes.NewReader(body), tref) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n < deltas {
			b.Fatalf("%d events", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/deltas, "ns/delta")
}
