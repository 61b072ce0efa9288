package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/spf13/cobra"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// compactCommand is rein compact.
func (a *app) compactCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "compact ID [--focus TEXT]",
		Short: "Summarise a session's conversation now: later requests send the summary and the recent tail",
		Long: "Summarise a recorded session's conversation now, as auto-compaction does when a request nears\n" +
			"the model's window: one model call writes a structured summary, recorded as context.compacted,\n" +
			"and from then on a request holds the system prompt, the tools, the summary and the recent tail\n" +
			"verbatim. The log keeps every original event. The summary is printed on stdout.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.compact(cmd.Context(), args[0]) },
	}
	a.sessionFlags(c)
	c.Flags().StringVar(&a.flags.focus, "focus", "", "what the summary must keep above all, e.g. 'the failing test and the files it touches'")
	return c
}

// compact runs rein compact: it opens the session for writing as rein
// resume does (its lock, its gate), records that it was resumed, and
// asks for a compaction.
func (a *app) compact(ctx context.Context, ref string) error {
	if a.deps.Resume == nil {
		return errors.New("this build cannot open sessions for writing")
	}
	spec, err := a.spec(nil)
	if err != nil {
		return err
	}
	if _, spec.Session, err = a.own(ref, "compact"); err != nil {
		return err
	}
	s, err := a.deps.Resume(ctx, spec)
	if err != nil {
		return err
	}
	defer closeSession(s, a.deps.Stderr)
	st := s.Runtime.State()
	if st.Unfinished() {
		return exitError{code: ExitFailed, msg: fmt.Sprintf("the last run of %s is unfinished (rein stopped before it ended); "+
			"finish it first with rein resume %s, then compact", s.Runtime.Session(), s.Runtime.Session())}
	}
	if !a.flags.json {
		printf(a.deps.Stderr, "rein: compacting session %s (%d events)\n", s.Runtime.Session(), st.LastSeq)
	}
	r := a.rendererOf(s)
	if t, ok := r.(*terminal); ok {
		t.compacting = true
	}
	var done *contract.ContextCompacted
	var failed *contract.CompactionFailed
	interrupted, err := a.follow(ctx, r, func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return watchCompaction(s.Runtime.Resume(ctx, kernel.Resume{Gates: s.Gates}), s.Runtime.Compact(ctx, a.flags.focus), &done, &failed)
	})
	switch {
	case err != nil:
		return err
	case interrupted != 0:
		a.code = interrupted
		return nil
	}
	return a.compacted(done, failed)
}

// compacted ends rein compact with one line: what the compaction
// replaced, or why nothing changed.
func (a *app) compacted(done *contract.ContextCompacted, failed *contract.CompactionFailed) error {
	switch {
	case done != nil:
		printf(a.deps.Stderr, "compacted %d messages (seq %d–%d) into a summary: %s → %s tokens\n",
			done.Replaced, done.FromSeq, done.ToSeq, thousands(done.TokensBefore), thousands(done.TokensAfter))
		return nil
	case failed != nil:
		return exitError{code: ExitFailed, msg: "the conversation is unchanged: " + failed.Reason}
	}
	return exitError{code: ExitFailed, msg: "the conversation is unchanged: the runtime recorded neither a compaction nor why it failed"}
}

// watchCompaction yields what resume appends, then what compact
// appends, and keeps the compaction's outcome.
func watchCompaction(resume, compact iter.Seq2[contract.Envelope, error], done **contract.ContextCompacted, failed **contract.CompactionFailed) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		for _, seq := range []iter.Seq2[contract.Envelope, error]{resume, compact} {
			for env, err := range seq {
				switch e := env.Data.(type) {
				case *contract.ContextCompacted:
					*done = e
				case *contract.CompactionFailed:
					*failed = e
				}
				if !yield(env, err) || err != nil {
					return
				}
			}
		}
	}
}
