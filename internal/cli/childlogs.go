package cli

import (
	"bytes"
	"io"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/session"
)

// childLogs finds the logs of a session's children for the read-only
// commands that show them (replay, log --children, why), and says what
// they skipped in them.
type childLogs struct {
	// tasks is the session's Tasks store, where its children are; root
	// is the sessions directory, where a child the session's log names
	// but its tasks directory does not hold is looked for (a fork's
	// copied tasks: their children stay with the session that ran them).
	tasks, root *session.Store
	damage      func(path string, info session.ReadInfo)
}

// place returns where child's log is.
func (c *childLogs) place(child string) (session.Place, error) {
	if p, err := c.tasks.Locate(child); err == nil && p.ID == child {
		return p, nil
	}
	p, err := c.root.Locate(child)
	if err == nil && p.ID != child {
		err = session.ErrNotFound // a longer id: not this child
	}
	return p, err
}

// of returns the childLogs of the session at p, below the same root.
func (c *childLogs) of(p session.Place) *childLogs {
	return &childLogs{tasks: p.Store.Tasks(p.ID), root: c.root, damage: c.damage}
}

// childIndent starts each line of a child's transcript, nested in its
// parent's.
const childIndent = "  ┆ "

// task shows the start and the end of a task call's child, with the
// child's own transcript between them, read from its log; it reports
// whether env was one of those.
func (r *replayer) task(env contract.Envelope) (bool, error) {
	switch e := env.Data.(type) {
	case *contract.TaskStarted:
		line := sayf("%s ┌ task %s: %q → child session %s", r.at(env), e.Agent, e.Description, e.Child)
		if e.Resumed {
			line += " (begun before rein stopped; finished by rein resume)"
		}
		r.line(line)
		r.nest(e.Child)
	case *contract.TaskFinished:
		r.line(r.taskEnd(env, e))
		if e.Reason != "" && e.Outcome != contract.TaskCompleted {
			r.line("  " + field(e.Reason))
		}
		if !r.replayed[e.Child] && e.Usage != nil {
			// Its log was not read: what the parent recorded is all
			// there is of its cost.
			r.kids.usage.Merge(e.Usage)
			r.kids.sessions++
			r.replayed[e.Child] = true
		}
	default:
		return false, nil
	}
	return true, nil
}

// taskEnd is the line that closes a child: how its task ended, and what
// it did and cost.
func (r *replayer) taskEnd(env contract.Envelope, e *contract.TaskFinished) shown {
	line := sayf("%s └ task %s · %d turn(s) · %d tool call(s) · %d file(s) read, %d changed", r.at(env), e.Outcome,
		e.Turns, e.ToolCalls, len(e.FilesRead), len(e.FilesChanged))
	if e.Usage != nil {
		line += " · " + shown(totals(e.Usage))
	}
	return line
}

// nest shows child's transcript, read from its log, indented under its
// task; a child already shown (a task resumed) or whose log cannot be
// found is said in a line. The child's tree counts in the session's.
func (r *replayer) nest(child string) {
	if r.logs == nil {
		return
	}
	if r.replayed[child] {
		r.line(r.t.style("2", childIndent+"(its transcript is shown above)"))
		return
	}
	p, err := r.logs.place(child)
	if err != nil {
		r.line(r.t.style("33", childIndent+"its log cannot be shown: "+problem(err)))
		return
	}
	r.t.end()
	w := &indented{w: r.w, prefix: childIndent}
	c := newReplayer(w)
	c.t.color, c.t.workspace, c.nested, c.logs = r.t.color, r.t.workspace, true, r.logs.of(p)
	info, err := p.Store.Read(p.ID, c.event)
	c.end()
	w.finish()
	r.logs.damage(p.Store.LogPath(p.ID), info)
	if err != nil {
		r.line(r.t.style("33", childIndent+"its log could not be read whole: "+problem(err)))
	}
	r.replayed[child] = true
	r.kids.add(c.tree())
}

