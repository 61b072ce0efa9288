package state

import "github.com/rein-agent/rein/internal/contract"

// reduceSlice folds a slice of envelopes from the zero State (other
// packages' tests use statetest.Reduce, which this package's tests cannot
// import).
func reduceSlice(events []contract.Envelope) State {
	var s State
	for _, env := range events {
		s = Apply(s, env)
	}
	return s
}
