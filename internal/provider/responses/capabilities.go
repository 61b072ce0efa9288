package responses

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

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
	name := baseName(model)
	own := hasPrefix(name, openAI) && !hasPrefix(name, openWeight)
	tools := !hasPrefix(name, noTools)
	return provider.Capabilities{
		Streaming:     true,
		Tools:         tools,
		ParallelTools: own && tools,
		Reasoning:     encryptedReasoning(model) || hasPrefix(name, openWeight) || hasPrefix(name, noTools),
	}
}

// encryptedReasoning reports whether requests for model ask for its
// encrypted reasoning.
func encryptedReasoning(model string) bool {
	name := baseName(model)
	return hasPrefix(name, encrypted) && !hasPrefix(name, notEncrypted)
}

// baseName lowers model and strips a routing prefix such as "openai/"
// (OpenRouter).
func baseName(model string) string {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// hasPrefix says whether name starts with one of prefixes.
func hasPrefix(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
