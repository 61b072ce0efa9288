package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/term"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tui"
)

// renderer returns the renderer the flags ask for.
func (a *app) renderer() renderer {
	if a.flags.json {
		return &jsonLines{w: a.deps.Stdout, deltas: a.flags.deltas}
	}
	t := newTerminal(a.deps.Stdout, a.deps.Stderr)
	t.maxCost, _ = parseCost(a.flags.maxCost) // checked by spec
	t.workspace, _ = os.Getwd()               // a new session's, until its session.started says
	return t
}

// rendererOf returns the renderer the flags ask for, for the runs of s:
// its tool calls' paths are shown relative to its workspace, which a
// resumed session's log says.
func (a *app) rendererOf(s *Session) renderer {
	r := a.renderer()
	if t, ok := r.(*terminal); ok {
		if st := s.Runtime.State(); st.Cwd != "" {
			t.workspace = st.Cwd
		}
	}
	return r
}

// drive sends text and renders the run. It returns the exit code the
// person's interrupt calls for, or 0 when the run was not interrupted.
func (a *app) drive(ctx context.Context, rt Runtime, text string, r renderer) (interrupted int, err error) {
	return a.follow(ctx, r, func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Send(ctx, kernel.Input{Text: text})
	})
}

// follow renders what run yields; see drive.
func (a *app) follow(ctx context.Context, r renderer, run func(ctx context.Context) iter.Seq2[contract.Envelope, error]) (interrupted int, err error) {
	ctx, stop := a.deps.Interrupts(ctx)
	defer stop()
	defer r.end()
	a.sent = true
	for env, err := range run(ctx) {
		if err != nil {
			return 0, err
		}
		a.usage.see(env.Data)
		if err := r.event(env); err != nil {
			// Stop reading: the kernel ends the run as cancelled and syncs
			// the log before Send returns.
			return 0, fmt.Errorf("writing output: %w", err)
		}
	}
	if ctx.Err() == nil {
		return 0, nil
	}
	if in, ok := errors.AsType[*Interrupt](context.Cause(ctx)); ok {
		return in.Code, nil
	}
	return ExitInterrupted, nil
}

// exec runs one prompt headless. The prompt is args, or standard input
// when args is "-" or empty; see [execPrompt]. With -c, it goes on with
// the latest session of the repository instead of a new one.
func (a *app) exec(ctx context.Context, args []string) error {
	if a.flags.cont && len(args) == 0 && !piped(a.deps.Stdin) {
		// rein exec -c: finish what the latest session left unfinished.
		return a.goOn(ctx, "", "", false)
	}
	prompt, err := execPrompt(args, a.deps.Stdin, func(waiting string) {
		printf(a.deps.Stderr, "rein: %s\n", waiting)
	})
	if err != nil {
		return err
	}
	if a.flags.cont {
		return a.goOn(ctx, "", prompt, false)
	}
	s, err := a.open(ctx, nil)
	if err != nil {
		return err
	}
	defer closeSession(s, a.deps.Stderr)
	a.saySandbox(s)
	if s.Ready != nil {
		s.Ready(ctx)
	}
	interrupted, err := a.drive(ctx, s.Runtime, prompt, a.rendererOf(s))
	if err != nil {
		return err
	}
	st := s.Runtime.State()
	a.summary(s, &st)
	a.code = exitCode(&st, interrupted)
	if a.code != ExitOK && a.flags.json {
		// The JSON lines say it all, but a script's log deserves a line.
		if st.Outcome == contract.OutcomeCancelled {
			say(a.deps.Stderr, "rein: stopped\n")
		} else {
			printf(a.deps.Stderr, "rein: run %s: %s\n", st.Outcome, a.reasonOf(&st))
		}
	}
	return nil
}

// reasonOf says in a few words why the last run ended as it did.
func (a *app) reasonOf(st *state.State) string {
	switch {
	case st.LastError != nil && st.Outcome == contract.OutcomeFailed:
		return st.LastError.Error()
	case a.usage.reason != "":
		return a.usage.reason // run.finished's: a budget, a context that cannot fit
	}
	return string(st.Phase())
}

