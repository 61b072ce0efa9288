// Package cli is rein's command line: it parses commands and flags, turns
// what the person types into [Runtime.Send], and renders what comes back.
//
// The CLI is thin on purpose. It never calls a provider, never edits state
// and never executes a tool: cmd/rein builds the runtime (provider, tools,
// log) and hands it over through [Deps].
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tui"
)

// Exit codes of rein.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

// Runtime is the runtime facade as the CLI uses it.
type Runtime interface {
	Send(ctx context.Context, in kernel.Input) iter.Seq2[contract.Envelope, error]
	Compact(ctx context.Context, focus string) iter.Seq2[contract.Envelope, error]
	Resume(ctx context.Context, res kernel.Resume) iter.Seq2[contract.Envelope, error]
	RewindPoints() []kernel.RewindPoint
	PlanRewind(seq uint64, scope string) (kernel.RewindPlan, error)
	Rewind(ctx context.Context, seq uint64, scope string, force bool) (kernel.RewindPlan, error)
	State() state.State
	Session() string
}

// Spec is what the person asked for on the command line, for the wiring to
// build a runtime from.
type Spec struct {
	// Provider and Model are the --provider and --model flags; empty means
	// the wiring's default.
	Provider string
	Model    string
	// BaseURL is the --base-url flag; empty means the configuration's or
	// the provider's default.
	BaseURL string
	// Fallback is the --fallback flag: models to switch to, as "provider"
	// or "provider:model"; nil means the configuration's.
	Fallback []string
	// Script is the --script flag: the script file of the scripted provider.
	Script string
	// Offline opens a session with no model, no MCP server and no hook:
	// what rein rewind needs, which calls no model and runs nothing.
	Offline bool
	// Cwd is the workspace.
	Cwd string
	// PermissionMode is the --permission-mode flag (default, accept-edits,
	// plan, yolo); empty means the configuration's, else default.
	PermissionMode string
	// Allow and Deny are the --allow and --deny rules, added to the
	// configuration's.
	Allow, Deny []string
	// AddDirs are the --add-dir directories: more roots the file tools may
	// touch besides the workspace.
	AddDirs []string
	// MaxTurns is the --max-turns flag; 0 means the default.
	MaxTurns int
	// Sandbox is the --sandbox flag (workspace-write, read-only, off);
	// empty means the configuration's, else workspace-write.
	Sandbox string
	// Network is the --network flag: commands may reach the network.
	Network bool
	// Approver asks the person when a tool needs approval; nil means the
	// run is headless and never waits (an ask is denied, with a hint).
	Approver kernel.Approver
	// SessionDir is the --session-dir flag: where sessions are kept;
	// empty means the configuration's, else the default.
	SessionDir string
	// Session is the session to resume, by full id; Last, when Session is
	// empty, means the most recent session of Cwd. Both are for Resume
	// only.
	Session string
	Last    bool
	// MaxCost is the --max-cost flag: a run ends, as budget, after the
	// model call that takes its cost past it, in US dollars; 0 means the
	// configuration's, else no budget.
	MaxCost float64
	// ReasoningEffort is the --reasoning-effort flag: the reasoning level
	// asked of a model that reasons; empty means the configuration's,
	// else the model's default.
	ReasoningEffort string
	// TrustProject is the --trust-project flag: the project's files that
	// start programs (.mcp.json) or run commands (.claude/settings.json's
	// hooks) count as trusted for this run, without asking or remembering.
	TrustProject bool
	// Trust asks the person whether to trust such a file (and remembers a
	// yes in their own config.toml); nil means nobody can be asked, and an
	// untrusted file is left out, with a warning.
	Trust func(ctx context.Context, q TrustQuestion) (bool, error)
	// PickModel asks the person which model to use when neither the
	// flags nor the configuration name one and the server offers several
	// (an OpenAI-compatible server at a base URL of theirs); it returns
	// one of q.Models. nil means nobody can be asked (exec, a pipe), and
	// the wiring says which models there are and how to name one.
	PickModel func(ctx context.Context, q ModelQuestion) (string, error)
}

// ModelQuestion asks which of the models a server offers to use.
type ModelQuestion struct {
	// Server is the endpoint, shown without credentials.
	Server string
	// Models are the models it offers, in its order: two or more.
	Models []string
}

// TrustQuestion asks whether a project's file may start programs or run
// commands on the person's behalf.
type TrustQuestion struct {
	// Path is the file; Changed says it was trusted before and has
	// changed since.
	Path    string
	Changed bool
	// What are the programs and commands it would start, one a line.
	What []string
}

