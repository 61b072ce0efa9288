// Package registry holds the tool definitions a session knows: what each
// tool is called, what it takes, how risky it is, whether it may run beside
// others, and when the model may see it.
//
// A tool exists for the model only through the registry: the projection
// asks [Registry.Visible] which tools go into a request, and the tool
// runtime looks an intent's tool up with [Registry.Lookup]. The registry
// executes nothing.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/state"
)

// Risk is what a tool can do to the world.
type Risk string

// The risks of a tool, from least to most reaching.
const (
	RiskRead    Risk = "read"
	RiskWrite   Risk = "write"
	RiskExecute Risk = "execute"
	RiskNetwork Risk = "network"
)

// Concurrency says whether a tool may run beside others in one turn.
type Concurrency string

// The concurrency classes.
const (
	// Safe tools of one turn may run together.
	Safe Concurrency = "safe"
	// Exclusive tools run alone, in the order proposed.
	Exclusive Concurrency = "exclusive"
)

// ErrDuplicate is returned when a tool name is registered twice.
var ErrDuplicate = errors.New("registry: duplicate tool name")

// Executor runs a tool. It is called only by the tool runtime, after
// validation and permission, never by the kernel or a provider, and it may
// be called from several goroutines at once for a [Safe] tool.
//
// It writes what it has to show to call.Output and returns how it ended.
// An error is the tool's own failure (a missing file, an edit that does
// not apply): data the model is shown as the end of the output, never a
// reason to stop the run. An executor returns promptly once ctx is done,
// having stopped whatever it started.
type Executor func(ctx context.Context, call *Call) (Result, error)

// Call is one invocation of a tool, as its executor receives it.
type Call struct {
	// IntentID names the intent, InvocationID this invocation of it.
	IntentID, InvocationID string
	// Input is the intent's input, valid against the tool's schema and
	// accepted by its Check.
	Input json.RawMessage
	// Output receives the tool's output. The runtime keeps a bounded head
	// and tail of it for the model and stores all of it (up to a cap) as
	// the session artifact, so a tool may write as much as it has. Writes
	// succeed even past the cap. Output is not safe for concurrent use:
	// a tool writing from several goroutines serialises its writes.
	Output io.Writer
	// Timeout is how long the invocation may run; ctx carries the same
	// deadline.
	Timeout time.Duration
	// Ledger is the session's read ledger as the invocation starts: the
	// state's when the turn's model call finished, with the files of the
	// observations of this turn recorded since (an edit sees the write of
	// the edit before it). A tool that changes a file checks against it
	// again here, since the file may have changed since Check. It is an
	// immutable value, safe to read from the goroutines of a batch.
	Ledger state.Ledger
	// Unsandboxed runs the invocation with no OS sandbox, whatever the
	// tool's own policy. Only the tool runtime sets it, for a tool with a
	// [Tool.Sandbox] hook, when the sandbox refused something to an
	// earlier invocation of the same intent and a person then allowed
	// this one run outside it; tool.invocation.started records it as
	// sandbox mode "off". A tool with no Sandbox hook ignores it.
	Unsandboxed bool
	// Report records an event of the tool's own in the session's log
	// (task.started, job.started), caused by the invocation's start, or,
	// for a delta (contract.IsDelta: task.event), shows it to whoever
	// watches the run live and stores nothing. It returns once the
	// runtime has done so, from the goroutine that records events, with
	// the seq the event was stored at (0 for a delta, or a sink that does
	// not say) or the log's error. It may be called from any goroutine
	// until Execute returns, never after; nil (a call not made by the
	// runtime) means nothing is recorded.
	Report func(e contract.Event) (seq uint64, err error)
}

// Result is how an invocation ended, apart from its output. The zero
// Result is a success.
type Result struct {
	// ExitCode is the exit code of the process the tool ran; a tool that
	// runs no process leaves it 0 (the runtime records 1 when it returned
	// an error).
	ExitCode int
	// Files are the stamps of the files the invocation read whole or
	// wrote, as it left them, with resolved absolute paths; nil means
	// none. The runtime records them on the call's tool.observation, and
	// the state folds them into its ledger: a tool never records anything
	// itself. A tool that wrote a file and then failed reports it all the
	// same.
	Files []contract.FileStamp
	// SandboxDenied says what the OS sandbox refused the process, in
	// sentences for the model and the person (see sandbox.Explain), when
	// the process failed because of it; empty otherwise. A tool that sets
	// it has written the same text to its output already. The runtime
	// offers a person to run the call again outside the sandbox (see
	// [Call.Unsandboxed]), or, when it cannot ask, adds to the observation
	// how to allow such commands.
	SandboxDenied string
}

