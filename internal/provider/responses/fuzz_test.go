package responses

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// FuzzNormalize feeds arbitrary bytes to the normalizer: it never panics,
// an error is only ever the last pair and a *contract.ProviderError of a
// known kind, every proposed intent's input is a complete JSON object, and
// a stream ends in exactly one of model.finished or an error.
func FuzzNormalize(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.sse"))
	if err != nil {
		f.Fatal(err)
	}
	files = append(files, filepath.Join("testdata", "whole.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("data: {\"type\":\"response.function_call_arguments.delta\",\"output_index\":-3,\"delta\":\"{\"}\n\n"))
	f.Add([]byte("event: response.output_item.done\ndata: {\"output_index\":0,\"item\":{\"type\":\"function_call\",\"name\":\"x\",\"arguments\":\"[1]\"}}\n\n"))
	ref := contract.ProviderRef{Name: "responses", Model: "fuzz"}
	f.Fuzz(func(t *testing.T, body []byte) {
		var events []contract.ModelEvent
		var last error
		n := 0
		for ev, err := range Normalize(t.Context(), strings.NewReader(string(body)), ref) {
			if last != nil {
				t.Fatalf("yielded (%v, %v) after the error %v", ev, err, last)
			}
			n++
			if err != nil {
				pe, ok := errors.AsType[*contract.ProviderError](err)
				if !ok {
					t.Fatalf("error %v is a %T", err, err)
				}
				if ev != nil || pe.Kind == "" || pe.Message == "" {
					t.Fatalf("error pair (%v, %+v)", ev, pe)
				}
				last = err
				continue
			}
			if ev == nil {
				t.Fatal("nil event without an error")
			}
			events = append(events, ev)
			if p, ok := ev.(*contract.IntentProposed); ok {
				var obj map[string]any
				if err := json.Unmarshal(p.Input, &obj); err != nil || obj == nil {
					t.Fatalf("proposed input %q is not a JSON object: %v", p.Input, err)
				}
				if p.ID != "" {
					t.Fatalf("the normalizer set an intent id %q", p.ID)
				}
			}
		}
		if _, ok := events[0].(*contract.ModelStarted); !ok {
			t.Fatalf("first event %T", events[0])
		}
		_, finished := events[len(events)-1].(*contract.ModelFinished)
		if finished == (last != nil) {
			t.Fatalf("the stream ends with finished=%v and error %v", finished, last)
		}
		for _, e := range events[:len(events)-1] {
			if _, ok := e.(*contract.ModelFinished); ok {
				t.Fatal("model.finished before the end")
			}
		}
	})
}
