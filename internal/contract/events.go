package contract

import "encoding/json"

// The event types of DESIGN.md section 3. These strings are written to logs
// and must never change.
const (
	TypeSessionStarted      = "session.started"
	TypeUserMessage         = "user.message"
	TypeRunStarted          = "run.started"
	TypeRunFinished         = "run.finished"
	TypeModelRequested      = "model.requested"
	TypeModelStarted        = "model.started"
	TypeTextDelta           = "model.text_delta"
	TypeReasoningDelta      = "model.reasoning_delta"
	TypeModelText           = "model.text"
	TypeModelReasoning      = "model.reasoning"
	TypeModelDiscarded      = "model.discarded"
	TypeIntentDelta         = "tool_intent.delta"
	TypeIntentProposed      = "tool_intent.proposed"
	TypeModelUsage          = "model.usage"
	TypeModelFinished       = "model.finished"
	TypeProviderError       = "provider.error"
	TypeRetryScheduled      = "provider.retry_scheduled"
	TypeFallbackSelected    = "provider.fallback_selected"
	TypeToolValidation      = "tool.validation"
	TypeToolPermission      = "tool.permission"
	TypeInvocationStarted   = "tool.invocation.started"
	TypeInvocationCompleted = "tool.invocation.completed"
	TypeToolObservation     = "tool.observation"
	TypeContextProjected    = "context.projected"
	TypeContextCompacted    = "context.compacted"
	TypeSessionResumed      = "session.resumed"
	TypeSessionForked       = "session.forked"
)

// Event is one fact of a session. It is a sealed sum type: the variants are
// the pointer types of this package. Events are immutable once appended.
type Event interface {
	// EventType returns the stable type name written to logs.
	EventType() string
	isEvent()
}

// ModelEvent is an event a provider may yield from a stream: model.started,
// the three deltas, tool_intent.proposed, model.usage, model.finished and
// provider.error.
type ModelEvent interface {
	Event
	isModelEvent()
}

// IsDelta reports whether events of type t travel on the bus only and are
// never stored.
func IsDelta(t string) bool {
	return t == TypeTextDelta || t == TypeReasoningDelta || t == TypeIntentDelta
}

// SessionStarted opens a session.
type SessionStarted struct {
	Cwd      string `json:"cwd"`
	Version  string `json:"version"`
	Profile  string `json:"profile,omitempty"`
	Provider string `json:"provider"`
	Model    string `json:"model,omitempty"`
	// BaseURL is the provider's endpoint when it is not the default one
	// (a local server), without credentials.
	BaseURL string `json:"base_url,omitempty"`
	// Sandbox says whether commands can be sandboxed on this machine,
	// and if not why; nil when the session did not ask.
	Sandbox *SandboxStatus `json:"sandbox,omitempty"`
}

// SandboxStatus says whether the OS sandbox can be had, as
// session.started records it.
type SandboxStatus struct {
	Available bool `json:"available"`
	// Backend names what contains the commands ("landlock+userns").
	Backend string `json:"backend,omitempty"`
	// Reason says why the sandbox is not available.
	Reason string `json:"reason,omitempty"`
}

// UserMessage is what the person typed.
type UserMessage struct {
	Text string `json:"text"`
}

// RunStarted begins the work on one user message.
type RunStarted struct {
	Goal string `json:"goal"`
}

// Outcome is how a run ended.
type Outcome string

// The outcomes of run.finished.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeFailed    Outcome = "failed"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeMaxTurns  Outcome = "max_turns"
	OutcomeNeedsUser Outcome = "needs_user"
)

// RunFinished ends a run.
type RunFinished struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
}

// ModelRequested records what was about to be sent to a provider.
type ModelRequested struct {
	Provider             string   `json:"provider"`
	Model                string   `json:"model,omitempty"`
	MessageCount         int      `json:"message_count"`
	ToolNames            []string `json:"tool_names"`
	EstimatedInputTokens int      `json:"estimated_input_tokens"`
}

// ModelStarted says a provider's stream began.
type ModelStarted struct {
	Provider  string `json:"provider"`
	Model     string `json:"model,omitempty"`
	RequestID string `json:"request_id,omitempty"`
}

// TextDelta is a piece of answer text as it streams. Bus only.
type TextDelta struct {
	Text string `json:"text"`
}

