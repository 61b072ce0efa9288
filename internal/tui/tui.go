// Package tui is rein's interactive terminal UI: a composer, a streamed
// transcript, tool cards, approvals in one key and a status line, drawn
// inline (the transcript goes into the terminal's own scrollback; only
// what is in progress, the composer and the status line are redrawn).
//
// It is a client of the kernel's facade like the other renderers: it
// sends what the person types and renders the events that come back. It
// never calls a provider, never runs a tool and never edits state; a
// command the person types (!ls), a compaction (/compact) and a rewind
// (/rewind, Esc Esc, /undo) are asked of the runtime, which records them.
package tui

import (
	"context"
	"errors"
	"io"
	"iter"
	"os"
	"strings"
	"time"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tui/style"
)

// Runtime is the kernel's facade as the UI uses it; *kernel.Kernel is
// one.
type Runtime interface {
	Send(ctx context.Context, in kernel.Input) iter.Seq2[contract.Envelope, error]
	Compact(ctx context.Context, focus string) iter.Seq2[contract.Envelope, error]
	Resume(ctx context.Context, res kernel.Resume) iter.Seq2[contract.Envelope, error]
	Shell(ctx context.Context, command string) iter.Seq2[contract.Envelope, error]
	Events() iter.Seq2[contract.Envelope, error]
	SetMode(mode string) error
	Mode() string
	SwitchModel(ctx context.Context, spec string) error
	Current() kernel.Current
	Known() []string
	Rules() []kernel.Rule
	State() state.State
	Session() string
	// ChangesOf is the diff of what a call changed, from its
	// checkpoints (/diff).
	ChangesOf(intent string) string
	// RewindPoints, PlanRewind and Rewind are /rewind's, Esc Esc's and
	// /undo's.
	RewindPoints() []kernel.RewindPoint
	PlanRewind(seq uint64, scope string) (kernel.RewindPlan, error)
	Rewind(ctx context.Context, seq uint64, scope string, force bool) (kernel.RewindPlan, error)
}

// Session is one session as the UI shows it.
type Session struct {
	Runtime Runtime
	// Dir is the session's directory; Sandbox the one line that says how
	// its commands are contained; About the facts /status shows (asked
	// each time: a file made since is seen).
	Dir     string
	Sandbox string
	About   func() []Fact
	// Gates, for a session opened to go on with (resumed), are what its
	// resume gate found: the UI resumes it (kernel.Resume) before
	// anything else; nil for a new session.
	Gates map[string]string
	// Close releases it; nil means nothing to release.
	Close func() error
	// Readable, when set, says whether the person may attach the file at
	// an absolute path (@path): the session's read rules decide, as for
	// the model's read_file; an error is why not. It is called outside the
	// program's loop and must be safe for that.
	Readable func(abs string) error
	// Extensions, when set, says what /mcp, /hooks, /skills and /agents
	// show: the lines of kind "mcp", "hooks", "skills" or "agents", what is loaded, from which
	// file, and what failed (a problem's Key starts with "!"). It is called
	// from the program's loop and must not block.
	Extensions func(kind string) []Fact
	// Models, when set, lists the models the /model picker offers
	// ("provider:model"); it may ask a server, and is called outside the
	// program's loop. An error comes with what could be listed anyway.
	// Nil means the runtime's Known.
	Models func(ctx context.Context) ([]string, error)
}

// Fact is one line of /status.
type Fact struct{ Key, Value string }

// Host opens the other sessions a person may go to from the UI: a new
// one (/clear), an earlier one (/resume), a copy of this one (/fork).
// Every session it opens asks its questions through the same Approver.
type Host interface {
	New(ctx context.Context) (*Session, error)
	Resume(ctx context.Context, id string) (*Session, error)
	Fork(ctx context.Context, id string) (*Session, error)
	// Sessions lists the workspace's sessions, newest first.
	Sessions() ([]session.Summary, error)
}

// Options configure Run.
type Options struct {
	// In and Out are the terminal; nil means the process's.
	In  io.Reader
	Out io.Writer
	// Env is the environment (TERM, NO_COLOR, COLORFGBG); nil means the
	// process's.
	Env []string
	// Session is the session to start in; required.
	Session *Session
	// Host opens the other sessions; nil means /clear, /resume and /fork
	// are not available.
	Host Host
	// Approver must be the one the sessions were opened with.
	Approver *Approver
	// Workspace is the project directory: paths are shown relative to it,
	// @ completes files under it, custom commands and history are its.
	Workspace string
	// First is a first message to send as the UI starts; empty sends
	// nothing.
	First string
	// Past renders the session's earlier conversation from its log before
	// the composer (a resumed session).
	Past bool
	// Resume, when Session has Gates, is the message the resumed session
	// goes on with; empty finishes what its log left unfinished, if
	// anything.
	Resume string
	// Notify is how the person is told that a run ended or an approval
	// waits: "bell", "osc9" (a desktop notification), "off"; empty means
	// "bell".
	Notify string
	// HistoryFile is where the composer's history is kept; empty means
	// the default for Workspace, "-" means none.
	HistoryFile string
	// CommandDirs are the directories of custom commands; nil means the
	// defaults for Workspace.
	CommandDirs []string
	// Width and Height, when not zero, fix the terminal's size (tests).
	Width, Height int
	// Notes are printed under the banner, one a line (the demo says its
	// model is a script); Warnings too, as warnings (what rein warned of
	// while the session opened).
	Notes, Warnings []string
	// Epilogue is printed once the first message's run has completed
	// (the demo says what happened), Otherwise once it has ended any
	// other way; empty prints nothing.
	Epilogue, Otherwise string
}

// Run runs the interactive UI until the person leaves (Ctrl-D, /exit,
// Ctrl-C twice) or ctx is done. The session open when it returns is
// returned for the caller to close and to name (it may not be
// opts.Session after /clear, /resume or /fork).
func Run(ctx context.Context, opts Options) (*Session, error) {
	if opts.Session == nil || opts.Session.Runtime == nil {
		return nil, errors.New("tui: Run needs a session")
	}
	if opts.In == nil {
		opts.In = os.Stdin
	}
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Approver == nil {
		opts.Approver = NewApprover()
	}
	m := newModel(ctx, &opts)
	popts := []tea.ProgramOption{
		tea.WithInput(opts.In), tea.WithOutput(opts.Out), tea.WithEnvironment(opts.Env),
		tea.WithContext(ctx), tea.WithoutSignalHandler(),
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	p := tea.NewProgram(m, popts...)
	m.program = p
	opts.Approver.attach(p)
	defer opts.Approver.attach(nil)
	final, err := p.Run()
	if fm, ok := final.(*model); ok && fm != nil {
		m = fm
	}
	m.stopRun()
	m.settle(10 * time.Second)
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return m.sess, err
}

// envValue returns the value of key in env, "" when unset.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// themeFor picks the theme for the environment: plain under NO_COLOR or
// TERM=dumb, light when COLORFGBG says the background is light, dark
// otherwise (until the terminal answers the background query).
func themeFor(env []string) (style.Theme, bool) {
	if envValue(env, "NO_COLOR") != "" || envValue(env, "TERM") == "dumb" {
		return style.New(true, false), false
	}
	dark := true
	if fgbg := envValue(env, "COLORFGBG"); fgbg != "" {
		bg := fgbg[strings.LastIndexByte(fgbg, ';')+1:]
		dark = !(bg == "7" || bg == "15")
	}
	return style.New(dark, true), true
}
