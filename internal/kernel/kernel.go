// Package kernel is rein's runtime facade: the one place that drives the
// provider, the event log, the state and the projection together.
//
// A caller (the CLI, a test, a future TUI or API) hands user input to
// [Kernel.Send] and renders what it yields: every event the turn produced,
// as envelopes, deltas included. The caller never sees a provider object,
// never edits state and never executes a tool.
//
// A run loops: the model is asked; the intents it proposes go through the
// tool runtime (internal/tool), which validates, asks permission, runs and
// observes them; the observations join the conversation and the model is
// asked again, until it answers without intents, the run reaches its turn
// limit, is cancelled, or the provider fails for good. The kernel itself
// executes nothing: without a tool runtime, proposed intents are recorded
// and left pending.
package kernel

import (
	"context"
	"errors"
	"fmt"
	"github.com/rein-agent/rein/internal/checkpoint"
	"iter"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// DefaultMaxTurns is the turn limit of a run when Options.MaxTurns is 0.
const DefaultMaxTurns = 50

// The approval types, for a caller that asks a person (the CLI imports
// the kernel, never the tool runtime).
type (
	// Question is what a person is asked before a tool runs, or after
	// the sandbox refused it something.
	Question = tool.Question
	// QuestionKind is what a Question asks.
	QuestionKind = tool.QuestionKind
	// Answer is what they decided.
	Answer = tool.Answer
	// Reply is their Answer, and what they said with a denial.
	Reply = tool.Reply
	// Approver asks them.
	Approver = tool.Approver
)

// MaxReplyText bounds what a person's Reply says that is kept.
const MaxReplyText = tool.MaxReplyText

// UndoNote is what a question for an undoable call tells the person.
const UndoNote = tool.UndoNote

// The answers to a Question.
const (
	No     = tool.No
	Yes    = tool.Yes
	Always = tool.Always
	Never  = tool.Never
)

// The kinds of Question.
const (
	AskPermission     = tool.AskPermission
	AskOutsideSandbox = tool.AskOutsideSandbox
)

// ErrBusy is yielded by Send when another Send of the same kernel is still
// running.
var ErrBusy = errors.New("kernel: a run is already in progress")

// Options configure a Kernel. The zero value is usable: no tools, no system
// prompt, provider name "unknown", the provider's default model.
type Options struct {
	// ProviderName names the provider in events (model.requested,
	// session.started); empty means "unknown".
	ProviderName string
	// Model is passed to the provider as given; empty means its default.
	Model string
	// BaseURL is the provider's endpoint, recorded in session.started;
	// empty means its default. It must hold no credential.
	BaseURL string
	// Profile names the configuration profile, for the record only.
	Profile string
	// System is the system prompt of every request.
	System string
	// Registry holds the tools the model may be offered; nil means none.
	Registry *registry.Registry
	// Tools runs the intents the model proposes; nil means they are
	// recorded and left pending, and the run waits.
	Tools *tool.Runtime
	// MaxTurns bounds the model calls of one run (retries not counted);
	// 0 means 50. A run that reaches it ends as max_turns.
	MaxTurns int
	// Hooks are the person's hooks (internal/hook) of the session's own
	// events: SessionStart when this kernel first starts or resumes the
	// session, UserPromptSubmit before each message of the person's is
	// recorded (a block keeps it out of the session), Stop when a run
	// would complete (a block makes it go on, at most the runner's
	// StopLimit times a run). nil runs none.
	Hooks *hook.Runner
	// SessionDir is the session's directory, where the artifacts named by
	// tool results live: an elided observation's stub points there.
	SessionDir string
	// Cwd is the workspace, recorded in session.started.
	Cwd string
	// Version is rein's version, recorded in session.started.
	Version string
	// Sandbox says whether this machine can sandbox commands, recorded
	// in session.started; nil records nothing.
	Sandbox *contract.SandboxStatus
	// Session is the id of a new session; empty means a fresh id. It is
	// ignored when the log already holds a session.
	Session string
	// Capabilities are what the model can do; the zero value claims
	// nothing: no tools are offered, no parallel tool calls, unknown
	// context window.
	Capabilities provider.Capabilities
	// KeyHint names where the provider's credential came from
	// ("OPENAI_API_KEY"), for auth failures to say what to fix.
	KeyHint string
	// Secret is the provider's credential, cut out of anything the kernel
	// records; see Model.Secret.
	Secret string
	// Explain adds to the reason a run stops on a failure of the primary
	// model; see Model.Explain. nil means nothing.
	Explain func(ctx context.Context, perr *contract.ProviderError) string
	// Secrets are the other values nothing the kernel publishes may hold
	// (the credentials of rein's environment). With the models' keys they
	// are cut out of the deltas the kernel streams, a secret split across
	// deltas included, and out of provider error messages, as the log's
	// file store cuts them out of every line: give the store the same
	// ones. Values shorter than eventlog.MinSecret are no secrets. Nil
	// means only the models' keys.
	Secrets []string
	// Info is what rein knows of the primary model (see Model.Info).
	Info *contract.ModelInfo
	// Context is the context policy: when to compact, the budget of a
	// run, the reasoning asked for.
	Context ContextOptions
	// Fallback lists the models to switch to, in order, when the model
	// fails for good; nil means none.
	Fallback []Model
	// Retry is the retry policy; the zero value means its defaults.
	Retry RetryPolicy
	// State is the fold of what log already holds, when the caller folded
	// it while opening the log; nil (or a state whose LastSeq is not the
	// log's) means New folds the log itself.
	State *state.State
	// Switch builds the model a person names with /model ("provider",
	// "provider:model", or "model" of the provider in use), as the
	// command line's --provider and --model would; nil means the session
	// cannot switch models (see Kernel.SwitchModel).
	Switch func(spec string) (Model, error)
	// Known are the model names a person may switch to, for completion;
	// nil means none are known.
	Known []string
	// Parent names the session and task call a child session works for,
	// recorded in its session.started; nil for a person's session.
	Parent *contract.ParentRef
	// Jobs are the session's background jobs, whose ends the kernel
	// records (see Jobs, EndJobs); nil means the session runs none.
	Jobs Jobs
	// Checkpoints is the session's store of snapshots of the workspace
	// (shared with its tool runtime and its tasks' children), from which
	// Rewind restores files; nil means the session keeps none, and only
	// its conversation can be rewound.
	Checkpoints *checkpoint.Store
	// KeepPoints is how many of the latest points (messages) a rewind may
	// go to; what only older ones need is let go. 0 means
	// DefaultKeepPoints.
	KeepPoints int
	// Logger receives diagnostics; nil means discard.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// ContextOptions are the settings of the context engine. The zero value
// means the defaults of each field.
type ContextOptions struct {
	// CompactAt is the share of the input budget past which a request is
	// compacted first; 0 means 0.85.
	CompactAt float64
	// MaxCost ends a run, as budget, after the model call that takes the
	// run's cost past it, in US dollars; 0 means no budget.
	MaxCost float64
	// Spent, when not nil, is what else counts against MaxCost besides
	// the run's own cost: a child's, what its siblings spend meanwhile.
	Spent func() float64
	// ReasoningEffort is the reasoning level asked of models that reason;
	// empty means each model's default.
	ReasoningEffort string
}

// Input is what the user sends.
type Input struct {
	// Text is the message, as the model is given it.
	Text string
	// Display is what the person saw as they sent it, when that differs
	// from Text (a paste collapsed to "[pasted 120 lines]", an attached
	// file as its @mention): recorded on user.message for a later view
	// of the conversation. Empty means Text is what they saw.
	Display string
}

// Kernel runs a session. Send runs one at a time; State, Events, Mode,
// SetMode, Current and Known are safe to call from any goroutine at any
// time, during a run too.
type Kernel struct {
	prov    provider.Provider
	log     *eventlog.Log
	opts    Options
	session string

	// models are the primary model and the fallbacks; current is the one
	// in use: a fallback lasts for the rest of the kernel's life, as the
	// log (provider.fallback_selected) says, or until a person switches
	// (model.switched), which replaces the primary. Only the run in
	// progress, or SwitchModel while none is, changes them, under mu.
	models  []Model
	current int
	// redactor cuts the models' keys and Options.Secrets out of what the
	// kernel publishes without the store seeing it first.
	redactor *eventlog.Redactor

	busy atomic.Bool
	// ctl orders the controls (SetMode, SwitchModel) among themselves.
	ctl sync.Mutex
	// amu orders the appends with the fold: an event is applied to st
	// before the next one is appended, whichever goroutine appends it (the
	// run, or SetMode during it).
	amu sync.Mutex
	mu  sync.Mutex // guards st, and models and current against readers, and queued
	st  state.State
	// queued are the changes of tools made before the session started,
	// recorded right after its session.started (see ChangeTools).
	queued []*contract.ToolsChanged
	// hooked says the SessionStart hooks have run for this kernel; only
	// the run in progress reads or sets it.
	hooked bool
}

// New returns a kernel that appends to log and asks prov. The state is the
// fold of what log already holds, so a kernel over an existing session
// continues it.
func New(prov provider.Provider, log *eventlog.Log, opts *Options) (*Kernel, error) {
	if prov == nil || log == nil {
		return nil, errors.New("kernel: New needs a provider and a log")
	}
	k := &Kernel{prov: prov, log: log}
	if opts != nil {
		k.opts = *opts
	}
	if k.opts.ProviderName == "" {
		k.opts.ProviderName = "unknown"
	}
	if k.opts.Now == nil {
		k.opts.Now = time.Now
	}
	k.opts.Retry = k.opts.Retry.withDefaults()
	if k.opts.MaxTurns <= 0 {
		k.opts.MaxTurns = DefaultMaxTurns
	}
	k.models = append([]Model{{
		Provider: prov, Name: k.opts.ProviderName, Model: k.opts.Model, BaseURL: k.opts.BaseURL,
		Capabilities: k.opts.Capabilities, KeyHint: k.opts.KeyHint, Secret: k.opts.Secret, Info: k.opts.Info,
		Explain: k.opts.Explain,
	}}, k.opts.Fallback...)
	for i, m := range k.models {
		if m.Provider == nil || m.Name == "" {
			return nil, fmt.Errorf("kernel: fallback model %d needs a provider and a name", i)
		}
	}
	k.redactor = eventlog.NewRedactor(k.secrets())
	if k.opts.Logger == nil {
		k.opts.Logger = slog.New(slog.DiscardHandler)
	}
	if k.opts.State != nil && k.opts.State.LastSeq == log.LastSeq() {
		k.st = *k.opts.State
	} else {
		st, err := state.Reduce(log.Events(1))
		if err != nil {
			return nil, err
		}
		k.st = st
	}
	st := k.st
	k.session = st.Session
	if k.session == "" {
		k.session = k.opts.Session
	}
	if k.session == "" {
		k.session = id.New("ses")
	}
	return k, nil
}

// append appends env to the log and folds it into the state, in the
// log's order whoever appends.
func (k *Kernel) append(env contract.Envelope) (contract.Envelope, error) {
	k.amu.Lock()
	defer k.amu.Unlock()
	env, err := k.log.Append(env)
	if err != nil || !env.Durable() {
		return env, err
	}
	k.mu.Lock()
	k.st = state.Apply(k.st, env)
	queued := k.queued
	if _, ok := env.Data.(*contract.SessionStarted); ok {
		k.queued = nil
	} else {
		queued = nil
	}
	k.mu.Unlock()
	// What changed in the tools before the session started follows its
	// session.started at once.
	for _, e := range queued {
		q, err := k.log.Append(contract.Envelope{ID: id.New("evt"), Time: k.opts.Now().UTC(), Session: k.session, Run: env.Run, Turn: env.Turn, Cause: env.ID, Data: e})
		if err != nil {
			return env, fmt.Errorf("kernel: append %s: %w", e.EventType(), err)
		}
		k.mu.Lock()
		k.st = state.Apply(k.st, q)
		k.mu.Unlock()
	}
	return env, nil
}

// Session returns the session id.
func (k *Kernel) Session() string { return k.session }

// State returns the current state. The caller must treat it as read-only:
// its slices share storage with the kernel's.
func (k *Kernel) State() state.State {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.st
}

// Events returns the session's durable events from the start.
func (k *Kernel) Events() iter.Seq2[contract.Envelope, error] { return k.log.Events(1) }

// Send records in as a user message, runs the turn and yields every event
// it produces, deltas included, in order. A provider failure is an event
// (provider.error) followed by run.finished, never a Go error: the yielded
// error is non-nil only when the runtime itself fails (the log cannot be
// written, or another Send is running), and it is then the last pair.
//
// Cancelling ctx stops the model call; the run is recorded as cancelled.
// Breaking out of the loop early also ends the run as cancelled: the log is
// completed and synced before Send returns.
func (k *Kernel) Send(ctx context.Context, in Input) iter.Seq2[contract.Envelope, error] {
	return k.do(func(r *run) { r.send(ctx, in) })
}

// Compact summarises the conversation now, as a person asks with
// /compact or rein compact: the summary keeps what focus names, if
// anything. It yields the events it appends like Send.
func (k *Kernel) Compact(ctx context.Context, focus string) iter.Seq2[contract.Envelope, error] {
	return k.do(func(r *run) { r.compactNow(ctx, focus) })
}

// do runs f as the kernel's one run at a time, yielding what it appends,
// and syncs the log when f returns.
func (k *Kernel) do(f func(r *run)) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		if !k.busy.CompareAndSwap(false, true) {
			yield(contract.Envelope{}, ErrBusy)
			return
		}
		defer k.busy.Store(false)
		r := &run{k: k, yield: yield, shown: k.redactor.Stream()}
		f(r)
		if err := k.log.Sync(); err != nil && r.err == nil {
			r.err = fmt.Errorf("kernel: sync: %w", err)
		}
		if r.err == nil {
			return
		}
		if r.stopped {
			// The caller is gone and cannot be told; the logger can.
			k.opts.Logger.Error("kernel: the run ended on a runtime failure", "session", k.session, "err", r.err)
			return
		}
		yield(contract.Envelope{}, r.err)
	}
}
