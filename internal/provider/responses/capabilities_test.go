package responses

import "testing"

func TestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		model                     string
		tools, parallel, thinking bool
		encrypted                 bool
	}{
		{"gpt-5", true, true, true, true},
		{"gpt-5.6-sol", true, true, true, true},
		{"gpt-5.1-codex-max", true, true, true, true},
		{"gpt-5-chat-latest", true, true, false, false},
		{"openai/GPT-5-mini", true, true, true, true},
		{"gpt-4.1-mini", true, true, false, false},
		{"gpt-4o", true, true, false, false},
		{"codex-mini-latest", true, true, true, true},
		{"o4-mini", true, true, true, true},
		{"o3", true, true, true, true},
		{"o1-mini", false, false, true, false},
		{"gpt-oss-120b", true, false, true, false},
		{"qwen3-coder:30b", true, false, false, false},
		{"", true, false, false, false},
	} {
		t.Run(tc.model, func(t *testing.T) {
			c := Capabilities(tc.model)
			if !c.Streaming || c.Tools != tc.tools || c.ParallelTools != tc.parallel || c.Reasoning != tc.thinking {
				t.Errorf("Capabilities(%q) = %+v", tc.model, c)
			}
			if encryptedReasoning(tc.model) != tc.encrypted {
				t.Errorf("encryptedReasoning(%q) = %v", tc.model, !tc.encrypted)
			}
		})
	}
}