// Session is a runtime opened for one command, with what the CLI shows
// about it.
type Session struct {
	Runtime Runtime
	// Dir is where the session's log lives, shown to the person; may be
	// empty.
	Dir string
	// Close releases the session (syncs and closes its log); may be nil.
	Close func() error
	// Gates are what the resume gate found, for a resumed session.
	Gates map[string]string
	// Sandbox says in one line how the session's commands are contained
	// ("sandbox: workspace-write (...)", "sandbox: off; ..."), said at the
	// start; empty says nothing.
	Sandbox string
	// About returns the facts /status shows, in order: provider,
	// endpoint, model and window, the configuration files (a file made
	// during the session, an answer's, included), the sandbox, the files
	// of instructions the system prompt holds (AGENTS.md, CLAUDE.md: the
	// first keyed "instructions", one a fact, with their bytes and what
	// was cut); nil shows what the runtime itself knows. It is called
	// each time /status is.
	About func() []Fact
	// Readable, when set, says whether the person may attach the file at
	// an absolute path to a message (@path): the session's read rules;
	// safe to call from any goroutine.
	Readable func(abs string) error
	// Ready, when set, waits until the session's MCP servers have started
	// or failed (each within its startup timeout), for a headless run: it
	// has no person typing while they start, and its model should be
	// offered the tools it was configured with. An interactive session
	// never waits: a server's tools join when it is up.
	Ready func(ctx context.Context)
	// Extensions, when set, gives the lines /mcp, /hooks, /skills and
	// /agents show (kind "mcp", "hooks", "skills", "agents"): what is
	// loaded, from which file, what failed (a problem's Key starts with
	// "!"); it must not block.
	Extensions func(kind string) []Fact
	// Notify is how the terminal UI tells the person that a long run ended
	// or an approval waits: "bell", "osc9" or "off"; empty means "bell".
	Notify string
	// Models, when set, lists the models /model offers ("provider:model"):
	// the catalogue's of the providers configured, and an OpenAI-compatible
	// server's own list, asked when it is called (within a few seconds);
	// an error comes with what could be listed anyway. Nil means the
	// runtime's Known.
	Models func(ctx context.Context) ([]string, error)
}

// Fact is one line of /status: a key and what it is; the terminal UI's,
// so that the wiring's facts reach it as they are.
type Fact = tui.Fact

// Demo is the offline demo as the wiring prepared it.
type Demo struct {
	Session
	// Workspace is the temporary project the demo works on.
	Workspace string
	// Prompt is the demo's first message.
	Prompt string
	// Want is the status the run ends in when it goes as designed.
	Want state.Status
	// Explain is printed after a run that went as designed.
	Explain string
	// Installed says a rein binary is on the PATH, so the commands the demo
	// suggests afterwards can be typed as they are shown.
	Installed bool
}

// DemoOptions say how the offline demo runs.
type DemoOptions struct {
	// SessionDir is where its session is kept; empty means the
	// configuration's, else the default.
	SessionDir string
	// Approver, when set, is who is asked: the demo then runs in default
	// mode, so that the person answers its edit's approval, diff shown.
	// Nil runs it in accept-edits, asking nobody (a trace, --json).
	Approver kernel.Approver
}

// ErrUsage marks an error caused by how rein was called; the CLI exits
// with [ExitUsage].
var ErrUsage = errors.New("usage")

// Deps is what cmd/rein hands the CLI.
type Deps struct {
	// Version is the version line printed by `rein version`.
	Version string
	// Open builds the runtime for a session. An error wrapping ErrUsage
	// (an unknown provider, a missing script) exits with code 2.
	Open func(ctx context.Context, spec Spec) (*Session, error)
	// Demo builds the offline demo's session, as opts says.
	Demo func(ctx context.Context, opts DemoOptions) (*Demo, error)
	// Resume opens the existing session spec names (Session or Last) for
	// writing, passes its resume gate and builds its runtime. An error
	// wrapping session.ErrNotFound, ErrNewer, ErrGate or ErrLocked says
	// why it cannot go on.
	Resume func(ctx context.Context, spec Spec) (*Session, error)
	// Store returns the session store for read-only commands: dir is the
	// --session-dir flag, empty meaning the configuration's, else the
	// default; cwd is the working directory.
	Store func(cwd, dir string) (*session.Store, error)
	// Normalize prints what the adapter for api yields for the raw
	// response body r, deltas included, as JSON lines on w (rein debug
	// normalize); nil means the command is not available.
	Normalize func(ctx context.Context, api string, r io.Reader, w io.Writer) error
	// Stdin, Stdout and Stderr default to the process's.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Extensions answers rein mcp, rein hooks and rein skills; its nil
	// functions make those commands say this build has none.
	Extensions Extensions
	// Now is the clock of what the CLI records itself (a fork's time);
	// nil means time.Now.
	Now func() time.Time
	// Interrupts, when not nil, wraps a context so that Ctrl-C (or
	// SIGTERM) cancels it, with an [*Interrupt] as the cause; nil means
	// signals are not caught.
	Interrupts func(ctx context.Context) (context.Context, context.CancelFunc)
	// Warnings, when not nil, sends rein's warning lines ("rein: warning:
	// ...") to to instead of stderr until restore is called: the terminal
	// UI shows them as notes, since a line written to the terminal under
	// it would tear its frame. to may be called from any goroutine.
	Warnings func(to func(line string)) (restore func())
}

