package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tui"
	"github.com/rein-agent/rein/internal/why"
	"github.com/rein-agent/rein/internal/workspace"
)

// sessionCommands are the commands over recorded sessions: sessions,
// resume, compact, fork, replay, log and why.
func (a *app) sessionCommands() []*cobra.Command {
	sessions := &cobra.Command{
		Use:   "sessions",
		Short: "List the sessions of this repository, from any of its directories (all with --all), most recently active first, each with the children its tasks ran under it",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return a.sessions() },
	}
	sessions.Flags().BoolVar(&a.flags.all, "all", false, "list the sessions of every directory, not only this repository's (this directory's outside one)")
	sessions.Flags().BoolVar(&a.flags.json, "json", false, "one JSON object per session per line, its children in its \"children\"")
	sessions.Flags().BoolVar(&a.flags.reindex, "reindex", false, "rebuild the index of sessions from their logs first")

	resume := &cobra.Command{
		Use:   "resume [ID | --last] [prompt]",
		Short: "Continue a session: finish the run it left unfinished, or start the next one with a prompt",
		Long: "Continue a recorded session, headless like exec (-i to go on interactively).\n\n" +
			"Without a prompt, a run the log shows unfinished (rein was killed or crashed) goes on where it\n" +
			"stopped: a tool that was running is recorded as interrupted and never run again, and the model\n" +
			"is told. With a prompt, the next run starts. The state is rebuilt from the log alone;\n" +
			"permissions come from today's configuration and flags, never from the old session.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return a.resume(cmd.Context(), args) },
	}
	a.sessionFlags(resume)
	resume.Flags().BoolVar(&a.flags.last, "last", false, "resume the most recently active session of this repository (of this directory outside one)")
	resume.Flags().BoolVarP(&a.flags.interactive, "interactive", "i", false, "go on interactively: the terminal UI (or the line mode) shows the earlier conversation, then waits for you")
	resume.Flags().BoolVar(&a.flags.plain, "plain", false, "with -i, use the line mode instead of the terminal UI")

	fork := a.oneArgCommand("fork ID", "Make a new session from a session's log up to --at SEQ (default all of it)",
		"print the new session as a JSON object", a.fork)
	fork.Flags().Uint64Var(&a.flags.at, "at", 0, "the last event (seq) of the parent to keep; 0 means all")

	replay := a.oneArgCommand("replay ID", "Show a session's transcript and trace from its log alone: no model, no tool, nothing written",
		"print the events as JSON lines, as exec --json does", a.replay)

	logCmd := a.oneArgCommand("log ID", "Print a session's events, one per line, optionally only some types",
		"print the events as JSON lines, exactly as the log holds them", a.log)
	listFlagVar(logCmd.Flags(), &a.flags.types, false, "type", "only events of these types, repeatable: a family (tool: tool.*; model, context, run, session...), a glob ('tool.*') or a type (run.finished)")
	logCmd.Flags().BoolVar(&a.flags.children, "children", false, "add the events of the sessions its tasks ran, each child's after its task.started, indented (with --json, each line as the child's log holds it), recursively")

	whyCmd := a.oneArgCommand("why PATH", "Show every recorded intent that read or changed PATH, and why: the model's words, the decision, the result",
		"one JSON object per intent per line", a.why)
	return []*cobra.Command{sessions, resume, a.compactCommand(), a.rewindCommand(), fork, replay, logCmd, whyCmd}
}

// oneArgCommand is a command over one recorded thing (a session, a path)
// that run prints, as JSON with --json, whose usage is jsonUsage: fork,
// replay, log and why.
func (a *app) oneArgCommand(use, short, jsonUsage string, run func(arg string) error) *cobra.Command {
	c := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return run(args[0]) },
	}
	c.Flags().BoolVar(&a.flags.json, "json", false, jsonUsage)
	return c
}

