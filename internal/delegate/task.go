package delegate

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

//go:embed task.md
var description string

// The defaults of Options.
const (
	DefaultMaxParallel = 4
	DefaultTimeout     = 15 * time.Minute
	// DefaultAgent is the agent of a task call that names none.
	DefaultAgent = "general"
	// TasksDir is the directory under a session's that holds its
	// children's sessions.
	TasksDir = "tasks"
)

// Child is a child session about to run, for Options.Kernel to build its
// kernel over.
type Child struct {
	Agent  *Agent
	Parent *contract.ParentRef
	// Session is the child's session, opened for writing (its log holds
	// what it did before rein died, when it is resumed).
	Session *session.Session
	// Registry and Tools are the child's tools and its tool runtime,
	// under its ceiling.
	Registry *registry.Registry
	Tools    *tool.Runtime
	// MaxTurns and MaxCost are its budgets (MaxCost 0: none); Spent, when
	// not nil, is what else counts against MaxCost besides the child's
	// own run: what its siblings spent since it started
	// (kernel.ContextOptions.Spent).
	MaxTurns int
	MaxCost  float64
	Spent    func() float64
}

// Options are what a session's task tool needs of its session.
type Options struct {
	// Agents are the agents a task may name.
	Agents []Agent
	// Registry is the parent's registry, and Policy its policy as it is
	// now (a person may change the mode during a run).
	Registry *registry.Registry
	Policy   func() *permission.Policy
	// Recorded returns what the parent's log says of the task call
	// intent (its child, and whether its end was recorded), when the
	// call started one and has no observation yet: a call run again on
	// resume; nil means nothing is ever recorded.
	Recorded func(intent string) (state.Task, bool)
	// AddRules adds to the parent's policy the rules a person's answer to
	// a child's question added to the child's (an "always" holds for the
	// session); nil means they hold for that child only.
	AddRules func(permission.Rules) error
	// ChildTool says what a child gets of a tool of its parent's: the
	// tool, another version of it, or nothing (false); nil means the
	// tool itself.
	ChildTool func(registry.Tool) (registry.Tool, bool)
	// Tools are the options of a child's tool runtime: the parent's
	// (approver, secrets, hooks, limits, answers). Its ArtifactDir is the
	// child's own, and its Approver says which child asks.
	Tools tool.Options
	// Kernel builds a child's kernel over its session's log: its model
	// (c.Agent.Model), its system prompt (c.Agent.Prompt with the
	// environment, kernel.ChildPrompt), c's registry, runtime and budgets,
	// and Parent recorded.
	Kernel func(ctx context.Context, c *Child) (*kernel.Kernel, error)
	// Dir is the parent session's directory; Session returns its id once
	// the session has started.
	Dir     string
	Session func() string
	// Secrets are cut out of the children's logs, as out of the parent's.
	Secrets []string
	// MaxParallel bounds the tasks of one turn that run together; 0
	// means DefaultMaxParallel.
	MaxParallel int
	// Depth is the parent's depth (0 for a person's session), MaxDepth
	// how deep children may go; 0 means 1: a child calls no task.
	Depth, MaxDepth int
	// Timeout bounds a child's wall-clock time; 0 means DefaultTimeout.
	Timeout time.Duration
	// Budget returns what is left of the parent run's budget in US
	// dollars, 0 for no budget; nil means none.
	Budget func() float64
	// Version is rein's version, for the resume gate of a child begun
	// before rein died.
	Version string
}

// input is a task call's input.
type input struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent"`
}

func parse(raw json.RawMessage) (input, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, err
	}
	if in.Agent == "" {
		in.Agent = DefaultAgent
	}
	return in, nil
}

// tasker runs the task calls of one session.
type tasker struct {
	opts Options
	// tree is what the tasks of one person's session share, its
	// children's and theirs; above are the sessions between it and its
	// session (none for the person's session's own tasks).
	tree  *tree
	above []string
}

// tree is what the task tools of one tree of sessions share.
type tree struct {
	// ask orders the questions of children running side by side: one
	// dialog at a time (a channel, so that a wait for it ends with its
	// context).
	ask chan struct{}
	mu  sync.Mutex
	// live is what each running child has spent so far, by its session,
	// before its task.finished adds it to its parent's run.
	live map[string]*spent
}

// spent is what a running child spent, and the sessions above it.
type spent struct {
	cost  float64
	above []string
}

// spend adds cost to what the running child, below above, spent.
func (tr *tree) spend(child string, above []string, cost float64) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.live[child] == nil {
		tr.live[child] = &spent{above: above}
	}
	tr.live[child].cost += cost
}

// forget drops a child that ended: its parent's run holds its cost.
func (tr *tree) forget(child string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	delete(tr.live, child)
}

