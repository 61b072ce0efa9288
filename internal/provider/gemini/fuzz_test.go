package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// FuzzNormalize feeds arbitrary bodies to Normalize: it must not panic; it
// starts with model.started; an error is the last pair and a
// *contract.ProviderError of a known kind; model.finished, when it comes,
// is last; every proposed intent's input is a complete JSON object; and
// reading the body one byte at a time changes nothing.
func FuzzNormalize(f *testing.F) {
	files, err := filepath.Glob("testdata/*.sse")
	if err != nil {
		f.Fatal(err)
	}
	more, err := filepath.Glob("testdata/*.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range append(files, more...) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"data: [DONE]\n\n",
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","partialArgs":[{"jsonPath":"$.x[0].y","stringValue":"z","willContinue":true}],"willContinue":true}}]},"finishReason":"STOP"}]}`,
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","partialArgs":[{"jsonPath":"$['a']","numberValue":"NaN"}]}}]},"finishReason":"STOP"}]}`,
		"data: {\"error\":{\"code\":429}}\r\n\r\n",
		"[{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\"}}]",
	} {
		f.Add([]byte(s))
	}
	ref := contract.ProviderRef{Name: "gemini", Model: "m"}
	f.Fuzz(func(t *testing.T, body []byte) {
		events, perr := collect(t, Normalize(t.Context(), bytes.NewReader(body), ref))
		if len(events) == 0 {
			t.Fatal("no model.started")
		}
		if _, ok := events[0].(*contract.ModelStarted); !ok {
			t.Fatalf("first event is %s", events[0].EventType())
		}
		if perr != nil && !slices.Contains(contract.ErrorKinds, perr.Kind) {
			t.Fatalf("error of kind %q", perr.Kind)
		}
		for i, e := range events {
			switch e := e.(type) {
			case *contract.ModelFinished:
				if i != len(events)-1 || perr != nil {
					t.Fatalf("model.finished at %d of %d (error %v)", i, len(events), perr)
				}
			case *contract.IntentProposed:
				if !json.Valid(e.Input) || len(e.Input) == 0 || e.Input[0] != '{' {
					t.Fatalf("proposed input %q is not a complete JSON object", e.Input)
				}
			case *contract.ProviderError:
				if e.Kind != contract.KindMalformedToolCall {
					t.Fatalf("a %s error yielded as an event", e.Kind)
				}
			}
		}
		slow, slowErr := collect(t, Normalize(t.Context(), iotest.OneByteReader(bytes.NewReader(body)), ref))
		if d := cmp.Diff(providertest.JSON(events), providertest.JSON(slow)); d != "" {
			t.Fatalf("reading byte by byte changed the events (-whole +bytes):\n%s", d)
		}
		if d := diffEvents([]contract.ModelEvent{perr}, []contract.ModelEvent{slowErr}); d != "" {
			t.Fatalf("reading byte by byte changed the error (-whole +bytes):\n%s", d)
		}
	})
}

// collect runs a stream to its end, checking that an error is a
// *contract.ProviderError and the last pair.
func collect(t *testing.T, seq func(func(contract.ModelEvent, error) bool)) ([]contract.ModelEvent, *contract.ProviderError) {
	t.Helper()
	var events []contract.ModelEvent
	var perr *contract.ProviderError
	for ev, err := range seq {
		if perr != nil {
			t.Fatalf("the stream yielded after its error: %v, %v", ev, err)
		}
		if err != nil {
			pe, ok := errors.AsType[*contract.ProviderError](err)
			if !ok || ev != nil {
				t.Fatalf("error %v (%T) with event %v", err, err, ev)
			}
			perr = pe
			continue
		}
		if ev == nil {
			t.Fatal("a nil event without an error")
		}
		events = append(events, ev)
	}
	return events, perr
}
