package delegate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// execute runs one task call: it opens the child's session (the one the
// parent's log names, when the call is run again on resume), reports
// task.started, runs the child under its ceiling, reports each of its
// events as a task.event and its end as task.finished, and writes what
// the parent model reads.
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
	var rec state.Task
	known := false
	if t.opts.Recorded != nil {
		rec, known = t.opts.Recorded(call.IntentID)
	}
	sess, err := t.open(rec, known)
	if err != nil {
		return registry.Result{}, err
	}
	parent := &contract.ParentRef{Session: t.opts.Session(), IntentID: call.IntentID, Agent: a.Name,
		Description: in.Description, Depth: t.opts.Depth + 1}
	if !rec.Finished {
		// Recorded (and synced) before the child does anything, so that a
		// resume finds it by the parent's log.
		seq, err := report(&contract.TaskStarted{IntentID: call.IntentID, Agent: a.Name, Description: in.Description, Child: sess.ID, Resumed: known})
		if err != nil {
			return registry.Result{}, errors.Join(err, sess.Close())
		}
		parent.Seq = seq
	}
	if known && sess.State.Parent != nil {
		parent = sess.State.Parent
	}
	outcome, reason := rec.Outcome, rec.Reason
	if !rec.Finished {
		outcome, reason = t.run(ctx, call, report, a, in, sess, parent, known)
	}
	sum, serr := summarize(sess)
	if err := errors.Join(serr, sess.Close()); err != nil && outcome == contract.TaskCompleted {
		outcome, reason = contract.TaskFailed, "its log could not be read or closed: "+err.Error()
	}
	if outcome == contract.TaskCompleted && sum.answer == "" {
		outcome, reason = contract.TaskNoAnswer, "it ended without an answer"
	}
	usage := sum.usage
	fin := &contract.TaskFinished{IntentID: call.IntentID, Agent: a.Name, Child: sess.ID, Outcome: outcome, Reason: reason,
		Usage: &usage, Turns: sum.turns, ToolCalls: sum.calls, FilesRead: capped(sum.read), FilesChanged: capped(sum.changed)}
	if !rec.Finished {
		// A call whose end the parent's log holds already is not told
		// twice: its cost would count twice.
		_, err := report(fin)
		t.tree.forget(sess.ID) // its cost is its parent's run's now
		if err != nil {
			return registry.Result{}, err
		}
	}
	return t.observe(call, a, fin, sum)
}

// maxFiles bounds each list of files task.finished names.
const maxFiles = 200

// capped returns the first maxFiles of files.
func capped(files []string) []string {
	if len(files) > maxFiles {
		return files[:maxFiles]
	}
	return files
}

// open returns the child session of a task call: the one the parent's
// log names (rec, when known: the call is run again on resume), which
// must be there, or a new one. A child the log names that is not in this
// session's tasks (a fork does not take its children along, or it was
// removed) is never begun again: its commands may have run.
func (t *tasker) open(rec state.Task, known bool) (*session.Session, error) {
	store := session.NewStore(filepath.Join(t.opts.Dir, TasksDir), &session.Options{NoIndex: true})
	opts := &session.WriteOptions{Secrets: t.opts.Secrets}
	if known {
		sess, err := store.Open(rec.Child, opts)
		if err != nil {
			return nil, fmt.Errorf("this task's child session %s cannot be opened, so rein does not go on with it, and does not begin it "+
				"again, since what it did may not be undone (a fork does not take its parent's children along): %w", rec.Child, err)
		}
		return sess, nil
	}
	sess, err := store.Create(id.New("ses"), opts)
	if err != nil {
		return nil, fmt.Errorf("the child session could not be made: %w", err)
	}
	return sess, nil
}

