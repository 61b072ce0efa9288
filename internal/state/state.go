// Package state folds a session's events into the state the runtime decides
// on: status, turn, the conversation as the projection needs it (with its
// compaction summary and elided observations), pending intents, usage and
// cost totals, the estimator's calibration, the last error, the read
// ledger of the files the session has seen, and the model's task list.
//
// State is never edited directly: the only way to change it is to append an
// event and Apply it. Apply does no I/O and is deterministic, so folding the
// whole log from scratch ([Reduce]) gives exactly the live state.
package state

import (
	"iter"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// Status is where a session stands.
type Status string

// The statuses of a session.
const (
	// Idle: no run has started yet.
	Idle Status = "idle"
	// Running: a run is under way (a model call, or between turns).
	Running Status = "running"
	// WaitingForTool: the model proposed intents that have no observation
	// yet. It holds from the proposal on, even while the model call that
	// proposed them is still streaming.
	WaitingForTool Status = "waiting_for_tool"
	// Completed: the last run finished as completed.
	Completed Status = "completed"
	// Failed: the last run finished otherwise (failed, cancelled, max turns...).
	Failed Status = "failed"
)

// State is a session's state at one point of its log. The zero value is the
// state before any event (status empty, read as [Idle] by [State.Phase]).
//
// A State is a value, but the slices of successive states of one history
// share storage the way append does: Apply never changes what an earlier
// state shows, yet two histories must not be branched from one State (fold
// each from its own events).
type State struct {
	Session  string `json:"session"`
	Cwd      string `json:"cwd,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// BaseURL is the endpoint of Provider when session.started named one
	// and no fallback or model.switched has changed providers since.
	BaseURL string `json:"base_url,omitempty"`
	// Mode is the permission mode the last permission.mode_changed
	// chose; empty until one (the session runs in the mode its
	// configuration and flags give).
	Mode string `json:"mode,omitempty"`

	Status  Status           `json:"status"`
	Run     string           `json:"run,omitempty"`
	Outcome contract.Outcome `json:"outcome,omitempty"`
	Turn    int              `json:"turn"`

	// System is the system prompt the session sends: session.started's,
	// replaced by a session.resumed that records a new one.
	System string `json:"system,omitempty"`
	// ModelInfo is what the log last recorded of the model's window,
	// output and prices (session.started, session.resumed,
	// model.switched); nil when nothing was.
	ModelInfo *contract.ModelInfo `json:"model_info,omitempty"`

	// Messages is the conversation the next projection builds on: user
	// messages, finished assistant messages and tool results, from the
	// last compaction on (Summary stands for what came before).
	Messages []contract.ModelMessage `json:"messages"`
	// Seqs holds, for each message of Messages, the seq of the event that
	// added it: the user.message, the model.finished of an assistant
	// message, the tool.observation of a tool result.
	Seqs []uint64 `json:"seqs"`
	// LastUser is the text of the latest user.message, which every
	// request holds verbatim, even after a compaction replaced it.
	LastUser string `json:"last_user,omitempty"`
	// Elided lists, in the order elided, the intents whose observations
	// the projection replaces by a stub: once elided, always elided
	// (context.projected adds them; a compaction drops those it replaced).
	Elided []string `json:"elided,omitempty"`
	// Summary is the summary of the conversation before Messages, from the
	// last context.compacted (seq SummarySeq); empty before any.
	Summary    string `json:"summary,omitempty"`
	SummarySeq uint64 `json:"summary_seq,omitempty"`
	// SummaryUser is the latest user message when the last compaction
	// replaced it: the request the kept messages work on, which every
	// request holds verbatim after the summary, until the next
	// compaction. Empty when the kept messages hold a user message.
	SummaryUser string `json:"summary_user,omitempty"`
	// SummaryTodos and SummaryLedger are the task list and the ledger as
	// they stood at the last compaction: what the request tells the model,
	// with the summary, of where the work stood then (the plot). They stay
	// as they are until the next compaction, so that the requests between
	// two compactions keep the same prefix; a later change of the list
	// reaches the model as the todo_write call that made it.
	SummaryTodos  []contract.Todo `json:"summary_todos,omitempty"`
	SummaryLedger Ledger          `json:"-"`
	// Compactions counts the context.compacted events of the session;
	// Summarised the model turns (assistant messages) they replaced.
	Compactions int `json:"compactions,omitempty"`
	Summarised  int `json:"summarised,omitempty"`
	// Side is the purpose of the model call under way when it is a side
	// call (contract.PurposeCompaction): its output is not part of the
	// conversation. Empty otherwise.
	Side string `json:"side,omitempty"`
	// Draft is the assistant message of the model call under way; it joins
	// Messages when the call finishes, and is dropped when the call's output
	// is discarded. Its Role is empty when no call is under way.
	Draft contract.ModelMessage `json:"draft"`
	// Pending holds the proposed intents that have no observation yet, in
	// the order proposed.
	Pending []contract.ToolIntent `json:"pending"`
	// InFlight holds the invocations that started and have not completed,
	// in the order started. Outside a live run, what is left here was
	// interrupted: the process ended while the tool ran.
	InFlight []Invocation `json:"in_flight,omitempty"`
	// Ended holds, for each intent that has no observation yet, its last
	// invocation that completed: an intent run again outside the sandbox
	// has two, and the second replaces the first here. Outside a live
	// run, what is left here ran to its end but the process ended before
	// the model was told.
	Ended []Invocation `json:"ended,omitempty"`

	// Usage sums the tokens and cost of every model call of the session,
	// side calls included; RunUsage those of the current (or last) run.
	Usage    contract.Totals `json:"usage"`
	RunUsage contract.Totals `json:"run_usage"`
	// Parent names the session and task call a child session works for;
	// nil for a person's session.
	Parent *contract.ParentRef `json:"parent,omitempty"`
	// Calib is the estimator's calibration for the current model.
	Calib     Calib                   `json:"calib"`
	LastError *contract.ProviderError `json:"last_error,omitempty"`

	// Ledger holds, by resolved path, the stamp of each file as the
	// session last read it whole or wrote it: the files of every
	// tool.observation, the last stamp of a path winning. The file tools
	// check against it before they change a file. It is read through its
	// methods, and left out of State's JSON form.
	Ledger Ledger `json:"-"`

	// Jobs are the session's background jobs, in the order started (see
	// Job).
	Jobs []Job `json:"jobs,omitempty"`
	// Tasks are the task calls that started a child and have no
	// observation yet (see Task).
	Tasks []Task `json:"tasks,omitempty"`

	// Todos is the model's task list, as the last todo.updated wrote it
	// (the whole list; nil before any). It is replaced, never changed in
	// place: an earlier state keeps the list it showed.
	Todos []contract.Todo `json:"todos,omitempty"`

	// Notes are what rein has to tell the model that waits for a place
	// in the conversation (see Note); PromptNotes the context a
	// UserPromptSubmit hook gave for the prompt not yet recorded, which
	// follows it.
	Notes       []Note `json:"notes,omitempty"`
	PromptNotes []Note `json:"prompt_notes,omitempty"`
	// Calling is set while a model call is under way: from its
	// model.requested to its model.finished, model.discarded or
	// provider.error.
	Calling bool `json:"calling,omitempty"`

	// Points are the places the session can be rewound to, one per
	// user.message of the log, in seq order, rewound ones included;
	// Timeline the seqs of those the conversation holds now (see Point).
	// Checkpoints are the snapshots of the workspace the log recorded, in
	// seq order.
	Points      []Point      `json:"points,omitempty"`
	Timeline    []uint64     `json:"timeline,omitempty"`
	Checkpoints []Checkpoint `json:"checkpoints,omitempty"`

	// LastSeq is the seq of the last durable event applied.
	LastSeq uint64 `json:"last_seq"`
}

// Invocation names a tool run that started: the intent it carries out,
// and once it completed, how it ended.
type Invocation struct {
	IntentID     string        `json:"intent_id"`
	InvocationID string        `json:"invocation_id"`
	ToolName     string        `json:"tool_name"`
	Exit         contract.Exit `json:"exit,omitempty"`
	ExitCode     int           `json:"exit_code,omitempty"`
}

// Unfinished reports whether a run started and has no run.finished yet:
// outside a live run, the process ended before the run did.
func (s *State) Unfinished() bool {
	return s.Run != "" && (s.Status == Running || s.Status == WaitingForTool)
}

// Phase returns the status, reading the zero value as Idle.
func (s *State) Phase() Status {
	if s.Status == "" {
		return Idle
	}
	return s.Status
}

// Reduce folds events from the zero State. A non-nil error from the
// sequence stops the fold and is returned with the state so far.
func Reduce(events iter.Seq2[contract.Envelope, error]) (State, error) {
	var s State
	for env, err := range events {
		if err != nil {
			return s, err
		}
		s.Apply(env)
	}
	return s, nil
}

// Apply returns the state after env. Deltas do not change the state. It
// costs O(1) per event, apart from tool observations and discards, which
// look through the pending intents (a tool observation's files cost O(1)
// each: see [Ledger]), and a compaction, which copies the messages it
// keeps.
func Apply(s State, env contract.Envelope) State {
	s.Apply(env)
	return s
}

// Apply changes s into the state after env: s.Apply(env) is s = Apply(s,
// env) without the two copies of the whole State (about 800 bytes, most
// of them pointers) that passing it by value costs. A fold over a long
// log (Reduce, the open of a session) uses it.
func (s *State) Apply(env contract.Envelope) {
	if !env.Durable() {
		return
	}
	s.LastSeq = env.Seq
	// Each family's events change the state only through its own apply:
	// an event of another family goes through unchanged.
	s.applySession(env)
	s.applyModel(env)
	s.applyTool(env)
	s.applyContext(env)
	s.applyJobs(env)
	s.applyTasks(env)
	s.applyNotes(env)
	s.applyRewind(env)
	if e, ok := env.Data.(*contract.TodoUpdated); ok {
		s.Todos = e.Todos
	}
}

// applySession applies the events of a session and its runs: its start
// and resumption, a user's message, a run's start and end, a switch of
// model, a change of permission mode.
func (s *State) applySession(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.SessionStarted:
		s.Session = env.Session
		s.Cwd, s.Provider, s.Model, s.BaseURL = e.Cwd, e.Provider, e.Model, e.BaseURL
		s.System, s.ModelInfo, s.Parent = e.System, e.ModelInfo, e.Parent
		s.Status = Idle
	case *contract.SessionResumed:
		s.Calling = false // a call the log left open ended with its process
		if e.System != "" {
			s.System = e.System
			s.Calib.Last = Exact{} // the next request starts differently
		}
		if e.ModelInfo != nil {
			s.ModelInfo = e.ModelInfo
		}
	case *contract.UserMessage:
		s.point(env, e.Text)
		s.addMessage(contract.ModelMessage{Role: contract.RoleUser, Text: e.Text}, env.Seq)
		s.LastUser = e.Text
	case *contract.RunStarted:
		s.Run = env.Run
		s.Status = Running
		s.Outcome = ""
		s.RunUsage = contract.Totals{}
		s.Side = ""
	case *contract.FallbackSelected:
		// "provider:model"; a model name may hold colons of its own
		// (llama3:8b), a provider name never does.
		s.Provider, s.Model, _ = strings.Cut(e.To, ":")
		s.BaseURL = "" // a fallback's endpoint is its own default
		s.Calib = Calib{Model: s.Model}
	case *contract.ModelSwitched:
		s.switchModel(e)
	case *contract.ModeChanged:
		s.Mode = e.To
	case *contract.RunFinished:
		s.Calling = false
		s.Outcome, s.Status = e.Outcome, Failed
		if e.Outcome == contract.OutcomeCompleted {
			s.Status = Completed
		}
		s.Side = ""
	}
}

// switchModel applies a person's switch of model: the model they chose,
// at the same endpoint when the provider is the same (the endpoint belongs
// to the provider), and what rein knows of it.
func (s *State) switchModel(e *contract.ModelSwitched) {
	provider, model, _ := strings.Cut(e.To, ":")
	if provider != s.Provider {
		s.BaseURL = ""
	}
	s.Provider, s.Model = provider, model
	s.ModelInfo = e.Info
	s.Calib = Calib{Model: s.Model}
}

// applyModel applies the events of a model call: the request, the blocks
// and intents of the draft, usage, the end of the call or the discard of
// its output, a provider's error. The output of a side call (a summary)
// is not part of the conversation: only its usage and errors count.
func (s *State) applyModel(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.ModelRequested:
		s.Calib = s.Calib.requested(e)
		s.Calling = true
		s.Side = e.Purpose
		if s.Side != "" {
			return
		}
		s.Turn = env.Turn
		s.Status = Running
		s.Draft = contract.ModelMessage{}
	case *contract.ModelUsage:
		s.Usage.Add(e)
		s.RunUsage.Add(e)
		s.Calib = s.Calib.usage(e)

	case *contract.ProviderError:
		s.Calling = false
		s.LastError = e
		s.Calib = s.Calib.failed(e)
	default:
		switch env.Data.(type) {
		case *contract.ModelFinished, *contract.ModelDiscarded:
			s.Calling = false
		}
		if s.Side == "" {
			s.applyDraft(env)
		}
	}
}

// applyDraft applies the events that build, end or discard the draft of
// a call of the conversation.
func (s *State) applyDraft(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.ModelText:
		s.Draft.Role = contract.RoleAssistant
		s.Draft.Text = join(s.Draft.Text, e.Text)
	case *contract.ModelReasoning:
		s.Draft.Role = contract.RoleAssistant
		s.Draft.Reasoning = join(s.Draft.Reasoning, e.Text)
	case *contract.IntentProposed:
		if e.Origin == contract.OriginUser {
			// A person's own call (!cmd) is not the model's: it waits for
			// its observation, which joins the conversation as their
			// message, outside any draft and whatever the status.
			s.Pending = append(s.Pending, e.ToolIntent)
			return
		}
		s.Draft.Role = contract.RoleAssistant
		s.Draft.ToolCalls = append(s.Draft.ToolCalls, e.Call())
		s.Pending = append(s.Pending, e.ToolIntent)
		s.Status = WaitingForTool
	case *contract.ModelFinished:
		s.finish(e, env.Seq)
	case *contract.ModelDiscarded:
		s.Pending = withoutCalls(s.Pending, s.Draft.ToolCalls)
		s.Draft = contract.ModelMessage{}
		if len(s.Pending) == 0 && s.Status == WaitingForTool {
			s.Status = Running
		}
	}
}

// finish ends the model call under way: its draft joins the conversation.
func (s *State) finish(e *contract.ModelFinished, seq uint64) {
	if s.Draft.Role != "" || len(e.ProviderState) > 0 {
		d := s.Draft
		d.Role = contract.RoleAssistant
		d.ProviderState = e.ProviderState
		s.addMessage(d, seq)
	}
	s.Draft = contract.ModelMessage{}
	s.Status = Running
	if len(s.Pending) > 0 {
		s.Status = WaitingForTool
	}
}

// addMessage adds m, added by the event of seq, to the conversation.
//
// A full slice doubles, as append does only while it is small: a long
// conversation (a resumed session of a million events holds hundreds of
// thousands of messages) is then copied a few times in all, not once per
// quarter of its length. Earlier states keep the old storage, as with
// append.
func (s *State) addMessage(m contract.ModelMessage, seq uint64) {
	s.Messages = append(grow(s.Messages), m)
	s.Seqs = append(grow(s.Seqs), seq)
}

// grow returns a slice with room for one more element: s itself when it
// has some, else a copy with twice its length of room (16 at least).
func grow[S ~[]E, E any](s S) S {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 16))
}

// applyTool applies the events of a tool call's execution and its
// observation.
func (s *State) applyTool(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.InvocationStarted:
		s.InFlight = append(s.InFlight, Invocation{IntentID: e.IntentID, InvocationID: e.InvocationID, ToolName: e.ToolName})
	case *contract.InvocationCompleted:
		if i := slices.IndexFunc(s.InFlight, func(in Invocation) bool { return in.InvocationID == e.InvocationID }); i >= 0 {
			inv := s.InFlight[i]
			inv.Exit, inv.ExitCode = e.Exit, e.ExitCode
			s.InFlight = slices.Concat(s.InFlight[:i], s.InFlight[i+1:])
			s.Ended = append(withoutIntent(s.Ended, inv.IntentID), inv)
		}
	case *contract.ToolObservation:
		// Every observation's files join the ledger, whether or not its
		// intent is pending: the tool runtime keeps its own view of the
		// ledger during a turn the same way (see tool.Runtime.Run).
		s.Ledger = s.Ledger.With(e.Files...)
		s.observe(&e.Observation, env.Seq)
	}
}

// observe removes the observed intent from Pending and adds its result to
// the conversation. An observation of an intent that is not pending is
// recorded in the log but changes nothing here.
func (s *State) observe(o *contract.Observation, seq uint64) {
	i := slices.IndexFunc(s.Pending, func(in contract.ToolIntent) bool { return in.ID == o.IntentID })
	if i < 0 {
		return
	}
	in := s.Pending[i]
	s.Pending = slices.Concat(s.Pending[:i], s.Pending[i+1:])
	s.Ended = withoutIntent(s.Ended, o.IntentID)
	if in.Origin == contract.OriginUser {
		s.addMessage(contract.ModelMessage{Role: contract.RoleUser, Text: ranByUser(in, o)}, seq)
		return
	}
	s.addMessage(contract.ModelMessage{
		Role: contract.RoleTool,
		Result: &contract.ToolResult{
			IntentID: in.ID, ProviderCallID: in.ProviderCallID, ToolName: in.ToolName,
			Text: o.Text, IsError: !o.OK, ArtifactRef: o.ArtifactRef, OmittedBytes: o.OmittedBytes,
		},
	}, seq)
	if len(s.Pending) == 0 && s.Status == WaitingForTool {
		s.Status = Running
	}
}

// withoutIntent returns invs without the invocations of intent id: invs
// itself when it holds none, a new slice otherwise (earlier states share
// the old one).
func withoutIntent(invs []Invocation, id string) []Invocation {
	of := func(inv Invocation) bool { return inv.IntentID == id }
	if !slices.ContainsFunc(invs, of) {
		return invs
	}
	return slices.DeleteFunc(slices.Clone(invs), of)
}

// withoutCalls returns pending without the intents named by calls, as a new
// slice.
func withoutCalls(pending []contract.ToolIntent, calls []contract.ToolCall) []contract.ToolIntent {
	if len(calls) == 0 {
		return pending
	}
	out := make([]contract.ToolIntent, 0, len(pending))
	for _, in := range pending {
		if !slices.ContainsFunc(calls, func(c contract.ToolCall) bool { return c.IntentID == in.ID }) {
			out = append(out, in)
		}
	}
	return out
}

// join appends a block of text to earlier blocks of the same message,
// separated by a blank line.
func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}
