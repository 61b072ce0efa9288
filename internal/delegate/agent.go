package delegate

import (
	"path"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
)

// Name is the task tool's name.
const Name = "task"

// Agent is what a child runs as: the wiring makes one of each agent
// definition it found (internal/agent).
type Agent struct {
	// Name is what the task call's "agent" names; Description says when
	// to use it.
	Name, Description string
	// Tools are the tools it may use, by rein's names, an entry ending in
	// "__*" (mcp__github__*) standing for the MCP tools it matches as a
	// path.Match pattern; nil means every tool the parent sees, empty
	// means none. Disallowed, in the same form, are taken away.
	Tools, Disallowed []string
	// Model is the model it runs: "" or "inherit" for the parent's
	// current one, else what the wiring resolves (an alias, a model id).
	Model string
	// Effort is the reasoning effort it asks for; "" means the parent's.
	Effort string
	// Mode is the permission mode it asks for; "" means the parent's.
	// The child gets the stricter of this and the parent's.
	Mode permission.Mode
	// ReadOnly puts it under the read-only ceiling: the read tools and
	// the commands that only read.
	ReadOnly bool
	// MaxTurns bounds its model calls; 0 means DefaultMaxTurns.
	MaxTurns int
	// Prompt is its own system prompt (the agent file's body).
	Prompt string
	// Source is where it was defined: a file, or "built-in".
	Source string
}

// DefaultMaxTurns bounds a child's model calls when its agent does not.
const DefaultMaxTurns = 25

// stricter returns the stricter of an agent's mode a and its parent's
// b; an agent without a mode has its parent's.
func stricter(a, b permission.Mode) permission.Mode {
	if a == "" {
		a = b
	}
	return permission.Stricter(a, b)
}

// ceiling is what a child may use: its tools, by name in the parent's
// order, and its policy.
type ceiling struct {
	tools  []registry.Tool
	policy *permission.Policy
}

// ceilingOf works out the ceiling of a child of agent a under the
// parent's registry and policy as they are now; nested says the child
// may call task itself (the person allowed a depth beyond it).
func ceilingOf(a *Agent, parent *registry.Registry, policy *permission.Policy, nested bool) (ceiling, error) {
	p, err := policy.With(stricter(a.Mode, policy.Mode()), permission.Rules{})
	if err != nil {
		return ceiling{}, err
	}
	if a.ReadOnly {
		p = p.ReadOnly()
	}
	var c ceiling
	c.policy = p
	for _, t := range parent.All() {
		switch {
		case t.Name == Name && !nested,
			a.Tools != nil && !names(a.Tools, t.Name),
			names(a.Disallowed, t.Name),
			policy.Hidden(t), // the parent cannot see it
			p.Hidden(t):      // the child's ceiling hides it
			continue
		}
		c.tools = append(c.tools, t)
	}
	return c, nil
}

// names reports whether list names the tool name: by its name, or by a
// pattern ending in "__*" that matches it.
func names(list []string, name string) bool {
	for _, n := range list {
		if n == name {
			return true
		}
		if strings.HasSuffix(n, "__*") {
			if ok, _ := path.Match(n, name); ok {
				return true
			}
		}
	}
	return false
}

// writes reports whether a child under c may change anything: a tool of
// it that is not a read, in a mode that is not plan and outside the
// read-only ceiling. Such a task runs alone, as a write does.
func (c ceiling) writes() bool {
	if c.policy.Mode() == permission.Plan || c.policy.IsReadOnly() {
		return false
	}
	return slices.ContainsFunc(c.tools, func(t registry.Tool) bool {
		return !(t.ReadOnly && t.Risk == registry.RiskRead) && t.Name != Name
	})
}
