package gemini

import (
	"strings"

	"github.com/rein-agent/rein/internal/provider"
)

// Capabilities returns what the adapter knows of the Gemini model named
// model. Every model streams. ParallelTools is always false: Gemini models
// may call several functions in one turn, but the API has no switch to ask
// for that or to forbid it, which is what the flag means. Reasoning marks
// the thinking models (2.5 and later), which get includeThoughts and take
// thought signatures. Gemma, image and speech models call no functions.
// A model the adapter does not know gets tools and no reasoning. The
// window, output, prices and reasoning levels are the catalogue's
// (internal/catalog).
func Capabilities(model string) provider.Capabilities {
	m := strings.TrimPrefix(strings.ToLower(model), "models/")
	c := provider.Capabilities{Streaming: true, Tools: true}
	switch {
	case strings.HasPrefix(m, "gemma-"), strings.HasPrefix(m, "gemini-") && (strings.Contains(m, "-image") || strings.Contains(m, "-tts")):
		c.Tools = false
	case strings.HasPrefix(m, "gemini-2.0"):
		c.Reasoning = strings.Contains(m, "thinking")
	case strings.HasPrefix(m, "gemini-2.5"), strings.HasPrefix(m, "gemini-3"),
		m == "gemini-flash-latest", m == "gemini-flash-lite-latest", m == "gemini-pro-latest":
		c.Reasoning = true
	}
	return c
}
