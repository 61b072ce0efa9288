package anthropic

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/provider"
)

func TestCapabilities(t *testing.T) {
	claude := func(reasoning bool) provider.Capabilities {
		return provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, Reasoning: reasoning}
	}
	for _, tc := range []struct {
		model     string
		want      provider.Capabilities
		maxTokens int
	}{
		{"claude-sonnet-4-6", claude(true), 16384},
		{"claude-sonnet-4-5-20250929", claude(true), 16384},
		{"claude-opus-4-1", claude(true), 16384},
		{"claude-haiku-4-5", claude(true), 16384},
		{"claude-3-7-sonnet-latest", claude(true), 16384},
		{"claude-3-5-haiku-20241022", claude(false), 8192},
		{"claude-3-haiku-20240307", claude(false), 4096},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", claude(false), 8192},
		{"claude-2.1", provider.Capabilities{Streaming: true}, 4096},
		{"qwen3-coder", provider.Capabilities{Streaming: true, Tools: true}, 8192},
		{"claude-next", provider.Capabilities{Streaming: true, Tools: true}, 8192},
	} {
		t.Run(tc.model, func(t *testing.T) {
			if d := cmp.Diff(tc.want, Capabilities(tc.model)); d != "" {
				t.Errorf("Capabilities (-want +got):\n%s", d)
			}
			if m := defaultMaxTokens(tc.model); m != tc.maxTokens {
				t.Errorf("defaultMaxTokens = %d, want %d", m, tc.maxTokens)
			}
		})
	}
}
