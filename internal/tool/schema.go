package tool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/rein-agent/rein/internal/registry"
)

// schemas holds the resolved input schema of every tool of a registry.
type schemas struct {
	byTool map[string]*jsonschema.Resolved
}

func compileSchemas(reg *registry.Registry) (*schemas, error) {
	s := &schemas{byTool: map[string]*jsonschema.Resolved{}}
	for _, t := range reg.All() {
		var sch jsonschema.Schema
		if err := json.Unmarshal(t.InputSchema, &sch); err != nil {
			return nil, fmt.Errorf("tool: the input schema of %s: %w", t.Name, err)
		}
		r, err := sch.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("tool: the input schema of %s: %w", t.Name, err)
		}
		s.byTool[t.Name] = r
	}
	return s, nil
}

// validate checks input against the tool's schema and returns what is
// wrong, for the model to fix; nil means it is valid.
func (s *schemas) validate(tool string, input json.RawMessage) []string {
	r := s.byTool[tool]
	if r == nil {
		return nil
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