// tree sums a session's events and its children's, as one child of its
// parent's.
func (r *replayer) tree() replayTotals {
	t := r.own
	t.add(r.kids)
	t.sessions++
	return t
}

// childOf is the line under a child's header that says whose child it
// is; a child shown alone says where its parent shows it.
func (r *replayer) childOf(p *contract.ParentRef) shown {
	if r.nested {
		return r.t.style("2", sayf("  a task of session %s: %s, %q", p.Session, p.Agent, p.Description))
	}
	return sayf("  a child session: the task %q (agent %s) of session %s, called at its seq %d; `rein replay %s` shows it in its place",
		p.Description, p.Agent, p.Session, p.Seq, p.Session)
}

// treeLines say, under a stretch's totals, those of the children its
// tasks ran and the whole tree's; nothing when it ran none. label
// starts them.
func (r *replayer) treeLines(label string, own, kids *replayTotals) {
	if kids.sessions == 0 {
		return
	}
	r.line(sayf("  %sits %d child session(s): %d run(s) · %d model call(s) · %d tool call(s), %d failed or refused · %s",
		label, kids.sessions, kids.runs, kids.calls, kids.tools, kids.failed, totals(&kids.usage)))
	tree := own.usage
	tree.Merge(&kids.usage)
	r.line(sayf("  %sthe whole tree: %s", label, totals(&tree)))
}

// indented writes to w with prefix at the start of every line: a child's
// transcript within its parent's.
type indented struct {
	w      io.Writer
	prefix string
	// mid says the last write ended inside a line.
	mid bool
}

func (i *indented) Write(p []byte) (int, error) {
	var b bytes.Buffer
	for rest := p; len(rest) > 0; {
		if !i.mid {
			b.WriteString(i.prefix)
		}
		line, more, found := bytes.Cut(rest, []byte("\n"))
		b.Write(line)
		if found {
			b.WriteByte('\n')
		}
		i.mid, rest = !found, more
	}
	if _, err := i.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// finish ends a line left open.
func (i *indented) finish() {
	if i.mid {
		say(i.w, "\n")
		i.mid = false
	}
}

// indentOf is the indentation of a child at depth (1 for a child of the
// session shown).
func indentOf(depth int) string { return strings.Repeat(childIndent, depth) }

// logTree prints the events of the session at p for rein log, at depth
// (0 for the session asked for), and, when logs is not nil, each child's
// after its task.started, recursively: indented under a line naming the
// child, or with --json each line as the child's log holds it. A child
// is printed once (a task resumed starts it again); seen holds those
// printed.
func (a *app) logTree(p session.Place, logs *childLogs, depth int, out renderer, seen map[string]bool) error {
	info, err := p.Store.Read(p.ID, func(env contract.Envelope) error {
		if matchType(a.flags.types, env.Type()) {
			var err error
			if a.flags.json {
				err = out.event(env)
			} else {
				err = say(a.deps.Stdout, shown(indentOf(depth))+logLine(env)+"\n")
			}
			if err != nil {
				return err
			}
		}
		t, ok := env.Data.(*contract.TaskStarted)
		if !ok || logs == nil || seen[t.Child] {
			return nil
		}
		seen[t.Child] = true
		cp, err := logs.place(t.Child)
		if err != nil {
			printf(a.deps.Stderr, "rein: warning: the log of child session %s (the task at seq %d of %s) cannot be read: %s\n", t.Child, env.Seq, p.ID, problem(err))
			return nil
		}
		if !a.flags.json {
			if err := say(a.deps.Stdout, shown(indentOf(depth+1))+sayf("── child session %s: %s, %q ──\n", t.Child, t.Agent, t.Description)); err != nil {
				return err
			}
		}
		return a.logTree(cp, logs.of(cp), depth+1, out, seen)
	})
	a.damage(p.Store.LogPath(p.ID), info)
	return err
}
