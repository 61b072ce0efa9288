package gemini

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/provider"
)

func TestCapabilities(t *testing.T) {
	thinking := provider.Capabilities{Streaming: true, Tools: true, Reasoning: true}
	for _, tc := range []struct {
		model string
		want  provider.Capabilities
	}{
		{"gemini-2.5-flash", thinking},
		{"models/gemini-2.5-pro", thinking},
		{"gemini-2.5-flash-lite-preview-09-2025", thinking},
		{"gemini-3-pro-preview", thinking},
		{"gemini-3.1-pro-preview-customtools", thinking},
		{"Gemini-Flash-Latest", thinking},
		{"gemini-2.0-flash", provider.Capabilities{Streaming: true, Tools: true}},
		{"gemini-2.0-flash-thinking-exp-01-21", thinking},
		{"gemini-1.5-pro-002", provider.Capabilities{Streaming: true, Tools: true}},
		{"gemini-1.5-flash", provider.Capabilities{Streaming: true, Tools: true}},
		{"gemini-2.5-flash-image", provider.Capabilities{Streaming: true}},
		{"gemma-3-27b-it", provider.Capabilities{Streaming: true}},
		{"gemma-3-1b-it", provider.Capabilities{Streaming: true}},
		{"my-finetune", provider.Capabilities{Streaming: true, Tools: true}},
		{"", provider.Capabilities{Streaming: true, Tools: true}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Capabilities(tc.model)); d != "" {
				t.Errorf("Capabilities(%q) mismatch (-want +got):\n%s", tc.model, d)
			}
			if Capabilities(tc.model).ParallelTools {
				t.Error("ParallelTools: Gemini has no switch for it")
			}
		})
	}
}
