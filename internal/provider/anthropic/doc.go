// Package anthropic is rein's adapter for the Anthropic Messages API
// (POST /v1/messages with "stream": true), and for every server that speaks
// it.
//
// It translates, nothing more: [BuildRequest] turns a contract.ModelRequest
// into the JSON body the API takes, and [Normalize] turns the server-sent
// events of a response into contract.ModelEvents. [Adapter.Stream] does one
// request with both. Tool calls go through the shared provider.Assembler and
// are proposed only once their content block has ended; tools the vendor
// runs itself (server_tool_use, web search results...) are never intents.
//
// # Wire facts this package is built on
//
//   - A stream is message_start, then for each content block a
//     content_block_start, its content_block_delta events and a
//     content_block_stop, then message_delta (stop_reason and cumulative
//     usage, which may revise the input tokens), then message_stop, the one
//     terminal frame. ping events may come anywhere; an "error" event ends
//     the stream with the error it carries.
//   - A message_start may already carry complete content blocks, tool_use
//     blocks included: they are intents too.
//   - A tool_use block starts with "input": {}; its first input_json_delta is
//     usually "", and a tool without arguments gets only that one.
//   - Thinking streams as thinking_delta events then one signature_delta; a
//     redacted_thinking block arrives whole. Both must be sent back, verbatim,
//     with the assistant message they belong to: they ride on
//     model.finished as the opaque provider state
//     {"provider":"anthropic","blocks":[...]}.
//
// # The request: prompt caching and thinking
//
// The body is the settings (model, max_tokens, thinking, output_config,
// tool_choice, stream), then the tools, the system blocks and the
// messages, the order in which the API's prompt cache reads a prompt.
// Prompt cache breakpoints (cache_control ephemeral) go on the system
// prompt, or the last tool when there is none, and on the last block of
// the conversation: see markCache for why one moves and the others do
// not. The request of one turn is thus a byte prefix of the next one's
// up to that moving breakpoint. A reasoning effort becomes adaptive
// thinking with output_config.effort on the models that have it, and a
// thinking budget below max_tokens on the others: see thinkingFor.
//
// # Usage figures
//
// model.usage follows rein's convention (see contract.ModelUsage):
// InputTokens counts all input, so it is input_tokens plus
// cache_read_input_tokens plus cache_creation_input_tokens, which are also
// reported as CacheReadTokens and CacheWriteTokens. It is yielded once, just before
// model.finished, with the last cumulative figures of the stream.
package anthropic