// interactive runs an interactive session: the terminal UI, or the line
// mode (a prompt, a streamed answer, the UI's commands, and Ctrl-D to
// leave).
func (a *app) interactive(ctx context.Context, first string) error {
	if a.useUI() {
		approver := tui.NewApprover()
		a.trust = trustAsker(a.deps.Stderr, byteLines(a.deps.Stdin))
		a.pick = a.modelAsker(byteLines(a.deps.Stdin))
		a.held = a.holdWarnings()
		defer a.held.release()
		s, err := a.open(ctx, approver)
		if err != nil {
			return err
		}
		return a.ui(ctx, s, approver, tui.Options{First: first})
	}
	lines := readLines(a.deps.Stdin)
	a.trust = trustAsker(a.deps.Stderr, lines.next)
	a.pick = a.modelAsker(lines.next)
	approver := &prompter{lines: lines, w: a.deps.Stderr}
	s, err := a.open(ctx, approver)
	if err != nil {
		return err
	}
	l := a.newLineMode(s, lines, approver)
	defer func() { closeSession(l.s, a.deps.Stderr) }()
	if !a.flags.json {
		printf(a.deps.Stderr, "rein, session %s (/help lists the commands; Ctrl-C stops a run, Ctrl-D leaves)\n", s.Runtime.Session())
	}
	a.saySandbox(s)
	return l.converse(ctx, first)
}

// converse acts on first, if anything, then on each line the person
// types until Ctrl-D or /exit, and names the session it ends in.
func (l *lineMode) converse(ctx context.Context, first string) error {
	a := l.a
	leave := false
	if first = strings.TrimSpace(first); first != "" {
		var err error
		if leave, err = l.do(ctx, first); err != nil {
			return err
		}
	}
	for !leave && ctx.Err() == nil {
		if !a.flags.json {
			say(a.deps.Stderr, "› ")
		}
		input, ok := l.lines.next(ctx)
		if !ok {
			break
		}
		line := strings.TrimSpace(input)
		if line == "" {
			continue
		}
		var err error
		if leave, err = l.do(ctx, line); err != nil {
			return err
		}
	}
	if err := l.lines.err(); err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	if !a.flags.json {
		say(a.deps.Stderr, "\n")
		a.exitLine(l.s)
	}
	return nil
}

// demo runs the offline demo.
func (a *app) demo(ctx context.Context) error {
	if a.flags.deltas && !a.flags.json {
		return fmt.Errorf("%w: --deltas goes with --json", ErrUsage)
	}
	if a.deps.Demo == nil {
		return errors.New("this build has no demo")
	}
	if a.useUI() {
		return a.demoUI(ctx)
	}
	d, err := a.deps.Demo(ctx, DemoOptions{SessionDir: a.flags.sessionDir})
	if err != nil {
		return err
	}
	defer closeSession(&d.Session, a.deps.Stderr)
	w := a.deps.Stderr
	say(w, "rein demo: OFFLINE, the model is SCRIPTED (no API key, no network; its replies are a fixed script).\n")
	printf(w, "workspace: %s (a temporary copy of a small Go project whose test fails)\n", d.Workspace)
	a.saySandbox(&d.Session)
	printf(w, "› %s\n", d.Prompt)
	interrupted, err := a.drive(ctx, d.Runtime, d.Prompt, a.rendererOf(&d.Session))
	if err != nil {
		return err
	}
	st := d.Runtime.State()
	if interrupted != 0 {
		a.code = interrupted
		return nil
	}
	if st.Phase() != d.Want {
		a.summary(&d.Session, &st)
		return exitError{code: ExitFailed, msg: fmt.Sprintf("the demo ended %s, not %s as designed", st.Phase(), d.Want)}
	}
	if d.Explain != "" {
		printf(w, "%s\n", text(d.Explain))
	}
	a.sessionLine(&d.Session)
	a.demoAfter(d)
	return nil
}

