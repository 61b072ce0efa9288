package delegate

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

func readDir(dir string) ([]os.DirEntry, error) { return os.ReadDir(dir) }

// execute runs one task call: it opens the child's session (found again
// when the call is run again on resume), reports task.started, runs the
// child under its ceiling, reports each of its events as a task.event and
// its end as task.finished, and writes what the parent model reads.
func (t *tasker) execute(ctx context.Context, call *registry.Call) (registry.Result, error) {
	in, err := parse(call.Input)
	if err != nil {
		return registry.Result{}, err
	}
	a, ok := t.agent(in.Agent)
	if !ok {
		return registry.Result{}, fmt.Errorf("there is no agent %q; the agents are: %s", excerpt.Prefix(in.Agent, 64), t.names())
	}
	report := call.Report
	if report == nil {
		report = func(contract.Event) (uint64, error) { return 0, nil }
	}
	store := session.NewStore(filepath.Join(t.opts.Dir, TasksDir), nil)
	sess, resumed, err := t.open(store, call.IntentID)
	if err != nil {
		return registry.Result{}, err
	}
	seq, err := report(&contract.TaskStarted{IntentID: call.IntentID, Agent: a.Name, Description: in.Description, Child: sess.ID, Resumed: resumed})
	if err != nil {
		return registry.Result{}, errors.Join(err, sess.Close())
	}
	parent := &contract.ParentRef{Session: t.opts.Session(), Seq: seq, IntentID: call.IntentID, Agent: a.Name,
		Description: in.Description, Depth: t.opts.Depth + 1}
	if resumed && sess.State.Parent != nil {
		parent = sess.State.Parent
	}
	outcome, reason := t.run(ctx, call, report, a, in, sess, parent, resumed)
	sum := summarize(sess)
	if err := sess.Close(); err != nil && outcome == contract.TaskCompleted {
		outcome, reason = contract.TaskFailed, "its log could not be closed: "+err.Error()
	}
	if outcome == contract.TaskCompleted && sum.answer == "" {
		outcome, reason = contract.TaskNoAnswer, "it ended without an answer"
	}
	usage := sum.usage
	fin := &contract.TaskFinished{IntentID: call.IntentID, Agent: a.Name, Child: sess.ID, Outcome: outcome, Reason: reason,
		Usage: &usage, Turns: sum.turns, ToolCalls: sum.calls, FilesRead: sum.read, FilesChanged: sum.changed}
	if _, err := report(fin); err != nil {
		return registry.Result{}, err
	}
	return t.observe(call, a, fin, sum)
}

// open returns the child session of the task call intent: the one begun
// before rein died, found by the intent it works for, or a new one.
func (t *tasker) open(store *session.Store, intent string) (sess *session.Session, resumed bool, err error) {
	opts := &session.WriteOptions{Secrets: t.opts.Secrets}
	if found := find(store, intent); found != "" {
		sess, err := store.Open(found, opts)
		if err != nil {
			return nil, false, fmt.Errorf("the child session %s of this task could not be opened: %w", found, err)
		}
		return sess, true, nil
	}
	sess, err = store.Create(id.New("ses"), opts)
	if err != nil {
		return nil, false, fmt.Errorf("the child session could not be made: %w", err)
	}
	return sess, false, nil
}

// run runs the child of sess to its end, reporting its events, and says
// how it ended.
func (t *tasker) run(ctx context.Context, call *registry.Call, report reporter, a *Agent, in input, sess *session.Session,
	parent *contract.ParentRef, resumed bool) (outcome, reason string) {
	if resumed && sess.State.Run != "" && !sess.State.Unfinished() {
		// It had finished before rein died: nothing of it runs again.
		return fromRun(sess.State.Outcome, "it had finished before rein stopped")
	}
	child, err := t.child(a, in, sess, parent, resumed)
	if err != nil {
		return contract.TaskFailed, err.Error()
	}
	if child.MaxCost < 0 {
		return contract.TaskBudget, "the run's budget was spent before it started"
	}
	k, err := t.opts.Kernel(ctx, child)
	if err != nil {
		return contract.TaskFailed, err.Error()
	}
	cctx, cancel := context.WithTimeout(ctx, t.opts.Timeout)
	defer cancel()
	var events iter.Seq2[contract.Envelope, error]
	if resumed {
		gates, err := sess.Gate(t.opts.Version)
		if err != nil {
			return contract.TaskFailed, "its session cannot go on: " + err.Error()
		}
		events = k.Resume(cctx, kernel.Resume{Gates: gates})
	} else {
		events = k.Send(cctx, kernel.Input{Text: in.Prompt})
	}
	var finished *contract.RunFinished
	for env, err := range events {
		if err != nil {
			return contract.TaskFailed, "rein failed running it: " + err.Error()
		}
		if !env.Durable() {
			continue
		}
		if f, ok := env.Data.(*contract.RunFinished); ok {
			finished = f
		}
		if _, err := report(&contract.TaskEvent{IntentID: call.IntentID, Child: sess.ID, Event: env}); err != nil {
			return contract.TaskFailed, "the parent's log failed: " + err.Error()
		}
	}
	switch {
	case finished != nil && finished.Outcome == contract.OutcomeCompleted:
	case ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		// However the run recorded its end (cancelled, or a model call
		// that failed as the clock ran out), its time was up.
		return contract.TaskTimeout, fmt.Sprintf("it ran for %s, its time limit", t.opts.Timeout)
	case ctx.Err() != nil:
		return contract.TaskCancelled, "the parent's run was cancelled"
	case finished == nil && resumed:
		return fromRun(k.State().Outcome, "")
	case finished == nil:
		return contract.TaskFailed, "its run ended without finishing"
	}
	return fromRun(finished.Outcome, finished.Reason)
}