// store opens the session store the flags and configuration name.
func (a *app) store() (*session.Store, string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, "", fmt.Errorf("cannot tell the working directory: %w", err)
	}
	if a.deps.Store == nil {
		return nil, "", errors.New("this build keeps no sessions")
	}
	s, err := a.deps.Store(cwd, a.flags.sessionDir)
	return s, cwd, err
}

// find opens the store and locates the session ref names: a person's
// session or a child, at any depth.
func (a *app) find(ref string) (session.Place, error) {
	s, _, err := a.store()
	if err != nil {
		return session.Place{}, err
	}
	return s.Locate(ref)
}

// own locates the session ref names for command what, which writes it
// (resume, compact, fork): a person's session, never a child, which goes
// on only with the session it belongs to.
func (a *app) own(ref, what string) (*session.Store, string, error) {
	p, err := a.find(ref)
	if err == nil {
		err = p.ChildOf(what)
	}
	return p.Store, p.ID, err
}

// sessions runs rein sessions.
func (a *app) sessions() error {
	s, cwd, err := a.store()
	if err != nil {
		return err
	}
	if a.flags.reindex {
		n, problems, err := s.Reindex()
		a.problems(problems)
		if err != nil {
			return err
		}
		printf(a.deps.Stderr, "rein: index of %s rebuilt from %d session logs\n", s.Root(), n)
	}
	keep, where := session.Here(cwd)
	if a.flags.all {
		keep = nil
	}
	list, problems, err := s.List(keep)
	a.problems(problems)
	if err != nil {
		return err
	}
	w := a.deps.Stdout
	if a.flags.json {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, sum := range list {
			if err := enc.Encode(sum); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		in := sayf("in %s (--all lists every directory's)", where)
		if a.flags.all {
			in = sayf("in %s", s.Root())
		}
		printf(a.deps.Stderr, "no sessions %s\n", in)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	say(tw, "ID\tDIRECTORY\tSTARTED\tLAST ACTIVITY\tOUTCOME\tCOST\tFIRST PROMPT\n")
	for _, sum := range list {
		sessionRow(tw, &sum, 0, directoryOf(sum.Cwd, cwd, where))
	}
	return tw.Flush()
}

// sessionRow writes the row of a session of rein sessions, at depth (0
// for a person's session), then its children's under it, indented: a
// child's outcome is its task's (what its parent recorded) when there is
// one, and its agent and task's description stand for its first prompt;
// its cost, as a person's session's, is its tree's.
func sessionRow(tw io.Writer, sum *session.Summary, depth int, dir string) {
	ref, outcome, what := sum.ID, sum.Outcome, sum.FirstPrompt
	if depth > 0 {
		ref = strings.Repeat("  ", depth-1) + "└ " + sum.ID
		if sum.Task != "" {
			outcome = sum.Task
		}
		if p := sum.Parent; p != nil {
			what = p.Agent + ": " + p.Description
		}
	}
	// Each field is made printable for its column: a tab in one would
	// break the table.
	printf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ref, dir, stamp(sum.Started), stamp(sum.LastActivity), outcome,
		sessionCost(sum.Usage), excerpt.Text(oneLine(what), 60))
	for i := range sum.Children {
		sessionRow(tw, &sum.Children[i], depth+1, "")
	}
}

// directoryOf shows a session's directory as seen from cwd: "." for cwd
// itself, relative to it for a directory of the same repository (here is
// its root), absolute for any other.
func directoryOf(dir, cwd, here string) string {
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) || !workspace.Within(here, dir) {
		return dir
	}
	if rel, err := filepath.Rel(cwd, dir); err == nil {
		return rel
	}
	return dir
}

// sessionCost is a session's cost for its column: "-" when no call
// reported usage, "unknown" when any call's price was unknown.
func sessionCost(u *contract.Totals) string {
	switch {
	case u == nil || u.Calls == 0:
		return "-"
	case !u.CostKnown():
		return "unknown"
	}
	return dollars(u.CostUSD)
}

// maxProblems is how many unreadable session directories a command names
// one by one before it only counts the rest.
const maxProblems = 5

