package transcript

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/printable"
)

// task is what a task call's card knows of its child session: who it is,
// what it does now, what it did so far, and how it ended. It is folded
// from task.started, the child's own events (task.event, which travel on
// the bus only) and task.finished, so that a card read back from a log,
// which holds no task.event, still ends as the live one did.
type task struct {
	agent, description string
	resumed            bool
	started            time.Time
	// turns, calls and tokens are counted from the child's events while
	// it runs; task.finished's figures replace them.
	turns, calls int
	tokens       int64
	// tools are the child's tool calls proposed and not observed, by
	// intent id, in order; the last is the one the live line names.
	tools map[string]*childTool
	order []string
	// doing is what the child does when no tool of its runs: "waiting
	// for the model", "thinking", "writing".
	doing    string
	finished *contract.TaskFinished
}

// childTool is one of a child's tool calls as its card's header would
// name it, and whether it waits for the person's approval.
type childTool struct {
	subject string
	asking  bool
}

// taskEvent folds one event of the task's life into the card of its
// intent: the child's start, one of its events, its end. An event for a
// card no longer shown (its observation came) is dropped.
func (t *Transcript) taskEvent(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.TaskStarted:
		c := t.card(e.IntentID)
		if c.tool == "" {
			c.tool = "task"
		}
		c.task = &task{agent: e.Agent, description: e.Description, resumed: e.Resumed, started: env.Time, tools: map[string]*childTool{}}
	case *contract.TaskEvent:
		if c, ok := t.cards[e.IntentID]; ok && c.task != nil {
			c.task.child(e.Event, t.opts.Workspace)
		}
	case *contract.TaskFinished:
		if c, ok := t.cards[e.IntentID]; ok {
			if c.task == nil {
				c.task = &task{agent: e.Agent, tools: map[string]*childTool{}}
			}
			c.task.finished = e
		}
	}
}

// Asking marks the call of intent id of a task's child as waiting, or no
// longer waiting, for the person's approval: a question names the
// child's intent, whose permission is recorded only once answered, and
// the dialog shown over the card says who asks, not which card. An id no
// task's card shows is ignored.
func (t *Transcript) Asking(id string, asking bool) {
	for _, c := range t.cards {
		if c.task == nil {
			continue
		}
		if ct, ok := c.task.tools[id]; ok {
			ct.asking = asking
			return
		}
	}
}

// child folds one durable event of the child's session.
func (k *task) child(env contract.Envelope, workspace string) {
	switch e := env.Data.(type) {
	case *contract.ModelRequested:
		if e.Purpose != contract.PurposeCompaction {
			k.turns++
			k.doing = "waiting for the model"
		} else {
			k.doing = "compacting its conversation"
		}
	case *contract.ModelReasoning:
		k.doing = "thinking"
	case *contract.ModelText:
		k.doing = "writing"
	case *contract.ModelUsage:
		k.tokens += e.InputTokens + e.OutputTokens
	case *contract.IntentProposed:
		k.calls++
		k.tools[e.ID] = &childTool{subject: toolLine(e.ToolName, e.Input, workspace)}
		k.order = append(k.order, e.ID)
	case *contract.ToolPermission:
		if c, ok := k.tools[e.IntentID]; ok {
			c.asking = e.Decision == contract.Ask
		}
	case *contract.InvocationStarted:
		if c, ok := k.tools[e.IntentID]; ok {
			c.subject, c.asking = toolLine(e.ToolName, e.Input, workspace), false
		}
	case *contract.ToolObservation:
		delete(k.tools, e.IntentID)
		for i, id := range k.order {
			if id == e.IntentID {
				k.order = append(k.order[:i], k.order[i+1:]...)
				break
			}
		}
		k.doing = "waiting for the model"
	case *contract.RetryScheduled:
		k.doing = e.Status()
	}
}

// toolLine names a call as its card's header does, without the styles:
// "bash go test ./...".
func toolLine(tool string, input json.RawMessage, workspace string) string {
	line := printable.Line(tool)
	if s := subjectOf(tool, input, workspace); s != "" {
		line += " " + s
	}
	return line
}

// taskSubject is what a task's card names it by: its agent and the
// brief's description ("explore · find the auth code"), or either alone.
func taskSubject(agent, description string) string {
	agent, description = printable.Line(agent), printable.Line(strings.Join(strings.Fields(description), " "))
	switch {
	case agent == "":
		return description
	case description == "":
		return agent
	}
	return agent + " · " + description
}

