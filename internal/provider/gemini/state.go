package gemini

import (
	"encoding/json"

	"github.com/rein-agent/rein/internal/provider"
)

// providerName is the value of the "provider" field of this package's
// ProviderState; state with another value belongs to another adapter.
const providerName = "gemini"

// The kinds of part a signature can come with.
const (
	kindThought = "thought"
	kindText    = "text"
	kindCall    = "call"
)

// state is the opaque ProviderState of a model.finished: what Gemini needs
// back next turn. It is written by the translator and read by the request
// builder, never by anyone else.
type state struct {
	provider.State
	Parts []statePart `json:"parts"`
}

// statePart is one part of the model's reply that the next request must
// shape in a particular way: a part that carried a thought signature, or a
// call whose id the adapter made up.
type statePart struct {
	// Kind is thought, text or call.
	Kind string `json:"kind"`
	// CallID is the call's id as the intent carries it (for kind call).
	CallID string `json:"call_id,omitempty"`
	// Synthetic marks a call id Gemini did not give: it is not sent back.
	Synthetic bool `json:"synthetic_id,omitempty"`
	// Signature is the part's thoughtSignature, verbatim.
	Signature string `json:"signature,omitempty"`
}

// encode returns the ProviderState for parts, or nil when there is nothing
// to send back.
func encodeState(parts []statePart) json.RawMessage {
	if len(parts) == 0 {
		return nil
	}
	b, err := json.Marshal(state{State: provider.State{Provider: providerName}, Parts: parts})
	if err != nil {
		return nil // a struct of strings and bools always marshals
	}
	return b
}