// problems says, on stderr, how many session directories a command
// skipped because it could not read their logs, and why: each of the
// first few by name, then how many more.
func (a *app) problems(errs []error) {
	switch len(errs) {
	case 0:
		return
	case 1:
		printf(a.deps.Stderr, "rein: skipped 1 session directory without a readable log: %s\n", problem(errs[0]))
		return
	}
	printf(a.deps.Stderr, "rein: skipped %d session directories without a readable log:\n", len(errs))
	for _, err := range errs[:min(len(errs), maxProblems)] {
		printf(a.deps.Stderr, "  %s\n", problem(err))
	}
	if n := len(errs) - maxProblems; n > 0 {
		printf(a.deps.Stderr, "  … and %d more\n", n)
	}
}

// problem says why a session directory was skipped, without the
// package's prefix.
func problem(err error) shown {
	msg := strings.TrimPrefix(err.Error(), session.ErrNotFound.Error()+": ")
	return field(strings.TrimPrefix(msg, "session: "))
}

// stamp shows a time in the local zone to the second.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-------------------"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// oneLine puts text on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// resume runs rein resume.
func (a *app) resume(ctx context.Context, args []string) error {
	var ref string
	if !a.flags.last {
		if len(args) == 0 {
			return fmt.Errorf("%w: resume needs a session id or --last (`rein sessions` lists them)", ErrUsage)
		}
		ref, args = args[0], args[1:]
	} else if len(args) > 0 && strings.HasPrefix(args[0], "ses_") && !strings.ContainsAny(args[0], " \t") {
		return fmt.Errorf("%w: --last and a session id (%s) both given; give one of them", ErrUsage, args[0])
	}
	return a.goOn(ctx, ref, strings.Join(args, " "), a.flags.interactive)
}

// goOn goes on with the session ref names, or, when ref is empty, the
// most recently active session of the working directory's repository
// (resume --last, -c): headless like exec, or interactive (-i, rein -c),
// starting with prompt when it is not empty.
func (a *app) goOn(ctx context.Context, ref, prompt string, interactive bool) error {
	if a.deps.Resume == nil {
		return errors.New("this build cannot resume sessions")
	}
	prompt = strings.TrimSpace(prompt)
	var lines *lineReader
	var approver kernel.Approver
	var uiApprover *tui.Approver
	if interactive && a.useUI() {
		uiApprover = tui.NewApprover()
		approver = uiApprover
		a.held = a.holdWarnings()
		defer a.held.release()
		a.trust = trustAsker(a.deps.Stderr, byteLines(a.deps.Stdin))
		a.pick = a.modelAsker(byteLines(a.deps.Stdin))
	} else if interactive {
		lines = readLines(a.deps.Stdin)
		approver = &prompter{lines: lines, w: a.deps.Stderr}
		a.trust = trustAsker(a.deps.Stderr, lines.next)
		a.pick = a.modelAsker(lines.next)
	}
	s, err := a.openFor(ctx, ref, approver)
	if err != nil {
		return err
	}
	if uiApprover != nil {
		return a.ui(ctx, s, uiApprover, tui.Options{Past: true, Resume: prompt})
	}
	var l *lineMode
	if interactive {
		l = a.newLineMode(s, lines, approver)
		defer func() { closeSession(l.s, a.deps.Stderr) }()
	} else {
		defer closeSession(s, a.deps.Stderr)
	}
	st := s.Runtime.State()
	if !a.flags.json {
		printf(a.deps.Stderr, "rein: resuming session %s (%d events; its last run %s)\n", s.Runtime.Session(), st.LastSeq, describe(&st))
	}
	a.saySandbox(s)
	if prompt == "" && !st.Unfinished() && !interactive {
		// Nothing to do, and nothing is written.
		printf(a.deps.Stderr, "rein: nothing to continue: the last run of %s %s; give a prompt to start the next one: rein resume %s \"...\"\n",
			s.Runtime.Session(), describe(&st), s.Runtime.Session())
		return nil
	}
	if s.Ready != nil && !interactive {
		s.Ready(ctx)
	}
	r := a.rendererOf(s)
	if l != nil {
		l.past()
		r = l.r
	}
	interrupted, err := a.follow(ctx, r, func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return s.Runtime.Resume(ctx, kernel.Resume{Gates: s.Gates, Text: prompt})
	})
	if err != nil {
		return err
	}
	st = s.Runtime.State()
	if interrupted != 0 || !interactive {
		a.summary(s, &st)
		a.code = exitCode(&st, interrupted)
		return nil
	}
	return l.converse(ctx, "")
}

