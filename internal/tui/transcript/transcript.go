// Package transcript folds a session's events into what a person sees:
// the finished blocks printed once into the terminal's scrollback, and
// what is still in progress (a streaming answer, running tools) shown
// live below them.
package transcript

import (
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/tui/style"
)

// Options configure a Transcript.
type Options struct {
	// Width is the terminal's width in columns.
	Width int
	// Theme styles everything; the zero Theme is plain.
	Theme style.Theme
	// Workspace is the workspace's root: paths under it are shown
	// relative to it. Empty shows paths as they are.
	Workspace string
	// SessionDir is the session's directory, under which the artifacts
	// that ToolObservation.ArtifactRef names live.
	SessionDir string
}

// Transcript is the fold of a session's envelopes into rendered blocks.
// It does no I/O and starts no goroutine; given the same envelopes and
// times it renders the same text. It is not safe for concurrent use.
type Transcript struct {
	opts Options
}

// New returns an empty Transcript.
func New(opts Options) *Transcript {
	return &Transcript{opts: opts}
}

// Apply folds one envelope, durable or delta, and returns the blocks it
// finished, in the order they are to be printed into scrollback, each
// rendered without a trailing newline; nil when none.
func (t *Transcript) Apply(env contract.Envelope) []string {
	return nil
}

// Live renders what is in progress (the streaming answer's current
// block, reasoning being streamed, running tool cards with their timers
// measured to now); "" when nothing is.
func (t *Transcript) Live(now time.Time) string {
	return ""
}

// Flush ends whatever is in progress (the run ended or was interrupted)
// and returns it as finished blocks.
func (t *Transcript) Flush() []string {
	return nil
}

// Resize sets the width of what is rendered from now on.
func (t *Transcript) Resize(width int) {
	t.opts.Width = width
}

// LastReasoning returns the whole text of the last reasoning block, ""
// if there was none.
func (t *Transcript) LastReasoning() string {
	return ""
}
