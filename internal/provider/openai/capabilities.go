package openai

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

// What the adapter itself needs to know of a model through Chat
// Completions, by name prefix: which take no tools, which have the
// parallel_tool_calls switch, which stream reasoning of their own. The
// window, output, prices and reasoning levels are the catalogue's
// (internal/catalog), not this package's.
var (
	// noTools are the models that cannot call tools.
	noTools = []string{"chatgpt-4o", "o1-mini", "o1-preview"}
	// parallel are the families that make several calls in a turn and
	// take the parallel_tool_calls switch; notParallel the exceptions
	// among them. OpenAI's o-series rejects the switch outright
	// (rejectsParallelSwitch).
	parallel = []string{"gpt-", "claude-", "mistral-", "codestral", "devstral", "magistral",
		"grok-3", "grok-4", "llama-3.3-70b-versatile", "llama-3.1-8b-instant"}
	notParallel = []string{"gpt-oss", "grok-3-mini"}
	// reasons are the models whose reasoning text streams through this
	// API: OpenAI's own reasoning models reason but stream none of it in
	// Chat Completions, so they are not here.
	reasons = []string{"gpt-oss", "deepseek-reasoner", "deepseek-r1", "qwq", "qwen3", "magistral",
		"grok-code", "grok-3-mini", "kimi-k2-thinking", "gemini-2.5", "gemini-3"}
)

// Capabilities returns what the adapter knows of model through this API.
// The name is matched without a router's vendor prefix ("openai/gpt-4.1")
// or a local server's tag ("qwen3:8b"). An unknown model gets conservative
// defaults: streaming and tools, no parallel switch, no reasoning.
func Capabilities(model string) provider.Capabilities {
	name := provider.ModelName(model)
	return provider.Capabilities{
		Streaming:     true,
		Tools:         !provider.HasAnyPrefix(name, noTools),
		ParallelTools: provider.HasAnyPrefix(name, parallel) && !provider.HasAnyPrefix(name, notParallel),
		Reasoning:     provider.HasAnyPrefix(name, reasons),
	}
}

// rejectsParallelSwitch reports whether the API answers 400 to
// parallel_tool_calls for model, whatever its value: OpenAI's o-series.
func rejectsParallelSwitch(model string) bool {
	name := provider.ModelName(model)
	for _, p := range []string{"o1", "o3", "o4"} {
		if name == p || strings.HasPrefix(name, p+"-") {
			return true
		}
	}
	return false
}
