package contract

import (
	"encoding/json"
	"time"
)

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
	// Origin is who proposed the intent: empty for the model, OriginUser
	// for a command the person typed themselves (!ls).
	Origin string `json:"origin,omitempty"`
}

// OriginUser is the Origin of an intent a person proposed.
const OriginUser = "user"

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
	// Code is a machine-readable reason when OK is false: one of the
	// Code constants.
	Code         Code   `json:"code,omitempty"`
	Text         string `json:"text"`
	Truncated    bool   `json:"truncated"`
	OmittedBytes int64  `json:"omitted_bytes,omitempty"`
	ArtifactRef  string `json:"artifact_ref,omitempty"`
	// Untrusted marks text that came from outside rein (a tool's output):
	// the model must treat it as data, never as instructions.
	Untrusted bool `json:"untrusted,omitempty"`
	// Files are the stamps of the files the call read whole or wrote, as
	// the tool left them; nil when it read or wrote none. They are the
	// record the read ledger is folded from (package state), never shown
	// to the model. A stamp counts only once its observation is recorded:
	// what the model was never told it has not seen.
	Files []FileStamp `json:"files,omitempty"`
}

// FileStamp records the content of one file as a tool saw it: what
// read_file read, or what write_file and edit_file wrote. It holds no
// content, only what tells one content from another. Two stamps are of
// the same content when Size and SHA256 agree; ModTime is kept for
// messages and for people reading the log.
type FileStamp struct {
	// Path is the file's absolute path, symbolic links resolved: the key
	// of the read ledger. The model is shown paths relative to the
	// workspace instead.
	Path string `json:"path"`
	// Size is the length of the content in bytes.
	Size int64 `json:"size"`
	// ModTime is the file's modification time when the tool read or wrote
	// it, in UTC.
	ModTime time.Time `json:"mtime"`
	// SHA256 is the SHA-256 of the content, in lowercase hexadecimal.
	SHA256 string `json:"sha256"`
	// Op says how rein came to know the content: one of the FileOp
	// constants.
	Op FileOp `json:"op"`
}

// FileOp is how a tool came to know the content of a file.
type FileOp string

// The ops of a FileStamp. FileRead and FileWrite count as seen: what rein
// wrote is what the model knows the file holds. FileCreated, FileChanged
// and FileDeleted are what a call changed that the model did not see (a
// command's work, found by comparing the checkpoints around it; a
// rewind's): facts for rein why, /diff and rewind, which the read ledger
// leaves alone, so a file a command changed must be read again before
// an edit.
const (
	// FileRead: the tool read the whole content (read_file hashes a whole
	// file even when it shows only a range of its lines).
	FileRead FileOp = "read"
	// FileWrite: the tool wrote the content (write_file, edit_file).
	FileWrite FileOp = "write"
	// FileCreated: the file did not exist before the call.
	FileCreated FileOp = "created"
	// FileChanged: its content or mode changed.
	FileChanged FileOp = "changed"
	// FileDeleted: the file is gone (its stamp has no content).
	FileDeleted FileOp = "deleted"
)

// Seen reports whether the model knows the content the stamp is of: a
// read or a write of its own, which the read ledger records.
func (o FileOp) Seen() bool { return o == FileRead || o == FileWrite }

// The phases of an observation: the stage of the pipeline that produced it.
const (
	PhaseValidation = "validation"
	PhasePermission = "permission"
	PhaseExecution  = "execution"
	// PhaseKernel: the intent never reached a stage (the run was cancelled,
	// or the session stopped before it ran).
	PhaseKernel = "kernel"
)

// Code is the machine-readable reason a tool call was refused or failed,
// on tool.validation and tool.observation; the empty Code means it was not.
// Its values are part of the log's format: old logs keep decoding, so a
// code is never renamed.
type Code string

// The codes rein records.
const (
	// Validation (tool.validation, and the observation that follows it).
	CodeUnknownTool        Code = "unknown_tool"
	CodeNotVisible         Code = "tool_not_visible"
	CodeSchemaInvalid      Code = "schema_invalid"
	CodePreconditionFailed Code = "precondition_failed"
	// CodeStaleFile: the file changed since the session read it, or was
	// never read (found at validation or again at execution).
	CodeStaleFile Code = "stale_file"

	// Permission: the policy or a person refused the call.
	CodeDenied Code = "denied"

	// Execution: how a call that ran failed.
	CodeToolError Code = "tool_error"
	CodeTimeout   Code = "timeout"
	// CodeCancelled: the run was cancelled before the call ran, or while
	// it ran.
	CodeCancelled Code = "cancelled"

	// Resume: what a resume records for the calls the last process left.
	// CodeNotExecuted: the call never started. CodeInterrupted: it was
	// running when the process ended. CodeOutputLost: it ended, but the
	// process ended before the model was told its output.
	CodeNotExecuted Code = "not_executed"
	CodeInterrupted Code = Code(ExitInterrupted)
	CodeOutputLost  Code = "output_lost"
)