// Interrupt is the cause of a context cancelled by a signal.
type Interrupt struct {
	// Signal names the signal ("interrupt", "terminated", "hangup").
	Signal string
	// Code is the exit code it calls for: 128 plus the signal number.
	Code int
}

func (i *Interrupt) Error() string { return "interrupted by " + i.Signal }

// flags are the options shared by the session commands.
type flags struct {
	provider, model, script, baseURL string
	fallback                         []string
	json, deltas                     bool
	api                              string
	permissionMode, sandbox          string
	network                          bool
	allow, deny, addDirs             []string
	maxTurns                         int
	maxCost, reasoningEffort         string
	sessionDir                       string
	// compact
	focus string
	// rewind
	rewindTo                           uint64
	rewindCode, rewindConv, rewindBoth bool
	rewindList, rewindForce            bool
	// sessions, resume, fork, log, why
	all, reindex, last, interactive bool
	// plain asks for the line mode instead of the terminal UI.
	plain bool
	// cont (-c, --continue) goes on with the latest session of the
	// working directory's repository instead of starting one.
	cont bool
	// version (-v, --version) prints the version line, as rein version
	// does.
	version bool
	// trustProject counts the project's files that start programs
	// (.mcp.json, .claude/settings.json) as trusted for this run.
	trustProject bool
	at           uint64
	types        []string
	// children (rein log --children) adds the children's events.
	children bool
}

// Execute runs rein with args (without the program name) and returns the
// process exit code.
func Execute(ctx context.Context, args []string, deps Deps) int {
	if deps.Stdin == nil {
		deps.Stdin = os.Stdin
	}
	if deps.Stdout == nil {
		deps.Stdout = os.Stdout
	}
	if deps.Stderr == nil {
		deps.Stderr = os.Stderr
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Interrupts == nil {
		deps.Interrupts = func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithCancel(ctx)
		}
	}
	out := &output{w: deps.Stdout}
	deps.Stdout = out
	a := &app{deps: deps}
	root := a.commands()
	if args == nil {
		args = []string{} // cobra reads os.Args for nil
	}
	root.SetArgs(args)
	root.SetIn(deps.Stdin)
	root.SetOut(deps.Stdout)
	root.SetErr(deps.Stderr)
	err := root.ExecuteContext(ctx)
	var ex exitError
	switch {
	case err == nil:
		return a.code
	case out.closed.Load() && errors.Is(err, syscall.EPIPE):
		// The reader of stdout went away (rein log ID | head): the
		// command is over, as git log's is; nothing failed. A run that was
		// going on is recorded as cancelled.
		return ExitOK
	case errors.As(err, &ex):
		if ex.msg != "" {
			printf(deps.Stderr, "rein: %s\n", text(ex.msg))
		}
		return ex.code
	case errors.Is(err, session.ErrNotFound):
		printf(deps.Stderr, "rein: %s\n", text(strings.TrimPrefix(err.Error(), "session: not found: ")))
		return ExitUsage
	case errors.Is(err, session.ErrChild):
		printf(deps.Stderr, "rein: %s\n", text(strings.TrimPrefix(err.Error(), session.ErrChild.Error()+": ")))
		return ExitUsage
	case errors.Is(err, ErrUsage):
		printf(deps.Stderr, "rein: %s\n", text(strings.TrimPrefix(err.Error(), "usage: ")))
		return ExitUsage
	case isCobraUsage(err):
		printf(deps.Stderr, "rein: %s\nRun 'rein --help' for usage.\n", text(err.Error()))
		return ExitUsage
	default:
		// The last word of a failed command: an error may quote a
		// provider, a file or a log, and may hold several lines.
		printf(deps.Stderr, "rein: %s\n", text(err.Error()))
		return ExitFailed
	}
}

