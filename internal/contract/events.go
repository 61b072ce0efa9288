package contract

import (
	"encoding/json"
	"fmt"
)

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
	TypeCompactionFailed    = "context.compaction_failed"
	TypeSessionResumed      = "session.resumed"
	TypeSessionForked       = "session.forked"
	TypeModeChanged         = "permission.mode_changed"
	TypeModelSwitched       = "model.switched"
	TypeToolOutputDelta     = "tool.output_delta"
	TypeToolsChanged        = "tools.changed"
	TypeHookRan             = "hook.ran"
	TypeTaskStarted         = "task.started"
	TypeTaskEvent           = "task.event"
	TypeTaskFinished        = "task.finished"
	TypeJobStarted          = "job.started"
	TypeJobFinished         = "job.finished"
	TypeCheckpointRecorded  = "checkpoint.recorded"
	TypeSessionRewound      = "session.rewound"
	TypeTodoUpdated         = "todo.updated"
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
	return t == TypeTextDelta || t == TypeReasoningDelta || t == TypeIntentDelta || t == TypeToolOutputDelta || t == TypeTaskEvent
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
	// System is the system prompt the session sends, built once when it
	// starts so that every request begins with the same bytes.
	System string `json:"system,omitempty"`
	// ModelInfo is what rein knows of the model's limits and prices, and
	// where it learned them; nil when nothing is known.
	ModelInfo *ModelInfo `json:"model_info,omitempty"`
	// Parent names the session and the task call this session is the
	// child of; nil for a session a person started.
	Parent *ParentRef `json:"parent,omitempty"`
}

// ParentRef names what a child session works for: the parent session,
// the seq of the parent's tool.invocation.started of the task call, the
// call's intent, and the brief's agent and description.
type ParentRef struct {
	Session     string `json:"session"`
	Seq         uint64 `json:"seq"`
	IntentID    string `json:"intent_id"`
	Agent       string `json:"agent"`
	Description string `json:"description,omitempty"`
	// Depth is 1 for a child of a person's session, 2 for a child's
	// child.
	Depth int `json:"depth"`
}

// ModelInfo is what rein knows of one model: its context window, the
// output it may produce, its prices, and where that came from.
type ModelInfo struct {
	// ContextWindow is the model's context in tokens.
	ContextWindow int `json:"context_window"`
	// MaxOutput is the output reserved for the reply, in tokens; zero
	// means unknown.
	MaxOutput int `json:"max_output,omitempty"`
	// Source says where the figures came from: "catalog" (the embedded
	// model catalogue), "config" (the person's [models] table), "server"
	// (the serving endpoint itself), "default" (nobody knew the model:
	// a conservative window).
	Source string `json:"source"`
	// Prices are the model's prices; nil means unknown.
	Prices *Prices `json:"prices,omitempty"`
}

// The sources of a ModelInfo.
const (
	InfoCatalog = "catalog"
	InfoConfig  = "config"
	InfoServer  = "server"
	InfoDefault = "default"
)

// Prices are what a model's tokens cost, in US dollars per million tokens.
type Prices struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
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

// UserMessage is what the person sent: Text, what the model is given.
type UserMessage struct {
	Text string `json:"text"`
	// Display is what the person saw as they sent it, when that differs
	// from Text: their long pastes collapsed to the placeholders the
	// composer showed ("[pasted 120 lines]"), the files they attached as
	// the @mentions they typed. Empty means Text is what they saw. A view
	// of the conversation (a resumed session's) shows it as it was shown.
	Display string `json:"display,omitempty"`
}

// Shown is the message as the person saw it when they sent it: Display,
// or Text when they saw that.
func (e *UserMessage) Shown() string {
	if e.Display != "" {
		return e.Display
	}
	return e.Text
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
	// OutcomeBudget: the run's cost crossed its budget (max_cost).
	OutcomeBudget Outcome = "budget"
)

// RunFinished ends a run.
type RunFinished struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	// Usage sums the tokens and cost of the run's model calls; nil in
	// logs written before it was recorded.
	Usage *Totals `json:"usage,omitempty"`
}

