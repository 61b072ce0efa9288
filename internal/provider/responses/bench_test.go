package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// benchBody builds a stream of n deltas: text deltas, then one tool call
// whose arguments come in n/5 fragments, then response.completed.
func benchBody(n int) []byte {
	var b bytes.Buffer
	ev := func(typ string, v any) {
		data, _ := json.Marshal(v) // plain maps of strings and ints always marshal
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data)
	}
	ev(typeCreated, map[string]any{"type": typeCreated, "response": map[string]any{"id": "resp_b", "status": "in_progress", "output": []any{}}})
	ev(typeItemAdded, map[string]any{"type": typeItemAdded, "output_index": 0, "item": map[string]any{"id": "msg_b", "type": "message", "role": "assistant", "content": []any{}}})
	calls := n / 5
	for i := range n - calls {
		ev(typeTextDelta, map[string]any{"type": typeTextDelta, "item_id": "msg_b", "output_index": 0, "content_index": 0, "delta": fmt.Sprintf("word%d ", i), "logprobs": []any{}, "sequence_number": i})
	}
	ev(typeItemAdded, map[string]any{"type": typeItemAdded, "output_index": 1, "item": map[string]any{"id": "fc_b", "type": "function_call", "call_id": "call_b", "name": "write_file", "arguments": ""}})
	ev(typeArgsDelta, map[string]any{"type": typeArgsDelta, "item_id": "fc_b", "output_index": 1, "delta": `{"content":"`})
	for i := range calls - 2 {
		ev(typeArgsDelta, map[string]any{"type": typeArgsDelta, "item_id": "fc_b", "output_index": 1, "delta": fmt.Sprintf("line %d\\n", i)})
	}
	ev(typeArgsDelta, map[string]any{"type": typeArgsDelta, "item_id": "fc_b", "output_index": 1, "delta": `"}`})
	ev(typeItemDone, map[string]any{"type": typeItemDone, "output_index": 1, "item": map[string]any{"id": "fc_b", "type": "function_call", "call_id": "call_b", "name": "write_file", "arguments": ""}})
	ev(typeCompleted, map[string]any{"type": typeCompleted, "response": map[string]any{"status": "completed", "usage": map[string]any{"input_tokens": 10, "output_tokens": n}}})
	return b.Bytes()
}

// BenchmarkNormalize normalizes a 5,000-delta stream held in memory.
func BenchmarkNormalize(b *testing.B) {
	const deltas = 5000
	body := benchBody(deltas)
	ref := contract.ProviderRef{Name: "responses", Model: "bench"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var finished bool
		for ev, err := range Normalize(b.Context(), bytes.NewReader(body), ref) {
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ev.(*contract.ModelFinished); ok {
				finished = true
			}
		}
		if !finished {
			b.Fatal("the stream did not finish")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/deltas, "ns/delta")
}
