package contract

import "encoding/json"

// Role says who speaks in a [ModelMessage].
type Role string

// The roles of a conversation. A tool message carries the result of one
// intent; adapters translate it into their vendor's shape (a "tool" role
// message, a tool_result block, a functionResponse part...).
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ModelRequest is what the kernel asks of a provider for one turn: the
// conversation as the projection built it and the tools the model may see.
// It holds no execution function and nothing vendor-specific. A provider
// must not modify it.
type ModelRequest struct {
	// Model is passed through to the vendor as given; empty means the
	// adapter's default.
	Model string `json:"model,omitempty"`
	// System is the system prompt; adapters place it where their vendor
	// wants it. Empty means none.
	System   string         `json:"system,omitempty"`
	Messages []ModelMessage `json:"messages"`
	Tools    []ToolSpec     `json:"tools,omitempty"`
	// MaxOutputTokens caps the reply; zero means the adapter's default.
	MaxOutputTokens int `json:"max_output_tokens,omitempty"`
	// ParallelToolCalls asks the model for several tool calls in one turn
	// where the vendor has such a switch; false asks for at most one. The
	// kernel sets it only for models that support it.
	ParallelToolCalls bool `json:"parallel_tool_calls,omitempty"`
	// ReasoningEffort is the reasoning level asked of a model that
	// reasons ("low", "medium", "high"...: the catalogue's levels for
	// it); empty means the vendor's default. The kernel sets it only for
	// models that reason.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// CacheKey names the conversation for vendors that route requests to
	// their prompt cache by a key (OpenAI's prompt_cache_key): the
	// session's id. Empty means none.
	CacheKey string `json:"cache_key,omitempty"`
	// Purpose is empty for a turn of the conversation and
	// PurposeCompaction for the call that summarises it. Adapters send
	// nothing of it; a scripted model answers by it.
	Purpose string `json:"purpose,omitempty"`
	// Summarised is how many model turns of the conversation a
	// compaction's summary stands for: turns the request no longer
	// carries. Adapters send nothing of it; a scripted model counts its
	// turns with it.
	Summarised int `json:"summarised,omitempty"`
}

// ModelMessage is one message of the conversation in rein's own shape.
//
// A user or system message has Text. An assistant message may have
// Reasoning, Text and ToolCalls, and ProviderState: opaque data its vendor
// asked to get back verbatim (thought signatures, encrypted reasoning). A
// tool message has Result, tied to the intent it answers.
type ModelMessage struct {
	Role          Role            `json:"role"`
	Text          string          `json:"text,omitempty"`
	Reasoning     string          `json:"reasoning,omitempty"`
	ToolCalls     []ToolCall      `json:"tool_calls,omitempty"`
	Result        *ToolResult     `json:"tool_result,omitempty"`
	ProviderState json.RawMessage `json:"provider_state,omitempty"`
}

// ToolCall is an intent as it appears in the conversation: the model's own
// proposal, replayed to the model in later turns.
type ToolCall struct {
	IntentID       string          `json:"intent_id"`
	ProviderCallID string          `json:"provider_call_id,omitempty"`
	ToolName       string          `json:"tool_name"`
	Input          json.RawMessage `json:"input"`
}

// ToolResult is what the model is told about one intent: the bounded text
// of its observation. IsError marks a failed validation, a denial or a
// failed tool, so vendors that support it can flag the result.
type ToolResult struct {
	IntentID       string `json:"intent_id"`
	ProviderCallID string `json:"provider_call_id,omitempty"`
	ToolName       string `json:"tool_name"`
	Text           string `json:"text"`
	IsError        bool   `json:"is_error,omitempty"`
	// ArtifactRef names the session artifact that keeps the whole output
	// ("artifacts/inv_….txt", relative to the session's directory), for
	// the projection to point at when it elides the text; adapters send
	// no such thing. Empty means none.
	ArtifactRef string `json:"artifact_ref,omitempty"`
	// OmittedBytes is how many bytes of the output Text does not show
	// (the observation's omitted_bytes when it was truncated), for the
	// projection's stub to give the whole size; adapters send nothing of
	// it. 0 means Text is the whole output.
	OmittedBytes int64 `json:"omitted_bytes,omitempty"`
}

// ToolSpec is a tool as the model sees it: a name, a description and the
// JSON schema of its input. It is a projection of a registry entry and
// carries no way to execute anything.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// FinishReason is why a model stopped, normalised across vendors.
type FinishReason string

// The finish reasons of model.finished.
const (
	FinishStop          FinishReason = "stop"
	FinishToolUse       FinishReason = "tool_use"
	FinishLength        FinishReason = "length"
	FinishContentFilter FinishReason = "content_filter"
	FinishAborted       FinishReason = "aborted"
	FinishError         FinishReason = "error"
)
