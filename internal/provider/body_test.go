package provider_test

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/anthropic"
	"github.com/rein-agent/rein/internal/provider/gemini"
	"github.com/rein-agent/rein/internal/provider/openai"
	"github.com/rein-agent/rein/internal/provider/responses"
)

type normalizer func(context.Context, io.Reader, contract.ProviderRef) iter.Seq2[contract.ModelEvent, error]

// last reads the whole stream and returns its finish event and its error.
func last(t *testing.T, n normalizer, body string) (*contract.ModelFinished, *contract.ProviderError) {
	t.Helper()
	var fin *contract.ModelFinished
	for ev, err := range n(t.Context(), strings.NewReader(body), contract.ProviderRef{Name: "x", Model: "m"}) {
		if err != nil {
			var pe *contract.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *contract.ProviderError", err)
			}
			return fin, pe
		}
		if f, ok := ev.(*contract.ModelFinished); ok {
			fin = f
		}
	}
	return fin, nil
}

// Bodies at the edge of the driver's sniffing: what each adapter made of
// them before the adapters shared a driver, they make of them still; but
// a JSON object that is no response, which Responses read as a stream cut
// short (and, served as JSON, as an empty answer), is now what it is: not
// the Responses API, kind unknown.
func TestBodiesAtTheEdges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		n      normalizer
		body   string
		kind   contract.ErrorKind // "" for a finished call
		finish contract.FinishReason
	}{
		// A JSON array is a whole body only to Gemini.
		{"anthropic array", anthropic.Normalize, `[{"type":"message"}]`, contract.KindStreamInterrupted, ""},
		{"responses array", responses.Normalize, `[{"object":"response"}]`, contract.KindStreamInterrupted, ""},
		{"gemini array", gemini.Normalize, `[{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}]`, "", contract.FinishStop},
		// A JSON object that is no response is not an empty answer, nor
		// worth retrying.
		{"responses unrelated object", responses.Normalize, `{"model":"gpt"}`, contract.KindUnknown, ""},
		{"responses empty object", responses.Normalize, `{}`, contract.KindUnknown, ""},
		{"responses ollama reply", responses.Normalize, `{"model":"m","message":{"role":"assistant","content":"hello"},"done":true}`, contract.KindUnknown, ""},
		// The stream's error event as the whole body is that error.
		{"responses error event as body", responses.Normalize, `{"type":"error","code":"rate_limit_exceeded","message":"slow down"}`, contract.KindRateLimit, ""},
		// A whole response cut short is a cut, to be retried.
		{"responses cut whole body", responses.Normalize, `{"object":"response","status":"completed","output":[{"type":"message"`, contract.KindStreamInterrupted, ""},
		// White space before the first event is nothing.
		{"openai blank body", openai.Normalize, "   \n", contract.KindStreamInterrupted, ""},
		{"openai space before data", openai.Normalize, "  data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", "", contract.FinishStop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fin, pe := last(t, tc.n, tc.body)
			switch {
			case tc.kind == "" && pe != nil:
				t.Fatalf("error %v, want a finished call", pe)
			case tc.kind == "" && (fin == nil || fin.Reason != tc.finish):
				t.Fatalf("finished %+v, want reason %s", fin, tc.finish)
			case tc.kind != "" && (pe == nil || pe.Kind != tc.kind):
				t.Fatalf("error %v (finished %+v), want kind %s", pe, fin, tc.kind)
			}
		})
	}
}
