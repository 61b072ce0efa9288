package cli

import (
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// childTrace is a task call's child as the trace shows it: its lines
// (its tool calls and their results, its text) indented under its
// task's, by a terminal of its own that writes through the parent's.
type childTrace struct {
	name shown
	t    *terminal
	// answered says the child's text was shown: its answer, which the
	// task's observation repeats, is then not shown twice.
	answered bool
	// finished says task.finished said how it ended, which the
	// invocation's own end line would only repeat.
	finished bool
}

// taskEvent shows the start, the events and the end of a task call's
// child; it reports whether data was one of those.
func (t *terminal) taskEvent(data contract.Event) bool {
	switch e := data.(type) {
	case *contract.TaskStarted:
		c := t.child(e.IntentID)
		c.name = taskName(e.Agent, e.Description)
		line := "  ↳ " + c.name + t.style("2", sayf(" · session %s", e.Child))
		if e.Resumed {
			line += t.style("2", " · resumed: rein stopped while it ran")
		}
		t.line(line)
		t.shownChild = e.IntentID
	case *contract.TaskEvent:
		t.childEvent(e)
	case *contract.TaskFinished:
		c := t.child(e.IntentID)
		c.finished = true
		c.t.errw.(*nested).flush()
		if c.name == "" {
			c.name = taskName(e.Agent, "")
		}
		t.line(t.taskEnd(c.name, e))
	default:
		return false
	}
	return true
}

// child returns the trace of the child of task call id, made when new.
func (t *terminal) child(id string) *childTrace {
	if t.tasks == nil {
		t.tasks = map[string]*childTrace{}
	}
	c, ok := t.tasks[id]
	if !ok {
		c = &childTrace{}
		w := &nested{parent: t, intent: id, start: true}
		c.t = &terminal{out: w, errw: w, color: t.color, workspace: t.workspace}
		t.tasks[id] = c
	}
	return c
}

// childEvent shows one durable event of a running child, indented under
// its task: its tool calls as the parent's are shown, its text and its
// reasoning whole (they are not streamed: a child's deltas stay in the
// child). Its brief is its task's line, and its run's end is said by
// task.finished.
func (t *terminal) childEvent(e *contract.TaskEvent) {
	c := t.child(e.IntentID)
	switch d := e.Event.Data.(type) {
	case *contract.UserMessage, *contract.RunStarted, *contract.RunFinished:
	case *contract.ModelText:
		if s := strings.TrimRight(d.Text, "\n"); strings.TrimSpace(s) != "" {
			c.answered = true
			c.t.line(text(s))
		}
	case *contract.ModelReasoning:
		if s := strings.TrimRight(d.Text, "\n"); strings.TrimSpace(s) != "" {
			c.t.line(c.t.style("2", "thinking: "+text(s)))
		}
	default:
		// A call's title waits for its decision, its end for its
		// observation, which come soon after them in the child's log (a
		// question aside): each pair is written together, not parted by
		// another child's lines. What shows nothing leaves it held.
		w := c.t.errw.(*nested)
		switch d := d.(type) {
		case *contract.IntentProposed, *contract.InvocationCompleted:
			w.hold = true
		case *contract.ToolValidation:
			w.hold = w.hold && d.OK
		case *contract.ModelFinished, *contract.ModelUsage, *contract.ModelStarted, *contract.ContextProjected,
			*contract.InvocationStarted, *contract.SessionStarted:
		default:
			w.hold = false
		}
		// Never an error: the child's writer is the parent's stderr,
		// whose failures the parent's own lines meet.
		_ = c.t.event(e.Event)
		if !w.hold {
			w.flush()
		}
	}
}

// taskEnd is the line of a child's end: how it ended and what it did.
func (t *terminal) taskEnd(name shown, e *contract.TaskFinished) shown {
	var parts []string
	parts = append(parts, plural(e.Turns, "turn"), plural(e.ToolCalls, "tool call"))
	if n := len(e.FilesChanged); n > 0 {
		parts = append(parts, plural(n, "file")+" changed")
	}
	if u := e.Usage; u != nil && u.InputTokens+u.OutputTokens > 0 {
		parts = append(parts, thousands(u.InputTokens)+" tokens in, "+thousands(u.OutputTokens)+" out")
		if u.Unpriced > 0 {
			parts = append(parts, "cost unknown")
		} else {
			parts = append(parts, dollars(u.CostUSD))
		}
	}
	counts := sayf("%s", strings.Join(parts, " · "))
	if e.Outcome == contract.TaskCompleted {
		return t.style("2", "  ↳ "+name+" · done · "+counts)
	}
	why := shown("")
	if e.Reason != "" {
		why = ": " + field(excerpt.Text(e.Reason, 300))
	}
	code := "33"
	if e.Outcome == contract.TaskFailed {
		code = "31"
	}
	return t.style(code, "  ✗ "+name+sayf(" · %s", transcript.TaskOutcome(e.Outcome))+why) + t.style("2", " · "+counts)
}

// taskName names a task's child as its lines are headed:
// "explore · find the auth code".
func taskName(agent, description string) shown {
	description = strings.Join(strings.Fields(description), " ")
	switch {
	case description == "":
		return field(agent)
	case agent == "":
		return field(description)
	}
	return field(agent) + " · " + field(excerpt.Text(description, 80))
}

// nested is the writer of a child's trace: each line it is given goes to
// the parent's stderr indented under the task, and when another child's
// lines, or the parent's, came since this child's last, a line naming
// the child comes first, so that children running side by side read
// apart.
type nested struct {
	parent *terminal
	intent string
	// start says the next byte begins a line.
	start bool
	// hold says what is written waits in held for the next flush.
	hold bool
	held strings.Builder
}

// traceIndent is how far a child's lines are indented: past its task's
// own lines ("  allowed by ...").
const traceIndent = "    "

// Write writes p, which the child's terminal made of shown text only
// (its say and style), indented, or holds it while hold is set; it never
// fails but as the parent's stderr does.
func (n *nested) Write(p []byte) (int, error) {
	if n.hold {
		n.held.WriteString(string(p)) // kept in memory, written by flush
		return len(p), nil
	}
	if err := n.flush(); err != nil {
		return 0, err
	}
	return n.write(p)
}

// flush writes what was held.
func (n *nested) flush() error {
	if n.held.Len() == 0 {
		return nil
	}
	p := []byte(n.held.String())
	n.held.Reset()
	_, err := n.write(p)
	return err
}

// write writes p indented, after the child's name when another's lines
// came since its last.
func (n *nested) write(p []byte) (int, error) {
	t := n.parent
	if t.shownChild != n.intent {
		t.end()
		if c := t.tasks[n.intent]; c != nil && c.name != "" {
			say(t.errw, t.style("2", "  ↳ "+c.name)+"\n")
		}
		t.shownChild = n.intent
		n.start = true
	}
	var b strings.Builder
	for _, c := range p {
		if n.start && c != '\n' {
			b.WriteString(traceIndent)
		}
		n.start = c == '\n'
		b.WriteByte(c)
	}
	if err := say(t.errw, shown(b.String())); err != nil {
		return 0, err
	}
	return len(p), nil
}

// footer is the footer line the task tool writes in its observation
// ("[task explore, completed: 3 turns, ...]"), after a completed child's
// answer or before the last words of one that did not complete; "" when
// it has none.
func footer(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "[task ") && strings.HasSuffix(l, "]") {
			return l
		}
	}
	return ""
}