// Totals sum the usage of several model calls. CostUSD sums the calls
// whose cost is known; Unpriced counts the others, so that a total is
// never shown as complete when a part of it is unknown.
type Totals struct {
	InputTokens      int64   `json:"input_tokens"`
	OutputTokens     int64   `json:"output_tokens"`
	CacheReadTokens  int64   `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64   `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int64   `json:"reasoning_tokens,omitempty"`
	Calls            int     `json:"calls"`
	CostUSD          float64 `json:"cost_usd"`
	Unpriced         int     `json:"unpriced_calls,omitempty"`
}

// Add adds one call's usage to t.
func (t *Totals) Add(u *ModelUsage) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheReadTokens += u.CacheReadTokens
	t.CacheWriteTokens += u.CacheWriteTokens
	t.ReasoningTokens += u.ReasoningTokens
	t.Calls++
	if u.CostUSD == nil {
		t.Unpriced++
		return
	}
	t.CostUSD += *u.CostUSD
}

// Merge adds the totals of other calls, a child session's, to t.
func (t *Totals) Merge(o *Totals) {
	t.InputTokens += o.InputTokens
	t.OutputTokens += o.OutputTokens
	t.CacheReadTokens += o.CacheReadTokens
	t.CacheWriteTokens += o.CacheWriteTokens
	t.ReasoningTokens += o.ReasoningTokens
	t.Calls += o.Calls
	t.CostUSD += o.CostUSD
	t.Unpriced += o.Unpriced
}

// CostKnown reports whether every call's cost is known.
func (t *Totals) CostKnown() bool { return t.Unpriced == 0 }

// ModelRequested records what was about to be sent to a provider.
type ModelRequested struct {
	Provider             string   `json:"provider"`
	Model                string   `json:"model,omitempty"`
	MessageCount         int      `json:"message_count"`
	ToolNames            []string `json:"tool_names"`
	EstimatedInputTokens int      `json:"estimated_input_tokens"`
	// InputBytes is the size of what the estimate counted (the text of the
	// system prompt, tools and messages), from which the estimator's
	// bytes-per-token ratio is calibrated against model.usage.
	InputBytes int `json:"input_bytes,omitempty"`
	// Purpose is empty for a turn of the conversation, PurposeCompaction
	// for the call that summarises it: its answer is not part of the
	// conversation.
	Purpose string `json:"purpose,omitempty"`
	// ReasoningEffort is the reasoning level asked for, if any.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
}

// PurposeCompaction marks the model call of a compaction.
const PurposeCompaction = "compaction"

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
	// CostUSD is what the call cost, from the model's prices; nil when
	// they are unknown. The kernel fills it in, never a provider.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// ModelFinished ends a model call. ProviderState is opaque data the vendor
// needs back in the next request; it is kept verbatim, never interpreted.
type ModelFinished struct {
	Reason        FinishReason    `json:"reason"`
	ProviderState json.RawMessage `json:"provider_state,omitempty"`
}

// RetryScheduled records that a failed model call will be tried again:
// attempt number Attempt (the first call is 1) of at most MaxAttempts (0:
// not recorded, in logs older than the field), after DelayMS, because the
// last attempt failed with Kind.
type RetryScheduled struct {
	Attempt     int       `json:"attempt"`
	MaxAttempts int       `json:"max_attempts,omitempty"`
	DelayMS     int64     `json:"delay_ms"`
	Kind        ErrorKind `json:"kind"`
}