// run runs the child of sess to its end, reporting its events, and says
// how it ended.
func (t *tasker) run(ctx context.Context, call *registry.Call, report reporter, a *Agent, in input, sess *session.Session,
	parent *contract.ParentRef, resumed bool) (outcome, reason string) {
	if resumed && sess.State.Run != "" && !sess.State.Unfinished() {
		// It had finished before rein died: nothing of it runs again.
		return fromRun(sess.State.Outcome, "it had finished before rein stopped")
	}
	child, built, err := t.child(a, in, sess, parent)
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
	built(k)
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
		switch e := env.Data.(type) {
		case *contract.RunFinished:
			finished = e
		case *contract.ModelUsage:
			if e.CostUSD != nil {
				t.tree.spend(sess.ID, t.above, *e.CostUSD)
			}
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
// ceiling (as ChildTool gives them; its own task tool, one level deeper,
// when it may have children), its tool runtime, whose questions say which
// child asks, and its budgets (a MaxCost below 0: the parent's was
// spent). The returned function takes the child's kernel once it is
// built, which the child's own task tool reads.
func (t *tasker) child(a *Agent, in input, sess *session.Session, parent *contract.ParentRef) (*Child, func(*kernel.Kernel), error) {
	c, err := ceilingOf(a, t.opts.Registry, t.opts.Policy(), t.nested())
	if err != nil {
		return nil, nil, err
	}
	var tools []registry.Tool
	nested := false
	for _, tl := range c.tools {
		own, ok := tl, true
		if t.opts.ChildTool != nil {
			own, ok = t.opts.ChildTool(tl)
		}
		if tl.Name == Name {
			nested, ok = true, false // the child's own, below
		}
		if ok {
			tools = append(tools, own)
		}
	}
	reg, err := registry.New(tools...)
	if err != nil {
		return nil, nil, err
	}
	topts := t.opts.Tools
	topts.ArtifactDir = filepath.Join(sess.Dir, "artifacts")
	if topts.Approver != nil {
		topts.Approver = asker{t: t, approver: topts.Approver, agent: a.Name, task: in.Description}
	}
	// A person who changes the parent's mode while the child runs
	// changes the child's ceiling too (to plan: it writes no more).
	parentPolicy := t.opts.Policy
	topts.Ceiling = func() permission.Mode { return parentPolicy().Mode() }
	topts.OnRules = t.opts.AddRules
	rt, err := tool.New(reg, c.policy, &topts)
	if err != nil {
		return nil, nil, err
	}
	child := &Child{Agent: a, Parent: parent, Session: sess, Registry: reg, Tools: rt,
		MaxTurns: cmp.Or(a.MaxTurns, DefaultMaxTurns)}
	if t.opts.Budget != nil {
		// What is left of the parent's budget now; what its other
		// children spend from here on, and what is added to its run
		// (a sibling's end), counts against it too.
		left := t.opts.Budget()
		child.MaxCost = left
		child.Spent = func() float64 { return max(0, left-t.opts.Budget()) + t.tree.others(sess.ID, t.above) }
	}
	var k *kernel.Kernel
	if nested {
		opts := t.opts
		opts.Registry, opts.Policy, opts.Dir, opts.Depth = reg, rt.Policy, sess.Dir, t.opts.Depth+1
		opts.AddRules = rt.AddRules
		opts.Session = func() string { return sess.ID }
		opts.Recorded = func(intent string) (state.Task, bool) {
			st := k.State()
			return st.TaskOf(intent)
		}
		opts.Budget = nil
		if child.MaxCost > 0 {
			opts.Budget = func() float64 {
				st := k.State()
				if left := child.MaxCost - st.RunUsage.CostUSD - child.Spent(); left > 0 {
					return left
				}
				return -1
			}
		}
		if err := reg.Register(newTool(&opts, t.tree, append(slices.Clip(t.above), sess.ID))); err != nil {
			return nil, nil, err
		}
	}
	return child, func(built *kernel.Kernel) { k = built }, nil
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
// state (its usage, its grandchildren's included; its last words). Its
// error is the log's that could not be read whole.
func summarize(sess *session.Session) (summary, error) {
	var s summary
	read, changed := map[string]bool{}, map[string]bool{}
	add := func(seen map[string]bool, list *[]string, path string) {
		if !seen[path] {
			seen[path] = true
			*list = append(*list, path)
		}
	}
	st, err := state.Reduce(func(yield func(contract.Envelope, error) bool) {
		for env, err := range sess.Log.Events(1) {
			switch e := env.Data.(type) {
			case *contract.ModelRequested:
				if e.Purpose == "" {
					s.turns++
				}
			case *contract.ToolObservation:
				s.calls++
				for _, f := range e.Files {
					if f.Op == contract.FileWrite {
						add(changed, &s.changed, f.Path)
					} else {
						add(read, &s.read, f.Path)
					}
				}
			}
			if !yield(env, err) || err != nil {
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
		s.last = m.Text
		if i == len(st.Messages)-1 && len(m.ToolCalls) == 0 {
			s.answer = m.Text
		}
		break
	}
	return s, err
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
