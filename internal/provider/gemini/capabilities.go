package gemini

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

// Capabilities returns what the Gemini model named model can do, as far as
// this adapter knows its family. Every model streams. ParallelTools is
// always false: Gemini models may call several functions in one turn, but
// the API has no switch to ask for that or to forbid it, which is what the
// flag means. Reasoning marks the thinking models (2.5 and later), which
// get includeThoughts and take thought signatures. Models the adapter does
// not know get the conservative defaults: tools, no reasoning, an unknown
// context window.
func Capabilities(model string) provider.Capabilities {
	m := strings.ToLower(model)
	m = strings.TrimPrefix(m, "models/")
	const million = 1 << 20 // Gemini's "1M" windows are 1,048,576 tokens
	c := provider.Capabilities{Streaming: true, Tools: true}
	switch {
	case strings.HasPrefix(m, "gemma-"):
		// Gemma models on the Gemini API take no function declarations.
		c.Tools = false
		c.ContextWindow = 128 << 10
		if strings.HasPrefix(m, "gemma-3-1b") {
			c.ContextWindow = 32 << 10
		}
	case !strings.HasPrefix(m, "gemini-"):
	case strings.Contains(m, "-image") || strings.Contains(m, "-tts"):
		// Image and speech generation models call no functions.
		c.Tools = false
	case strings.HasPrefix(m, "gemini-1.5-pro"):
		c.ContextWindow = 2 * million
	case strings.HasPrefix(m, "gemini-1.0") || m == "gemini-pro":
		c.ContextWindow = 30 << 10
	case strings.HasPrefix(m, "gemini-1.5"):
		c.ContextWindow = million
	case strings.HasPrefix(m, "gemini-2.0"):
		c.ContextWindow = million
		c.Reasoning = strings.Contains(m, "thinking")
	case strings.HasPrefix(m, "gemini-2.5"), strings.HasPrefix(m, "gemini-3"),
		m == "gemini-flash-latest", m == "gemini-flash-lite-latest", m == "gemini-pro-latest":
		c.ContextWindow = million
		c.Reasoning = true
	}
	return c
}
