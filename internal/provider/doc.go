// Package provider defines how rein talks to a model: the [Provider]
// interface every adapter implements, and the pieces the adapters share,
// starting with the tool-call [Assembler].
//
// A provider translates, nothing more. It turns a [contract.ModelRequest]
// into a vendor request and the vendor's stream into [contract.ModelEvent]s.
// It never executes a tool, never asks permission, never holds session
// messages and never decides whether the loop goes on. It is request-scoped:
// one Stream call, one request, and every piece of state (an open
// connection, half-assembled tool calls) is gone when the stream ends.
//
// # The stream contract
//
// Every adapter's Stream returns a single-use iterator that obeys these
// rules, which the kernel and the conformance tests rely on:
//
//   - Events come in the order the model produced them, usually starting
//     with [contract.ModelStarted].
//   - A non-nil error is always the last pair yielded, with a nil event, and
//     it is a [*contract.ProviderError] whose Kind is one of
//     [contract.ErrorKinds].
//   - A stream that ends normally ends with a [*contract.ModelFinished] and
//     no error.
//   - A stream that ends without its terminal frame (the connection closed,
//     an unexpected EOF, a body cut short) ends with a ProviderError of kind
//     stream_interrupted, retryable. It is never a success, whatever came
//     before it.
//   - When ctx is cancelled the stream ends with a ProviderError of kind
//     aborted.
//   - Breaking out of the loop early releases everything the stream holds
//     (the response body, timers); the iterator never yields again after
//     yield returns false.
//   - A tool intent ([*contract.IntentProposed]) is yielded only once its
//     arguments are complete and parsed. Half arguments are shown as
//     [*contract.IntentDelta]s and are never proposed.
//   - When the arguments of one tool call cannot be parsed, the stream
//     yields a ProviderError of kind malformed_tool_call as an event (with a
//     nil error) in place of that call's intent, and may go on: the other
//     calls and the rest of the message are unaffected.
//
// # Assembling tool calls
//
// Vendors stream tool calls in pieces, each in its own way. Adapters reduce
// every shape to a [Fragment] and feed an [Assembler], one per stream, which
// yields the deltas while the arguments stream and the proposed intent (or a
// malformed_tool_call error) when the adapter says the call has ended.
//
// Adapters live in subpackages named after their vendor; package scripted
// plays a script file as if it were a model, for tests and the offline demo.
package provider
