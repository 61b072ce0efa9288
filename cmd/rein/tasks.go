package main

// The task tool of a session: its agents, and how a child's kernel is
// built from its parent's (internal/delegate runs the rest).

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/rein-agent/rein/internal/agent"
	"github.com/rein-agent/rein/internal/delegate"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// claudeFamilies are Claude Code's model aliases of an agent file
// ("model: sonnet"), which name no model rein can call: such an agent
// runs on the session's model.
var claudeFamilies = []string{"sonnet", "opus", "haiku"}

// addTasks registers the task tool of the session k runs, among its
// tools st; base are the session kernel's options, m its model and env
// its environment, which a child's prompt holds too. A child gets the
// session's tools but its background jobs: its bash has none.
func addTasks(k *kernel.Kernel, st sessionTools, base *kernel.Options, m kernel.Model, env kernel.Environment, set setup) error {
	return st.registry.Register(delegate.Tool(&delegate.Options{
		Agents:   agentsOf(set.ext.agentList()),
		Registry: st.registry, Policy: st.runtime.Policy, Tools: st.options, AddRules: st.runtime.AddRules,
		ChildTool: func(t registry.Tool) (registry.Tool, bool) {
			switch t.Name {
			case "bash":
				return st.childBash, true
			case "job_output", "job_kill":
				return registry.Tool{}, false
			}
			return t, true
		},
		Kernel:  childKernel(k, base, m, env, set.context.ReasoningEffort),
		Dir:     base.SessionDir,
		Session: k.Session,
		Recorded: func(intent string) (state.Task, bool) {
			st := k.State()
			return st.TaskOf(intent)
		},
		Secrets: base.Secrets, MaxParallel: set.maxParallelAgents, MaxDepth: set.maxDepth,
		Budget: func() float64 {
			if base.Context.MaxCost <= 0 {
				return 0
			}
			left := base.Context.MaxCost - k.State().RunUsage.CostUSD
			if left <= 0 {
				return -1
			}
			return left
		},
		Version: version,
	}))
}

// childKernel returns what builds a child's kernel: the parent's model in
// use and the fallbacks after it (or the model the agent names, as /model
// would build it), the parent's retry policy, sandbox record, secrets and
// hooks, the child's own prompt, tools and budgets. primary is the
// session's model, base.Fallback its fallbacks.
func childKernel(parent *kernel.Kernel, base *kernel.Options, primary kernel.Model, env kernel.Environment,
	effort string) func(context.Context, *delegate.Child) (*kernel.Kernel, error) {
	return func(_ context.Context, c *delegate.Child) (*kernel.Kernel, error) {
		m, fallbacks, err := inUse(parent.Current(), primary, base)
		if err != nil {
			return nil, err
		}
		if spec := c.Agent.Model; spec != "" && spec != "inherit" && !slices.Contains(claudeFamilies, spec) {
			build := base.Switch
			if build == nil {
				return nil, fmt.Errorf("the agent %s names the model %q, and this session cannot switch models", c.Agent.Name, spec)
			}
			named, err := build(spec)
			if err != nil {
				return nil, fmt.Errorf("the agent %s names the model %q: %v", c.Agent.Name, spec, err)
			}
			m, fallbacks = named, nil
		}
		opts := &kernel.Options{
			ProviderName: m.Name, Model: m.Model, BaseURL: m.BaseURL, Capabilities: m.Capabilities, KeyHint: m.KeyHint, Secret: m.Secret,
			Explain: m.Explain, Fallback: fallbacks, Retry: base.Retry, Registry: c.Registry, Tools: c.Tools, MaxTurns: c.MaxTurns,
			System: kernel.ChildPrompt(c.Agent.Prompt, env), Cwd: base.Cwd, Version: base.Version, Session: c.Session.ID,
			State: &c.Session.State, Logger: base.Logger, Secrets: base.Secrets, Sandbox: base.Sandbox, Info: m.Info,
			SessionDir: c.Session.Dir, Hooks: base.Hooks, Parent: c.Parent,
			Context: kernel.ContextOptions{CompactAt: base.Context.CompactAt, MaxCost: c.MaxCost, Spent: c.Spent, ReasoningEffort: effortFor(&m, cmp.Or(c.Agent.Effort, effort))},
		}
		return kernel.New(m.Provider, c.Session.Log, opts)
	}
}

// inUse returns the model the parent uses now, cur, and the fallbacks
// after it: the primary, one of its fallbacks, or the one a person
// switched to (built again as /model built it).
func inUse(cur kernel.Current, primary kernel.Model, base *kernel.Options) (kernel.Model, []kernel.Model, error) {
	all := append([]kernel.Model{primary}, base.Fallback...)
	for i, m := range all {
		if m.Name == cur.Provider && m.Model == cur.Model && m.BaseURL == cur.BaseURL {
			return m, all[i+1:], nil
		}
	}
	if base.Switch == nil {
		return primary, base.Fallback, nil
	}
	m, err := base.Switch(cur.Provider + ":" + cur.Model)
	return m, nil, err
}

// agentsOf are the agents a task may name, as the delegate runs them.
func agentsOf(defs []agent.Definition) []delegate.Agent {
	out := make([]delegate.Agent, len(defs))
	for i, d := range defs {
		out[i] = delegate.Agent{Name: d.Name, Description: d.Description, Tools: d.Tools, Disallowed: d.DisallowedTools,
			Model: d.Model, Effort: d.Effort, Mode: permission.Mode(d.PermissionMode), ReadOnly: d.ReadOnly, MaxTurns: d.MaxTurns,
			Prompt: d.Prompt, Source: d.Source}
	}
	return out
}
