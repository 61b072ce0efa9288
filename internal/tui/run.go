package tui

import (
	"iter"
	"sync"
	"time"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
)

// frame is how long the pump gathers events before handing them to the
// UI's loop: at most 60 batches a second, so a model streaming thousands
// of deltas costs sixty updates and renders a second, not thousands.
const frame = time.Second / 60

// eventsMsg brings a batch of a run's events, in order.
type eventsMsg struct {
	run    int
	events []contract.Envelope
}

// runDoneMsg says a run's iterator returned; err is the runtime's
// failure, nil when the run ended as runs do (its outcome is an event).
type runDoneMsg struct {
	run int
	err error
}

// pump reads one run's events in its own goroutine and hands them to the
// program in batches. Nothing is dropped: a slow UI gets bigger batches,
// and a durable event is never held back longer than a frame.
type pump struct {
	p   *tea.Program
	run int

	// send orders the batches: a timer's flush and the last one never
	// overtake each other.
	send    sync.Mutex
	mu      sync.Mutex
	pending []contract.Envelope
	timer   *time.Timer

	// done is closed when the run's iterator has returned: the kernel
	// has recorded how the run ended.
	done chan struct{}
}

// start reads seq until it ends (cancelling the run's context ends it),
// then sends runDoneMsg and closes done.
func (pm *pump) start(seq iter.Seq2[contract.Envelope, error]) {
	pm.done = make(chan struct{})
	go func() {
		defer close(pm.done)
		var err error
		for env, e := range seq {
			if e != nil {
				err = e
				break
			}
			pm.add(env)
		}
		pm.flush()
		pm.p.Send(runDoneMsg{run: pm.run, err: err})
	}()
}

// add queues env and makes sure a flush comes within a frame.
func (pm *pump) add(env contract.Envelope) {
	pm.mu.Lock()
	pm.pending = append(pm.pending, env)
	if pm.timer == nil {
		pm.timer = time.AfterFunc(frame, pm.flush)
	}
	pm.mu.Unlock()
}

// flush hands what is queued to the program now.
func (pm *pump) flush() {
	pm.send.Lock()
	defer pm.send.Unlock()
	pm.mu.Lock()
	batch := pm.pending
	pm.pending = nil
	if pm.timer != nil {
		pm.timer.Stop()
		pm.timer = nil
	}
	pm.mu.Unlock()
	if len(batch) > 0 {
		pm.p.Send(eventsMsg{run: pm.run, events: batch})
	}
}
