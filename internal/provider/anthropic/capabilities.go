package anthropic

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

// generation is what a model name says about a Claude model.
type generation int

const (
	genUnknown  generation = iota // not a Claude name this package knows
	genClaude2                    // claude-2.x, claude-instant: no tool use
	genClaude3                    // claude-3-{opus,sonnet,haiku}: 4,096 output tokens
	genClaude35                   // claude-3-5-*: 8,192 output tokens
	genClaude37                   // claude-3-7-sonnet: extended thinking
	genClaude4                    // claude-{opus,sonnet,haiku}-4 and later
)

// generationOf reads the generation from a model name (see claudeName).
func generationOf(model string) generation {
	rest, version, ok := claudeName(model)
	if !ok {
		return genUnknown
	}
	switch {
	case strings.HasPrefix(rest, "instant"), strings.HasPrefix(rest, "2"):
		return genClaude2
	case strings.HasPrefix(rest, "3-7-"), strings.HasPrefix(rest, "3.7-"):
		return genClaude37
	case strings.HasPrefix(rest, "3-5-"), strings.HasPrefix(rest, "3.5-"):
		return genClaude35
	case strings.HasPrefix(rest, "3-"):
		return genClaude3
	case version != "" && version[0] >= '4' && version[0] <= '9':
		return genClaude4
	}
	return genUnknown
}

// claudeName reads a Claude model name as the API, Bedrock
// ("anthropic.claude-opus-4-6-v1"), Vertex ("claude-opus-4-6@...") or a
// router ("anthropic/claude-...") spells it: rest is what follows
// "claude-", lower-cased, and version what follows the family (opus-,
// sonnet-, haiku-) in rest, "" when rest names none. ok is false for a
// name that is not a Claude one.
func claudeName(model string) (rest, version string, ok bool) {
	m := strings.ToLower(model)
	i := strings.Index(m, "claude-")
	if i < 0 {
		return "", "", false
	}
	rest = m[i+len("claude-"):]
	for _, family := range []string{"opus-", "sonnet-", "haiku-"} {
		if after, ok := strings.CutPrefix(rest, family); ok {
			return rest, after, true
		}
	}
	return rest, "", true
}

// Capabilities returns what the adapter knows of model: every Claude
// model from Claude 3 on streams, uses tools and proposes parallel calls
// (and the API can switch that off); Claude 3.7 and the Claude 4 families
// think. A model it does not know (a local server's, a future name) gets
// conservative defaults: streaming and tools, no parallel calls. The
// window, output, prices and reasoning levels are the catalogue's
// (internal/catalog).
func Capabilities(model string) provider.Capabilities {
	switch g := generationOf(model); g {
	case genClaude2:
		return provider.Capabilities{Streaming: true}
	case genClaude3, genClaude35, genClaude37, genClaude4:
		return provider.Capabilities{Streaming: true, Tools: true, ParallelTools: true, Reasoning: g >= genClaude37}
	}
	return provider.Capabilities{Streaming: true, Tools: true}
}

// defaultMaxTokens is the max_tokens sent when the request sets none: the
// API requires one. It stays within every model's own output limit (4,096
// for Claude 3, 8,192 for Claude 3.5) and leaves room for a long file write
// on the newer models; 8,192 for a model it does not know.
func defaultMaxTokens(model string) int {
	switch generationOf(model) {
	case genClaude2, genClaude3:
		return 4096
	case genClaude37, genClaude4:
		return 16384
	}
	return 8192
}
