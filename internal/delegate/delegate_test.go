package delegate

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
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
