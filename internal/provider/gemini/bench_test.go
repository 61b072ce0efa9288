package gemini

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// benchBody builds a stream of n deltas: text deltas, then one call whose
// arguments stream as partialArgs in calls fragments, with usage on every
// chunk as Gemini sends it.
func benchBody(n, calls int) []byte {
	var b bytes.Buffer
	usage := `"usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":%d,"totalTokenCount":%d},"modelVersion":"gemini-2.5-flash","responseId":"WnU5aPbKBsGZkdUP5q2w4AM"`
	for i := range n - calls {
		fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[{"text":"token %d of the answer, "}],"role":"model"},"index":0}],`+usage+"}\r\n\r\n", i, i, 1200+i)
	}
	b.WriteString(`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"write_file","willContinue":true},"thoughtSignature":"c2lnbmF0dXJl"}],"role":"model"},"index":0}]}` + "\r\n\r\n")
	for i := range calls - 2 {
		fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.content","stringValue":"line %d\n","willContinue":true}],"willContinue":true}}],"role":"model"},"index":0}]}`+"\r\n\r\n", i)
	}
	b.WriteString(`data: {"candidates":[{"content":{"parts":[{"functionCall":{}}],"role":"model"},"finishReason":"STOP","index":0}],` + fmt.Sprintf(usage, n, 1200+n) + "}\r\n\r\n")
	return b.Bytes()
}

func BenchmarkNormalize(b *testing.B) {
	const deltas = 5000
	body := benchBody(deltas, 100)
	ref := contract.ProviderRef{Name: "gemini", Model: "gemini-2.5-flash"}
	// Check once that the body is what it claims to be.
	var count int
	var last contract.ModelEvent
	for ev, err := range Normalize(b.Context(), bytes.NewReader(body), ref) {
		if err != nil {
			b.Fatal(err)
		}
		switch ev.(type) {
		case *contract.TextDelta, *contract.IntentDelta:
			count++
		}
		last = ev
	}
	if f, ok := last.(*contract.ModelFinished); !ok || f.Reason != contract.FinishToolUse || count != deltas {
		b.Fatalf("%d deltas, last event %v", count, last)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		for _, err := range Normalize(b.Context(), bytes.NewReader(body), ref) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*deltas), "allocs/delta")
}