// openFor opens the session ref names (the repository's latest with ref
// empty) for goOn, and says so when it works in another directory.
func (a *app) openFor(ctx context.Context, ref string, approver kernel.Approver) (*Session, error) {
	spec, err := a.spec(approver)
	if err != nil {
		return nil, err
	}
	if ref != "" {
		if _, spec.Session, err = a.own(ref, "resume"); err != nil {
			return nil, err
		}
	} else {
		spec.Last = true
	}
	s, err := a.deps.Resume(ctx, spec)
	if err != nil {
		return nil, err
	}
	if st := s.Runtime.State(); ref == "" && st.Cwd != "" {
		// The repository's latest session may have been started in
		// another of its directories: that is where its tools work.
		if cwd, err := os.Getwd(); err == nil && filepath.Clean(cwd) != filepath.Clean(st.Cwd) && !a.flags.json {
			printf(a.deps.Stderr, "rein: going on with session %s, which works in %s (not in this directory)\n", s.Runtime.Session(), field(st.Cwd))
		}
	}
	return s, nil
}

// describe says how a state's last run stands.
func describe(st *state.State) string {
	switch {
	case st.Unfinished():
		return "is unfinished (rein stopped before it ended)"
	case st.Outcome != "":
		return "ended " + string(st.Outcome)
	}
	return "never started"
}

// fork runs rein fork. The fork holds the session's log, not its
// children: their logs stay with the session that ran them, where its
// replay finds them.
func (a *app) fork(ref string) error {
	s, id, err := a.own(ref, "fork")
	if err != nil {
		return err
	}
	newID, kept, err := s.Fork(id, a.flags.at, a.deps.Now())
	if err != nil {
		return err
	}
	if a.flags.json {
		enc := json.NewEncoder(a.deps.Stdout)
		return enc.Encode(map[string]any{"session": newID, "parent": id, "parent_seq": kept, "dir": s.Dir(newID)})
	}
	printf(a.deps.Stdout, "%s\n", newID)
	printf(a.deps.Stderr, "rein: forked %s at seq %d into %s; go on with: rein resume %s \"...\"\n", id, kept, s.Dir(newID), newID)
	return nil
}

// log runs rein log.
func (a *app) log(ref string) error {
	for _, g := range a.flags.types {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("%w: --type %q: %v", ErrUsage, g, err)
		}
		if !slices.ContainsFunc(contract.EventTypes, func(t string) bool { return matchType([]string{g}, t) }) {
			// A newer rein's log may hold types this one does not know:
			// said, not refused.
			printf(a.deps.Stderr, "rein: warning: --type %q matches no event type this rein knows; the families are %s, and 'tool.*' or tool.permission name types\n",
				g, strings.Join(families(), ", "))
		}
	}
	top, _, err := a.store()
	if err != nil {
		return err
	}
	p, err := top.Locate(ref)
	if err != nil {
		return err
	}
	var logs *childLogs
	if a.flags.children {
		logs = &childLogs{tasks: p.Store.Tasks(p.ID), root: top, damage: a.damage}
	}
	return a.logTree(p, logs, 0, a.renderer(), map[string]bool{})
}

// matchType reports whether event type t matches one of globs (all match
// when there are none). A glob without a dot or a wildcard names a
// family: the types whose first dotted part it is ("tool" matches
// tool.validation, tool.permission, tool.invocation.started... but not
// tool_intent.proposed, whose family is tool_intent); any other glob
// matches the whole type, as path.Match does ('tool.*', run.finished).
func matchType(globs []string, t string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if isFamily(g) {
			if family, _, _ := strings.Cut(t, "."); family == g {
				return true
			}
			continue
		}
		if ok, _ := path.Match(g, t); ok {
			return true
		}
	}
	return false
}

