package tool

import (
	"context"
	"io"

	"github.com/rein-agent/rein/internal/registry"
)

// ResolveSchema resolves t's input schema as the runtime does on its first
// call.
func ResolveSchema(t registry.Tool) error {
	_, err := newSchemas().resolve(t)
	return err
}

// CaptureRetained returns how many bytes the capture w, a tool's
// registry.Call.Output, holds in memory (see capture.retained); ok is false
// when w is not a capture.
func CaptureRetained(w io.Writer) (n int, ok bool) {
	c, ok := w.(*capture)
	if !ok {
		return 0, false
	}
	return c.retained(), true
}

// retained returns how many bytes the capture holds in memory: its head,
// its tail ring and what its redactor holds back, by capacity. It is what
// must stay bounded however long the output, so a buffer added to the
// capture belongs here too.
func (c *capture) retained() int {
	n := cap(c.head) + cap(c.tail) + cap(c.redact.pending)
	if c.live != nil {
		c.live.mu.Lock()
		n += cap(c.live.buf)
		c.live.mu.Unlock()
	}
	return n
}

// ApproverFunc adapts a function to [Approver], for the tests' scripted
// people, who answer and say nothing more.
type ApproverFunc func(ctx context.Context, q Question) (Answer, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, q Question) (Reply, error) {
	a, err := f(ctx, q)
	return Reply{Answer: a}, err
}

// ReplyFunc adapts a function to [Approver], for a scripted person who
// may say more than their answer.
type ReplyFunc func(ctx context.Context, q Question) (Reply, error)

// Approve calls f.
func (f ReplyFunc) Approve(ctx context.Context, q Question) (Reply, error) { return f(ctx, q) }