// output is rein's stdout, which tells when its reader went away: a
// write failed with EPIPE. Only that broken pipe ends a command quietly;
// any other one (a tool's, a provider's) is an error like the rest.
type output struct {
	w      io.Writer
	closed atomic.Bool
}

func (o *output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		o.closed.Store(true)
	}
	return n, err
}

// exitError ends a command with a given code and message.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// isCobraUsage reports whether err is cobra's complaint about the command
// line (unknown flag, unknown command, bad argument count).
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "unknown command", "flag needs an argument", "invalid argument", "accepts ", "requires "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// flagError is the error of a flag cobra could not parse, in rein's
// words: a value of the wrong kind names the flag, the value and what it
// wants (--max-turns: "abc" is not a whole number), as bad usage; any
// other complaint (an unknown flag, a missing value) is cobra's, which
// names the flag already.
func flagError(_ *cobra.Command, err error) error {
	iv, ok := errors.AsType[*pflag.InvalidValueError](err)
	if !ok {
		return err
	}
	f := iv.GetFlag()
	want := map[string]string{
		"int": "a whole number", "int64": "a whole number", "int32": "a whole number",
		"uint": "a whole number, 0 or more", "uint64": "a whole number, 0 or more", "uint32": "a whole number, 0 or more",
		"float64": "a number", "float32": "a number", "bool": "true or false", "duration": "a duration, such as 30s or 5m",
	}[f.Value.Type()]
	if want == "" {
		return fmt.Errorf("%w: --%s: %q is not a valid value", ErrUsage, f.Name, iv.GetValue())
	}
	return fmt.Errorf("%w: --%s: %q is not %s", ErrUsage, f.Name, iv.GetValue(), want)
}

// app holds one execution of the command line.
type app struct {
	deps  Deps
	flags flags
	code  int
	// held keeps rein's warnings off the terminal while the UI opens and
	// runs; nil outside it.
	held *heldWarnings
	// sent says a message was sent in this session.
	sent bool
	// usage sums the tokens and cost of the last run followed, and keeps
	// why it ended.
	usage tally
	// trust asks the person whether to trust a project's file (see
	// Spec.Trust); nil for a run nobody can be asked in.
	trust func(ctx context.Context, q TrustQuestion) (bool, error)
	// pick asks the person which of a server's models to use (see
	// Spec.PickModel); nil when nobody can be asked.
	pick func(ctx context.Context, q ModelQuestion) (string, error)
}

