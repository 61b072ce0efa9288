package openai

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/provider"
)

func TestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  provider.Capabilities
	}{
		{"gpt-4.1", provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, ContextWindow: 1_047_576}},
		{"gpt-4.1-mini-2025-04-14", provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, ContextWindow: 1_047_576}},
		{"openai/gpt-4o", provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, ContextWindow: 128_000}},
		{"o3-mini", provider.Capabilities{Streaming: true, Tools: true, ContextWindow: 200_000}},
		{"o1-mini", provider.Capabilities{Streaming: true, ContextWindow: 128_000}},
		{"deepseek-reasoner", provider.Capabilities{Streaming: true, Tools: true, Reasoning: true, ContextWindow: 128_000}},
		{"qwen3:8b", provider.Capabilities{Streaming: true, Tools: true, Reasoning: true}},
		{"mistral-large-latest", provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, ContextWindow: 128_000}},
		{"GPT-OSS-120B", provider.Capabilities{Streaming: true, Tools: true, Reasoning: true, ContextWindow: 131_072}},
		{"my-finetune", provider.Capabilities{Streaming: true, Tools: true}},
		{"", provider.Capabilities{Streaming: true, Tools: true}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Capabilities(tc.model)); d != "" {
				t.Errorf("Capabilities(%q) mismatch (-want +got):\n%s", tc.model, d)
			}
		})
	}
}

func TestRejectsParallelSwitch(t *testing.T) {
	for model, want := range map[string]bool{
		"o1": true, "o3": true, "o3-mini": true, "o4-mini-2025-04-16": true, "openai/o3": true,
		"gpt-4.1": false, "gpt-5": false, "o-llama": false, "qwen3:8b": false,
	} {
		if got := rejectsParallelSwitch(model); got != want {
			t.Errorf("rejectsParallelSwitch(%q) = %v, want %v", model, got, want)
		}
	}
	// The capability and the request agree: a model without the switch
	// does not claim parallel tools.
	for _, f := range families {
		if rejectsParallelSwitch(f.prefix) && f.caps.ParallelTools {
			t.Errorf("%s claims parallel tools but rejects the switch", f.prefix)
		}
	}
}