// ReasoningDelta is a piece of reasoning text as it streams. Bus only.
type ReasoningDelta struct {
	Text string `json:"text"`
}

// ModelText is one whole text block, the coalesced deltas. Durable.
type ModelText struct {
	Text string `json:"text"`
}

// ModelReasoning is one whole reasoning block. Durable.
type ModelReasoning struct {
	Text string `json:"text"`
}

// ModelDiscarded marks the partial output of a failed attempt: whatever the
// model said since the last model.requested is not part of the
// conversation.
type ModelDiscarded struct {
	Reason string `json:"reason"`
}

// IntentDelta shows a tool call while its arguments stream. Bus only.
type IntentDelta struct {
	Index          int    `json:"index"`
	ProviderCallID string `json:"provider_call_id,omitempty"`
	ToolName       string `json:"tool_name,omitempty"`
	// RawInput is the argument text received so far.
	RawInput string `json:"raw_input"`
}

// IntentProposed records a complete tool intent. It is not an execution.
type IntentProposed struct {
	ToolIntent
}

// ModelUsage reports token counts for one model call. InputTokens counts
// every input token, cached or not; CacheReadTokens and CacheWriteTokens
// say how many of them were read from or written to the vendor's cache.
// OutputTokens counts every output token; ReasoningTokens says how many of
// them were reasoning.
type ModelUsage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64 `json:"reasoning_tokens,omitempty"`
}

// ModelFinished ends a model call. ProviderState is opaque data the vendor
// needs back in the next request; it is kept verbatim, never interpreted.
type ModelFinished struct {
	Reason        FinishReason    `json:"reason"`
	ProviderState json.RawMessage `json:"provider_state,omitempty"`
}

// RetryScheduled records that a failed model call will be tried again.
type RetryScheduled struct {
	Attempt int       `json:"attempt"`
	DelayMS int64     `json:"delay_ms"`
	Kind    ErrorKind `json:"kind"`
}

// FallbackSelected records a switch to another provider.
type FallbackSelected struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

// ToolValidation records the lookup and validation of an intent.
type ToolValidation struct {
	IntentID string   `json:"intent_id"`
	OK       bool     `json:"ok"`
	Code     Code     `json:"code,omitempty"`
	Errors   []string `json:"errors,omitempty"`
}

// Decision is a permission verdict.
type Decision string