// taskInputSubject is the subject of a task call from its input: the
// agent it names (none yet when it leaves the default to the tool) and
// the description.
func taskInputSubject(input json.RawMessage) string {
	var in struct {
		Agent, Description string
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	return taskSubject(in.Agent, in.Description)
}

// taskLive renders the live line of a running task: what the child does
// now (the tool it runs, as that tool's card would name it, or waits
// for), then its counts and how long it has run; the counts go on a line
// of their own when both do not fit on one.
func (c *card) taskLive(v view, now time.Time) []string {
	k := c.task
	th := v.th
	doing, st := k.doing, th.Dim
	switch {
	case doing != "":
	case k.resumed:
		doing = "going on where rein stopped"
	default:
		doing = "starting"
	}
	if n := len(k.order); n > 0 {
		ct := k.tools[k.order[n-1]]
		doing, st = ct.subject, th.Text
		if ct.asking {
			doing, st = "waiting for your approval: "+ct.subject, th.Warn
		}
	}
	var counts []string
	if k.turns > 0 {
		counts = append(counts, "turn "+strconv.Itoa(k.turns))
	}
	counts = append(counts, plural(k.calls, "tool call"))
	if k.tokens > 0 {
		counts = append(counts, tokensShort(k.tokens)+" tokens")
	}
	start := k.started
	if start.IsZero() {
		start = c.started
	}
	if !start.IsZero() {
		counts = append(counts, seconds(max(now.Sub(start).Milliseconds(), 0)))
	}
	tail := strings.Join(counts, " · ")
	if ansi.StringWidth(doing) <= v.width-4-3-ansi.StringWidth(tail) {
		return []string{"  " + paint(th, th.Dim, "⎿") + " " + paint(th, st, doing) + paint(th, th.Dim, " · "+tail)}
	}
	return []string{branch(v, st, doing), indentLine(v, th.Dim, tail)}
}

// taskLines is how many lines of a child's final answer its card shows;
// the rest is counted, for Ctrl-O to show.
const taskLines = 4

// taskFinished renders what came of a task: how the child ended and
// what it did (from task.finished), then the first lines of its answer
// (the observation's text less its footer, the counts the status line
// says). obs is nil when the run ended before the observation.
func (c *card) taskFinished(v view, obs *contract.Observation) []string {
	k, th := c.task, v.th
	f := k.finished
	outcome, reason := contract.TaskCancelled, ""
	switch {
	case f != nil:
		outcome, reason = f.Outcome, f.Reason
	case obs == nil:
		// The run ended before the child's end was recorded: it was
		// stopped with it.
		reason = "the run ended while it worked"
	}
	word := TaskOutcome(outcome)
	if f == nil && c.completed != nil && c.completed.Exit == contract.ExitInterrupted {
		word = "interrupted" // rein died while it ran; resume settled it
	}
	st := th.OK
	switch outcome {
	case contract.TaskCompleted:
	case contract.TaskFailed:
		st = th.Error
	default:
		st = th.Warn
	}
	// The counts follow the outcome on as many rows as they need, each
	// count whole.
	out := []string{branch(v, st, word)}
	used := 4 + ansi.StringWidth(word)
	for _, part := range c.taskCounts() {
		if w := ansi.StringWidth(part); used+3+w <= v.width {
			out[len(out)-1] += paint(th, th.Dim, " · "+part)
			used += 3 + w
		} else {
			out = append(out, "    "+paint(th, th.Dim, part))
			used = 4 + w
		}
	}
	if reason != "" && outcome != contract.TaskCompleted {
		for _, r := range wrapText(printable.Line(reason), v.width-4) {
			out = append(out, "    "+paint(th, st, r))
		}
	}
	if obs == nil {
		return out
	}
	answer := printable.Text(lineEnds(obs.Text))
	if f != nil {
		answer = withoutFooter(answer)
	}
	// The answer's lines wrapped to the card, its blank lines left out:
	// a collapsed answer has no rows to spare.
	var rows []string
	for _, l := range strings.Split(strings.TrimRight(answer, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			rows = append(rows, wrapText(l, v.width-4)...)
		}
	}
	return append(out, firstLines(v, strings.Join(rows, "\n"), taskLines)...)
}

// TaskOutcome is how a person is told a task's outcome ("done", "timed
// out"...), on a card and in a trace.
func TaskOutcome(outcome string) string {
	switch outcome {
	case contract.TaskCompleted:
		return "done"
	case contract.TaskFailed:
		return "failed"
	case contract.TaskCancelled:
		return "cancelled"
	case contract.TaskTimeout:
		return "timed out"
	case contract.TaskMaxTurns:
		return "reached its turn limit"
	case contract.TaskNoAnswer:
		return "ended without an answer"
	case contract.TaskBudget:
		return "stopped at the budget"
	}
	return printable.Line(outcome)
}

// taskCounts is what the child did: its turns, tool calls, files changed,
// time, tokens and cost, from task.finished when it came, else as
// counted from its events.
func (c *card) taskCounts() []string {
	k := c.task
	turns, calls, tokens := k.turns, k.calls, k.tokens
	var parts []string
	cost := ""
	if f := k.finished; f != nil {
		turns, calls = f.Turns, f.ToolCalls
		if u := f.Usage; u != nil {
			tokens = u.InputTokens + u.OutputTokens
			switch {
			case u.Calls == u.Unpriced:
			case u.CostUSD > 0 && u.CostUSD < 0.005:
				cost = "<$0.01"
			default:
				cost = fmt.Sprintf("$%.2f", u.CostUSD)
			}
		}
	}
	parts = append(parts, plural(turns, "turn"), plural(calls, "tool call"))
	if d := c.completed; d != nil {
		parts = append(parts, seconds(d.DurationMS))
	}
	if f := k.finished; f != nil && len(f.FilesChanged) > 0 {
		parts = append(parts, plural(len(f.FilesChanged), "file")+" changed")
	}
	if tokens > 0 {
		parts = append(parts, tokensShort(tokens)+" tokens")
	}
	if cost != "" {
		parts = append(parts, cost)
	}
	return parts
}

// withoutFooter drops the footer line the task tool writes in its
// observation ("[task explore, completed: 3 turns, ...]"), whose counts
// the card's status line says: after a completed child's answer, before
// the last words of one that did not complete.
func withoutFooter(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "[task ") && strings.HasSuffix(l, "]") {
			lines = append(lines[:i], lines[i+1:]...)
			break
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// tokensShort is a token count in k or M: "950", "12.3k", "1.2M".
func tokensShort(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return strconv.FormatInt(n, 10)
}
