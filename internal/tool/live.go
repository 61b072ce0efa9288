package tool

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rein-agent/rein/internal/contract"
)

// Live is a [Sink] that shows a person what a tool prints while it runs.
// The runtime hands Delta the tool.output_delta events
// (*contract.ToolOutputDelta) of the tools that stream
// (registry.Tool.Streams): an invocation's output as its capture records
// it, credentials already cut out, coalesced to at most one delta every
// 100 ms per invocation, each carrying only the text that came since the
// one before (its last 4 KiB when more came), valid UTF-8 (a character
// split across two writes is held back until it is whole). The last delta
// of an invocation comes before its tool.invocation.completed. Delta is
// called from the goroutine that calls Emit, between Emit calls; a delta
// is for the bus only, never stored.
type Live interface {
	Sink
	Delta(e contract.Event)
}

const (
	// liveEvery is how often the output of a running tool is passed on.
	liveEvery = 100 * time.Millisecond
	// liveMax is the most text one delta carries: the last of what came.
	liveMax = 4 << 10
)

// liveOutput is what an invocation's capture recorded and no delta has
// carried yet. The capture adds to it from the tool's goroutine; the
// runtime takes from it in the goroutine that emits, so it is guarded.
type liveOutput struct {
	intent, invocation string

	mu  sync.Mutex
	buf []byte // at most 2*liveMax bytes: the newest
}

// liveFor returns the live output of invocation of j when sink shows
// output and j's tool streams it; nil otherwise.
func liveFor(sink Sink, j job, invocation string) *liveOutput {
	if _, ok := sink.(Live); !ok || !j.tool.Streams {
		return nil
	}
	return &liveOutput{intent: j.Intent.ID, invocation: invocation}
}

// add records p, already redacted. It is a no-op on a nil l.
func (l *liveOutput) add(p []byte) {
	if l == nil || len(p) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if len(l.buf) > 2*liveMax {
		// Only the last liveMax bytes will be shown, and a character
		// split at the cut is whole once it is cut again on a boundary.
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-liveMax-utf8.UTFMax:]...)
	}
}

// take returns the text to show now and forgets it: at most the last
// liveMax bytes of what came, cut on a character boundary, holding back
// an unfinished last character unless final (the tool has ended).
func (l *liveOutput) take(final bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf
	keep := 0
	if !final {
		keep = unfinished(b)
	}
	b = b[:len(b)-keep]
	if len(b) > liveMax {
		b = b[len(b)-liveMax:]
		for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	text := strings.ToValidUTF8(string(b), "\uFFFD")
	l.buf = append(l.buf[:0], l.buf[len(l.buf)-keep:]...)
	return text
}

// unfinished returns how many of the last bytes of b start a character
// that is not whole yet.
func unfinished(b []byte) int {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if !utf8.RuneStart(c) {
			continue
		}
		if c >= utf8.RuneSelf && !utf8.FullRune(b[len(b)-i:]) {
			return i
		}
		return 0
	}
	return 0
}

// pass hands sink the delta of what l holds, if any. It is a no-op on a
// nil l.
func (l *liveOutput) pass(sink Sink, final bool) {
	if l == nil {
		return
	}
	live, ok := sink.(Live)
	if !ok {
		return
	}
	if text := l.take(final); text != "" {
		live.Delta(&contract.ToolOutputDelta{IntentID: l.intent, InvocationID: l.invocation, Text: text})
	}
}