// The permission decisions.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// ToolPermission records a permission decision and who made it (mode,
// rule, user, hook, headless).
type ToolPermission struct {
	IntentID string   `json:"intent_id"`
	Decision Decision `json:"decision"`
	By       string   `json:"by"`
	Rule     string   `json:"rule,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

// InvocationStarted records that a tool is about to run, with the effective
// input: what really runs, which may differ from what the model proposed.
type InvocationStarted struct {
	IntentID     string          `json:"intent_id"`
	InvocationID string          `json:"invocation_id"`
	ToolName     string          `json:"tool_name"`
	Input        json.RawMessage `json:"input"`
	Cwd          string          `json:"cwd"`
	TimeoutMS    int64           `json:"timeout_ms"`
	// Sandbox is the OS sandbox the tool's process runs in; nil when no
	// sandbox is involved (a tool that starts no process). A sandbox
	// turned off is recorded as mode "off".
	Sandbox *SandboxSpec `json:"sandbox,omitempty"`
}

// SandboxSpec is the effective sandbox of an invocation.
type SandboxSpec struct {
	// Mode is "workspace-write", "read-only" or "off".
	Mode string `json:"mode"`
	// Writable are the paths the process may write under: the writable
	// roots and the private temporary directory.
	Writable []string `json:"writable,omitempty"`
	// ReadOnly are the paths under them that stay read-only (a trailing
	// slash marks a directory).
	ReadOnly []string `json:"read_only,omitempty"`
	// DenyRead are the paths the process cannot read.
	DenyRead []string `json:"deny_read,omitempty"`
	// Network says whether the process may reach the network.
	Network bool `json:"network"`
}

// Exit is how an invocation ended.
type Exit string

// The exits of tool.invocation.completed.
const (
	ExitOK          Exit = "ok"
	ExitError       Exit = "error"
	ExitTimeout     Exit = "timeout"
	ExitCancelled   Exit = "cancelled"
	ExitInterrupted Exit = "interrupted"
)

// InvocationCompleted records the end of a tool run. ExitCode is always
// present, 0 included.
type InvocationCompleted struct {
	IntentID     string `json:"intent_id"`
	InvocationID string `json:"invocation_id"`
	Exit         Exit   `json:"exit"`
	ExitCode     int    `json:"exit_code"`
	DurationMS   int64  `json:"duration_ms"`
	OutputBytes  int64  `json:"output_bytes"`
}

// ToolObservation records what the model will be told about an intent.
type ToolObservation struct {
	Observation
}

// ContextProjected records what a projection included for a turn.
type ContextProjected struct {
	Turn            int      `json:"turn"`
	EstimatedTokens int      `json:"estimated_tokens"`
	Included        []string `json:"included,omitempty"`
	Excluded        []string `json:"excluded,omitempty"`
	Summarised      []string `json:"summarised,omitempty"`
}

// ContextCompacted records a compaction, with references to the originals.
type ContextCompacted struct {
	Turn            int      `json:"turn"`
	EstimatedTokens int      `json:"estimated_tokens"`
	Summarised      []string `json:"summarised,omitempty"`
	Summary         string   `json:"summary,omitempty"`
}

// SessionResumed records that a session was reopened to continue: the
// last seq before it, what each check of the resume gate found, and the
// version of rein that resumed it.
type SessionResumed struct {
	FromSeq uint64            `json:"from_seq"`
	Gates   map[string]string `json:"gates,omitempty"`
	Version string            `json:"version,omitempty"`
}

// SessionForked records that this session began as a prefix of another.
type SessionForked struct {
	ParentSession string `json:"parent_session"`
	ParentSeq     uint64 `json:"parent_seq"`
}

// Unknown is an event whose type this version of rein does not know,
// typically written by a newer version. Its data is kept verbatim so that
// nothing is lost when it is read and written again.
type Unknown struct {
	Type string
	Data json.RawMessage
}

// MarshalJSON returns the data exactly as it was read.
func (u *Unknown) MarshalJSON() ([]byte, error) {
	if len(u.Data) == 0 {
		return []byte("null"), nil
	}
	return u.Data, nil
}

func (e *SessionStarted) EventType() string      { return TypeSessionStarted }
func (e *UserMessage) EventType() string         { return TypeUserMessage }
func (e *RunStarted) EventType() string          { return TypeRunStarted }
func (e *RunFinished) EventType() string         { return TypeRunFinished }
func (e *ModelRequested) EventType() string      { return TypeModelRequested }
func (e *ModelStarted) EventType() string        { return TypeModelStarted }
func (e *TextDelta) EventType() string           { return TypeTextDelta }
func (e *ReasoningDelta) EventType() string      { return TypeReasoningDelta }
func (e *ModelText) EventType() string           { return TypeModelText }
func (e *ModelReasoning) EventType() string      { return TypeModelReasoning }
func (e *ModelDiscarded) EventType() string      { return TypeModelDiscarded }
func (e *IntentDelta) EventType() string         { return TypeIntentDelta }
func (e *IntentProposed) EventType() string      { return TypeIntentProposed }
func (e *ModelUsage) EventType() string          { return TypeModelUsage }
func (e *ModelFinished) EventType() string       { return TypeModelFinished }
func (e *RetryScheduled) EventType() string      { return TypeRetryScheduled }
func (e *FallbackSelected) EventType() string    { return TypeFallbackSelected }
func (e *ToolValidation) EventType() string      { return TypeToolValidation }
func (e *ToolPermission) EventType() string      { return TypeToolPermission }
func (e *InvocationStarted) EventType() string   { return TypeInvocationStarted }
func (e *InvocationCompleted) EventType() string { return TypeInvocationCompleted }
func (e *ToolObservation) EventType() string     { return TypeToolObservation }
func (e *ContextProjected) EventType() string    { return TypeContextProjected }
func (e *ContextCompacted) EventType() string    { return TypeContextCompacted }
func (e *SessionResumed) EventType() string      { return TypeSessionResumed }
func (e *SessionForked) EventType() string       { return TypeSessionForked }

// EventType returns the type name the event was read with.
func (u *Unknown) EventType() string { return u.Type }

func (*SessionStarted) isEvent()      {}
func (*UserMessage) isEvent()         {}
func (*RunStarted) isEvent()          {}
func (*RunFinished) isEvent()         {}
func (*ModelRequested) isEvent()      {}
func (*ModelStarted) isEvent()        {}
func (*TextDelta) isEvent()           {}
func (*ReasoningDelta) isEvent()      {}
func (*ModelText) isEvent()           {}
func (*ModelReasoning) isEvent()      {}
func (*ModelDiscarded) isEvent()      {}
func (*IntentDelta) isEvent()         {}
func (*IntentProposed) isEvent()      {}
func (*ModelUsage) isEvent()          {}
func (*ModelFinished) isEvent()       {}
func (*RetryScheduled) isEvent()      {}
func (*FallbackSelected) isEvent()    {}
func (*ToolValidation) isEvent()      {}
func (*ToolPermission) isEvent()      {}
func (*InvocationStarted) isEvent()   {}
func (*InvocationCompleted) isEvent() {}
func (*ToolObservation) isEvent()     {}
func (*ContextProjected) isEvent()    {}
func (*ContextCompacted) isEvent()    {}
func (*SessionResumed) isEvent()      {}
func (*SessionForked) isEvent()       {}
func (*Unknown) isEvent()             {}

func (*ModelStarted) isModelEvent()   {}
func (*TextDelta) isModelEvent()      {}
func (*ReasoningDelta) isModelEvent() {}
func (*IntentDelta) isModelEvent()    {}
func (*IntentProposed) isModelEvent() {}
func (*ModelUsage) isModelEvent()     {}
func (*ModelFinished) isModelEvent()  {}

// newEvent returns a fresh zero value of the variant named t, or nil when
// this version does not know t.
func newEvent(t string) Event {
	switch t {
	case TypeSessionStarted:
		return new(SessionStarted)
	case TypeUserMessage:
		return new(UserMessage)
	case TypeRunStarted:
		return new(RunStarted)
	case TypeRunFinished:
		return new(RunFinished)
	case TypeModelRequested:
		return new(ModelRequested)
	case TypeModelStarted:
		return new(ModelStarted)
	case TypeTextDelta:
		return new(TextDelta)
	case TypeReasoningDelta:
		return new(ReasoningDelta)
	case TypeModelText:
		return new(ModelText)
	case TypeModelReasoning:
		return new(ModelReasoning)
	case TypeModelDiscarded:
		return new(ModelDiscarded)
	case TypeIntentDelta:
		return new(IntentDelta)
	case TypeIntentProposed:
		return new(IntentProposed)
	case TypeModelUsage:
		return new(ModelUsage)
	case TypeModelFinished:
		return new(ModelFinished)
	case TypeProviderError:
		return new(ProviderError)
	case TypeRetryScheduled:
		return new(RetryScheduled)
	case TypeFallbackSelected:
		return new(FallbackSelected)
	case TypeToolValidation:
		return new(ToolValidation)
	case TypeToolPermission:
		return new(ToolPermission)
	case TypeInvocationStarted:
		return new(InvocationStarted)
	case TypeInvocationCompleted:
		return new(InvocationCompleted)
	case TypeToolObservation:
		return new(ToolObservation)
	case TypeContextProjected:
		return new(ContextProjected)
	case TypeContextCompacted:
		return new(ContextCompacted)
	case TypeSessionResumed:
		return new(SessionResumed)
	case TypeSessionForked:
		return new(SessionForked)
	}
	return nil
}

// EventTypes lists every event type this version knows, in catalogue order.
var EventTypes = []string{
	TypeSessionStarted, TypeUserMessage, TypeRunStarted, TypeRunFinished,
	TypeModelRequested, TypeModelStarted, TypeTextDelta, TypeReasoningDelta,
	TypeModelText, TypeModelReasoning, TypeModelDiscarded, TypeIntentDelta,
	TypeIntentProposed, TypeModelUsage, TypeModelFinished, TypeProviderError,
	TypeRetryScheduled, TypeFallbackSelected, TypeToolValidation,
	TypeToolPermission, TypeInvocationStarted, TypeInvocationCompleted,
	TypeToolObservation, TypeContextProjected, TypeContextCompacted,
	TypeSessionResumed, TypeSessionForked,
}
