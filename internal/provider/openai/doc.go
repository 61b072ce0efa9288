// Package openai is rein's adapter for the Chat Completions API, spoken by
// OpenAI and by most servers that call themselves OpenAI-compatible:
// Ollama, vLLM, the llama.cpp server, LM Studio, DeepSeek, OpenRouter, Groq,
// Mistral, xAI. Any model name is passed through as given.
//
// The adapter translates and nothing more (see package provider): its
// request builder turns a contract.ModelRequest into the request body,
// [Normalize] turns the response body into contract events, and
// [Adapter.Stream] joins the two over HTTP through provider.HTTP. Tool calls go through the shared provider.Assembler.
//
// # The request
//
// POST {BaseURL}/chat/completions with "stream": true and
// "stream_options": {"include_usage": true}. The system prompt is the first
// message, with role "system". An assistant message carries its text and
// its tool calls, whose arguments are JSON text inside a JSON string; a tool
// result is a "tool" message tied to its call by tool_call_id (the vendor's
// call id, or rein's intent id for a call another provider proposed). The
// API has no error flag for a result: its text says what failed. Reasoning is
// not sent back, except where a server asked for it (below).
//
// Tools are {"type": "function", "function": {name, description,
// parameters}}, the schema verbatim. parallel_tool_calls is sent only with
// tools (OpenAI rejects it alone), as the request's ParallelToolCalls, so
// false asks for one call at most; it is left out for OpenAI's o-series,
// which rejects it whatever its value.
//
// The output cap is where servers disagree. OpenAI has deprecated max_tokens
// for max_completion_tokens, and its reasoning models reject max_tokens;
// most compatible servers know only max_tokens, and Mistral rejects
// max_completion_tokens (and stream_options) with a 422. So the adapter
// picks by the base URL's host: api.openai.com and Azure OpenAI
// (*.openai.azure.com) get max_completion_tokens; every other server gets
// max_tokens; api.mistral.ai also gets no stream_options (it reports usage
// anyway). The golden requests in testdata show the body for OpenAI's own
// API and for a compatible server.
//
// The request's reasoning effort goes as reasoning_effort to every server
// (the kernel sets one only for a model that reasons). Its cache key, the
// session's id, goes as prompt_cache_key to OpenAI and Azure OpenAI only,
// the servers that document it. The body is the settings, the tools, then
// the messages, last, so that the request of one turn is a byte prefix of
// the next one's up to the end of its last message: what a prefix cache
// needs.
//
// # The stream
//
// The stream is complete at "data: [DONE]", or when the body ends after a
// finish_reason: usage may come after the finish_reason, in a chunk whose
// choices are empty, so the adapter reads on until [DONE] or the end. Any
// other end is stream_interrupted. The finish_reason is mapped (stop to
// stop, tool_calls and function_call to tool_use, length to length,
// content_filter to content_filter); it may come on its own empty chunk, on
// the chunk of a whole tool call, or twice (the first counts). A message
// that proposed intents finished in tool_use whatever its reason, since some
// servers say "stop".
//
// rein asks for one choice and reads choice 0 only, known by its index
// (not by its place in the list; a choice without an index is choice 0):
// a server that sends others (n > 1) has them ignored, and the adapter's
// Options.Logger hears of it once per stream. Of choice 0, a stream is read
// from its deltas. Some servers also send a message beside each delta
// (Writer repeats the delta there, Perplexity puts the running total
// there): it is never read, or text would come twice and tool arguments
// break. A message is read in a stream only in place of deltas, from a
// server that streams none, and then once.
//
// Tool-call fragments are keyed by their index, or by their id where the
// server sends no index (Mistral); an empty id or name never overwrites a
// known one. Chat Completions has no per-call end marker: every call ends
// when the message does, at the finish_reason (or [DONE]), and only then are
// its arguments parsed and the intent proposed. Calls of a type other than
// "function" are not intents: rein declares function tools only.
//
// Reasoning streams as reasoning_content (DeepSeek, vLLM, llama.cpp, xAI),
// reasoning (OpenRouter, Ollama, Groq), reasoning_details (OpenRouter, which
// repeats the same text there: it is counted once), thinking parts of the
// content (Mistral's Magistral), or inline as <think>...</think> at the start
// of the content, tags split across deltas included. All of it becomes
// model.reasoning_delta.
//
// Usage may be on the last chunk, on the finish chunk, on every chunk
// (cumulative), or in x_groq.usage; the last one seen is yielded once, just
// before model.finished. Input tokens are prompt_tokens as the API counts
// them, cached tokens included; cache reads are
// prompt_tokens_details.cached_tokens (or DeepSeek's
// prompt_cache_hit_tokens), reasoning tokens
// completion_tokens_details.reasoning_tokens.
//
// # State sent back
//
// model.finished carries opaque state, {"provider": "openai", ...}, when a
// server needs something back with the assistant message next turn, and
// the request builder puts it back on that message (state of another provider is
// ignored):
//
//   - "reasoning_content": true when the server streamed reasoning_content:
//     the message's reasoning goes back in that field, as DeepSeek requires
//     for turns that called tools.
//   - "reasoning_details": OpenRouter's reasoning_details, merged from the
//     stream, when they hold signatures or encrypted reasoning (Anthropic and
//     Gemini models behind OpenRouter need them to go on after a tool call).
//
// # Errors
//
// An HTTP error is mapped by provider.ResponseError, refined here: the
// vendor's machine code decides first (rate_limit_exceeded, insufficient_quota,
// context_length_exceeded, invalid_api_key, tool_use_failed,
// unsupported_parameter), then the shapes of compatible servers (llama.cpp's
// and xAI's context-length messages, Ollama's "does not support tools",
// Mistral's extra_forbidden...), and a 429 without retry-after takes its hint
// from x-ratelimit-reset-requests or -tokens. The bodies may be
// {"error": {...}}, {"error": "text"} (Ollama), {"object": "error", ...}
// (vLLM, Mistral) or plain text. An error inside a 200 stream
// (data: {"error": ...}, an "error" event, an error body after the events,
// Groq's tool_use_failed) is the stream's terminal error; "error": null is
// no error.
package openai
