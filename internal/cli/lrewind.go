package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/tui"
)

// The line mode's /rewind and /undo: the terminal UI's picker and
// dialog as numbered lists and questions answered by a line, through the
// same calls of the kernel's facade.

// lineScopes are the answers to "what to restore", numbered from 1.
var lineScopes = []struct{ scope, label string }{
	{contract.RewindBoth, "code and conversation"},
	{contract.RewindConversation, "conversation only"},
	{contract.RewindCode, "code only"},
}

// ask writes question and returns the line typed after it, trimmed;
// false at the end of input or when ctx is done.
func (l *lineMode) ask(ctx context.Context, question shown) (string, bool) {
	l.w().say(question)
	answer, ok := l.lines.answer(ctx, time.Now(), l.a.deps.Stderr)
	return strings.TrimSpace(answer), ok
}

// rewind is /rewind [N]: the points numbered, oldest first; which one
// (the latest by default), what to restore, the files it restores, and a
// yes or no before it writes.
func (l *lineMode) rewind(ctx context.Context, args string) (bool, error) {
	rt, w := l.s.Runtime, l.w()
	points := rt.RewindPoints()
	if len(points) == 0 {
		w.say("rein: nothing to rewind to: the session has no message yet\n")
		return false, nil
	}
	pick := strings.TrimSpace(args)
	if pick == "" {
		w.say("Rewind to before which message?\n")
		for i, p := range points {
			w.say(pointLine(i+1, p))
		}
		var ok bool
		if pick, ok = l.ask(ctx, sayf("which? (1-%d, enter for %d, n: never mind) ", len(points), len(points))); !ok {
			return false, nil
		}
		if pick == "" {
			pick = strconv.Itoa(len(points))
		}
	}
	if no(pick) {
		w.say("rein: nothing was rewound\n")
		return false, nil
	}
	n, err := strconv.Atoi(pick)
	if err != nil || n < 1 || n > len(points) {
		w.printf("rein: there is no message %s here (1 to %d); nothing was rewound\n", pick, len(points))
		return false, nil
	}
	plan, err := rt.PlanRewind(points[n-1].Seq, contract.RewindBoth)
	if err != nil && plan.Point.Seq == 0 {
		w.printf("rein: nothing was rewound: %s\n", controlMsg(err))
		return false, nil
	}
	codeErr := err
	w.printf("Rewind to before %s. Restore what?\n", quoted(plan.Point.Text))
	for i, s := range lineScopes {
		label := s.label
		if codeErr != nil && s.scope != contract.RewindConversation {
			label += " (not possible: the files cannot be restored)"
		}
		w.printf("  %d  %s\n", i+1, label)
	}
	if codeErr != nil {
		w.printf("rein: %s\n", controlMsg(codeErr))
	}
	answer, ok := l.ask(ctx, "which? (1-3, enter for 1, n: never mind) ")
	if !ok {
		return false, nil
	}
	choice := 1
	if answer != "" {
		choice, err = strconv.Atoi(answer)
		if no(answer) || err != nil || choice < 1 || choice > len(lineScopes) {
			w.say("rein: nothing was rewound\n")
			return false, nil
		}
	}
	scope := lineScopes[choice-1].scope
	if scope != contract.RewindConversation && codeErr != nil {
		w.say("rein: nothing was rewound: the files cannot be restored\n")
		return false, nil
	}
	if scope == contract.RewindConversation {
		plan.Changes, plan.Conflicts = nil, nil
		w.say("The files stay as they are.\n")
	} else {
		l.listChanges(plan, "It restores")
	}
	return false, l.confirmRewind(ctx, plan, scope, "rewind?")
}

// undo is /undo: the last turn rewound, code and conversation; it asks
// first when files would be restored, listing them.
func (l *lineMode) undo(ctx context.Context, _ string) (bool, error) {
	plan, err := l.s.Runtime.PlanRewind(0, contract.RewindBoth)
	if err != nil {
		l.w().printf("rein: nothing was undone: %s\n", controlMsg(err))
		return false, nil
	}
	if len(plan.Changes) == 0 {
		return false, l.doRewind(ctx, plan.Point.Seq, contract.RewindBoth, false)
	}
	l.w().printf("Undo the last turn, %s.\n", quoted(plan.Point.Text))
	l.listChanges(plan, "Its files come back as they were before it")
	return false, l.confirmRewind(ctx, plan, contract.RewindBoth, "undo it?")
}

