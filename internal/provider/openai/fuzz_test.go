package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// FuzzNormalize feeds arbitrary bytes to Normalize: it must not panic, an
// error must be the last pair and a *contract.ProviderError of a known
// kind, a complete stream must end in model.finished, and every proposed
// intent must carry a complete JSON object.
func FuzzNormalize(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*"))
	for _, name := range files {
		if filepath.Ext(name) == ".events" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"<think>a</th\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"ink>b\"},\"finish_reason\":\"stop\"}]}\n\n"))
	f.Add([]byte("event: error\ndata: {\"message\":\"x\"}\n\n"))
	f.Add([]byte("{\"object\":\"error\",\"message\":{\"detail\":[]}}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		var failed error
		var last contract.ModelEvent
		n := 0
		for ev, err := range Normalize(t.Context(), bytes.NewReader(body), tref) {
			n++
			if failed != nil {
				t.Fatalf("yielded after the error %v", failed)
			}
			if err != nil {
				pe, ok := errors.AsType[*contract.ProviderError](err)
				if !ok {
					t.Fatalf("error of type %T: %v", err, err)
				}
				if ev != nil || !known(pe.Kind) || pe.Message == "" {
					t.Fatalf("bad terminal error %+v with event %v", pe, ev)
				}
				failed = err
				continue
			}
			if ev == nil {
				t.Fatal("nil event without an error")
			}
			if n == 1 {
				if _, ok := ev.(*contract.ModelStarted); !ok {
					t.Fatalf("first event %s", ev.EventType())
				}
			}
			if _, ok := last.(*contract.ModelFinished); ok {
				t.Fatalf("%s after model.finished", ev.EventType())
			}
			switch e := ev.(type) {
			case *contract.IntentProposed:
				if !json.Valid(e.Input) || len(e.Input) == 0 || e.Input[0] != '{' {
					t.Fatalf("proposed intent with input %q", e.Input)
				}
			case *contract.ProviderError:
				if e.Kind != contract.KindMalformedToolCall {
					t.Fatalf("mid-stream error event of kind %s", e.Kind)
				}
			}
			last = ev
		}
		if _, ok := last.(*contract.ModelFinished); !ok && failed == nil {
			t.Fatalf("the stream ended with %v and no error", last)
		}
	})
}

func known(k contract.ErrorKind) bool {
	for _, kk := range contract.ErrorKinds {
		if k == kk {
			return true
		}
	}
	return false
}
