package responses

import "github.com/rein-agent/rein/internal/provider"

// What the adapter itself needs to know of a model through the Responses
// API, by name prefix. The window, output, prices and reasoning levels are
// the catalogue's (internal/catalog), not this package's.
var (
	// openAI are OpenAI's own families: they make several calls in a
	// turn and take the switch for it.
	openAI = []string{"gpt-", "codex-", "o1", "o3", "o4"}
	// noTools take no tools (nor parallel calls).
	noTools = []string{"o1-mini", "o1-preview"}
	// encrypted return their reasoning encrypted, on request; OpenAI
	// rejects the request of it from any other model ("Encrypted content
	// is not supported with this model"). Chat variants of GPT-5 do not
	// reason.
	encrypted    = []string{"gpt-5", "codex-mini", "o1", "o3", "o4"}
	notEncrypted = []string{"gpt-5-chat", "o1-mini", "o1-preview"}
	// openWeight run on local servers: reasoning as reasoning_text, one
	// call at a time is the safe assumption.
	openWeight = []string{"gpt-oss"}
)

// Capabilities returns what the adapter knows of model: streaming, tools,
// parallel tools and whether reasoning streams, by model family. A model
// it does not know (a local server's, a new one) gets conservative
// defaults: streaming and tools, no parallel calls, no reasoning.
func Capabilities(model string) provider.Capabilities {
	name := provider.ModelName(model)
	own := provider.HasAnyPrefix(name, openAI) && !provider.HasAnyPrefix(name, openWeight)
	tools := !provider.HasAnyPrefix(name, noTools)
	return provider.Capabilities{
		Streaming:     true,
		Tools:         tools,
		ParallelTools: own && tools,
		Reasoning:     encryptedReasoning(model) || provider.HasAnyPrefix(name, openWeight) || provider.HasAnyPrefix(name, noTools),
	}
}

// encryptedReasoning reports whether requests for model ask for its
// encrypted reasoning.
func encryptedReasoning(model string) bool {
	name := provider.ModelName(model)
	return provider.HasAnyPrefix(name, encrypted) && !provider.HasAnyPrefix(name, notEncrypted)
}
