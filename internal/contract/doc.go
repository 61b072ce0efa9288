// Package contract is rein's internal language: the events every layer
// exchanges, the tool intent and its observation, the model request and its
// messages, tool specifications and the provider error taxonomy.
//
// Everything here is plain data with stable JSON names. The package imports
// only the standard library, so every other package may import it and no
// vendor type ever reaches an event, a state or a signature outside its
// adapter. Renaming a JSON field or an event type is a breaking change: logs
// written by older versions must keep decoding.
//
// Events are a sealed sum type: [Event] has an unexported method, and each
// variant is a small struct used by pointer. A durable event travels in an
// [Envelope] that carries its sequence number; deltas travel in an envelope
// whose Seq is zero and are never stored.
package contract
