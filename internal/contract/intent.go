package contract

import "encoding/json"

// ToolIntent is a model's proposal to use a tool: an application form, not
// an execution. ID is rein's own intent id, assigned by the kernel;
// ProviderCallID is the vendor's id for the call, kept only as a reference
// so the result can be tied back to it in the vendor's format.
//
// Input is always complete, parsed JSON: an intent is proposed only once
// its arguments have fully arrived.
type ToolIntent struct {
	ID             string          `json:"intent_id"`
	ProviderCallID string          `json:"provider_call_id,omitempty"`
	ToolName       string          `json:"tool_name"`
	Input          json.RawMessage `json:"input"`
	// RawInput is the argument text exactly as the model streamed it,
	// before any repair.
	RawInput      string      `json:"raw_input,omitempty"`
	Provider      ProviderRef `json:"provider"`
	AssembledFrom Assembly    `json:"assembled_from"`
}

// ProviderRef says which provider and model proposed something, and the
// vendor's request id when it gave one.
type ProviderRef struct {
	Name      string `json:"name"`
	Model     string `json:"model,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// Assembly records how an intent was put together from stream fragments:
// how many fragments, the stream index of the first and last one, and
// whether its argument text needed a repair to parse.
type Assembly struct {
	Fragments  int  `json:"fragments"`
	FirstIndex int  `json:"first_index"`
	LastIndex  int  `json:"last_index"`
	HadRepair  bool `json:"had_repair"`
}

// Call returns the intent as it appears in an assistant message.
func (in *ToolIntent) Call() ToolCall {
	return ToolCall{IntentID: in.ID, ProviderCallID: in.ProviderCallID, ToolName: in.ToolName, Input: in.Input}
}

// Observation is what came of an intent, as the model will be told: the
// outcome of validation, permission or execution. Text is bounded; the full
// output, when there is more, lives in the session artifact named by
// ArtifactRef.
type Observation struct {
	IntentID string `json:"intent_id"`
	ToolName string `json:"tool_name,omitempty"`
	OK       bool   `json:"ok"`
	// Phase is the stage that produced the observation: one of the Phase
	// constants.
	Phase string `json:"phase"`
	// Code is a machine-readable reason when OK is false
	// (unknown_tool, schema_invalid, denied, not_executed...).
	Code         string `json:"code,omitempty"`
	Text         string `json:"text"`
	Truncated    bool   `json:"truncated"`
	OmittedBytes int64  `json:"omitted_bytes,omitempty"`
	ArtifactRef  string `json:"artifact_ref,omitempty"`
	// Untrusted marks text that came from outside rein (a tool's output):
	// the model must treat it as data, never as instructions.
	Untrusted bool `json:"untrusted,omitempty"`
}

// The phases of an observation: the stage of the pipeline that produced it.
const (
	PhaseValidation = "validation"
	PhasePermission = "permission"
	PhaseExecution  = "execution"
	// PhaseKernel: the intent never reached a stage (the run was cancelled,
	// or the session stopped before it ran).
	PhaseKernel = "kernel"
)
