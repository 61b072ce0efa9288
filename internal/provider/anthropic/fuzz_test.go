package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// FuzzNormalize feeds arbitrary bytes to Normalize: it never panics, its
// first event is model.started, an error is always the last pair and a
// *contract.ProviderError of a known kind, nothing follows model.finished,
// and every proposed intent's input is a complete JSON object.
func FuzzNormalize(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.sse"))
	if err != nil {
		f.Fatal(err)
	}
	paths = append(paths, filepath.Join("testdata", "whole.json"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"data: this is not json\n\n",
		"event: message_start\ndata: {\"type\":\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":-1,\"content_block\":{\"type\":\"tool_use\",\"input\":{}}}\n\nevent: message_stop\ndata: {}\n\n",
		"{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"b\",\"input\":[1]}]}",
		"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
		"{\"type\":\"mess",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var (
			n        int
			ended    bool
			finished bool
		)
		for ev, err := range Normalize(context.Background(), bytes.NewReader(body), contract.ProviderRef{Name: "anthropic", Model: "m"}) {
			if ended {
				t.Fatalf("yielded (%v, %v) after the error", ev, err)
			}
			if finished {
				t.Fatalf("yielded (%v, %v) after model.finished", ev, err)
			}
			n++
			if err != nil {
				ended = true
				var pe *contract.ProviderError
				if ev != nil || !errors.As(err, &pe) || !knownKind(pe.Kind) {
					t.Fatalf("error pair (%v, %T %v)", ev, err, err)
				}
				continue
			}
			switch e := ev.(type) {
			case nil:
				t.Fatal("nil event without an error")
			case *contract.ModelStarted:
				if n != 1 {
					t.Fatal("model.started is not first")
				}
			case *contract.IntentProposed:
				if !json.Valid(e.Input) || len(e.Input) == 0 || e.Input[0] != '{' {
					t.Fatalf("proposed input %q is not a JSON object", e.Input)
				}
			case *contract.ModelFinished:
				finished = true
			}
			if n == 1 && ev.EventType() != contract.TypeModelStarted {
				t.Fatalf("first event is %s", ev.EventType())
			}
		}
		if !ended && !finished {
			t.Fatal("the stream ended with neither model.finished nor an error")
		}
	})
}

func knownKind(k contract.ErrorKind) bool {
	for _, known := range contract.ErrorKinds {
		if k == known {
			return true
		}
	}
	return false
}

// benchDeltas is the number of content_block_delta events of the benchmark
// stream.
const benchDeltas = 5000

// benchBody builds a stream of benchDeltas deltas: text deltas, then one
// tool call whose input arrives in 500 fragments.
func benchBody() []byte {
	const fragments = 500
	var b strings.Builder
	w := func(data string) {
		var p struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(data), &p) // the data below is valid JSON
		b.WriteString("event: " + p.Type + "\ndata: " + data + "\n\n")
	}
	w(`{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5000,"output_tokens":1}}}`)
	w(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for i := range benchDeltas - fragments {
		w(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"token ` + strconv.Itoa(i) + ` of the answer, "}}`)
		if i%100 == 0 {
			w(`{"type": "ping"}`)
		}
	}
	w(`{"type":"content_block_stop","index":0}`)
	w(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_bench","name":"write_file","input":{}}}`)
	w(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"out.txt\", \"content\": \""}}`)
	for range fragments - 2 {
		w(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"some file content "}}`)
	}
	w(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"end\"}"}}`)
	w(`{"type":"content_block_stop","index":1}`)
	w(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9000}}`)
	w(`{"type":"message_stop"}`)
	return []byte(b.String())
}

func BenchmarkNormalize(b *testing.B) {
	body := benchBody()
	ref := contract.ProviderRef{Name: "anthropic", Model: "m"}
	ctx := context.Background()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		var proposed int
		for ev, err := range Normalize(ctx, bytes.NewReader(body), ref) {
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := ev.(*contract.IntentProposed); ok {
				proposed++
			}
		}
		if proposed != 1 {
			b.Fatalf("%d intents proposed", proposed)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	deltas := float64(b.N) * benchDeltas
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/deltas, "ns/delta")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/deltas, "allocs/delta")
}
