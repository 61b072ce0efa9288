package cli

import (
	"context"
	"errors"
	"os"
	"slices"

	"github.com/charmbracelet/x/term"

	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/tui"
)

// useUI says whether an interactive session gets the terminal UI: both
// ends are a terminal that can draw, and neither --plain nor --json asks
// for lines. A pipe, TERM=dumb or a screen reader's --plain gets the line
// mode without being asked.
func (a *app) useUI() bool {
	if a.flags.plain || a.flags.json {
		return false
	}
	if t := os.Getenv("TERM"); t == "" || t == "dumb" {
		return false
	}
	return ttyOf(a.deps.Stdin) && ttyOf(a.deps.Stdout)
}

// ttyOf reports whether v is a terminal, not only a character device
// (/dev/null is one too); rein's stdout is reached through its wrapper.
func ttyOf(v any) bool {
	if o, ok := v.(*output); ok {
		v = o.w
	}
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// ui runs the terminal UI over s until the person leaves, and closes the
// session it ends in.
func (a *app) ui(ctx context.Context, s *Session, approver *tui.Approver, opts tui.Options) error {
	rt, ok := s.Runtime.(tui.Runtime)
	if !ok {
		closeSession(s, a.deps.Stderr)
		return errors.New("this session's runtime cannot drive the interactive UI; use --plain")
	}
	cwd, err := os.Getwd()
	if err != nil {
		closeSession(s, a.deps.Stderr)
		return err
	}
	// The terminal itself, not rein's wrapper: the UI asks it its size.
	opts.In, opts.Out = a.deps.Stdin, a.deps.Stdout
	if o, ok := opts.Out.(*output); ok {
		opts.Out = o.w
	}
	opts.Approver = approver
	opts.Warnings = append(opts.Warnings, a.held.start(approver)...)
	if opts.Workspace == "" {
		opts.Workspace = cwd
	}
	opts.Session = a.uiSession(s, rt)
	opts.Notify = s.Notify
	opts.Host = &uiHost{a: a, approver: approver}
	// A signal (the terminal closed, SIGTERM) ends the UI as a cancel: the
	// run in progress is recorded as cancelled and its command killed
	// before the session closes, and rein exits 128 plus the signal.
	ctx, stop := a.deps.Interrupts(ctx)
	defer stop()
	final, err := tui.Run(ctx, opts)
	if in, ok := errors.AsType[*Interrupt](context.Cause(ctx)); ok {
		a.code = in.Code
	}
	if final == nil {
		final = opts.Session
	}
	if final.Close != nil {
		if cerr := final.Close(); cerr != nil {
			printf(a.deps.Stderr, "rein: closing the session: %s\n", text(cerr.Error()))
		}
	}
	if err != nil {
		return err
	}
	if final.Dir != "" && recorded(final.Runtime) {
		// Only a session that recorded an event is on disk to go on with.
		printf(a.deps.Stderr, "session: %s (rein resume %s -i goes on)\n", field(final.Dir), final.Runtime.Session())
	}
	return nil
}

// uiSession is s as the UI knows it.
func (a *app) uiSession(s *Session, rt tui.Runtime) *tui.Session {
	return &tui.Session{Runtime: rt, Dir: s.Dir, Sandbox: s.Sandbox, Close: s.Close, Gates: s.Gates, Readable: s.Readable, Models: s.Models,
		About: s.About, Extensions: s.Extensions}
}

// uiHost opens the sessions the UI goes to, with the flags rein was
// started with.
type uiHost struct {
	a        *app
	approver *tui.Approver
}

func (h *uiHost) session(s *Session, err error) (*tui.Session, error) {
	if err != nil {
		return nil, err
	}
	rt, ok := s.Runtime.(tui.Runtime)
	if !ok {
		closeSession(s, h.a.deps.Stderr)
		return nil, errors.New("this session's runtime cannot drive the interactive UI")
	}
	return h.a.uiSession(s, rt), nil
}

// New opens a new session in the workspace (/clear).
func (h *uiHost) New(ctx context.Context) (*tui.Session, error) {
	return h.session(h.a.open(ctx, h.approver))
}

// Resume opens session id to go on with it (/resume).
func (h *uiHost) Resume(ctx context.Context, id string) (*tui.Session, error) {
	return h.session(h.a.reopen(ctx, h.approver, id))
}

// Fork copies session id into a new one and opens the copy (/fork).
func (h *uiHost) Fork(ctx context.Context, id string) (*tui.Session, error) {
	return h.session(h.a.forkSession(ctx, h.approver, id))
}

// Sessions lists the sessions of the workspace's repository, newest
// first.
func (h *uiHost) Sessions() ([]session.Summary, error) { return h.a.nearSessions() }

// reopen opens session id to go on with it, asking through approver
// (/resume in the UI and the line mode).
func (a *app) reopen(ctx context.Context, approver kernel.Approver, id string) (*Session, error) {
	spec, err := a.spec(approver)
	if err != nil {
		return nil, err
	}
	spec.Session = id
	return a.deps.Resume(ctx, spec)
}

// forkSession copies session id into a new one and opens the copy
// (/fork).
func (a *app) forkSession(ctx context.Context, approver kernel.Approver, id string) (*Session, error) {
	store, _, err := a.store()
	if err != nil {
		return nil, err
	}
	newID, _, err := store.Fork(id, 0, a.deps.Now())
	if err != nil {
		return nil, err
	}
	return a.reopen(ctx, approver, newID)
}

// nearSessions lists the sessions of the working directory's
// repository (or of the directory itself, outside one), newest first
// (/resume).
func (a *app) nearSessions() ([]session.Summary, error) {
	store, cwd, err := a.store()
	if err != nil {
		return nil, err
	}
	keep, _ := session.Here(cwd)
	list, _, err := store.List(keep)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(list, func(x, y session.Summary) int { return y.LastActivity.Compare(x.LastActivity) })
	return list, nil
}