// CheckError is a precondition that an intent's input does not meet, as a
// tool's Check reports it: Code is the tool.validation code (stale_file,
// precondition_failed...).
type CheckError struct {
	Code    contract.Code
	Message string
	// Current says the precondition is about the world as it is now (a
	// file's presence, kind or content, what the session has read of it),
	// not about the input alone, so that a call of the same turn that
	// runs before this one may make it hold: an edit of text an earlier
	// edit adds, a file a command creates. The tool runtime refuses such
	// an intent at validation only when no call admitted before it in the
	// turn could change that (see tool.Runtime.Run); the tool checks it
	// again when it runs. false means the input itself is wrong, whatever
	// runs first.
	Current bool
}

// Error returns the check's message, as the model reads it.
func (e *CheckError) Error() string { return e.Message }

// Tool is one tool definition.
type Tool struct {
	// Name is what the model calls the tool: letters, digits, '_' and '-',
	// at most 64 characters (the strictest vendor rule).
	Name        string
	Description string
	// InputSchema is the JSON schema of the tool's input (an object schema).
	InputSchema json.RawMessage
	Risk        Risk
	ReadOnly    bool
	Concurrency Concurrency
	// ConcurrencyOf, when set, says the concurrency of an invocation with
	// input in place of Concurrency (a task whose agent may write runs
	// alone, one whose agent only reads beside others). It is called on
	// input that passed validation.
	ConcurrencyOf func(input json.RawMessage) Concurrency
	// MaxParallel bounds how many invocations of this tool run together
	// in one batch; 0 means only the runtime's bound.
	MaxParallel int
	// Writes, when set, says whether an invocation with input may change
	// the workspace, in place of !ReadOnly (a task whose agent may write
	// does; one whose agent only reads does not): the tool runtime takes
	// a checkpoint before and after each one that may. It is called on
	// input that passed validation. bash is judged by the policy's reading
	// of its command.
	Writes func(input json.RawMessage) bool
	// Visible says whether the model may see the tool in a given state;
	// nil means always.
	Visible func(s *state.State) bool
	// Check tests the preconditions that the schema cannot express (a path
	// inside the workspace, a file read before it is edited), on input that
	// is valid against the schema, with ledger, the session's read ledger
	// when the turn's model call finished (see state.Ledger). It runs at
	// validation, before permission is asked, so it must act on nothing
	// (no write, no process, no request) and stay cheap: a stat, a read of
	// the file the call names. Everything a tool can check so is checked
	// here, so a call that cannot apply is refused with its reason and
	// never reaches a question; the executor checks it again, since the
	// world may change before it runs. A returned *CheckError gives the
	// validation code, any other error is precondition_failed. nil means
	// no preconditions.
	Check func(input json.RawMessage, ledger state.Ledger) error
	// Timeout returns how long an invocation with input may run; nil, or a
	// zero duration, means the runtime's default.
	Timeout func(input json.RawMessage) time.Duration
	// Execute runs the tool; nil means the tool is declared but this build
	// has no way to run it.
	Execute Executor
	// Sandbox returns the OS sandbox an invocation with input runs in, as
	// tool.invocation.started records it; nil, or a nil result, means no
	// sandbox is involved (the tool starts no process). A tool with this
	// hook honours [Call.Unsandboxed]; the runtime records such a call as
	// mode "off" without asking the hook.
	Sandbox func(input json.RawMessage) *contract.SandboxSpec
	// Preview returns what an invocation with input would change, for a
	// person asked to approve it: the unified diff of a file tool's
	// write, computed from the files as they are now, writing nothing.
	// It is called only by the tool runtime, with input that passed
	// validation, from the goroutine that runs the intents. An error (an
	// unreadable file, an edit that does not apply) means no preview: the
	// call fails as usual if it runs. nil means the tool has none. The
	// runtime bounds what it returns.
	Preview func(input json.RawMessage) (string, error)
	// Streams says the tool's output is worth watching while it runs (a
	// command's): the runtime passes it on as it comes, coalesced, to a
	// sink that shows it (see tool.Live). false means it is seen only once
	// the tool ends.
	Streams bool
	// Resumable says a call of the tool that was running when rein died
	// is run again when the session resumes, rather than recorded as
	// interrupted: the tool itself picks up where it stopped and runs
	// nothing twice (a task resumes its child's session). false for every
	// tool whose effects a second run would repeat.
	Resumable bool
	// Source says where the tool comes from: "" for rein's own tools,
	// "mcp:NAME" for a tool of the MCP server NAME. What a tool from
	// elsewhere says of itself (read-only, its risk) is its author's
	// claim: the permission policy asks before running one unless a rule
	// allows it.
	Source string
}

