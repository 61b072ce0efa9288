package eventlog

import (
	"iter"

	"github.com/rein-agent/rein/internal/contract"
)

// Store is the durable backing of a [Log]: an append-only sequence of
// durable envelopes numbered 1, 2, 3 and so on. Implementations need not be
// safe for concurrent use; a Log serialises its calls, ranging over the
// iterators Events returns included.
//
// A Store owns no envelope it is given: it may keep the envelope, but never
// modifies it or its Data.
type Store interface {
	// LastSeq returns the Seq of the last event stored (buffered ones
	// included), or 0 if there is none.
	LastSeq() uint64

	// Append stores env, whose Seq the Log has already set to LastSeq()+1,
	// and returns it as stored: env itself, or, when the store changed it
	// on the way (the file store cuts secrets out of the line it writes),
	// the envelope Events will yield for it. That is what the Log
	// publishes, so that no subscriber sees what the store refused to
	// keep. Append may buffer: the event is durable only after a
	// successful Sync. If Append returns an error, env is not stored; a
	// store that cannot promise that (a write failed halfway) must fail
	// every later Append and Sync.
	Append(env contract.Envelope) (contract.Envelope, error)

	// Sync makes everything appended so far durable: for a file, it
	// flushes the write buffer and fsyncs.
	Sync() error

	// Events returns the stored events with Seq >= from, in order,
	// including events still in a write buffer. A non-nil error is always
	// the last pair yielded. What the iterator yields is fixed when ranging
	// starts: events appended meanwhile are not yielded.
	Events(from uint64) iter.Seq2[contract.Envelope, error]

	// Close flushes, syncs and releases the store. Later Appends and
	// Syncs fail with an error wrapping [ErrClosed].
	Close() error
}