// isFamily reports whether a --type glob names a family of types.
func isFamily(g string) bool { return !strings.ContainsAny(g, `.*?[\`) }

// families are the first dotted parts of the event types rein knows, in
// the catalogue's order.
func families() []string {
	var out []string
	for _, t := range contract.EventTypes {
		if f, _, _ := strings.Cut(t, "."); !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// logLine shows one event on one line: seq, time, type and its data.
func logLine(env contract.Envelope) shown {
	data, err := json.Marshal(env.Data)
	if err != nil {
		data = []byte(err.Error())
	}
	typ := env.Type()
	if _, ok := env.Data.(*contract.Unknown); ok {
		typ += " (unknown to this rein)"
	}
	return sayf("%6d  %s  %-25s  %s", env.Seq, env.Time.Local().Format("15:04:05.000"), typ, excerpt.Text(string(data), 240))
}

// damage tells what a read-only command skipped in a log, beyond the
// warnings already logged.
func (a *app) damage(path string, info session.ReadInfo) {
	if n := len(info.Damaged); n > 0 {
		printf(a.deps.Stderr, "rein: warning: %d damaged line(s) of %s were skipped (first: line %d: %s); every valid event was read\n",
			n, path, info.Damaged[0].Line, info.Damaged[0].Reason)
	}
	if info.Torn != nil {
		printf(a.deps.Stderr, "rein: warning: the last line of %s is torn (a write cut short); it was skipped, and the next writer (rein resume) cuts it off\n",
			path)
	}
}

// why runs rein why.
func (a *app) why(p string) error {
	s, cwd, err := a.store()
	if err != nil {
		return err
	}
	target := p
	if !filepath.IsAbs(target) {
		target = filepath.Join(cwd, target)
	}
	target = filepath.Clean(target)
	// Every session, not only those started here: a session's tools may
	// reach other roots (--add-dir), and paths are compared whole.
	list, problems, err := s.List(nil)
	a.problems(problems)
	if err != nil {
		return err
	}
	f := why.New(target)
	for i := len(list) - 1; i >= 0; i-- { // oldest first
		if err := a.whyTree(f, s, &list[i]); err != nil {
			return err
		}
	}
	touches := firstOfEachIntent(f.Touches())
	if a.flags.json {
		return writeWhyJSON(a.deps.Stdout, touches)
	}
	shown := p
	if rel, err := filepath.Rel(cwd, target); err == nil && !strings.HasPrefix(rel, "..") {
		shown = rel
	}
	return writeWhy(a.deps.Stdout, shown, touches, isTerminal(a.deps.Stdout) && os.Getenv("NO_COLOR") == "")
}

// whyTree gives f the events of session sum of st, then its children's,
// recursively: what a child changed is found as its parent's is, and
// named by the child's session and task.
func (a *app) whyTree(f *why.Finder, st *session.Store, sum *session.Summary) error {
	info, err := st.Read(sum.ID, func(env contract.Envelope) error { f.Add(env); return nil })
	a.damage(st.LogPath(sum.ID), info)
	if err != nil {
		return err
	}
	for i := range sum.Children {
		if err := a.whyTree(f, st.Tasks(sum.ID), &sum.Children[i]); err != nil {
			return err
		}
	}
	return nil
}

// firstOfEachIntent drops the touches of intents already shown: a fork
// copies its parent's events, so one intent can be in several sessions;
// the oldest session's record (the parent's) is kept.
func firstOfEachIntent(touches []why.Touch) []why.Touch {
	seen := map[string]bool{}
	out := touches[:0]
	for _, t := range touches {
		if t.Intent.ID != "" && seen[t.Intent.ID] {
			continue
		}
		seen[t.Intent.ID] = true
		out = append(out, t)
	}
	return out
}