func (a *app) commands() *cobra.Command {
	root := &cobra.Command{
		Use:   "rein [prompt]",
		Short: "rein, a terminal coding agent that keeps the model on a rein",
		Long: "rein asks a model, lets it propose actions, and decides, executes and records\n" +
			"every step in an append-only event log.\n\n" +
			"  rein                 interactive session (the terminal UI; /help inside; Ctrl-D to leave)\n" +
			"  rein \"fix the tests\" interactive session with a first message\n" +
			"  rein -c [\"...\"]      go on with this repository's latest session\n" +
			"  rein exec \"...\"      headless run: answer on stdout, progress on stderr\n" +
			"  rein demo            offline demo against a scripted model",
		Args:          cobra.ArbitraryArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.flags.version {
				printf(cmd.OutOrStdout(), "%s\n", a.deps.Version)
				return nil
			}
			if a.flags.cont {
				return a.goOn(cmd.Context(), "", strings.Join(args, " "), true)
			}
			return a.interactive(cmd.Context(), strings.Join(args, " "))
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.Flags().BoolVar(&a.flags.plain, "plain", false, "use the line mode (a prompt and plain lines) instead of the terminal UI; the default when stdin or stdout is not a terminal, or TERM=dumb")
	root.Flags().BoolVarP(&a.flags.cont, "continue", "c", false, "go on with the most recently active session of this directory's repository (of this directory outside one), showing it first, as rein resume --last -i does")
	root.CompletionOptions.DisableDefaultCmd = true
	// rein's own --version rather than cobra's, whose version template
	// links text/template: a template's method calls go through reflect's
	// MethodByName, which makes the linker keep every exported method of
	// every type (3.7 MB of the binary, all of it mapped at every start).
	root.Flags().BoolVarP(&a.flags.version, "version", "v", false, "print rein's version, as rein version does")
	a.sessionFlags(root)

	exec := &cobra.Command{
		Use:   "exec [prompt | -]",
		Short: "Run one prompt headless: the answer on stdout, progress on stderr",
		Long: "Run one prompt headless: the answer on stdout, progress on stderr. rein never waits for\n" +
			"anyone: what would ask for approval is denied, and the model and you are told which\n" +
			"--allow or --permission-mode would allow it.\n\n" +
			"The prompt is the arguments; with none, or with -, it is read from standard input\n" +
			"(echo \"fix the failing test\" | rein exec). With both a prompt and piped input, the\n" +
			"input is added to the prompt as context, inside <stdin> and </stdin>:\n" +
			"  go test ./... 2>&1 | rein exec \"why does this fail?\"\n\n" +
			"With -c it goes on with this repository's latest session instead, as rein resume --last does.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.exec(cmd.Context(), args)
		},
	}
	a.sessionFlags(exec)
	exec.Flags().BoolVarP(&a.flags.cont, "continue", "c", false, "go on with the most recently active session of this directory's repository (of this directory outside one), as rein resume --last does: the prompt starts its next run; without one, a run rein was killed in is finished")

	demo := &cobra.Command{
		Use:   "demo",
		Short: "Run the offline demo: a scripted model on a small Go project whose test fails",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.demo(cmd.Context())
		},
	}
	demo.Flags().BoolVar(&a.flags.json, "json", false, "print the durable events as JSON lines on stdout, and nothing else there")
	demo.Flags().BoolVar(&a.flags.deltas, "deltas", false, "with --json, print the deltas too")

	root.AddCommand(exec, demo)
	root.AddCommand(a.toolCommands()...)
	root.AddCommand(a.sessionCommands()...)
	root.AddCommand(a.extensionCommands()...)
	root.PersistentFlags().StringVar(&a.flags.sessionDir, "session-dir", "", "where sessions are kept (default $XDG_STATE_HOME/rein/sessions or ~/.local/state/rein/sessions; config key session_dir)")
	return root
}

// toolCommands are rein version and rein debug (normalize).
func (a *app) toolCommands() []*cobra.Command {
	version := &cobra.Command{
		Use:   "version",
		Short: "Print rein's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			printf(cmd.OutOrStdout(), "%s\n", a.deps.Version)
		},
	}
	debug := &cobra.Command{
		Use:   "debug",
		Short: "Tools for debugging rein and providers",
	}
	normalize := &cobra.Command{
		Use:   "normalize --api chat|responses|messages|gemini FILE|-",
		Short: "Print what an adapter yields for a raw response body (SSE), as JSON lines; no network, no key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.normalize(cmd.Context(), args[0])
		},
	}
	normalize.Flags().StringVar(&a.flags.api, "api", "", "the API the body speaks: chat (OpenAI Chat and compatible), responses, messages (anthropic), gemini")
	debug.AddCommand(normalize)
	return []*cobra.Command{version, debug}
}

// normalize runs rein debug normalize.
func (a *app) normalize(ctx context.Context, file string) error {
	if a.deps.Normalize == nil {
		return errors.New("this build cannot normalize streams")
	}
	if a.flags.api == "" {
		return fmt.Errorf("%w: --api is required: chat, responses, messages or gemini", ErrUsage)
	}
	var r io.Reader = a.deps.Stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
		defer f.Close()
		r = f
	}
	return a.deps.Normalize(ctx, a.flags.api, r, a.deps.Stdout)
}