// ConcurrencyFor returns the concurrency of an invocation of t with input
// (see ConcurrencyOf).
func (t *Tool) ConcurrencyFor(input json.RawMessage) Concurrency {
	if t.ConcurrencyOf != nil {
		return t.ConcurrencyOf(input)
	}
	return t.Concurrency
}

// External reports whether the tool is not rein's own (see Tool.Source).
func (t *Tool) External() bool { return t.Source != "" }

// Spec returns the tool as the model sees it.
func (t *Tool) Spec() contract.ToolSpec {
	return contract.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
}

// Registry is an ordered set of tool definitions with unique names. The
// zero value is an empty registry ready to use. It is safe for concurrent
// use: tools from an MCP server join and leave while a session runs (see
// [Registry.Replace]).
type Registry struct {
	mu    sync.RWMutex
	tools []Tool
}

// New returns a registry holding tools, in order.
func New(tools ...Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds t. A duplicate name wraps [ErrDuplicate]; a name, risk,
// concurrency or schema that is not valid is an error too.
func (r *Registry) Register(t Tool) error {
	if err := check(t); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index(t.Name) >= 0 {
		return fmt.Errorf("%w: %q", ErrDuplicate, t.Name)
	}
	r.tools = append(r.tools, t)
	return nil
}

// Replace removes the tools of source and adds tools in their place,
// after every other tool, in one step: a reader sees the old set or the
// new one. Every tool of tools must have that Source. It returns the names
// added and removed (a tool in both sets, changed or not, is in neither
// list, and takes its new definition); on an error nothing changes.
func (r *Registry) Replace(source string, tools []Tool) (added, removed []string, err error) {
	if source == "" {
		return nil, nil, errors.New("registry: Replace needs a source; rein's own tools are not replaced")
	}
	names := map[string]bool{}
	for _, t := range tools {
		if t.Source != source {
			return nil, nil, fmt.Errorf("registry: tool %q comes from %q, not %q", t.Name, t.Source, source)
		}
		if err := check(t); err != nil {
			return nil, nil, err
		}
		if names[t.Name] {
			return nil, nil, fmt.Errorf("%w: %q", ErrDuplicate, t.Name)
		}
		names[t.Name] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := make([]Tool, 0, len(r.tools)+len(tools))
	old := map[string]bool{}
	for _, t := range r.tools {
		switch {
		case t.Source != source:
			if names[t.Name] {
				return nil, nil, fmt.Errorf("%w: %q (of %s)", ErrDuplicate, t.Name, cmpSource(t.Source))
			}
			kept = append(kept, t)
		case names[t.Name]:
			old[t.Name] = true
		default:
			removed = append(removed, t.Name)
		}
	}
	for _, t := range tools {
		if !old[t.Name] {
			added = append(added, t.Name)
		}
	}
	r.tools = append(kept, tools...)
	return added, removed, nil
}

// cmpSource names a tool's source for an error.
func cmpSource(s string) string {
	if s == "" {
		return "rein"
	}
	return s
}

// index returns the place of the tool called name, or -1; r.mu is held.
func (r *Registry) index(name string) int {
	return slices.IndexFunc(r.tools, func(t Tool) bool { return t.Name == name })
}

// check tests a tool definition on its own.
func check(t Tool) error {
	if !id.ValidName(t.Name, id.MaxName) {
		return fmt.Errorf("registry: tool name %q: want 1 to 64 letters, digits, '_' or '-'", t.Name)
	}
	switch t.Risk {
	case RiskRead, RiskWrite, RiskExecute, RiskNetwork:
	default:
		return fmt.Errorf("registry: tool %q: unknown risk %q", t.Name, t.Risk)
	}
	switch t.Concurrency {
	case Safe, Exclusive:
	default:
		return fmt.Errorf("registry: tool %q: unknown concurrency %q", t.Name, t.Concurrency)
	}
	var schema struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema.Type != "object" {
		return fmt.Errorf("registry: tool %q: input schema must be a JSON object schema with \"type\": \"object\"", t.Name)
	}
	return nil
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	i := r.index(name)
	if i < 0 {
		return Tool{}, false
	}
	return r.tools[i], true
}

// All returns every tool, in registration order.
func (r *Registry) All() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.tools)
}

// Visible returns the specs of the tools the model may see in s, in
// registration order. It never returns nil.
func (r *Registry) Visible(s *state.State) []contract.ToolSpec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]contract.ToolSpec, 0, len(r.tools))
	for i := range r.tools {
		t := &r.tools[i]
		if t.Visible == nil || t.Visible(s) {
			out = append(out, t.Spec())
		}
	}
	return out
}
