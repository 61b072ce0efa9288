package provider

import (
	"strings"
	"testing"
)

// TestModelName: the name an adapter matches is lower-cased, without a
// router's prefix or a local server's tag, whichever of them it has.
func TestModelName(t *testing.T) {
	cases := []string{
		"gpt-4.1 gpt-4.1", "GPT-5-mini gpt-5-mini", "openai/gpt-oss-120b gpt-oss-120b",
		"qwen3:8b qwen3", "library/gpt-oss:20b gpt-oss", "openrouter/openai/o3 o3",
	}
	for _, c := range cases {
		model, want, _ := strings.Cut(c, " ")
		if got := ModelName(model); got != want {
			t.Errorf("ModelName(%q) = %q, want %q", model, got, want)
		}
	}
}

func TestHasAnyPrefix(t *testing.T) {
	families := []string{"gpt-", "o3"}
	if !HasAnyPrefix("gpt-5", families) || !HasAnyPrefix("o3-mini", families) {
		t.Error("HasAnyPrefix misses a family")
	}
	if HasAnyPrefix("o1", families) || HasAnyPrefix("gpt", families) || HasAnyPrefix("gpt-5", nil) {
		t.Error("HasAnyPrefix finds a family not there")
	}
}
