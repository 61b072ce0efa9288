package provider

import "encoding/json"

// State is the head of every adapter's opaque ProviderState (see
// [contract.ModelMessage]): the name of the adapter that wrote it. The
// state travels with the conversation, through a fallback to another
// provider too, so an adapter sends back only the state that names it. An
// adapter embeds State first in its own state type, so that "provider" is
// the first field of the JSON; the zero value names no adapter.
type State struct {
	// Provider names the adapter that wrote the state.
	Provider string `json:"provider"`
}

// writer returns the name of the adapter that wrote the state.
func (s *State) writer() string { return s.Provider }

// OwnState decodes raw, an assistant message's ProviderState, as S, the
// state of the adapter named name, which embeds [State]. ok is false, and
// the state S's zero value, when raw is empty, does not decode as an S, or
// names another adapter: the adapter sends nothing of it, since the
// conversation may come from another provider.
func OwnState[S any, P interface {
	*S
	writer() string
}](raw json.RawMessage, name string) (state S, ok bool) {
	if len(raw) == 0 || json.Unmarshal(raw, &state) != nil || P(&state).writer() != name {
		var zero S
		return zero, false
	}
	return state, true
}
