package tool

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rein-agent/rein/internal/registry"
)

// schemas holds the resolved input schema of every tool the runtime has
// called: each is resolved on the tool's first call, not when the runtime
// is made (a run that calls one tool resolves one schema), and again when
// its schema changes (an MCP server's). A schema that does not resolve
// refuses that tool's calls (validate); every built-in's resolves
// (TestBuiltinSchemasResolve).
type schemas struct {
	mu     sync.Mutex
	byTool map[string]resolved
}

// resolved is one tool's schema as given, and resolved.
type resolved struct {
	raw string
	r   *jsonschema.Resolved
}

func newSchemas() *schemas { return &schemas{byTool: map[string]resolved{}} }

// resolve returns the resolved schema of t, resolving it when it is new
// or changed.
func (s *schemas) resolve(t registry.Tool) (*jsonschema.Resolved, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.byTool[t.Name]; ok && c.raw == string(t.InputSchema) {
		return c.r, nil
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(t.InputSchema, &sch); err != nil {
		return nil, fmt.Errorf("tool: the input schema of %s: %w", t.Name, err)
	}
	r, err := sch.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tool: the input schema of %s: %w", t.Name, err)
	}
	s.byTool[t.Name] = resolved{raw: string(t.InputSchema), r: r}
	return r, nil
}

// validate checks input against the tool's schema and returns what is
// wrong, for the model to fix; nil means it is valid.
func (s *schemas) validate(t registry.Tool, input json.RawMessage) []string {
	r, err := s.resolve(t)
	if err != nil {
		// A schema that cannot be resolved (a server's) validates
		// nothing: the call is refused rather than run unchecked.
		return []string{"the tool's own input schema is not valid, so no input can be checked against it: " + err.Error()}
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return []string{"the input is not valid JSON: " + err.Error()}
	}
	if _, ok := v.(map[string]any); !ok {
		return []string{"the input must be a JSON object"}
	}
	if err := r.Validate(v); err != nil {
		msg := err.Error()
		// The library's messages start with its own prefix and the
		// schema location; the model needs the part about its input.
		msg = strings.TrimPrefix(msg, "validating root: ")
		return []string{msg}
	}
	return nil
}