// listChanges lists the files plan restores, those someone else changed
// since rein recorded them flagged.
func (l *lineMode) listChanges(plan kernel.RewindPlan, head string) {
	w := l.w()
	if len(plan.Changes) == 0 {
		w.say("No file to restore: the session changed none since.\n")
		return
	}
	w.printf("%s (%d):\n", head, len(plan.Changes))
	conflict := map[string]bool{}
	for _, c := range plan.Conflicts {
		conflict[c] = true
	}
	for _, c := range plan.Changes {
		flag := shown("")
		if conflict[c.Path] {
			flag = "  (changed since rein recorded it: overwritten)"
		}
		w.printf("  %-8s %s%s\n", tui.RewindVerb(c.Op), c.Path, flag)
	}
}

// confirmRewind asks yes or no, then rewinds; files changed since rein
// recorded them are overwritten on a yes, which the question says.
func (l *lineMode) confirmRewind(ctx context.Context, plan kernel.RewindPlan, scope string, question string) error {
	force := len(plan.Conflicts) > 0
	q := sayf("%s [y/n] ", question)
	if force {
		q = sayf("%s, overwriting %s changed since rein recorded %s [y/n] ", strings.TrimSuffix(question, "?"), files(len(plan.Conflicts)), pronoun(len(plan.Conflicts)))
	}
	answer, ok := l.ask(ctx, q)
	if !ok {
		return nil
	}
	if a := strings.ToLower(answer); a != "y" && a != "yes" {
		l.w().say("rein: nothing was rewound\n")
		return nil
	}
	return l.doRewind(ctx, plan.Point.Seq, scope, force)
}

// doRewind rewinds and says what it did in a line; a refusal is said,
// and the session goes on.
func (l *lineMode) doRewind(ctx context.Context, seq uint64, scope string, force bool) error {
	plan, err := l.s.Runtime.Rewind(ctx, seq, scope, force)
	if err != nil {
		var ce *kernel.ControlError
		if errors.As(err, &ce) || errors.Is(err, kernel.ErrBusy) {
			l.w().printf("rein: nothing was rewound: %s\n", controlMsg(err))
			return nil
		}
		return err
	}
	line := sayf("rein: %s", tui.RewoundLine(plan))
	if plan.Scope != contract.RewindCode {
		line += "; send it again, or anything else"
	}
	l.w().say(line + "\n")
	return nil
}

// pointLine is one point of /rewind's list: its number, when, the
// message's first line, how many files changed after it.
func pointLine(n int, p kernel.RewindPoint) shown {
	changed := "files ?"
	switch {
	case p.Files == 0:
		changed = "no file changed"
	case p.Files > 0:
		changed = files(p.Files) + " changed"
	}
	if p.Rewound {
		changed = "(rewound) " + changed
	}
	first, _, _ := strings.Cut(strings.TrimSpace(p.Text), "\n")
	return sayf("  %2d  %s  %s  · %s\n", n, p.Time.Local().Format("15:04"), excerpt.Text(first, 60), changed)
}

// quoted is the first line of a message, short, in quotes.
func quoted(msg string) shown {
	first, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	return sayf("“%s”", excerpt.Text(first, 60))
}

// files says "1 file", "3 files".
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// no says an answer declines.
func no(s string) bool {
	s = strings.ToLower(s)
	return s == "n" || s == "no" || s == "q"
}

// controlMsg is what a runtime's error says to the person.
func controlMsg(err error) string {
	var ce *kernel.ControlError
	if errors.As(err, &ce) {
		return ce.Msg
	}
	if errors.Is(err, kernel.ErrBusy) {
		return "a run is under way"
	}
	return err.Error()
}

// pronoun is "it" for one file, "them" for more.
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
