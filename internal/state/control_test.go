package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

// A person's switch of model and change of mode are folded: the model
// and what is known of it, the endpoint kept only within the provider,
// the last mode chosen.
func TestSwitchAndMode(t *testing.T) {
	started := &contract.SessionStarted{Provider: "openai", Model: "gpt-5", BaseURL: "http://127.0.0.1:11434/v1",
		ModelInfo: &contract.ModelInfo{ContextWindow: 400000}}
	small := &contract.ModelInfo{ContextWindow: 8000, Source: contract.InfoConfig}
	type view struct {
		Provider, Model, BaseURL, Mode string
		Window                         int
	}
	tests := []struct {
		name   string
		events []contract.Event
		want   view
	}{
		{"nothing changed", []contract.Event{started},
			view{"openai", "gpt-5", "http://127.0.0.1:11434/v1", "", 400000}},
		{"same provider keeps the endpoint", []contract.Event{started,
			&contract.ModelSwitched{From: "openai:gpt-5", To: "openai:qwen3:8b", Info: small, By: "user"}},
			view{"openai", "qwen3:8b", "http://127.0.0.1:11434/v1", "", 8000}},
		{"another provider has its own", []contract.Event{started,
			&contract.ModelSwitched{From: "openai:gpt-5", To: "anthropic:claude-sonnet-4-5", By: "user"}},
			view{"anthropic", "claude-sonnet-4-5", "", "", 0}},
		{"the last mode wins", []contract.Event{started,
			&contract.ModeChanged{From: "default", To: "plan", By: "user"},
			&contract.ModeChanged{From: "plan", To: "yolo", By: "user"}},
			view{"openai", "gpt-5", "http://127.0.0.1:11434/v1", "yolo", 400000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := reduceSlice(envs(tc.events...))
			got := view{s.Provider, s.Model, s.BaseURL, s.Mode, 0}
			if s.ModelInfo != nil {
				got.Window = s.ModelInfo.ContextWindow
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Reduce() mismatch (-want +got):\n%s", d)
			}
			if s.Calib.Model != "" && s.Calib.Model != s.Model {
				t.Errorf("Calib.Model = %q, want %q", s.Calib.Model, s.Model)
			}
		})
	}
}