// demoAfter says, after the demo, what is kept and what to try next,
// wrapped to the terminal when stderr is one.
func (a *app) demoAfter(d *Demo) {
	w := a.deps.Stderr
	width := 0
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		width, _, _ = term.GetSize(f.Fd())
	}
	lines := []string{"The workspace and the session are kept for you to look at; delete them when done."}
	if !a.flags.json {
		lines = append(lines, "See it again from the log alone: rein replay "+d.Runtime.Session(),
			"Ask the record why stats.go changed: cd "+d.Workspace+" && rein why stats.go")
		if !d.Installed {
			lines = append(lines, "(rein is not on your PATH yet: `go install ./cmd/rein` in the repository installs it, as the README says; "+
				"until then, in the repository: go run ./cmd/rein replay "+d.Runtime.Session()+
				" and: go run ./cmd/rein why "+filepath.Join(d.Workspace, "stats.go")+")")
		}
	}
	for _, l := range lines {
		for row := range strings.SplitSeq(wrapWords(l, width), "\n") {
			printf(w, "%s\n", row)
		}
	}
}

// wrapWords wraps s at spaces to width columns; width under 20 leaves it
// as it is (not a terminal, or one too narrow to help).
func wrapWords(s string, width int) string {
	if width < 20 {
		return s
	}
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case col+1+n > width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += n
	}
	return b.String()
}

// demoUI plays the demo in the terminal UI, in default mode: the person
// sees the scripted model's edit asked about, its diff shown, and answers.
func (a *app) demoUI(ctx context.Context) error {
	approver := tui.NewApprover()
	a.held = a.holdWarnings()
	defer a.held.release()
	d, err := a.deps.Demo(ctx, DemoOptions{SessionDir: a.flags.sessionDir, Approver: approver})
	if err != nil {
		return err
	}
	err = a.ui(ctx, &d.Session, approver, tui.Options{
		First: d.Prompt, Workspace: d.Workspace, HistoryFile: "-", Epilogue: d.Explain,
		Otherwise: "The demo's model is a script: it goes on only when its edit is allowed, and has no answer to " +
			"anything else. Run rein demo again and answer y to see it fix the test; what happened this time is " +
			"recorded all the same (rein replay " + d.Runtime.Session() + "). Ctrl-D leaves.",
		Notes: []string{
			"rein demo: OFFLINE, the model is SCRIPTED (no API key, no network; its replies are a fixed script)",
			"workspace: " + d.Workspace + " (a temporary copy of a small Go project whose test fails)",
			"default mode: rein asks before the edit and shows its diff; answer y to let the script go on " +
				"(n, a, d and t answer too, and end the demo there: a script cannot take another way)",
		},
	})
	if err != nil {
		return err
	}
	a.demoAfter(d)
	return nil
}

// summary tells, on stderr, how the run ended when that is not plain from
// the rendering.
func (a *app) summary(s *Session, st *state.State) {
	if a.flags.json {
		return
	}
	if st.Phase() == state.WaitingForTool {
		printf(a.deps.Stderr, "%d tool intent(s) recorded as pending, not executed.\n", len(st.Pending))
	}
	u, ok := a.usage.total()
	switch {
	case !ok || u.Calls == 0:
		a.sessionLine(s)
	case s.Dir != "":
		printf(a.deps.Stderr, "session: %s · %s\n", s.Dir, totals(&u))
	default:
		printf(a.deps.Stderr, "run: %s\n", totals(&u))
	}
}

// sessionLine names the session on stderr, once it exists: a session is
// on disk from its first event on, and one left at its first prompt
// leaves nothing to name.
func (a *app) sessionLine(s *Session) {
	if s.Dir != "" && !a.flags.json && recorded(s.Runtime) {
		printf(a.deps.Stderr, "session: %s\n", s.Dir)
	}
}

// exitLine names the session an interactive session leaves, once it
// exists, and how to go on with it.
func (a *app) exitLine(s *Session) {
	if s.Dir != "" && !a.flags.json && recorded(s.Runtime) {
		printf(a.deps.Stderr, "session: %s (rein resume %s -i goes on)\n", s.Dir, s.Runtime.Session())
	}
}

// recorded reports whether the session of rt has recorded an event, and
// so is on disk.
func recorded(rt interface{ State() state.State }) bool {
	st := rt.State()
	return st.LastSeq > 0
}

// exitCode maps how a headless run ended to the process exit code.
func exitCode(st *state.State, interrupted int) int {
	switch {
	case interrupted != 0:
		return interrupted
	case st.Phase() == state.Completed, st.Phase() == state.WaitingForTool:
		return ExitOK
	default:
		return ExitFailed
	}
}
