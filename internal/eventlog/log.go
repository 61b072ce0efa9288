package eventlog

import (
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"sync"

	"github.com/rein-agent/rein/internal/contract"
)

// ErrClosed is returned (wrapped, when it comes from a store) by every
// operation on a closed Log or Store.
var ErrClosed = errors.New("eventlog: closed")

// readChunk is how many events Log.Events reads from the store while
// holding the log's lock. Between chunks the lock is released, so a long
// read never holds up Append for more than one chunk, and the loop body may
// append to the log it is reading.
const readChunk = 256

// Options configures a [Log]. The zero value is ready to use.
type Options struct {
	// Logger receives warnings, such as a subscriber falling far behind.
	// Nil means discard.
	Logger *slog.Logger
}

// Log is an append-only event log: a bus that hands every appended
// envelope to its subscribers, backed by a [Store] that keeps the durable
// ones. It owns the store from New until Close, which closes it.
//
// A Log is safe for concurrent use. Every subscriber sees envelopes in the
// same order, which for durable events is the order of Seq. The zero Log is
// not usable; use [New].
type Log struct {
	logger *slog.Logger

	mu     sync.Mutex // guards everything below, and every call to store
	store  Store
	last   uint64
	subs   map[*Subscription]struct{}
	closed bool
}

// New returns a log backed by store. Its next durable event gets the
// sequence number store.LastSeq()+1. opts may be nil.
func New(store Store, opts *Options) *Log {
	l := &Log{
		logger: slog.New(slog.DiscardHandler),
		store:  store,
		last:   store.LastSeq(),
		subs:   make(map[*Subscription]struct{}),
	}
	if opts != nil && opts.Logger != nil {
		l.logger = opts.Logger
	}
	return l
}

// Append adds env to the log and returns it as the subscribers see it.
//
// A durable event (env.Durable()) gets the next sequence number, is
// appended to the store and then published as the store stored it: with
// a file store, the secrets it cuts out of the line are cut out of what
// every subscriber, and the caller, gets. It is durable once a later
// [Log.Sync] returns nil. A delta ([contract.IsDelta]) gets Seq 0, is
// published as given and never stored: whoever appends deltas cuts the
// secrets out of them first, with a [StreamRedactor], since only they know
// where the text a secret may be split across ends. Any Seq set by the
// caller is overwritten.
//
// Append never blocks on a subscriber. It fails if env.Data is nil, if the
// log is closed ([ErrClosed]), or if the store fails; then nothing is
// published and the sequence number is not used. From now on env.Data is
// shared with the store and every subscriber: nobody may modify it.
func (l *Log) Append(env contract.Envelope) (contract.Envelope, error) {
	if env.Data == nil {
		return contract.Envelope{}, fmt.Errorf("eventlog: append: %w", contract.ErrNoData)
	}
	l.mu.Lock()
	env, lagging, err := l.appendLocked(env)
	l.mu.Unlock()
	if lagging > 0 {
		// Logged outside the lock: a handler may take its time.
		l.logger.Warn("eventlog: a subscriber is falling behind; its queue keeps growing",
			"queued", lagging)
	}
	return env, err
}

// appendLocked does the work of Append with l.mu held. lagging is the
// queue length of a subscriber that has just fallen far behind, or 0.
func (l *Log) appendLocked(env contract.Envelope) (_ contract.Envelope, lagging int, _ error) {
	if l.closed {
		return contract.Envelope{}, 0, fmt.Errorf("eventlog: append %s: %w", env.Type(), ErrClosed)
	}
	if contract.IsDelta(env.Type()) {
		env.Seq = 0
	} else {
		env.Seq = l.last + 1
		stored, err := l.store.Append(env)
		if err != nil {
			return contract.Envelope{}, 0, fmt.Errorf("eventlog: append %s seq %d: %w", env.Type(), env.Seq, err)
		}
		env = stored
		l.last = env.Seq
	}
	for s := range l.subs {
		lagging = max(lagging, s.push(env))
	}
	return env, lagging, nil
}

// Sync makes every event appended so far durable (for a file store: flush
// and fsync). Callers sync before any side effect an event announces
// starts, and at the end of every turn.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("eventlog: sync: %w", ErrClosed)
	}
	if err := l.store.Sync(); err != nil {
		return fmt.Errorf("eventlog: sync: %w", err)
	}
	return nil
}

// LastSeq returns the sequence number of the last durable event appended,
// or 0 if there is none. After Close it keeps returning the last value.
func (l *Log) LastSeq() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// Events returns the durable events with Seq >= from, in order; from 0 and
// from 1 both mean everything. The events yielded are those appended before
// ranging starts; the loop body may append to the log (what it appends is
// not yielded). A non-nil error is always the last pair yielded: a store
// failure, damage found in the file since it was opened, or [ErrClosed]
// when the log is, or gets, closed.
//
// Events reads the store in chunks under the log's lock and yields without
// holding it, so a slow reader delays Append by one chunk at most.
func (l *Log) Events(from uint64) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		next := max(from, 1)
		l.mu.Lock()
		end, closed := l.last, l.closed
		l.mu.Unlock()
		if closed {
			yield(contract.Envelope{}, fmt.Errorf("eventlog: read from seq %d: %w", next, ErrClosed))
			return
		}
		for next <= end {
			chunk, err := l.readChunk(next, end)
			for _, env := range chunk {
				if !yield(env, nil) {
					return
				}
			}
			if err != nil {
				yield(contract.Envelope{}, err)
				return
			}
			next += uint64(len(chunk))
		}
	}
}

// readChunk reads up to readChunk events from next to end from the store,
// checking that they are numbered next, next+1 and so on. It returns the
// events read before any error.
func (l *Log) readChunk(next, end uint64) ([]contract.Envelope, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("eventlog: read from seq %d: %w", next, ErrClosed)
	}
	n := min(end-next+1, readChunk)
	chunk := make([]contract.Envelope, 0, n)
	for env, err := range l.store.Events(next) {
		if err != nil {
			return chunk, fmt.Errorf("eventlog: read from seq %d: %w", next, err)
		}
		if want := next + uint64(len(chunk)); env.Seq != want {
			return chunk, fmt.Errorf("eventlog: read from seq %d: store yielded seq %d, want %d", next, env.Seq, want)
		}
		chunk = append(chunk, env)
		if uint64(len(chunk)) == n {
			return chunk, nil
		}
	}
	return chunk, fmt.Errorf("eventlog: read from seq %d: store ended at seq %d, want %d",
		next, next+uint64(len(chunk))-1, end)
}

// Subscribe returns a subscription that receives every envelope appended
// after the call, durable events and deltas, in order. The caller must
// Close it when done, or the log keeps queueing for it until the log is
// closed. Subscribing to a closed log returns a subscription that has
// already ended.
func (l *Log) Subscribe() *Subscription {
	s := newSubscription(l)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		s.end(false)
		return s
	}
	l.subs[s] = struct{}{}
	return s
}

// unsubscribe stops publishing to s.
func (l *Log) unsubscribe(s *Subscription) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.subs, s)
}

// Close closes the store (which flushes and syncs it) and ends every
// subscription: each still returns what was queued for it, then io.EOF.
// Later calls fail with [ErrClosed]; closing twice is not an error. The
// error is the store's.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	for s := range l.subs {
		s.end(false)
	}
	clear(l.subs)
	if err := l.store.Close(); err != nil {
		return fmt.Errorf("eventlog: close: %w", err)
	}
	return nil
}
