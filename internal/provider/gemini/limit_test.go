package gemini

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// A body that is one JSON document (a server that ignored the request to
// stream) is read whole only up to provider.MaxWholeBody: past it, the
// stream ends with a clear error, and what was read is not kept.
func TestAWholeBodyOverTheLimitIsRefused(t *testing.T) {
	body := io.MultiReader(strings.NewReader(`{"candidates": [{"content": {"parts": [{"text": "`),
		io.LimitReader(repeat('x'), provider.MaxWholeBody), strings.NewReader(`"}]}}]}`))
	var got error
	for _, err := range Normalize(t.Context(), body, testRef) {
		if err != nil {
			got = err
		}
	}
	var pe *contract.ProviderError
	if !errors.As(got, &pe) || pe.Kind != contract.KindUnknown || !strings.Contains(pe.Error(), "over 16777216 bytes") {
		t.Fatalf("err = %v, want an error of kind unknown saying the response is over 16777216 bytes", got)
	}
}

// repeat reads b forever.
type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
