package hook

import (
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

const (
	// DefaultTimeout is the timeout of a hook that sets none, as Claude
	// Code's.
	DefaultTimeout = 60 * time.Second
	// defaultStopContinues is how many times Stop hooks may make one run
	// go on when Options.MaxStopContinues is 0.
	defaultStopContinues = 2
)

// Events are the hook events rein runs, in Claude Code's names.
var Events = []string{
	contract.HookPreToolUse, contract.HookPostToolUse, contract.HookUserPromptSubmit,
	contract.HookSessionStart, contract.HookStop, contract.HookSubagentStop,
}

// Hook is one hook command: run at Event when Matcher matches (the tool
// events only).
type Hook struct {
	// Event is one of Events (contract.HookPreToolUse...).
	Event string
	// Matcher is a regular expression over tool names, matched whole
	// ("Bash" is ^(?:Bash)$), against rein's name of the tool and Claude
	// Code's when it has one (bash is Bash); "" and "*" match every tool.
	// The other events ignore it.
	Matcher string
	// Command is run with `sh -c`.
	Command string
	// Timeout bounds a run; 0 means DefaultTimeout.
	Timeout time.Duration
	// Source is where the hook was configured: file[:line].
	Source string
}

// Check says what is wrong with h: an unknown event, no command, or a
// matcher that is not a regular expression; nil when nothing.
func (h Hook) Check() error {
	why := h.problem()
	if why == "" {
		return nil
	}
	where := h.Source
	if where == "" {
		where = "a hook"
	}
	return errors.New("hook: " + where + ": " + h.Event + " hook: " + why)
}

// problem is what Check finds wrong with h, "" for nothing.
func (h Hook) problem() string {
	switch {
	case !slices.Contains(Events, h.Event):
		return "rein runs no hook event named " + h.Event
	case h.Command == "":
		return "it has no command"
	}
	if _, err := compileMatcher(h.Matcher); err != nil && h.Event != contract.HookPreToolUse {
		return "its matcher " + strconv.Quote(h.Matcher) + " is not a regular expression: " + err.Error()
	}
	return ""
}

// Options configure a Runner. The zero value runs no hooks.
type Options struct {
	// Hooks are the hooks, in the order of the configuration: the order
	// their HookRan events come in.
	Hooks []Hook
	// Dir is the workspace root: where hooks run, and their cwd,
	// CLAUDE_PROJECT_DIR and REIN_PROJECT_DIR; "" means the process's
	// working directory.
	Dir string
	// Environ is the environment hooks are made from ("NAME=value"), nil
	// meaning os.Environ(); Passthrough and Secrets are as for
	// builtin.ToolEnv: credentials are removed from it unless named in
	// Passthrough, and Secrets are also cut out of what a hook's output
	// puts in an event.
	Environ, Passthrough, Secrets []string
	// Strip makes a hook's environment of Environ, Passthrough and
	// Secrets: builtin.ToolEnv, the tools' own (passed in, since the
	// tools' package cannot be imported here). nil keeps only PATH, HOME,
	// the locale and the terminal.
	Strip func(environ, passthrough, secrets []string) []string
	// Session is the session's id, REIN_SESSION_ID and session_id.
	Session string
	// Transcript is the path of the session's events.jsonl, the
	// transcript_path hooks are given; "" gives none.
	Transcript string
	// MaxStopContinues is how many times Stop hooks may make one run go
	// on; 0 means 2, a negative value never.
	MaxStopContinues int
	// Mode returns the permission mode now, rein's (default,
	// accept-edits, plan, yolo) or Claude Code's (default, acceptEdits,
	// plan, bypassPermissions) name: hooks are given Claude Code's as
	// permission_mode. nil means default.
	Mode func() string
	// Logger receives diagnostics (a hook that failed); nil means
	// discard.
	Logger *slog.Logger
}

// Runner runs the hooks of a session. A nil *Runner runs nothing: its
// methods return the zero Outcome. It is safe for concurrent use.
type Runner struct {
	opts  Options
	hooks []compiled
	env   []string
	dir   string // where hooks run
}

// compiled is a hook with its matcher compiled; re nil matches every tool.
type compiled struct {
	Hook
	re *regexp.Regexp
}

// New returns the runner of opts (nil: no hooks). A hook that Check
// refuses is left out, and logged: the caller reports Check's problems to
// the person before. New returns nil when there is no hook to run, so
// that a session without hooks pays nothing.
func New(opts *Options) *Runner {
	if opts == nil || len(opts.Hooks) == 0 {
		return nil
	}
	r := &Runner{opts: *opts}
	if r.opts.Logger == nil {
		r.opts.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case r.opts.MaxStopContinues == 0:
		r.opts.MaxStopContinues = defaultStopContinues
	case r.opts.MaxStopContinues < 0:
		r.opts.MaxStopContinues = 0
	}
	for _, h := range r.opts.Hooks {
		if err := h.Check(); err != nil {
			r.opts.Logger.Warn("hook: a hook is left out", "err", err)
			continue
		}
		if h.Timeout <= 0 {
			h.Timeout = DefaultTimeout
		}
		// Check let through only a gate's matcher that does not compile,
		// and a gate whose matcher cannot be read runs before every tool.
		re, _ := compileMatcher(h.Matcher)
		r.hooks = append(r.hooks, compiled{Hook: h, re: re})
	}
	if len(r.hooks) == 0 {
		return nil
	}
	r.dir = r.opts.Dir
	if r.dir == "" {
		r.dir, _ = os.Getwd() // "" when it cannot be known: hooks then run where rein does
	}
	r.env = hookEnv(&r.opts, r.dir)
	return r
}

// exactMatcher is a matcher of names only ("Bash", "Edit|Write"), which
// Claude Code matches exactly; any other is a regular expression it
// matches anywhere in the name ("^mcp__", "Notebook.*").
var exactMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|]+$`) })

// compileMatcher compiles a matcher as Claude Code reads it; nil for one
// that matches every name.
func compileMatcher(m string) (*regexp.Regexp, error) {
	switch {
	case m == "" || m == "*":
		return nil, nil
	case exactMatcher().MatchString(m):
		return regexp.Compile("^(?:" + m + ")$")
	}
	return regexp.Compile(m)
}

// Warning says what a person should know of h that does not leave it out:
// a PreToolUse hook whose matcher rein cannot read (a lookahead, written
// for JavaScript) runs before every tool, since a gate fails closed. ""
// for nothing.
func (h Hook) Warning() string {
	if _, err := compileMatcher(h.Matcher); err != nil && h.Event == contract.HookPreToolUse {
		return "its matcher " + strconv.Quote(h.Matcher) + " is not a regular expression rein can read (" + err.Error() +
			"), so this gate runs before every tool"
	}
	return ""
}

// Has reports whether a hook is configured for event.
func (r *Runner) Has(event string) bool {
	if r == nil {
		return false
	}
	return slices.ContainsFunc(r.hooks, func(h compiled) bool { return h.Event == event })
}

// StopLimit is how many times Stop hooks may make one run go on. The
// caller counts, and past the limit records the Stop's outcome made
// [Outcome.Ignore]d.
func (r *Runner) StopLimit() int {
	if r == nil {
		return 0
	}
	return r.opts.MaxStopContinues
}

// ToolCall is a tool call as the tool hooks see it.
type ToolCall struct {
	// IntentID is the intent's id (tool_use_id); Tool rein's name of the
	// tool; Input its input as the model gave it.
	IntentID, Tool string
	Input          json.RawMessage
}

// ToolResponse is how a call ended, for PostToolUse: whether it
// succeeded, the observation's text (the caller bounds it) and the exit
// code of a command.
type ToolResponse struct {
	OK       bool
	Text     string
	ExitCode int
}

// Outcome is what the hooks of one event decided, and the HookRan events
// to record, one per hook command run, in the order of the configuration.
// The zero Outcome decides nothing.
type Outcome struct {
	// Decision is contract.HookAllow, HookDeny or HookAsk (PreToolUse:
	// deny over ask over allow across the hooks), HookBlock
	// (UserPromptSubmit: the prompt is not sent; Stop: the run goes on),
	// or "" for none.
	Decision string
	// Reason is the reason of the decision (those of the hooks that made
	// it, one a line).
	Reason string
	// Context is what the hooks add for the model, one hook's after the
	// other's; each HookRan carries its own, which is what the state
	// reads.
	Context string
	// Ran are the events to record.
	Ran []contract.HookRan
}

// Ignore makes o, a Stop's outcome past the limit of continues, decide
// nothing: its blocking runs are recorded with no decision and a reason
// saying why they were ignored.
func (o *Outcome) Ignore(why string) {
	if o.Decision == "" {
		return
	}
	o.Decision, o.Reason = "", why
	for i := range o.Ran {
		if o.Ran[i].Decision != "" {
			r := &o.Ran[i]
			r.Reason = why + " (it asked: " + r.Reason + ")"
			r.Decision = ""
		}
	}
}
