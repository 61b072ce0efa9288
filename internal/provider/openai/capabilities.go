package openai

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

// family is what is known of a family of models, matched by name prefix.
type family struct {
	prefix string
	caps   provider.Capabilities
}

// Shorthands for the table.
const (
	noTools  = 1 << iota // the model cannot call tools
	parallel             // the API has the parallel_tool_calls switch for it
	reasons              // it streams reasoning of its own through this API
)

func fam(prefix string, window int, flags int) family {
	return family{prefix: prefix, caps: provider.Capabilities{
		Streaming:     true,
		Tools:         flags&noTools == 0,
		ParallelTools: flags&parallel != 0,
		Reasoning:     flags&reasons != 0,
		ContextWindow: window,
	}}
}

// families lists model families, the more specific prefix first. Windows
// are the vendors' published figures for their own APIs; a model that runs
// on a local server (Ollama, vLLM, llama.cpp) has the window the server
// gives it, so open-weight families have 0 (unknown).
//
// Reasoning means reasoning text streams through this API: OpenAI's own
// reasoning models reason but stream none of it in Chat Completions, so
// they do not claim it. ParallelTools means the model can make several
// calls in a turn and the parallel_tool_calls switch works for it: OpenAI's
// o-series rejects the switch outright.
var families = []family{
	fam("gpt-4.1", 1_047_576, parallel),
	fam("gpt-4o", 128_000, parallel),
	fam("gpt-4.5", 128_000, parallel),
	fam("chatgpt-4o", 128_000, noTools),
	fam("gpt-4-turbo", 128_000, parallel),
	fam("gpt-4", 8_192, parallel),
	fam("gpt-3.5-turbo", 16_385, parallel),
	fam("gpt-5-chat", 128_000, parallel),
	fam("gpt-5", 400_000, parallel),
	fam("o1-mini", 128_000, noTools),
	fam("o1-preview", 128_000, noTools),
	fam("o1", 200_000, 0),
	fam("o3", 200_000, 0),
	fam("o4-mini", 200_000, 0),
	fam("gpt-oss", 131_072, reasons),
	fam("deepseek-reasoner", 128_000, reasons),
	fam("deepseek-chat", 128_000, 0),
	fam("deepseek-r1", 0, reasons),
	fam("qwq", 0, reasons),
	fam("qwen3", 0, reasons),
	fam("magistral", 128_000, parallel|reasons),
	fam("codestral", 256_000, parallel),
	fam("devstral", 128_000, parallel),
	fam("mistral-large", 128_000, parallel),
	fam("mistral-medium", 128_000, parallel),
	fam("mistral-small", 128_000, parallel),
	fam("grok-code", 256_000, reasons),
	fam("grok-3-mini", 131_072, reasons),
	fam("grok-3", 131_072, parallel),
	fam("grok-4", 256_000, parallel),
	fam("llama-3.3-70b-versatile", 131_072, parallel),
	fam("llama-3.1-8b-instant", 131_072, parallel),
	fam("kimi-k2-thinking", 262_144, reasons),
	fam("kimi-k2", 131_072, 0),
	fam("claude-", 200_000, parallel),
	fam("gemini-2.5", 1_048_576, reasons),
	fam("gemini-3", 1_048_576, reasons),
	fam("gemini-", 1_048_576, 0),
}

// Capabilities returns what is known of model through this API. The name
// is matched without a router's vendor prefix ("openai/gpt-4.1") or a local
// server's tag ("qwen3:8b"). An unknown model gets conservative defaults:
// streaming and tools, no parallel switch, no reasoning, an unknown window.
func Capabilities(model string) provider.Capabilities {
	name := baseName(model)
	for _, f := range families {
		if strings.HasPrefix(name, f.prefix) {
			return f.caps
		}
	}
	return provider.Capabilities{Streaming: true, Tools: true}
}

// baseName lowers model and strips a vendor prefix and a tag.
func baseName(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	return name
}

// rejectsParallelSwitch reports whether the API answers 400 to
// parallel_tool_calls for model, whatever its value: OpenAI's o-series.
func rejectsParallelSwitch(model string) bool {
	name := baseName(model)
	for _, p := range []string{"o1", "o3", "o4"} {
		if name == p || strings.HasPrefix(name, p+"-") {
			return true
		}
	}
	return false
}
