package responses

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

// family is what rein knows of a family of models, found by name prefix.
type family struct {
	prefix string
	caps   provider.Capabilities
	// encrypted: the model returns encrypted reasoning on request. OpenAI
	// rejects the request of it from any other model ("Encrypted content
	// is not supported with this model").
	encrypted bool
}

// families are the models rein knows, most specific prefix first.
var families = []family{
	// Chat variants of GPT-5 do not reason.
	{prefix: "gpt-5-chat", caps: caps(true, false, 128_000)},
	{prefix: "gpt-5", caps: caps(true, true, 400_000), encrypted: true},
	{prefix: "gpt-4.1", caps: caps(true, false, 1_047_576)},
	{prefix: "gpt-4.5", caps: caps(true, false, 128_000)},
	{prefix: "gpt-4o", caps: caps(true, false, 128_000)},
	{prefix: "gpt-4-turbo", caps: caps(true, false, 128_000)},
	{prefix: "gpt-4", caps: caps(true, false, 8_192)},
	{prefix: "codex-mini", caps: caps(true, true, 200_000), encrypted: true},
	// o1-mini and o1-preview take no tools.
	{prefix: "o1-mini", caps: provider.Capabilities{Streaming: true, Reasoning: true, ContextWindow: 128_000}},
	{prefix: "o1-preview", caps: provider.Capabilities{Streaming: true, Reasoning: true, ContextWindow: 128_000}},
	{prefix: "o1", caps: caps(true, true, 200_000), encrypted: true},
	{prefix: "o3", caps: caps(true, true, 200_000), encrypted: true},
	{prefix: "o4", caps: caps(true, true, 200_000), encrypted: true},
	// The open-weight models run on local servers: reasoning as
	// reasoning_text, one call at a time is the safe assumption.
	{prefix: "gpt-oss", caps: provider.Capabilities{Streaming: true, Tools: true, Reasoning: true, ContextWindow: 131_072}},
}

func caps(parallel, reasoning bool, window int) provider.Capabilities {
	return provider.Capabilities{Streaming: true, Tools: true, ParallelTools: parallel, Reasoning: reasoning, ContextWindow: window}
}

// lookup returns the family of model, or nil. A routing prefix such as
// "openai/" (OpenRouter) is ignored, and case does not matter.
func lookup(model string) *family {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for i := range families {
		if strings.HasPrefix(name, families[i].prefix) {
			return &families[i]
		}
	}
	return nil
}

// Capabilities returns rein's best knowledge of model: streaming, tools,
// parallel tools, reasoning and context window, by model family. Models it
// does not know (a local server's, a new one) get conservative defaults:
// streaming and tools, no parallel calls, no reasoning, an unknown window.
func Capabilities(model string) provider.Capabilities {
	if f := lookup(model); f != nil {
		return f.caps
	}
	return provider.Capabilities{Streaming: true, Tools: true}
}

// encryptedReasoning reports whether requests for model ask for its
// encrypted reasoning.
func encryptedReasoning(model string) bool {
	f := lookup(model)
	return f != nil && f.encrypted
}
