// Package registry holds the tool definitions a session knows: what each
// tool is called, what it takes, how risky it is, whether it may run beside
// others, and when the model may see it.
//
// A tool exists for the model only through the registry: the projection
// asks [Registry.Visible] which tools go into a request, and the tool
// runtime looks an intent's tool up with [Registry.Lookup]. The registry
// executes nothing.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
)

// Risk is what a tool can do to the world.
type Risk string

// The risks of a tool, from least to most reaching.
const (
	RiskRead    Risk = "read"
	RiskWrite   Risk = "write"
	RiskExecute Risk = "execute"
	RiskNetwork Risk = "network"
)

// Concurrency says whether a tool may run beside others in one turn.
type Concurrency string

// The concurrency classes.
const (
	// Safe tools of one turn may run together.
	Safe Concurrency = "safe"
	// Exclusive tools run alone, in the order proposed.
	Exclusive Concurrency = "exclusive"
)

// ErrDuplicate is returned when a tool name is registered twice.
var ErrDuplicate = errors.New("registry: duplicate tool name")

// Executor runs a tool. It is called only by the tool runtime, after
// validation and permission, never by the kernel or a provider.
type Executor func(ctx context.Context, input json.RawMessage) (string, error)

// Tool is one tool definition.
type Tool struct {
	// Name is what the model calls the tool: letters, digits, '_' and '-',
	// at most 64 characters (the strictest vendor rule).
	Name        string
	Description string
	// InputSchema is the JSON schema of the tool's input (an object schema).
	InputSchema json.RawMessage
	Risk        Risk
	ReadOnly    bool
	Concurrency Concurrency
	// Visible says whether the model may see the tool in a given state;
	// nil means always.
	Visible func(s *state.State) bool
	// Execute runs the tool; nil means the tool is declared but this build
	// has no way to run it.
	Execute Executor
}

// Spec returns the tool as the model sees it.
func (t *Tool) Spec() contract.ToolSpec {
	return contract.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
}

// Registry is an ordered set of tool definitions with unique names. The
// zero value is an empty registry ready to use. It is not safe for
// concurrent Register calls; once built, reads are safe from any goroutine.
type Registry struct {
	tools []Tool
}

// New returns a registry holding tools, in order.
func New(tools ...Tool) (*Registry, error) {
	r := &Registry{}
	for _, t := range tools {
		if err := r.Register(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Register adds t. A duplicate name wraps [ErrDuplicate]; a name, risk,
// concurrency or schema that is not valid is an error too.
func (r *Registry) Register(t Tool) error {
	if !validName.MatchString(t.Name) {
		return fmt.Errorf("registry: tool name %q: want 1 to 64 letters, digits, '_' or '-'", t.Name)
	}
	if _, ok := r.Lookup(t.Name); ok {
		return fmt.Errorf("%w: %q", ErrDuplicate, t.Name)
	}
	switch t.Risk {
	case RiskRead, RiskWrite, RiskExecute, RiskNetwork:
	default:
		return fmt.Errorf("registry: tool %q: unknown risk %q", t.Name, t.Risk)
	}
	switch t.Concurrency {
	case Safe, Exclusive:
	default:
		return fmt.Errorf("registry: tool %q: unknown concurrency %q", t.Name, t.Concurrency)
	}
	var schema struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema.Type != "object" {
		return fmt.Errorf("registry: tool %q: input schema must be a JSON object schema with \"type\": \"object\"", t.Name)
	}
	r.tools = append(r.tools, t)
	return nil
}

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	i := slices.IndexFunc(r.tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Tool{}, false
	}
	return r.tools[i], true
}

// All returns every tool, in registration order.
func (r *Registry) All() []Tool { return slices.Clone(r.tools) }

// Visible returns the specs of the tools the model may see in s, in
// registration order. It never returns nil.
func (r *Registry) Visible(s *state.State) []contract.ToolSpec {
	out := make([]contract.ToolSpec, 0, len(r.tools))
	for i := range r.tools {
		t := &r.tools[i]
		if t.Visible == nil || t.Visible(s) {
			out = append(out, t.Spec())
		}
	}
	return out
}
