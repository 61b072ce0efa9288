// Package scripted is a provider that plays a script file as if it were a
// model: text, reasoning, tool calls streamed in fragments, usage, finish
// reasons, failures and interrupted streams, deterministically and with no
// network. Tests use it to drive the kernel through every path, and the
// offline demo uses it in place of a real model.
//
// It keeps the same contract as every adapter (see package provider): its
// tool calls go through [provider.Assembler] exactly as a real adapter's do,
// so an intent is proposed only once its arguments are complete, and a
// stream that ends without a finish yields stream_interrupted and proposes
// nothing it had not proposed already.
//
// # Script format
//
// A script is one JSON object. Unknown fields anywhere are an error, so a
// typo never passes silently.
//
//	{
//	  "model": "scripted-demo",
//	  "chunk_delay_ms": 0,
//	  "turns": [
//	    {"steps": [
//	      {"reasoning": "The user wants the failing test fixed; run the suite first."},
//	      {"text": "I'll run the test suite "},
//	      {"text": "to see what fails."},
//	      {"tool": {"index": 0, "id": "call_1", "name": "bash", "args": "{\"comm"}},
//	      {"tool": {"index": 0, "args": "and\":\"go test"}},
//	      {"tool": {"index": 0, "args": " ./...\"}"}},
//	      {"tool_end": {"index": 0}},
//	      {"usage": {"input_tokens": 812, "output_tokens": 64}},
//	      {"finish": "tool_use", "provider_state": {"any": "opaque json, optional"}}
//	    ]},
//	    {"fail": [{"kind": "rate_limit", "message": "slow down", "http_status": 429, "retry_after_ms": 1000}],
//	     "steps": [{"text": "Done."}, {"finish": "stop"}]},
//	    {"steps": [{"text": "partial"}, {"error": {"kind": "stream_interrupted", "message": "connection reset"}}]}
//	  ]
//	}
//
// The top-level fields:
//
//   - model: the model name reported in events when the request names
//     none (a request's own model is reported as given, as a real vendor
//     would); empty means "scripted".
//   - chunk_delay_ms: a pause before each step, to watch a stream render;
//     0 (the default) streams at once.
//   - turns: one entry per model call of the conversation, at least one.
//   - summary (optional): a turn that answers every request of a
//     compaction (a request whose Purpose is "compaction"), its fail list
//     served one failure per such request; without it such a request
//     fails with bad_request.
//
// Which turn a request gets is decided by the request, not by a cursor: the
// turn index is the number of assistant messages in the request (plus the
// model turns a compaction's summary stands for, ModelRequest.Summarised), so the
// first call of a session gets turns[0], the call after the model's first
// reply gets turns[1], and a resumed session continues at the right turn.
// A request past the last turn fails with a bad_request error saying so.
//
// A turn has:
//
//   - fail (optional): failures served before the turn succeeds, to model
//     retries. The first request for this turn fails with fail[0], the
//     second with fail[1], and so on; once the list is used up, requests
//     for the turn play its steps. An entry has the fields of the error
//     step below, and optional "steps" (no finish, no error) streamed
//     before the error, to model a stream that breaks after some output,
//     as in {"kind": "stream_interrupted", "steps": [{"text": "Let me"}]}.
//     Without steps the error is the only thing the stream yields, as with
//     an HTTP error before any output.
//   - steps: what the stream yields, in order.
//   - expect (optional): what the turn expects of the tool results the
//     request carries (the observations of the previous turn's calls, in
//     order), one entry per result: {"tool": "bash", "ok": false,
//     "contains": ["FAIL"], "excludes": ["panic"]}, every field optional.
//     When a result differs, the turn does not play: the stream says what
//     differed, as text, and fails with a bad_request error, so a script
//     cannot pass by reciting steps whose premises did not hold.
//
// Every step has exactly one action:
//
//   - {"text": "..."}: a model.text_delta.
//   - {"reasoning": "..."}: a model.reasoning_delta.
//   - {"tool": {"index": 0, "id": "call_1", "name": "bash", "args": "..."}}:
//     one fragment of a tool call, fed to the assembler, which yields a
//     tool_intent.delta. index is the vendor's call index (omit it to key
//     the call by id, as a vendor without indexes would); id and name may be
//     left out of later fragments; args is the next piece of argument text,
//     verbatim, and may cut the JSON anywhere. Instead of args, "input" may
//     give a JSON value whose compact text is the fragment's argument text,
//     handy for a whole call in one fragment.
//   - {"tool_end": {"index": 0}} or {"tool_end": {"id": "call_1"}}: the
//     call's own end marker. Its arguments are parsed then, and the stream
//     yields tool_intent.proposed, or a provider.error of kind
//     malformed_tool_call (as an event; the stream goes on) when they are
//     not a JSON object. It must match a call that is open at that point.
//   - {"usage": {"input_tokens": 812, "output_tokens": 64,
//     "cache_read_tokens": 0, "cache_write_tokens": 0, "reasoning_tokens": 0}}:
//     a model.usage.
//   - {"finish": "stop", "provider_state": {...}}: the end of the message.
//     Calls still open are ended first, in the order they started, as a
//     vendor's finish reason ends them; then model.finished with the reason
//     (stop, tool_use, length, content_filter, aborted or error) and the
//     optional provider_state, any JSON, kept verbatim.
//   - {"error": {"kind": "server", "message": "...", "http_status": 500,
//     "retry_after_ms": 0, "retryable": true}}: the stream fails with this
//     provider error. kind is one of the taxonomy's kinds; retryable
//     defaults to the kind's default; the other fields are optional.
//
// A finish or an error must be the last step. Steps that end with neither
// play an interrupted stream: the stream ends with a stream_interrupted
// error, and calls that never got their end are never proposed.
//
// Events carry the provider name (Options.Name, "scripted" by default), the
// model, and the request id "scripted-<turn>-<attempt>", both counted from
// 1: the second request for the first turn is "scripted-1-2".
package scripted
