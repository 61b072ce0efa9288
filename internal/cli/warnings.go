package cli

import (
	"strings"
	"sync"

	"github.com/rein-agent/rein/internal/tui"
)

// heldWarnings keeps rein's warnings away from the terminal while the UI
// opens its session and runs: those that come before it starts are shown
// under its banner, those that come while it runs are given to it as they
// come; nothing is written under its frame, which a line would tear. It is
// safe for concurrent use.
type heldWarnings struct {
	mu      sync.Mutex
	lines   []string
	to      *tui.Approver
	restore func()
	w       func(line string)
}

// holdWarnings starts holding rein's warnings, if the wiring can route
// them; nil when it cannot (they go to stderr as always).
func (a *app) holdWarnings() *heldWarnings {
	if a.deps.Warnings == nil {
		return nil
	}
	h := &heldWarnings{w: func(line string) { printf(a.deps.Stderr, "%s\n", line) }}
	h.restore = a.deps.Warnings(h.add)
	return h
}

func (h *heldWarnings) add(line string) {
	text := strings.TrimPrefix(strings.TrimPrefix(line, "rein: "), "warning: ")
	h.mu.Lock()
	to := h.to
	if to == nil {
		h.lines = append(h.lines, text)
	}
	h.mu.Unlock()
	if to != nil && !to.Warn(text) {
		h.w(line) // the UI has ended
	}
}

// start hands the UI what was held, and from now on what comes.
func (h *heldWarnings) start(to *tui.Approver) []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	held := h.lines
	h.lines, h.to = nil, to
	return held
}

// release gives stderr back, writing there what is still held (the UI
// never started).
func (h *heldWarnings) release() {
	if h == nil {
		return
	}
	h.restore()
	h.mu.Lock()
	held := h.lines
	h.lines, h.to = nil, nil
	h.mu.Unlock()
	for _, l := range held {
		h.w("rein: warning: " + l)
	}
}
