package delegate

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/providertest"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
	"github.com/rein-agent/rein/internal/workspace"
)

func TestStricter(t *testing.T) {
	for _, tc := range []struct{ agent, parent, want permission.Mode }{
		{"", permission.AcceptEdits, permission.AcceptEdits},
		{"", "", permission.Default},
		{permission.Yolo, permission.Default, permission.Default},
		{permission.Yolo, permission.Plan, permission.Plan},
		{permission.Plan, permission.Yolo, permission.Plan},
		{permission.AcceptEdits, permission.Yolo, permission.AcceptEdits},
		{permission.Default, permission.AcceptEdits, permission.Default},
	} {
		if got := stricter(tc.agent, tc.parent); got != tc.want {
			t.Errorf("stricter(%q, %q) = %q, want %q", tc.agent, tc.parent, got, tc.want)
		}
	}
}

func tools(t testing.TB) *registry.Registry {
	t.Helper()
	obj := json.RawMessage(`{"type":"object"}`)
	reg, err := registry.New(
		registry.Tool{Name: "read_file", InputSchema: obj, Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Safe},
		registry.Tool{Name: "write_file", InputSchema: obj, Risk: registry.RiskWrite, Concurrency: registry.Exclusive},
		registry.Tool{Name: "bash", InputSchema: obj, Risk: registry.RiskExecute, Concurrency: registry.Exclusive},
		registry.Tool{Name: "mcp__gh__issue", InputSchema: obj, Risk: registry.RiskRead, ReadOnly: true, Source: "mcp:gh", Concurrency: registry.Safe},
		registry.Tool{Name: Name, InputSchema: obj, Risk: registry.RiskRead, ReadOnly: true, Concurrency: registry.Safe},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func policy(t testing.TB, dir string, mode permission.Mode, deny ...string) *permission.Policy {
	t.Helper()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := permission.ParseRules(deny)
	if err != nil {
		t.Fatal(err)
	}
	p, err := permission.New(mode, permission.Rules{Deny: rules}, ws)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func toolNames(ts []registry.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// A child's tools are its agent's within what the parent sees, never
// task unless nested, and its mode the stricter: a bypassPermissions
// agent under a default parent is default; a plan parent's children see
// no tool that writes.
func TestCeiling(t *testing.T) {
	dir := t.TempDir()
	reg := tools(t)
	for _, tc := range []struct {
		name    string
		agent   Agent
		parent  *permission.Policy
		nested  bool
		want    []string
		mode    permission.Mode
		writes  bool
		readsOn bool
	}{
		{"general", Agent{Name: "general"}, policy(t, dir, permission.Default), false,
			[]string{"read_file", "write_file", "bash", "mcp__gh__issue"}, permission.Default, true, false},
		{"nested general", Agent{Name: "general"}, policy(t, dir, permission.Default), true,
			[]string{"read_file", "write_file", "bash", "mcp__gh__issue", Name}, permission.Default, true, false},
		{"explore", Agent{Name: "explore", Tools: []string{"read_file", "bash", Name}, ReadOnly: true}, policy(t, dir, permission.Yolo), true,
			[]string{"read_file", "bash", Name}, permission.Yolo, false, true},
		{"bypass under default", Agent{Name: "x", Mode: permission.Yolo}, policy(t, dir, permission.Default), false,
			[]string{"read_file", "write_file", "bash", "mcp__gh__issue"}, permission.Default, true, false},
		{"plan parent", Agent{Name: "x", Mode: permission.Yolo}, policy(t, dir, permission.Plan), false,
			[]string{"read_file", "mcp__gh__issue"}, permission.Plan, false, false},
		{"disallowed", Agent{Name: "x", Disallowed: []string{"bash"}}, policy(t, dir, permission.AcceptEdits), false,
			[]string{"read_file", "write_file", "mcp__gh__issue"}, permission.AcceptEdits, true, false},
		{"an MCP pattern", Agent{Name: "x", Tools: []string{"read_file", "mcp__gh__*"}}, policy(t, dir, permission.Default), false,
			[]string{"read_file", "mcp__gh__issue"}, permission.Default, false, false},
		{"no tools", Agent{Name: "x", Tools: []string{}}, policy(t, dir, permission.Default), false,
			nil, permission.Default, false, false},
		{"every MCP tool disallowed", Agent{Name: "x", Disallowed: []string{"mcp__*", "bash", "write_file"}}, policy(t, dir, permission.Default), false,
			[]string{"read_file"}, permission.Default, false, false},
		{"denied to the parent", Agent{Name: "x", Tools: []string{"read_file", "write_file"}}, policy(t, dir, permission.Default, "write_file"), false,
			[]string{"read_file"}, permission.Default, false, false},
	} {
		c, err := ceilingOf(&tc.agent, reg, tc.parent, tc.nested)
		if err != nil {
			t.Fatal(err)
		}
		if got := toolNames(c.tools); !slices.Equal(got, tc.want) {
			t.Errorf("%s: tools %v, want %v", tc.name, got, tc.want)
		}
		if c.policy.Mode() != tc.mode || c.writes() != tc.writes || c.policy.IsReadOnly() != tc.readsOn {
			t.Errorf("%s: mode %s writes %v read-only %v, want %s %v %v", tc.name, c.policy.Mode(), c.writes(), c.policy.IsReadOnly(),
				tc.mode, tc.writes, tc.readsOn)
		}
	}
}

// scripted answers every request with the text of answer, or waits for
// the context's end when answer is empty.
func scripted(answer string) providertest.Func {
	return func(ctx context.Context, _ *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			if answer == "" {
				<-ctx.Done()
				yield(nil, ctx.Err())
				return
			}
			if yield(&contract.TextDelta{Text: answer}, nil) {
				yield(&contract.ModelFinished{Reason: "stop"}, nil)
			}
		}
	}
}

// newTask returns a task tool over a session directory whose children
// ask prov, and the registry that holds it.
func newTask(t testing.TB, prov providertest.Func, timeout time.Duration) registry.Tool {
	t.Helper()
	dir := t.TempDir()
	reg := tools(t)
	pol := policy(t, dir, permission.Default)
	return Tool(&Options{
		Agents:   []Agent{{Name: "general", Prompt: "do it"}, {Name: "explore", ReadOnly: true, Tools: []string{"read_file"}}},
		Registry: reg, Policy: func() *permission.Policy { return pol },
		Kernel: func(_ context.Context, c *Child) (*kernel.Kernel, error) {
			return kernel.New(prov, c.Session.Log, &kernel.Options{ProviderName: "fake", Registry: c.Registry, Tools: c.Tools,
				MaxTurns: c.MaxTurns, Session: c.Session.ID, State: &c.Session.State, Parent: c.Parent,
				System: kernel.ChildPrompt(c.Agent.Prompt, kernel.Environment{Workspace: dir})})
		},
		Dir: t.TempDir(), Session: func() string { return "ses_parent" }, Timeout: timeout,
	})
}

func call(input string, out *bytes.Buffer, reported *[]contract.Event) *registry.Call {
	return &registry.Call{IntentID: "int_1", InvocationID: "inv_1", Input: json.RawMessage(input), Output: out,
		Report: func(e contract.Event) (uint64, error) {
			*reported = append(*reported, e)
			return uint64(len(*reported)), nil
		}}
}

// A child that answers completes; one that does not answer within its
// time limit is a timeout, a failed call that says so.
func TestTaskOutcomes(t *testing.T) {
	task := newTask(t, scripted("Found it at a.go:3."), time.Minute)
	if err := task.Check(json.RawMessage(`{"description":"d","prompt":"p","agent":"nobody"}`), state.Ledger{}); err == nil || !strings.Contains(err.Error(), "general, explore") {
		t.Errorf("an unknown agent: %v", err)
	}
	if c := task.ConcurrencyFor(json.RawMessage(`{"description":"d","prompt":"p","agent":"explore"}`)); c != registry.Safe {
		t.Errorf("an explore task is %s, want safe", c)
	}
	if c := task.ConcurrencyFor(json.RawMessage(`{"description":"d","prompt":"p"}`)); c != registry.Exclusive {
		t.Errorf("a general task is %s, want exclusive", c)
	}
	var out bytes.Buffer
	var reported []contract.Event
	res, err := task.Execute(context.Background(), call(`{"description":"look","prompt":"find it"}`, &out, &reported))
	if err != nil || res.ExitCode != 0 || !strings.HasPrefix(out.String(), "Found it at a.go:3.\n\n[task general, completed: 1 turn, 0 tool calls") {
		t.Errorf("completed: %v %+v %q", err, res, out.String())
	}
	fin, ok := reported[len(reported)-1].(*contract.TaskFinished)
	if !ok || fin.Outcome != contract.TaskCompleted || fin.Turns != 1 {
		t.Errorf("last report %+v", reported[len(reported)-1])
	}
	if _, ok := reported[0].(*contract.TaskStarted); !ok {
		t.Errorf("first report %+v", reported[0])
	}

	slow := newTask(t, scripted(""), 50*time.Millisecond)
	out.Reset()
	reported = nil
	res, err = slow.Execute(context.Background(), call(`{"description":"wait","prompt":"never answers"}`, &out, &reported))
	if err == nil || res.ExitCode == 0 || !strings.Contains(err.Error(), "(timeout)") {
		t.Errorf("timeout: %v %+v %q", err, res, out.String())
	}
	fin, ok = reported[len(reported)-1].(*contract.TaskFinished)
	if !ok || fin.Outcome != contract.TaskTimeout {
		t.Errorf("timeout: last report %+v", reported[len(reported)-1])
	}
}

// BenchmarkChildStart is the overhead of a child: from the task call to
// its end, with a model that answers at once (the child's session made,
// its log written and closed, its kernel and tool runtime built).
func BenchmarkChildStart(b *testing.B) {
	task := newTask(b, scripted("done"), time.Minute)
	var out bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		var reported []contract.Event
		if _, err := task.Execute(context.Background(), call(`{"description":"d","prompt":"p"}`, &out, &reported)); err != nil {
			b.Fatal(err)
		}
	}
}

var _ tool.Approver = asker{}

// byBrief is a provider that answers each conversation by its first user
// message: the function returns the events of the given step.
func byBrief(answer func(brief string, step int, req *contract.ModelRequest) []contract.ModelEvent) providertest.Func {
	return func(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
		return func(yield func(contract.ModelEvent, error) bool) {
			brief, step := "", 0
			for _, m := range req.Messages {
				if m.Role == contract.RoleUser && brief == "" {
					brief = m.Text
				}
				if m.Role == contract.RoleAssistant {
					step++
				}
			}
			for _, e := range answer(brief, step, req) {
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}

func intent(id, tool, input string) contract.ModelEvent {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ProviderCallID: "c_" + id, ToolName: tool, Input: json.RawMessage(input)}}
}

func text(s string) []contract.ModelEvent {
	return []contract.ModelEvent{&contract.TextDelta{Text: s}, &contract.ModelFinished{Reason: "stop"}}
}

// newTree returns a task tool whose children ask prov, with depth
// allowed, the parent's policy as pol returns it, over reg.
func newTree(t testing.TB, prov providertest.Func, reg *registry.Registry, pol func() *permission.Policy, depth int) (registry.Tool, string) {
	t.Helper()
	dir, parent := t.TempDir(), t.TempDir()
	return Tool(&Options{
		Agents:   []Agent{{Name: "general", Prompt: "do it"}},
		Registry: reg, Policy: pol, MaxDepth: depth,
		Kernel: func(_ context.Context, c *Child) (*kernel.Kernel, error) {
			return kernel.New(prov, c.Session.Log, &kernel.Options{ProviderName: "fake", Registry: c.Registry, Tools: c.Tools,
				MaxTurns: c.MaxTurns, Session: c.Session.ID, State: &c.Session.State, Parent: c.Parent,
				Capabilities: provider.Capabilities{Streaming: true, Tools: true},
				System:       kernel.ChildPrompt(c.Agent.Prompt, kernel.Environment{Workspace: dir})})
		},
		Dir: parent, Session: func() string { return "ses_parent" }, Timeout: time.Minute,
	}), parent
}

// With max_depth 2 a child has a task tool of its own, whose children
// live under its own tasks/ and name it their parent at depth 2, and are
// offered no task tool.
func TestMaxDepth(t *testing.T) {
	var mu sync.Mutex
	offered := map[string][]string{}
	prov := byBrief(func(brief string, step int, req *contract.ModelRequest) []contract.ModelEvent {
		mu.Lock()
		for _, s := range req.Tools {
			offered[brief] = append(offered[brief], s.Name)
		}
		mu.Unlock()
		switch {
		case brief == "child" && step == 0:
			return []contract.ModelEvent{intent("i_g", Name, `{"description":"deeper","prompt":"grandchild"}`), &contract.ModelFinished{Reason: "tool_use"}}
		case brief == "grandchild" && step == 0:
			return []contract.ModelEvent{intent("i_x", Name, `{"description":"deepest","prompt":"great"}`), &contract.ModelFinished{Reason: "tool_use"}}
		}
		return text("done " + brief)
	})
	pol := policy(t, t.TempDir(), permission.Default)
	task, parent := newTree(t, prov, tools(t), func() *permission.Policy { return pol }, 2)
	var out bytes.Buffer
	var reported []contract.Event
	if _, err := task.Execute(context.Background(), call(`{"description":"d","prompt":"child"}`, &out, &reported)); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if !slices.Contains(offered["child"], Name) || slices.Contains(offered["grandchild"], Name) {
		t.Errorf("offered %v", offered)
	}
	if _, ok := offered["great"]; ok {
		t.Error("a great-grandchild ran")
	}
	logs, _ := filepath.Glob(filepath.Join(parent, "tasks", "*", "tasks", "*", "events.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("grandchildren under the child: %v", logs)
	}
	b, _ := os.ReadFile(logs[0])
	var first contract.Envelope
	if err := first.UnmarshalJSON(bytes.SplitN(b, []byte("\n"), 2)[0]); err != nil {
		t.Fatal(err)
	}
	ref := first.Data.(*contract.SessionStarted).Parent
	child := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(logs[0]))))
	if ref == nil || ref.Depth != 2 || ref.Session != child || ref.IntentID == "" || ref.Description != "deeper" {
		t.Errorf("the grandchild's parent is %+v, want the child %s at depth 2", ref, child)
	}
}

// A person who switches the parent to plan mode while a child runs
// stops the child's writes from then on.
func TestModeChangeReachesTheChild(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	wrote := false
	reg, err := registry.New(registry.Tool{Name: "write_file", InputSchema: obj, Risk: registry.RiskWrite, Concurrency: registry.Exclusive,
		Execute: func(context.Context, *registry.Call) (registry.Result, error) {
			wrote = true
			return registry.Result{}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var mu sync.Mutex
	pol := policy(t, dir, permission.AcceptEdits)
	asked, release := make(chan struct{}), make(chan struct{})
	prov := byBrief(func(_ string, step int, _ *contract.ModelRequest) []contract.ModelEvent {
		if step == 0 {
			close(asked)
			<-release
			return []contract.ModelEvent{intent("i_w", "write_file", `{"path":"x.txt","content":"hi"}`), &contract.ModelFinished{Reason: "tool_use"}}
		}
		return text("done")
	})
	task, _ := newTree(t, prov, reg, func() *permission.Policy { mu.Lock(); defer mu.Unlock(); return pol }, 1)
	var out bytes.Buffer
	var reported []contract.Event
	var rmu sync.Mutex
	c := call(`{"description":"d","prompt":"write"}`, &out, &reported)
	inner := c.Report
	c.Report = func(e contract.Event) (uint64, error) { rmu.Lock(); defer rmu.Unlock(); return inner(e) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = task.Execute(context.Background(), c) // its end is checked below
	}()
	<-asked
	mu.Lock()
	pol = policy(t, dir, permission.Plan) // Shift+Tab, while the child waits on its model
	mu.Unlock()
	close(release)
	<-done
	if wrote {
		t.Error("the child wrote after its parent went to plan mode")
	}
	denied := false
	for _, e := range reported {
		if te, ok := e.(*contract.TaskEvent); ok {
			if v, ok := te.Event.Data.(*contract.ToolValidation); ok && !v.OK {
				denied = true // out of sight in plan mode: not a tool it has now
			}
			if p, ok := te.Event.Data.(*contract.ToolPermission); ok && p.Decision == contract.Deny {
				denied = true
			}
		}
	}
	if !denied {
		t.Error("the child's write was not refused")
	}
}

type waiting struct{ entered chan struct{} }

func (w waiting) Approve(ctx context.Context, _ tool.Question) (tool.Reply, error) {
	close(w.entered)
	<-ctx.Done()
	return tool.Reply{}, ctx.Err()
}

// A child waiting for another child's question to close gives up when
// its context ends, as a person's Esc.
func TestAskEndsWithItsContext(t *testing.T) {
	tk := &tasker{tree: &tree{ask: make(chan struct{}, 1), live: map[string]*spent{}}}
	w := waiting{entered: make(chan struct{})}
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	go func() { _, _ = asker{t: tk, approver: w, agent: "explore", task: "A"}.Approve(actx, tool.Question{}) }()
	<-w.entered
	bctx, bcancel := context.WithCancel(context.Background())
	bcancel()
	if _, err := (asker{t: tk, approver: w, agent: "explore", task: "B"}).Approve(bctx, tool.Question{}); err == nil {
		t.Error("B's question did not end with its context")
	}
}

// A task call run again after its task.finished was recorded reads its
// child's end again, and reports no second task.finished (its cost would
// count twice) and runs nothing.
func TestRerunOfAFinishedTask(t *testing.T) {
	calls := 0
	prov := byBrief(func(string, int, *contract.ModelRequest) []contract.ModelEvent { calls++; return text("the answer") })
	pol := policy(t, t.TempDir(), permission.Default)
	var rec state.Task
	known := false
	dir, parent := t.TempDir(), t.TempDir()
	task := Tool(&Options{
		Agents: []Agent{{Name: "general"}}, Registry: tools(t), Policy: func() *permission.Policy { return pol },
		Recorded: func(string) (state.Task, bool) { return rec, known },
		Kernel: func(_ context.Context, c *Child) (*kernel.Kernel, error) {
			return kernel.New(prov, c.Session.Log, &kernel.Options{ProviderName: "fake", Registry: c.Registry, Tools: c.Tools,
				Session: c.Session.ID, State: &c.Session.State, Parent: c.Parent, System: kernel.ChildPrompt("", kernel.Environment{Workspace: dir})})
		},
		Dir: parent, Session: func() string { return "ses_parent" },
	})
	var out bytes.Buffer
	var reported []contract.Event
	if _, err := task.Execute(context.Background(), call(`{"description":"d","prompt":"p"}`, &out, &reported)); err != nil {
		t.Fatal(err)
	}
	rec, known = state.Task{IntentID: "int_1", Child: reported[0].(*contract.TaskStarted).Child, Finished: true, Outcome: contract.TaskCompleted}, true
	out.Reset()
	var again []contract.Event
	if _, err := task.Execute(context.Background(), call(`{"description":"d","prompt":"p"}`, &out, &again)); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(again) != 0 || !strings.HasPrefix(out.String(), "the answer") {
		t.Errorf("the rerun asked the model %d times in all, reported %v, said %q", calls, again, out.String())
	}

	// A child the log names that is not there (a fork's) is not begun again.
	rec = state.Task{IntentID: "int_1", Child: "ses_gone"}
	if _, err := task.Execute(context.Background(), call(`{"description":"d","prompt":"p"}`, &out, &again)); err == nil ||
		!strings.Contains(err.Error(), "does not begin it again") || calls != 1 {
		t.Errorf("a missing child: %v, %d model calls", err, calls)
	}
}

type always struct{}

func (always) Approve(context.Context, tool.Question) (tool.Reply, error) {
	return tool.Reply{Answer: tool.Always}, nil
}

// A person's "always" to a child's question holds for its parent too:
// the rule it saved is added to the parent's policy.
func TestChildsAnswerHoldsForItsParent(t *testing.T) {
	obj := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	reg, err := registry.New(registry.Tool{Name: "write_file", InputSchema: obj, Risk: registry.RiskWrite, Concurrency: registry.Exclusive,
		Execute: func(context.Context, *registry.Call) (registry.Result, error) { return registry.Result{}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pol := policy(t, dir, permission.Default)
	var added []permission.Rules
	prov := byBrief(func(_ string, step int, _ *contract.ModelRequest) []contract.ModelEvent {
		if step == 0 {
			return []contract.ModelEvent{intent("i_w", "write_file", `{"path":"x.txt"}`), &contract.ModelFinished{Reason: "tool_use"}}
		}
		return text("done")
	})
	task := Tool(&Options{
		Agents: []Agent{{Name: "general"}}, Registry: reg, Policy: func() *permission.Policy { return pol },
		Tools:    tool.Options{Approver: always{}},
		AddRules: func(r permission.Rules) error { added = append(added, r); return nil },
		Kernel: func(_ context.Context, c *Child) (*kernel.Kernel, error) {
			return kernel.New(prov, c.Session.Log, &kernel.Options{ProviderName: "fake", Registry: c.Registry, Tools: c.Tools,
				Capabilities: provider.Capabilities{Streaming: true, Tools: true},
				Session:      c.Session.ID, State: &c.Session.State, Parent: c.Parent, System: kernel.ChildPrompt("", kernel.Environment{Workspace: dir})})
		},
		Dir: t.TempDir(), Session: func() string { return "ses_parent" },
	})
	var out bytes.Buffer
	var reported []contract.Event
	if _, err := task.Execute(context.Background(), call(`{"description":"d","prompt":"write"}`, &out, &reported)); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(added) != 1 || len(added[0].Allow) != 1 || added[0].Allow[0].String() != "write_file(x.txt)" {
		t.Errorf("the parent was given %+v, want the allow rule write_file(x.txt)", added)
	}
}
