// Package memstore is an event store in memory, for the tests and fakes
// of every package that runs a log: it checks what a file store checks
// (the sequence must be dense, deltas are never stored) and keeps nothing
// across processes. rein itself always writes a file (eventlog.FileStore).
//
// It imports no other package of rein's log, so that the log's own tests
// can use it.
package memstore

import (
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/rein-agent/rein/internal/contract"
)

// ErrClosed is returned, wrapped, by Append and Sync on a closed store.
var ErrClosed = errors.New("memstore: closed")

// Store is an in-memory eventlog.Store. The zero Store is an empty store
// ready to use; New returns one too. A Store is safe for concurrent use,
// so a test may inspect it while a log appends.
type Store struct {
	mu     sync.Mutex
	events []contract.Envelope
	closed bool
}

// New returns an empty in-memory store.
func New() *Store { return new(Store) }

// LastSeq returns the Seq of the last stored event, or 0 if there is none.
func (m *Store) LastSeq() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return uint64(len(m.events))
}

// Append stores env and returns it unchanged. It fails if the store is
// closed, if env is a delta or has no data, or if env.Seq is not
// LastSeq()+1.
func (m *Store) Append(env contract.Envelope) (contract.Envelope, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return contract.Envelope{}, fmt.Errorf("memstore: append: %w", ErrClosed)
	}
	if err := env.Follows(uint64(len(m.events))); err != nil {
		return contract.Envelope{}, fmt.Errorf("memstore: append: %w", err)
	}
	m.events = append(m.events, env)
	return env, nil
}

// Sync does nothing: memory is as durable as a Store gets. It fails only
// once the store is closed.
func (m *Store) Sync() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("memstore: sync: %w", ErrClosed)
	}
	return nil
}

// Events returns the stored events with Seq >= from, in order. Unlike a
// file store, a closed Store can still be read, so a test can inspect
// what a finished run left in it.
func (m *Store) Events(from uint64) iter.Seq2[contract.Envelope, error] {
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
func (m *Store) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