// others is what the running children have spent but child, the
// sessions above it (their runs count it already) and those below it
// (child's run counts them once they end, and its own check, theirs
// meanwhile).
func (tr *tree) others(child string, above []string) float64 {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	sum := 0.0
	for c, s := range tr.live {
		if c != child && !slices.Contains(above, c) && !slices.Contains(s.above, child) {
			sum += s.cost
		}
	}
	return sum
}

// Tool returns the task tool of a session.
func Tool(opts *Options) registry.Tool {
	return newTool(opts, &tree{ask: make(chan struct{}, 1), live: map[string]*spent{}}, nil)
}

// newTool returns the task tool of a session of tr, below the sessions
// above.
func newTool(opts *Options, tr *tree, above []string) registry.Tool {
	t := &tasker{opts: *opts, tree: tr, above: above}
	if t.opts.MaxParallel <= 0 {
		t.opts.MaxParallel = DefaultMaxParallel
	}
	if t.opts.MaxDepth <= 0 {
		t.opts.MaxDepth = 1
	}
	if t.opts.Timeout <= 0 {
		t.opts.Timeout = DefaultTimeout
	}
	return registry.Tool{
		Name:        Name,
		Description: t.description(),
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"description":{"type":"string","description":"What the task is, in 3 to 5 words."},` +
			`"prompt":{"type":"string","description":"The whole brief: the task, what is known, what to report."},` +
			`"agent":{"type":"string","description":"The agent to run it (default general)."}},` +
			`"required":["description","prompt"],"additionalProperties":false}`),
		// A task asks nothing itself: what its child does is what
		// permission decides.
		Risk: registry.RiskRead, ReadOnly: true,
		Concurrency: registry.Exclusive, ConcurrencyOf: t.concurrency, MaxParallel: t.opts.MaxParallel,
		Writes: func(raw json.RawMessage) bool { return t.concurrency(raw) == registry.Exclusive },
		Check:  func(raw json.RawMessage, _ state.Ledger) error { return t.check(raw) },
		// The child keeps its own clock; this bound is only a backstop.
		Timeout:   func(json.RawMessage) time.Duration { return t.opts.Timeout + time.Minute },
		Execute:   t.execute,
		Resumable: true,
	}
}

func (t *tasker) agent(name string) (*Agent, bool) {
	i := slices.IndexFunc(t.opts.Agents, func(a Agent) bool { return a.Name == name })
	if i < 0 {
		return nil, false
	}
	return &t.opts.Agents[i], true
}

// names lists the agents a task may name.
func (t *tasker) names() string {
	names := make([]string, len(t.opts.Agents))
	for i, a := range t.opts.Agents {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// description is the tool's description: how to brief a child, and the
// agents there are (the system prompt lists them with what each is for).
func (t *tasker) description() string {
	return strings.TrimSpace(description) + "\nThe agents: " + t.names() + "."
}

// nested says a child may call task itself.
func (t *tasker) nested() bool { return t.opts.Depth+1 < t.opts.MaxDepth }

func (t *tasker) check(raw json.RawMessage) error {
	in, err := parse(raw)
	if err != nil {
		return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: "the input is not a task: " + err.Error()}
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: "the prompt is empty: give the agent the whole brief"}
	}
	if _, ok := t.agent(in.Agent); !ok {
		return &registry.CheckError{Code: contract.CodePreconditionFailed,
			Message: fmt.Sprintf("there is no agent %q; the agents are: %s", excerpt.Prefix(in.Agent, 64), t.names())}
	}
	return nil
}

// concurrency says a task whose child could write runs alone, as a
// write does; one whose child only reads runs beside others.
func (t *tasker) concurrency(raw json.RawMessage) registry.Concurrency {
	in, err := parse(raw)
	if err != nil {
		return registry.Exclusive
	}
	a, ok := t.agent(in.Agent)
	if !ok {
		return registry.Exclusive
	}
	c, err := ceilingOf(a, t.opts.Registry, t.opts.Policy(), t.nested())
	if err != nil || c.writes() {
		return registry.Exclusive
	}
	return registry.Safe
}

// asker is a child's approver: the parent's, asked one question at a
// time, each saying which child asks.
type asker struct {
	t           *tasker
	approver    tool.Approver
	agent, task string
}

// Approve asks the person once no other child's question is open; a
// context that ends first is a No, as a person's Esc.
func (a asker) Approve(ctx context.Context, q tool.Question) (tool.Reply, error) {
	q.Agent, q.Task = a.agent, a.task
	select {
	case a.t.tree.ask <- struct{}{}:
	case <-ctx.Done():
		return tool.Reply{}, ctx.Err()
	}
	defer func() { <-a.t.tree.ask }()
	return a.approver.Approve(ctx, q)
}
