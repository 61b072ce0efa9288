package eventlog

import (
	"cmp"
	"context"
	"io"
	"sync"

	"github.com/rein-agent/rein/internal/contract"
)

// backlogWarning is the queue length at which a subscription that is not
// keeping up is reported, once, on the log's logger. The queue keeps
// growing past it: nothing is ever dropped.
const backlogWarning = 1 << 16

// Subscription receives the envelopes appended to a [Log] after
// [Log.Subscribe] returned it, durable events and deltas, in append order.
//
// It has its own unbounded queue, which Append fills without ever waiting
// for the reader; durable events are never dropped or merged, however slow
// the reader. Deltas may be coalesced while they wait: when a delta is
// queued right behind an unread delta of the same stream (same type,
// session, run, turn and cause, and for tool_intent.delta the same Index),
// the two become one: text and reasoning deltas concatenate their Text, and
// the newer tool_intent.delta, whose RawInput is the whole text so far,
// replaces the older one (keeping its call id and tool name if the newer
// lacks them). Envelopes already handed out are never modified.
//
// A Subscription is safe for concurrent use. Its zero value is not usable;
// get one from Log.Subscribe.
type Subscription struct {
	log    *Log
	notify chan struct{} // 1-buffered: an envelope was queued
	done   chan struct{} // closed when the subscription ends

	mu     sync.Mutex
	queue  []queued // unread from head on
	head   int
	ended  bool
	warned bool
}

// queued is one unread envelope of a subscription's queue.
type queued struct {
	env contract.Envelope
	// text, when non-nil, is the concatenated text of coalesced text or
	// reasoning deltas; it becomes the Text of a new delta when the
	// envelope is read, so that merging stays linear in the text's length.
	text []byte
}

func newSubscription(l *Log) *Subscription {
	return &Subscription{
		log:    l,
		notify: make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
}

// Next returns the next envelope. It blocks until one is queued, ctx is
// done (it returns ctx.Err()), or the subscription has ended and its queue
// is drained (it returns io.EOF). A subscription ends when the log is
// closed, which leaves what was queued to read, or when it is closed
// itself, which discards it.
func (s *Subscription) Next(ctx context.Context) (contract.Envelope, error) {
	for {
		s.mu.Lock()
		if s.head < len(s.queue) {
			q := s.queue[s.head]
			s.queue[s.head] = queued{}
			s.head++
			more := s.head < len(s.queue)
			if !more {
				s.queue, s.head = s.queue[:0], 0
			}
			s.mu.Unlock()
			if more {
				s.signal() // another goroutine may be waiting in Next
			}
			return q.envelope(), nil
		}
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return contract.Envelope{}, io.EOF
		}
		select {
		case <-s.notify:
		case <-s.done:
		case <-ctx.Done():
			return contract.Envelope{}, ctx.Err()
		}
	}
}

// Close ends the subscription and discards what is still queued: Next
// returns io.EOF from now on. Closing twice, or after the log was closed,
// is harmless.
func (s *Subscription) Close() {
	s.log.unsubscribe(s)
	s.end(true)
}

// end ends the subscription, discarding the queue if discard is set.
func (s *Subscription) end(discard bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if discard {
		clear(s.queue)
		s.queue, s.head = nil, 0
	}
	if !s.ended {
		s.ended = true
		close(s.done)
	}
}

// signal wakes a goroutine blocked in Next, or the next one to block.
func (s *Subscription) signal() {
	select {
	case s.notify <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// push queues env, coalescing it with the last unread envelope when both
// are deltas of the same stream. It never blocks on the reader. The caller
// holds the log's lock, so pushes are ordered the same way for every
// subscription. push returns the queue's length the first time it reaches
// backlogWarning, for the log to report, and 0 otherwise.
func (s *Subscription) push(env contract.Envelope) (lagging int) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return 0
	}
	if n := len(s.queue); n > s.head && contract.IsDelta(env.Type()) && coalesce(&s.queue[n-1], env) {
		s.mu.Unlock()
		s.signal()
		return 0
	}
	// Reuse the space of envelopes already read once it is at least half
	// the queue, so a reader that keeps up a little keeps memory bounded
	// and copying linear.
	if s.head > 0 && len(s.queue) == cap(s.queue) && s.head >= len(s.queue)/2 {
		n := copy(s.queue, s.queue[s.head:])
		clear(s.queue[n:])
		s.queue, s.head = s.queue[:n], 0
	}
	s.queue = append(s.queue, queued{env: env})
	if backlog := len(s.queue) - s.head; backlog >= backlogWarning && !s.warned {
		s.warned, lagging = true, backlog
	}
	s.mu.Unlock()
	s.signal()
	return lagging
}

// coalesce merges the delta next into the unread queued item q when both
// belong to the same stream, and reports whether it did. It builds new
// values; it never modifies an envelope's Data.
func coalesce(q *queued, next contract.Envelope) bool {
	prev := q.env
	if prev.Type() != next.Type() || prev.Session != next.Session || prev.Run != next.Run ||
		prev.Turn != next.Turn || prev.Cause != next.Cause {
		return false
	}
	switch p := prev.Data.(type) {
	case *contract.TextDelta:
		n, ok := next.Data.(*contract.TextDelta)
		if !ok {
			return false
		}
		q.text = appendText(q.text, p.Text, n.Text)
	case *contract.ReasoningDelta:
		n, ok := next.Data.(*contract.ReasoningDelta)
		if !ok {
			return false
		}
		q.text = appendText(q.text, p.Text, n.Text)
	case *contract.IntentDelta:
		n, ok := next.Data.(*contract.IntentDelta)
		if !ok || n.Index != p.Index {
			return false
		}
		if (n.ProviderCallID == "" && p.ProviderCallID != "") || (n.ToolName == "" && p.ToolName != "") {
			next.Data = &contract.IntentDelta{
				Index:          n.Index,
				ProviderCallID: cmp.Or(n.ProviderCallID, p.ProviderCallID),
				ToolName:       cmp.Or(n.ToolName, p.ToolName),
				RawInput:       n.RawInput,
			}
		}
	default:
		return false
	}
	// The merged envelope carries the newer one's metadata (id, time).
	// For text, its Data is rebuilt from q.text when it is read.
	q.env = next
	return true
}

// appendText appends next to the accumulated text buf, which starts as a
// copy of prev on the first merge.
func appendText(buf []byte, prev, next string) []byte {
	if buf == nil {
		buf = make([]byte, 0, 2*(len(prev)+len(next)))
		buf = append(buf, prev...)
	}
	return append(buf, next...)
}

// envelope returns the queued envelope as the reader gets it.
func (q queued) envelope() contract.Envelope {
	if q.text == nil {
		return q.env
	}
	env := q.env
	switch env.Data.(type) {
	case *contract.TextDelta:
		env.Data = &contract.TextDelta{Text: string(q.text)}
	case *contract.ReasoningDelta:
		env.Data = &contract.ReasoningDelta{Text: string(q.text)}
	}
	return env
}
