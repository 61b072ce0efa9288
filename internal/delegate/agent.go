package delegate

import (
	"slices"

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
	// Tools are the tools it may use, by rein's names; nil means every
	// tool the parent sees. Disallowed are taken away from them.
	Tools, Disallowed []string
	// Model is the model it runs: "" or "inherit" for the parent's
	// current one, else what the wiring resolves (an alias, a model id).
	Model string
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

// strictness orders the modes from the most allowing to the least.
var strictness = []permission.Mode{permission.Yolo, permission.AcceptEdits, permission.Default, permission.Plan}

// stricter returns the stricter of an agent's mode a and its parent's
// b; an agent without a mode has its parent's.
func stricter(a, b permission.Mode) permission.Mode {
	if a == "" {
		a = b
	}
	if a == "" {
		a = permission.Default
	}
	if b == "" {
		b = permission.Default
	}
	if slices.Index(strictness, a) > slices.Index(strictness, b) {
		return a
	}
	return b
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
			a.Tools != nil && !slices.Contains(a.Tools, t.Name),
			slices.Contains(a.Disallowed, t.Name),
			policy.Hidden(t), // the parent cannot see it
			p.Hidden(t):      // the child's ceiling hides it
			continue
		}
		c.tools = append(c.tools, t)
	}
	return c, nil
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
