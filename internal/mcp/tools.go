package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// maxDescription bounds a tool's description, in bytes: it goes into
// every request.
const maxDescription = 2048

// list lists the tools of s's session cs as registry tools, and those it
// left out with why.
func (m *Manager) list(ctx context.Context, s *server, cs *sdk.ClientSession) ([]registry.Tool, []string, error) {
	var tools []registry.Tool
	var skipped []string
	used := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("listing its tools: %w", err)
		}
		rt, err := m.tool(s, t)
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%q: %v", t.Name, err))
			continue
		}
		if used[rt.Name] {
			rt.Name = toolName(s.cfg.Name, t.Name, true)
		}
		if used[rt.Name] {
			skipped = append(skipped, fmt.Sprintf("%q: listed twice", t.Name))
			continue
		}
		used[rt.Name] = true
		tools = append(tools, rt)
	}
	return tools, skipped, nil
}

// tool turns t, a tool of server s, into a registry tool.
func (m *Manager) tool(s *server, t *sdk.Tool) (registry.Tool, error) {
	if t.Name == "" {
		return registry.Tool{}, errors.New("a tool with no name")
	}
	schema, err := inputSchema(t.InputSchema)
	if err != nil {
		return registry.Tool{}, err
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	rt := registry.Tool{
		Name:        ToolName(s.cfg.Name, t.Name),
		Description: bounded(desc, maxDescription),
		InputSchema: schema,
		Source:      Source(s.cfg.Name),
	}
	rt.Risk, rt.ReadOnly, rt.Concurrency = claims(t.Annotations)
	timeout := s.cfg.toolTimeout()
	rt.Timeout = func(json.RawMessage) time.Duration { return timeout }
	// The schema is checked by the tool runtime; what is left to see
	// without calling the server is whether it is connected. Its tools
	// leave the registry when it stops, a moment after: a call in that
	// moment is refused here rather than asked about.
	rt.Check = func(json.RawMessage, state.Ledger) error {
		if m.current(s) == nil {
			return &registry.CheckError{Code: contract.CodePreconditionFailed, Message: notConnected(s.cfg.Name)}
		}
		return nil
	}
	name := t.Name
	rt.Execute = func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		return m.call(ctx, s, name, call)
	}
	return rt, nil
}

// inputSchema checks a server's input schema and returns it as JSON: an
// object schema (one with no type is given "type": "object") that
// resolves, as the tool runtime will resolve it to validate each input.
func inputSchema(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("its input schema: %v", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, errors.New("its input schema is not a JSON object")
	}
	switch typ, ok := obj["type"]; {
	case !ok:
		obj["type"] = "object"
		if raw, err = json.Marshal(obj); err != nil {
			return nil, fmt.Errorf("its input schema: %v", err)
		}
	case typ != "object":
		return nil, fmt.Errorf("its input schema has type %v; a tool's input must be an object", typ)
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, fmt.Errorf("its input schema: %v", err)
	}
	if _, err := sch.Resolve(nil); err != nil {
		return nil, fmt.Errorf("its input schema: %v", err)
	}
	return raw, nil
}

// claims turns a tool's annotations, the server's claims, into the risk,
// read-only flag and concurrency of its registry tool. MCP's defaults
// hold when an annotation is missing: a tool may write, destructively,
// and reaches an open world.
func claims(a *sdk.ToolAnnotations) (registry.Risk, bool, registry.Concurrency) {
	readOnly, destructive, openWorld := false, true, true
	if a != nil {
		readOnly = a.ReadOnlyHint
		if a.DestructiveHint != nil {
			destructive = *a.DestructiveHint
		}
		if a.OpenWorldHint != nil {
			openWorld = *a.OpenWorldHint
		}
	}
	switch {
	case openWorld:
		return registry.RiskNetwork, readOnly, concurrency(readOnly)
	case readOnly:
		return registry.RiskRead, true, registry.Safe
	case destructive:
		return registry.RiskExecute, false, registry.Exclusive
	}
	return registry.RiskWrite, false, registry.Exclusive
}

func concurrency(readOnly bool) registry.Concurrency {
	if readOnly {
		return registry.Safe
	}
	return registry.Exclusive
}

// bounded cuts s to at most n bytes, on a character boundary, marking the
// cut.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
