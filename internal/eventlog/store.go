package eventlog

import (
	"fmt"
	"iter"
	"sync"

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

	// Append stores env, whose Seq the Log has already set to LastSeq()+1.
	// It may buffer: the event is durable only after a successful Sync. If
	// Append returns an error, env is not stored; a store that cannot
	// promise that (a write failed halfway) must fail every later Append
	// and Sync.
	Append(env contract.Envelope) error

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

// MemStore is an in-memory [Store] for tests and fakes. It checks what a
// file store checks (the sequence must be dense) but keeps nothing across
// processes. The zero MemStore is an empty store ready to use; NewMemStore
// returns one too. A MemStore is safe for concurrent use, so a test may
// inspect it while a Log appends.
type MemStore struct {
	mu     sync.Mutex
	events []contract.Envelope
	closed bool
}

var _ Store = (*MemStore)(nil)

// NewMemStore returns an empty in-memory store.
func NewMemStore() *MemStore { return new(MemStore) }

// LastSeq returns the Seq of the last stored event, or 0 if there is none.
func (m *MemStore) LastSeq() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.events))
}

// Append stores env. It fails if the store is closed, if env is a delta or
// has no data, or if env.Seq is not LastSeq()+1.
func (m *MemStore) Append(env contract.Envelope) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("eventlog: append to memory store: %w", ErrClosed)
	}
	if err := checkAppend(env, uint64(len(m.events))); err != nil {
		return fmt.Errorf("eventlog: append to memory store: %w", err)
	}
	m.events = append(m.events, env)
	return nil
}

// Sync does nothing: memory is as durable as a MemStore gets. It fails only
// once the store is closed.
func (m *MemStore) Sync() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("eventlog: sync memory store: %w", ErrClosed)
	}
	return nil
}

// Events returns the stored events with Seq >= from, in order. Unlike a
// file store, a closed MemStore can still be read, so a test can inspect
// what a finished run left in it.
func (m *MemStore) Events(from uint64) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		m.mu.Lock()
		events := m.events
		m.mu.Unlock()
		// Appends never modify the elements of this snapshot: they only
		// write past its length, or into a new array.
		from = max(from, 1)
		if from > uint64(len(events)) {
			return
		}
		for _, env := range events[from-1:] {
			if !yield(env, nil) {
				return
			}
		}
	}
}

// Close makes later Appends and Syncs fail; the events stay readable.
// Closing twice is not an error.
func (m *MemStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// checkAppend reports why env cannot follow the event numbered last in a
// store, or nil if it can.
func checkAppend(env contract.Envelope, last uint64) error {
	switch {
	case env.Data == nil:
		return errNoData
	case !env.Durable():
		return fmt.Errorf("%s is a delta, which is never stored", env.Type())
	case env.Seq != last+1:
		return fmt.Errorf("%s has seq %d, want %d", env.Type(), env.Seq, last+1)
	}
	return nil
}