func (a *app) sessionFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.flags.provider, "provider", "", "model provider: openai (and compatible servers), responses, anthropic, gemini, scripted")
	f.StringVar(&a.flags.model, "model", "", "model name, passed to the provider as given")
	f.StringVar(&a.flags.baseURL, "base-url", "", "the provider's endpoint (an OpenAI-compatible server such as http://127.0.0.1:11434/v1)")
	listFlagVar(f, &a.flags.fallback, true, "fallback", "models to fall back to, in order: provider[:model],... (e.g. anthropic,openai:gpt-4.1-mini)")
	f.StringVar(&a.flags.script, "script", "", "script file for --provider scripted")
	f.BoolVar(&a.flags.json, "json", false, "print the durable events as JSON lines on stdout, and nothing else there")
	f.BoolVar(&a.flags.deltas, "deltas", false, "with --json, print the deltas too")
	var modes []string
	for _, m := range kernel.Modes() {
		modes = append(modes, m+" ("+kernel.ModeMeaning(m)+")")
	}
	f.StringVar(&a.flags.permissionMode, "permission-mode", "", strings.Join(modes, "; "))
	listFlagVar(f, &a.flags.allow, false, "allow", "a rule of what runs without asking, repeatable: 'bash(go test:*)', 'edit_file(docs/**)', read_file")
	listFlagVar(f, &a.flags.deny, false, "deny", "a rule of what never runs, repeatable; deny wins over every allow and every mode")
	listFlagVar(f, &a.flags.addDirs, false, "add-dir", "another directory the file tools may use besides the workspace, repeatable")
	f.IntVar(&a.flags.maxTurns, "max-turns", 0, "the most model turns a run may take before it stops as max_turns (default 50)")
	f.StringVar(&a.flags.sandbox, "sandbox", "", "how commands are contained: workspace-write (the default: writes only in the workspace, no network), read-only, off (no sandbox)")
	f.BoolVar(&a.flags.network, "network", false, "let sandboxed commands reach the network")
	f.StringVar(&a.flags.maxCost, "max-cost", "", "end a run, as budget, after the model call that takes its cost past this many US dollars, e.g. 0.50 (config key max_cost)")
	f.StringVar(&a.flags.reasoningEffort, "reasoning-effort", "", "the reasoning level asked of a model that reasons, one of its levels (low, medium, high...; config key reasoning_effort)")
	f.BoolVar(&a.flags.trustProject, "trust-project", false, "trust the project's .mcp.json, .claude/settings.json and agent files (its MCP servers, hooks and agents) for this run without asking; headless runs use them only with it")
}

// open builds the session the flags ask for.
func (a *app) open(ctx context.Context, approver kernel.Approver) (*Session, error) {
	spec, err := a.spec(approver)
	if err != nil {
		return nil, err
	}
	return a.deps.Open(ctx, spec)
}

// saySandbox says on stderr how the session's commands are contained,
// unless the output is JSON lines (session.started says it there).
func (a *app) saySandbox(s *Session) {
	if s.Sandbox != "" && !a.flags.json {
		printf(a.deps.Stderr, "rein: %s\n", field(s.Sandbox))
	}
}

// spec is what the flags ask of a session.
func (a *app) spec(approver kernel.Approver) (Spec, error) {
	if a.flags.deltas && !a.flags.json {
		return Spec{}, fmt.Errorf("%w: --deltas goes with --json", ErrUsage)
	}
	if a.flags.maxTurns < 0 {
		return Spec{}, fmt.Errorf("%w: --max-turns must be 1 or more", ErrUsage)
	}
	maxCost, err := parseCost(a.flags.maxCost)
	if err != nil {
		return Spec{}, err
	}
	effort, err := parseEffort(a.flags.reasoningEffort)
	if err != nil {
		return Spec{}, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return Spec{}, fmt.Errorf("cannot tell the working directory: %w", err)
	}
	return Spec{
		Provider: a.flags.provider, Model: a.flags.model, BaseURL: a.flags.baseURL,
		Fallback: a.flags.fallback, Script: a.flags.script, Cwd: cwd,
		PermissionMode: a.flags.permissionMode, Allow: a.flags.allow, Deny: a.flags.deny,
		AddDirs: a.flags.addDirs, MaxTurns: a.flags.maxTurns, Approver: approver,
		Sandbox: a.flags.sandbox, Network: a.flags.network,
		SessionDir: a.flags.sessionDir, MaxCost: maxCost, ReasoningEffort: effort,
		TrustProject: a.flags.trustProject, Trust: a.trust, PickModel: a.pick,
	}, nil
}

// parseCost reads the --max-cost flag: a decimal number of US dollars, 0
// or empty meaning the configuration's budget.
func parseCost(s string) (float64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(s), "$"), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%w: --max-cost %q: want a positive number of US dollars, such as 0.50 or 2 (0 means the configuration's max_cost)", ErrUsage, s)
	}
	return v, nil
}

// parseEffort reads the --reasoning-effort flag: one word, a level the
// model's catalogue entry names (the wiring checks it against the
// model); empty means the configuration's.
func parseEffort(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' && r != '_' {
			return "", fmt.Errorf("%w: --reasoning-effort %q: want one level of the model's, such as low, medium or high", ErrUsage, s)
		}
	}
	return s, nil
}

func closeSession(s *Session, stderr io.Writer) {
	if s.Close == nil {
		return
	}
	if err := s.Close(); err != nil {
		printf(stderr, "rein: closing the session: %s\n", text(err.Error()))
	}
}
