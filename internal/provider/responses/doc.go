// Package responses is rein's adapter for the OpenAI Responses API
// (POST {base}/responses with stream: true), and for the servers that speak
// it (vLLM, Ollama, LM Studio, OpenRouter, proxies).
//
// It translates, nothing more: [BuildRequest] turns a contract.ModelRequest
// into a Responses request body, and [Normalize] turns the server's
// server-sent events into contract.ModelEvents. Tool calls go through the
// shared provider.Assembler; the tools the vendor runs itself
// (web_search_call, tool_search_call, shell_call, code_interpreter_call...)
// are never intents. Of an output item only the fields rein reads of its
// type are decoded: an item of another type, or of a type not invented yet,
// is skipped whatever the shape of its fields, and never fails a stream.
//
// # The request
//
// The body is the settings, the instructions (the system prompt) and the
// tools, then the input items, last, so that the request of one turn is a
// byte prefix of the next one's up to the end of its last item: what the
// server's prefix cache needs. A reasoning effort becomes "reasoning":
// {"effort", "summary": "auto"}. The request's cache key, the session's
// id, goes as prompt_cache_key to OpenAI's own API and Azure OpenAI only:
// other servers may refuse a field they do not know.
//
// # The stream
//
// A Responses stream is a sequence of typed events, each with an "event:"
// line and a JSON "data:" line carrying the same "type":
//
//	response.created, response.in_progress
//	response.output_item.added        an item starts: message, reasoning, function_call...
//	response.output_text.delta        answer text
//	response.reasoning_summary_text.delta, response.reasoning_text.delta
//	response.function_call_arguments.delta / .done
//	response.output_item.done         the item is complete: a call's own end marker
//	response.completed                the terminal frame, with the usage (no [DONE])
//
// response.incomplete also ends the stream (reason length or content_filter);
// response.failed and the "error" event end it with a provider error, even
// inside an HTTP 200 (context length overflows arrive that way). Anything
// else at the end of the body is stream_interrupted.
//
// Function-call fragments are correlated by output_index, never by item id
// (servers rotate item ids), and a call whose server sends no argument
// deltas gets its whole argument text, from function_call_arguments.done or
// output_item.done, as its one fragment. Tool results are tied to a call by
// its call_id.
//
// # Opaque state
//
// With store: false the server keeps nothing between turns, so reasoning
// models need their reasoning back: the request asks for
// "reasoning.encrypted_content" and model.finished carries the turn's
// reasoning items as ProviderState:
//
//	{"provider":"responses","reasoning":[{"type":"reasoning","summary":[...],"encrypted_content":"..."}]}
//
// BuildRequest puts those items back, verbatim, before the assistant
// message they belong to, and ignores state written by another adapter.
package responses