// reporter is a registry.Call's Report.
type reporter = func(contract.Event) (uint64, error)

// child makes what the child of sess runs with: its tools under its
// ceiling (as ChildTool gives them), its tool runtime, whose questions
// say which child asks, and its budgets (a MaxCost below 0: the parent's
// was spent).
func (t *tasker) child(a *Agent, in input, sess *session.Session, parent *contract.ParentRef, resumed bool) (*Child, error) {
	c, err := ceilingOf(a, t.opts.Registry, t.opts.Policy(), t.nested())
	if err != nil {
		return nil, err
	}
	tools := c.tools
	if t.opts.ChildTool != nil {
		tools = nil
		for _, tl := range c.tools {
			if own, ok := t.opts.ChildTool(tl); ok {
				tools = append(tools, own)
			}
		}
	}
	reg, err := registry.New(tools...)
	if err != nil {
		return nil, err
	}
	topts := t.opts.Tools
	topts.ArtifactDir = filepath.Join(sess.Dir, "artifacts")
	if topts.Approver != nil {
		topts.Approver = asker{t: t, approver: topts.Approver, agent: a.Name, task: in.Description}
	}
	rt, err := tool.New(reg, c.policy, &topts)
	if err != nil {
		return nil, err
	}
	child := &Child{Agent: a, Parent: parent, Session: sess, Resumed: resumed, Registry: reg, Tools: rt,
		MaxTurns: cmpOr(a.MaxTurns, DefaultMaxTurns)}
	if t.opts.Budget != nil {
		child.MaxCost = t.opts.Budget()
	}
	return child, nil
}

// fromRun maps a child run's outcome to its task's.
func fromRun(o contract.Outcome, reason string) (string, string) {
	switch o {
	case contract.OutcomeCompleted:
		return contract.TaskCompleted, reason
	case contract.OutcomeCancelled:
		return contract.TaskCancelled, reason
	case contract.OutcomeMaxTurns:
		return contract.TaskMaxTurns, reason
	case contract.OutcomeBudget:
		return contract.TaskBudget, reason
	case "":
		return contract.TaskFailed, "its run never finished"
	}
	return contract.TaskFailed, reason
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// summary is what a child did, read from its log: the parent's footer and
// task.finished.
type summary struct {
	turns, calls  int
	read, changed []string
	usage         contract.Totals
	// answer is its final answer: the text of its last message, when
	// that called no tool; last is the last text it said at all.
	answer, last string
}

// summarize reads what the child of sess did from its log, and its
// state (its usage, its grandchildren's included; its last words).
func summarize(sess *session.Session) summary {
	var s summary
	counted := func(env contract.Envelope, err error) bool {
		if err != nil {
			return false
		}
		switch e := env.Data.(type) {
		case *contract.ModelRequested:
			if e.Purpose == "" {
				s.turns++
			}
		case *contract.ToolObservation:
			s.calls++
			for _, f := range e.Files {
				if f.Op == contract.FileWrite {
					s.changed = appendNew(s.changed, f.Path)
				} else {
					s.read = appendNew(s.read, f.Path)
				}
			}
		}
		return true
	}
	st, _ := state.Reduce(func(yield func(contract.Envelope, error) bool) {
		for env, err := range sess.Log.Events(1) {
			if !counted(env, err) || !yield(env, err) {
				return
			}
		}
	})
	s.usage = st.Usage
	for i := len(st.Messages) - 1; i >= 0; i-- {
		m := st.Messages[i]
		if m.Role != contract.RoleAssistant || m.Text == "" {
			continue
		}
		if s.last == "" {
			s.last = m.Text
			if i == len(st.Messages)-1 && len(m.ToolCalls) == 0 {
				s.answer = m.Text
			}
		}
		break
	}
	return s
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// observe writes what the parent model reads of a child's end: its
// answer and a footer when it completed, else which way it stopped and
// what it had done; a task that did not complete is a failed call.
func (t *tasker) observe(call *registry.Call, a *Agent, fin *contract.TaskFinished, sum summary) (registry.Result, error) {
	footer := footerOf(fin)
	if fin.Outcome == contract.TaskCompleted {
		_, err := fmt.Fprintf(call.Output, "%s\n\n%s\n", strings.TrimSpace(sum.answer), footer)
		return registry.Result{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", footer)
	if sum.last != "" {
		fmt.Fprintf(&b, "Its last words: %s\n", excerpt.Prefix(sum.last, 2000))
	}
	if _, err := fmt.Fprint(call.Output, b.String()); err != nil {
		return registry.Result{}, err
	}
	return registry.Result{ExitCode: 1}, fmt.Errorf("the %s agent did not complete its task (%s): %s", a.Name, fin.Outcome, fin.Reason)
}

// footerOf says what a child did and cost, in one line.
func footerOf(fin *contract.TaskFinished) string {
	spent := "no usage reported"
	if u := fin.Usage; u != nil && u.InputTokens+u.OutputTokens > 0 {
		spent = count(int(u.InputTokens+u.OutputTokens), "token")
		if u.CostKnown() {
			spent += fmt.Sprintf(", $%.4f", u.CostUSD)
		} else {
			spent += ", cost unknown"
		}
	}
	return fmt.Sprintf("[task %s, %s: %s, %s, %s read, %d changed, %s; session %s]",
		fin.Agent, fin.Outcome, count(fin.Turns, "turn"), count(fin.ToolCalls, "tool call"), count(len(fin.FilesRead), "file"),
		len(fin.FilesChanged), spent, fin.Child)
}

// count says n things: "1 turn", "2 turns".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
