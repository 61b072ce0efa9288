package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/kernel"
)

// rewindCommand is rein rewind.
func (a *app) rewindCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "rewind ID [--to SEQ] [--code | --conversation | --both] [--list] [--force]",
		Short: "Put a session's files and conversation back as they were before one of its messages",
		Long: "Rewind a recorded session to just before one of its messages (the latest by default, or the\n" +
			"one at --to SEQ; --list shows them). With --both (the default) or --code, every file the session\n" +
			"changed since, by its edits or by its commands, comes back byte for byte: deleted files return,\n" +
			"created ones go, modes are kept. A file someone else changed since rein last recorded it stops the\n" +
			"rewind, which then writes nothing, unless --force. With --both or --conversation the session goes\n" +
			"on from that point: rein resume sends what came before it, and the log keeps the rest, which\n" +
			"rein replay shows as rewound (a later rewind can go forward to it again). Ignored files over the\n" +
			"checkpoints' budget, and what lies outside the workspace, are not restored.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.rewind(cmd.Context(), args[0]) },
	}
	f := c.Flags()
	f.StringVar(&a.flags.sessionDir, "session-dir", "", "where sessions are kept (default: the configuration's, else the state directory)")
	f.Uint64Var(&a.flags.rewindTo, "to", 0, "the seq of the message to rewind to (rein rewind ID --list shows them); default the latest")
	f.BoolVar(&a.flags.rewindCode, "code", false, "restore the files only; the conversation goes on as it is")
	f.BoolVar(&a.flags.rewindConv, "conversation", false, "rewind the conversation only; the files stay as they are")
	f.BoolVar(&a.flags.rewindBoth, "both", false, "restore the files and rewind the conversation (the default)")
	f.BoolVar(&a.flags.rewindList, "list", false, "list the points a rewind can go to, and change nothing")
	f.BoolVar(&a.flags.rewindForce, "force", false, "overwrite files that changed since rein last recorded them")
	return c
}

// rewind runs rein rewind: it opens the session for writing, with no
// model, and lists its points or rewinds it.
func (a *app) rewind(ctx context.Context, ref string) error {
	if a.deps.Resume == nil {
		return errors.New("this build cannot open sessions for writing")
	}
	if n := countTrue(a.flags.rewindCode, a.flags.rewindConv, a.flags.rewindBoth); n > 1 {
		return fmt.Errorf("%w: give one of --code, --conversation and --both (the default), not %d", ErrUsage, n)
	}
	spec, err := a.spec(nil)
	if err != nil {
		return err
	}
	spec.Offline = true
	if _, spec.Session, err = a.own(ref, "rewind"); err != nil {
		return err
	}
	s, err := a.deps.Resume(ctx, spec)
	if err != nil {
		return err
	}
	defer closeSession(s, a.deps.Stderr)
	rt := s.Runtime
	if a.flags.rewindList {
		a.rewindList(rt.RewindPoints())
		return nil
	}
	scope := contract.RewindBoth
	switch {
	case a.flags.rewindCode:
		scope = contract.RewindCode
	case a.flags.rewindConv:
		scope = contract.RewindConversation
	}
	plan, err := rt.Rewind(ctx, a.flags.rewindTo, scope, a.flags.rewindForce)
	if err != nil {
		var ce *kernel.ControlError
		if errors.As(err, &ce) {
			msg := ce.Msg
			if errors.Is(err, kernel.ErrConflict) {
				msg += "; nothing was rewound (--force overwrites " + pronounOf(len(plan.Conflicts)) + ")"
			}
			return exitError{code: ExitFailed, msg: msg}
		}
		return err
	}
	a.rewound(rt.Session(), plan)
	return nil
}

// rewindList prints the points of rein rewind --list, oldest first.
func (a *app) rewindList(points []kernel.RewindPoint) {
	if len(points) == 0 {
		printf(a.deps.Stdout, "the session has no message to rewind to\n")
		return
	}
	w := tabwriter.NewWriter(a.deps.Stdout, 0, 0, 2, ' ', 0)
	printf(w, "SEQ\tTIME\tFILES\tMESSAGE\n")
	for _, p := range points {
		files := "?"
		if p.Files >= 0 {
			files = fmt.Sprint(p.Files)
		}
		first, _, _ := strings.Cut(strings.TrimSpace(p.Text), "\n")
		if p.Rewound {
			first += "  (rewound)"
		}
		printf(w, "%d\t%s\t%s\t%s\n", p.Seq, p.Time.Local().Format("2006-01-02 15:04"), files, text(excerpt.Text(first, 72)))
	}
	_ = w.Flush()
}

// rewound says what rein rewind did.
func (a *app) rewound(session string, plan kernel.RewindPlan) {
	first, _, _ := strings.Cut(strings.TrimSpace(plan.Point.Text), "\n")
	printf(a.deps.Stdout, "rewound session %s to before seq %d (%s)\n", session, plan.Point.Seq, text(excerpt.Text(first, 60)))
	if plan.Scope != contract.RewindConversation {
		if len(plan.Changes) == 0 {
			printf(a.deps.Stdout, "files: nothing to restore (the session changed none since)\n")
		}
		for _, c := range plan.Changes {
			printf(a.deps.Stdout, "  %s %s\n", rewindVerb(c.Op), text(c.Path))
		}
	}
	if plan.Scope != contract.RewindCode {
		printf(a.deps.Stdout, "conversation: goes on from before that message (rein resume %s)\n", session)
	}
}

// rewindVerb says what a rewind did to a file.
func rewindVerb(op string) string {
	switch op {
	case "created":
		return "restored"
	case "deleted":
		return "removed "
	}
	return "reverted"
}

// pronounOf is "it" for one file, "them" for more.
func pronounOf(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// countTrue counts the flags set.
func countTrue(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}
