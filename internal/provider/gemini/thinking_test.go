package gemini

import (
	"encoding/json"
	"testing"
)

func TestThinkingFor(t *testing.T) {
	for _, tc := range []struct {
		model, effort string
		reasoning     bool
		want          string
	}{
		{"gemini-2.5-flash", "", true, `{"includeThoughts":true}`},
		{"gemini-2.5-flash", "none", true, `{"includeThoughts":true,"thinkingBudget":0}`},
		{"gemini-2.5-pro", "none", true, `{"includeThoughts":true,"thinkingBudget":128}`},
		{"gemini-2.5-flash-lite", "minimal", true, `{"includeThoughts":true,"thinkingBudget":512}`},
		{"gemini-2.5-flash", "medium", true, `{"includeThoughts":true,"thinkingBudget":8192}`},
		{"gemini-2.5-pro", "max", true, `{"includeThoughts":true,"thinkingBudget":32768}`},
		{"gemini-2.5-flash", "max", true, `{"includeThoughts":true,"thinkingBudget":24576}`},
		{"gemini-flash-latest", "high", true, `{"includeThoughts":true,"thinkingBudget":24576}`},
		{"gemini-2.5-flash", "extreme", true, `{"includeThoughts":true,"thinkingBudget":-1}`},
		{"gemini-3-flash-preview", "minimal", true, `{"includeThoughts":true,"thinkingLevel":"minimal"}`},
		{"models/gemini-3-pro-preview", "none", true, `{"includeThoughts":true,"thinkingLevel":"low"}`},
		{"gemini-3.1-pro-preview", "medium", true, `{"includeThoughts":true,"thinkingLevel":"medium"}`},
		{"gemini-3-flash-preview", "xhigh", true, `{"includeThoughts":true,"thinkingLevel":"high"}`},
		{"gemini-10-ultra", "low", true, `{"includeThoughts":true,"thinkingLevel":"low"}`},
		{"my-tuned-model", "low", false, `{"includeThoughts":false,"thinkingBudget":1024}`},
	} {
		got, _ := json.Marshal(thinkingFor(tc.model, tc.effort, tc.reasoning)) // plain structs always marshal
		if string(got) != tc.want {
			t.Errorf("thinkingFor(%q, %q) = %s, want %s", tc.model, tc.effort, got, tc.want)
		}
	}
}
