// Package statetest folds events for tests that build a log by hand.
package statetest

import (
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
)

// Reduce folds a slice of envelopes from the zero State, as
// state.Reduce folds a log.
func Reduce(events []contract.Envelope) state.State {
	var s state.State
	for _, env := range events {
		s.Apply(env)
	}
	return s
}
