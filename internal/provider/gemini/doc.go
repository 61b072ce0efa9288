// Package gemini is rein's adapter for the Gemini API
// (generativelanguage.googleapis.com): it sends a [contract.ModelRequest]
// to models/{model}:streamGenerateContent?alt=sse and turns the stream of
// GenerateContentResponse chunks into [contract.ModelEvent]s. It translates,
// nothing more: it never runs a tool, never holds a conversation, and keeps
// no state between two calls of [Adapter.Stream].
//
// # Request
//
// [BuildRequest] writes the exact JSON body. The system prompt (and any
// system message) goes to systemInstruction; user messages are "user"
// contents, assistant messages "model" contents, and consecutive contents of
// one role are merged, so that consecutive tool results share one "user"
// content. An assistant message gives its text, its tool calls as
// functionCall parts (args = the call's input, id = the vendor's call id or,
// for a call another provider proposed, rein's intent id) and, from its
// ProviderState, every thoughtSignature back on the kind of part it came
// with (its reasoning goes back, as a thought part, only with a signature:
// Gemini does not read thought summaries as input). For a model that
// thinks, the first call of a message that carries no signature at all (a
// call another provider proposed) gets "skip_thought_signature_validator",
// the value Gemini documents for history it did not sign. A tool message
// becomes a functionResponse part whose response is
// {"output": text}, or {"error": text} when the result is an error: the
// two keys the FunctionResponse reference names for a function's output
// and its failure.
//
// Tools are sent as functionDeclarations with the input schema verbatim in
// parametersJsonSchema, which the v1beta reference documents as taking
// JSON Schema (additionalProperties and the like included) and as the
// alternative to parameters, whose OpenAPI subset rejects such keywords.
// Gemini has no switch for parallel function calls, so
// ModelRequest.ParallelToolCalls changes nothing in the body. Models that
// think get generationConfig.thinkingConfig.includeThoughts, so their
// thought summaries stream as reasoning. A reasoning effort adds a
// thinkingLevel for Gemini 3 and later, a thinkingBudget for the others
// (see thinkingFor). The cache key is not sent: Gemini caches implicitly,
// by prefix, so the body is the system instruction, the tools and the
// settings, then the contents, last, and the request of one turn is a byte
// prefix of the next one's up to the end of its last part.
//
// # Stream
//
// Each SSE data line is one GenerateContentResponse. Text parts become
// model.text_delta, parts with "thought": true model.reasoning_delta.
// Function calls arrive whole, each one a single Assembler fragment ended at
// once; a call streamed as partialArgs (values at JSON paths, Vertex's
// streamFunctionCallArguments) is written out as JSON text piece by piece
// and ended when its willContinue stops. Calls without an id get
// "call_<n>", n counting the calls of the stream. usageMetadata is
// cumulative: the last figures are reported once, before model.finished. A
// candidate's finishReason is the terminal frame, but the stream is read to
// its end, since a usage-only chunk may follow; STOP becomes tool_use when an
// intent was proposed. A JSON error written into a 200 stream (inside or
// outside SSE framing) ends the stream with that error, mapped into the
// taxonomy.
//
// # Errors
//
// An HTTP error goes through provider.ResponseError, then Google's error
// body (an object, or an array wrapping one) refines the kind:
// RESOURCE_EXHAUSTED is rate_limit, its RetryInfo.retryDelay the retry
// hint, even though its message speaks of quota and billing (quota only for
// a quota of "limit: 0"); API_KEY_INVALID and UNAUTHENTICATED are auth, and
// so is a PERMISSION_DENIED for a missing or leaked key; "The input token
// count (N) exceeds the maximum" is context_length. 503 UNAVAILABLE is
// overloaded, 500 INTERNAL server. An error inside a 200 stream is
// classified by its own code and status.
//
// # Provider state
//
// Gemini asks for its thought signatures back on the parts they came with.
// model.finished carries them as
//
//	{"provider":"gemini","parts":[{"kind":"text","signature":"…"},{"kind":"call","call_id":"call_0","synthetic_id":true,"signature":"…"}]}
//
// one entry per signed part (kind thought, text or call) and per call whose
// id the adapter made up (synthetic_id: such ids are not sent back, since
// Gemini never gave them). The request builder ignores state whose provider
// is not "gemini".
package gemini