// Status is the retry as a status line shows it: "retrying in 2.0s (rate
// limited, attempt 2 of 4)".
func (e *RetryScheduled) Status() string {
	attempt := fmt.Sprintf("attempt %d", e.Attempt)
	if e.MaxAttempts > 0 {
		attempt += fmt.Sprintf(" of %d", e.MaxAttempts)
	}
	return fmt.Sprintf("retrying in %.1fs (%s, %s)", float64(e.DelayMS)/1000, e.Kind.Phrase(), attempt)
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
// rule, user, hook, headless, or policy for what nothing may allow).
type ToolPermission struct {
	IntentID string   `json:"intent_id"`
	Decision Decision `json:"decision"`
	By       string   `json:"by"`
	Rule     string   `json:"rule,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	// Message is what the person said with a denial (by "user"): what
	// the model should do instead, as the model was told it (printable,
	// at most 4 KiB). Empty when they said nothing.
	Message string `json:"message,omitempty"`
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

// ToolOutputDelta is a piece of a running tool's output (a command's
// stdout and stderr, as captured), coalesced by the tool runtime, for a
// person to watch. Bus only: the observation records what the model saw.
type ToolOutputDelta struct {
	IntentID     string `json:"intent_id"`
	InvocationID string `json:"invocation_id"`
	Text         string `json:"text"`
}

// ModeChanged records that the permission mode changed for the decisions
// that follow (a person pressed Shift+Tab, or typed /mode).
type ModeChanged struct {
	From string `json:"from"`
	To   string `json:"to"`
	// By says who changed it: "user", or "resume" when a resumed session
	// runs in its configuration's mode, not the one its log last recorded.
	By string `json:"by"`
}

// ModelSwitched records that a person chose another model (or provider)
// for the turns that follow, as /model does; a fallback is
// provider.fallback_selected.
type ModelSwitched struct {
	// From and To are "provider:model".
	From string `json:"from"`
	To   string `json:"to"`
	// Info is what rein knows of the new model; nil when nothing.
	Info *ModelInfo `json:"model_info,omitempty"`
	// By says who switched: "user".
	By string `json:"by"`
}

// ToolsChanged records that the set of tools the model may be offered
// changed: an MCP server's tools joined (it started, or listed new ones)
// or left (it failed to start, crashed, timed out, or listed fewer).
// Requests after it offer the new set; the model is told in the
// conversation (see state).
type ToolsChanged struct {
	// Server names the source of the tools: the MCP server's name.
	Server string `json:"server"`
	// Added and Removed are tool names, as the model sees them.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Reason says why, in a sentence for people and for the model.
	Reason string `json:"reason"`
}

// The hook events, as Claude Code names them.
const (
	HookPreToolUse       = "PreToolUse"
	HookPostToolUse      = "PostToolUse"
	HookUserPromptSubmit = "UserPromptSubmit"
	HookSessionStart     = "SessionStart"
	HookStop             = "Stop"
	HookSubagentStop     = "SubagentStop"
)

// The decisions a hook.ran records: what the hook asked for. Empty means
// it decided nothing (it only observed, or failed open).
const (
	HookAllow = "allow" // PreToolUse: run it without asking
	HookDeny  = "deny"  // PreToolUse: do not run it
	HookAsk   = "ask"   // PreToolUse: ask the person
	HookBlock = "block" // UserPromptSubmit: do not send the prompt; Stop: go on, with Reason
)

// HookRan records one run of a person's hook command around a prompt, a
// tool call or the end of a run.
type HookRan struct {
	// Event is the hook event (HookPreToolUse...); Matcher the matcher
	// that selected the hook, when the event has them.
	Event   string `json:"event"`
	Matcher string `json:"matcher,omitempty"`
	// Command is the command as configured; Source the file it came
	// from.
	Command string `json:"command"`
	Source  string `json:"source,omitempty"`
	// IntentID and ToolName name the tool call, for the tool events.
	IntentID string `json:"intent_id,omitempty"`
	ToolName string `json:"tool_name,omitempty"`
	// Exit is how the command ended (ok, error, timeout); ExitCode its
	// code (-1 when it was killed or could not start).
	Exit       Exit  `json:"exit"`
	ExitCode   int   `json:"exit_code"`
	DurationMS int64 `json:"duration_ms"`
	// Decision is what the hook asked for (HookAllow...), empty when
	// nothing; Reason its reason, or why it failed.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Context is what the hook adds for the model to read (its
	// additionalContext, or a UserPromptSubmit's or SessionStart's
	// output); the state puts it in the conversation.
	Context string `json:"context,omitempty"`
}

// ContextProjected is the decision ledger of one model request: what the
// projection put in it, and what it left out, summarised or moved to an
// artifact, with the estimated tokens of each and why.
type ContextProjected struct {
	Turn int `json:"turn"`
	// Window is the model's context window; Reserved the output kept free
	// for the reply; Budget what the input may use: the window minus the
	// reserved output minus a margin. All zero when the window is unknown
	// and no policy applies.
	Window   int `json:"window,omitempty"`
	Reserved int `json:"reserved,omitempty"`
	Budget   int `json:"budget,omitempty"`
	// EstimatedTokens is the estimate of the whole request's input.
	EstimatedTokens int `json:"estimated_tokens"`
	// Sources are the parts of the request, by kind and decision.
	Sources []ContextSource `json:"sources,omitempty"`
	// Elided are the intents whose observations this request replaces by
	// a stub for the first time; later requests keep them elided.
	Elided []string `json:"elided,omitempty"`
	// Withheld, when set, says why this request was not sent: the run
	// stopped on it (it could not fit the window).
	Withheld string `json:"withheld,omitempty"`
}

// ContextSource is one part of a request as the projection decided it.
type ContextSource struct {
	// Kind is one of the Source constants.
	Kind string `json:"kind"`
	// Decision is one of the Decided constants.
	Decision string `json:"decision"`
	// Count is how many items (messages, tools, observations) it holds.
	Count int `json:"count,omitempty"`
	// Tokens is their estimated size as sent.
	Tokens int `json:"tokens"`
	// Ref points at the originals: a seq range of the log, or the
	// context.compacted event whose summary stands for them.
	Ref string `json:"ref,omitempty"`
	Why string `json:"why,omitempty"`
}

// The kinds of a ContextSource.
const (
	SourceSystem       = "system"
	SourceTools        = "tools"
	SourceSummary      = "summary"
	SourceMessages     = "messages"
	SourceObservations = "observations"
)

// The decisions of a ContextSource.
const (
	DecidedIncluded   = "included"
	DecidedElided     = "elided"
	DecidedSummarised = "summarised"
	DecidedExcluded   = "excluded"
)

// ContextCompacted records a compaction: the summary that from now on
// stands for the first Replaced messages of the conversation (the events
// FromSeq to ToSeq), and the sizes before and after. The log keeps the
// originals; only what the next request holds changes.
type ContextCompacted struct {
	Turn    int    `json:"turn"`
	Summary string `json:"summary"`
	// Replaced is how many messages of the conversation, from its start
	// as the state held it, the summary replaces.
	Replaced int `json:"replaced"`
	// FromSeq and ToSeq bound the events whose messages it replaces.
	FromSeq uint64 `json:"from_seq"`
	ToSeq   uint64 `json:"to_seq"`
	// TokensBefore and TokensAfter are the request's estimated input
	// before and after.
	TokensBefore int `json:"tokens_before"`
	TokensAfter  int `json:"tokens_after"`
	// By says what asked for it: "auto" (the request passed compact_at),
	// "context_length" (the provider refused the request), "user".
	By string `json:"by"`
	// Focus is what the person asked the summary to keep, if anything.
	Focus string `json:"focus,omitempty"`
	// Calls is how many model calls made the summary (more than one when
	// the history was summarised in chunks).
	Calls int `json:"calls"`
}

// What asks for a compaction.
const (
	CompactAuto          = "auto"
	CompactContextLength = "context_length"
	CompactUser          = "user"
)

// CompactionFailed records a compaction that changed nothing: the summary
// call failed, or came back empty, or did not make the request smaller.
type CompactionFailed struct {
	Turn    int    `json:"turn"`
	Attempt int    `json:"attempt"`
	By      string `json:"by"`
	Reason  string `json:"reason"`
}

// SessionResumed records that a session was reopened to continue: the
// last seq before it, what each check of the resume gate found, and the
// version of rein that resumed it.
type SessionResumed struct {
	FromSeq uint64            `json:"from_seq"`
	Gates   map[string]string `json:"gates,omitempty"`
	Version string            `json:"version,omitempty"`
	// System is the system prompt the session sends from now on, when it
	// had none recorded (a log from before it was); empty means the
	// recorded one stands.
	System string `json:"system,omitempty"`
	// ModelInfo is what rein knows of the model the session goes on
	// with, when it differs from what was recorded.
	ModelInfo *ModelInfo `json:"model_info,omitempty"`
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
func (e *CompactionFailed) EventType() string    { return TypeCompactionFailed }
func (e *SessionResumed) EventType() string      { return TypeSessionResumed }
func (e *SessionForked) EventType() string       { return TypeSessionForked }
func (e *ModeChanged) EventType() string         { return TypeModeChanged }
func (e *ModelSwitched) EventType() string       { return TypeModelSwitched }
func (e *ToolOutputDelta) EventType() string     { return TypeToolOutputDelta }
func (e *ToolsChanged) EventType() string        { return TypeToolsChanged }
func (e *HookRan) EventType() string             { return TypeHookRan }
func (e *TaskStarted) EventType() string         { return TypeTaskStarted }
func (e *TaskEvent) EventType() string           { return TypeTaskEvent }
func (e *TaskFinished) EventType() string        { return TypeTaskFinished }
func (e *JobStarted) EventType() string          { return TypeJobStarted }
func (e *JobFinished) EventType() string         { return TypeJobFinished }
func (e *CheckpointRecorded) EventType() string  { return TypeCheckpointRecorded }
func (e *SessionRewound) EventType() string      { return TypeSessionRewound }
func (e *TodoUpdated) EventType() string         { return TypeTodoUpdated }

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
func (*CompactionFailed) isEvent()    {}
func (*SessionResumed) isEvent()      {}
func (*SessionForked) isEvent()       {}
func (*ModeChanged) isEvent()         {}
func (*ModelSwitched) isEvent()       {}
func (*ToolOutputDelta) isEvent()     {}
func (*ToolsChanged) isEvent()        {}
func (*HookRan) isEvent()             {}
func (*TaskStarted) isEvent()         {}
func (*TaskEvent) isEvent()           {}
func (*TaskFinished) isEvent()        {}
func (*JobStarted) isEvent()          {}
func (*JobFinished) isEvent()         {}
func (*CheckpointRecorded) isEvent()  {}
func (*SessionRewound) isEvent()      {}
func (*TodoUpdated) isEvent()         {}
func (*Unknown) isEvent()             {}

func (*ModelStarted) isModelEvent()   {}
func (*TextDelta) isModelEvent()      {}
func (*ReasoningDelta) isModelEvent() {}
func (*IntentDelta) isModelEvent()    {}
func (*IntentProposed) isModelEvent() {}
func (*ModelUsage) isModelEvent()     {}
func (*ModelFinished) isModelEvent()  {}

// newEvent returns a fresh zero value of the variant named t, or nil when
// this version does not know t. It is long because it is one case per
// event type: a switch costs no table built at start-up, as a map of
// constructors would.
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
	case TypeCompactionFailed:
		return new(CompactionFailed)
	case TypeSessionResumed:
		return new(SessionResumed)
	case TypeSessionForked:
		return new(SessionForked)
	case TypeModeChanged:
		return new(ModeChanged)
	case TypeModelSwitched:
		return new(ModelSwitched)
	case TypeToolOutputDelta:
		return new(ToolOutputDelta)
	case TypeToolsChanged:
		return new(ToolsChanged)
	case TypeHookRan:
		return new(HookRan)
	case TypeTaskStarted:
		return new(TaskStarted)
	case TypeTaskEvent:
		return new(TaskEvent)
	case TypeTaskFinished:
		return new(TaskFinished)
	case TypeJobStarted:
		return new(JobStarted)
	case TypeJobFinished:
		return new(JobFinished)
	case TypeCheckpointRecorded:
		return new(CheckpointRecorded)
	case TypeSessionRewound:
		return new(SessionRewound)
	case TypeTodoUpdated:
		return new(TodoUpdated)
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
	TypeToolObservation, TypeContextProjected, TypeContextCompacted, TypeCompactionFailed,
	TypeSessionResumed, TypeSessionForked, TypeModeChanged, TypeModelSwitched,
	TypeToolOutputDelta, TypeToolsChanged, TypeHookRan,
	TypeTaskStarted, TypeTaskEvent, TypeTaskFinished, TypeJobStarted, TypeJobFinished,
	TypeCheckpointRecorded, TypeSessionRewound,
	TypeTodoUpdated,
}

// TaskStarted records, in the parent's log, that a task call started a
// child session: the agent it runs, the brief's description, and the
// child's session id, whose directory is tasks/CHILD under the parent's.
type TaskStarted struct {
	IntentID    string `json:"intent_id"`
	Agent       string `json:"agent"`
	Description string `json:"description"`
	Child       string `json:"child"`
	// Resumed says the child was begun before a crash and is being
	// finished now, by rein resume.
	Resumed bool `json:"resumed,omitempty"`
}

// TaskEvent carries one durable event of a running child, on the
// parent's bus only (never stored in the parent's log: the child's own
// log holds it), for the views that show a child live.
type TaskEvent struct {
	IntentID string   `json:"intent_id"`
	Child    string   `json:"child"`
	Event    Envelope `json:"event"`
}

// The outcomes of a task.
const (
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskCancelled = "cancelled"
	TaskTimeout   = "timeout"
	TaskMaxTurns  = "max_turns"
	TaskNoAnswer  = "no_answer"
	TaskBudget    = "budget"
)

// TaskFinished records, in the parent's log, how a child ended: its
// outcome (TaskCompleted...) and why, what it did, and what it cost.
// The state adds Usage to the parent's, so the cost of a run is its
// tree's.
type TaskFinished struct {
	IntentID  string  `json:"intent_id"`
	Agent     string  `json:"agent"`
	Child     string  `json:"child"`
	Outcome   string  `json:"outcome"`
	Reason    string  `json:"reason,omitempty"`
	Usage     *Totals `json:"usage,omitempty"`
	Turns     int     `json:"turns"`
	ToolCalls int     `json:"tool_calls"`
	// FilesRead and FilesChanged are the files the child's tools read
	// and wrote, by resolved path.
	FilesRead    []string `json:"files_read,omitempty"`
	FilesChanged []string `json:"files_changed,omitempty"`
}

// JobStarted records that a command started in the background (bash with
// run_in_background): its job id, the intent that started it, the
// command, and the artifact its output goes to.
type JobStarted struct {
	JobID    string `json:"job_id"`
	IntentID string `json:"intent_id"`
	Command  string `json:"command"`
	Artifact string `json:"artifact"`
}

// The ways a background job ends.
const (
	JobExited     = "exited"      // the command ended by itself
	JobKilled     = "killed"      // job_kill ended it
	JobSessionEnd = "session_end" // the session (or a headless run) ended
	JobRestart    = "restart"     // rein died; resume found it running
)

// JobFinished records how a background job ended: Outcome (JobExited...),
// its exit code (-1 when killed), and the bytes it printed.
type JobFinished struct {
	JobID    string `json:"job_id"`
	Outcome  string `json:"outcome"`
	ExitCode int    `json:"exit_code"`
	Bytes    int64  `json:"bytes"`
}

// The statuses of an item of the task list.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// Todo is one item of the model's task list: what is to be done
// (Content), where it stands (Status: TodoPending...), and, optionally,
// how it reads while under way ("Running the tests" for "Run the
// tests"), as Claude Code's TodoWrite takes it.
type Todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"active_form,omitempty"`
}

// TodoUpdated records the model's task list as a todo_write call (its
// intent) wrote it: the whole list, which replaces the one before. An
// empty list clears it.
type TodoUpdated struct {
	IntentID string `json:"intent_id"`
	Todos    []Todo `json:"todos"`
}
