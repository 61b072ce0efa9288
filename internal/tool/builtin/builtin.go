// Package builtin defines rein's built-in tools.
//
// In this milestone the tools are declared, not runnable: the model may
// propose using them, the kernel records the intent as pending, and nothing
// executes. The tool runtime that validates, asks permission and runs them
// is the next milestone.
package builtin

import (
	_ "embed"
	"encoding/json"

	"github.com/rein-agent/rein/internal/registry"
)

//go:embed bash.md
var bashDescription string

// Bash declares the bash tool: a shell command run in the workspace.
func Bash() registry.Tool {
	return registry.Tool{
		Name:        "bash",
		Description: bashDescription,
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"The command line, run with bash -c in the workspace."},` +
			`"timeout_ms":{"type":"integer","minimum":1,"maximum":600000,"description":"How long the command may run, in milliseconds (default 120000)."}},` +
			`"required":["command"],"additionalProperties":false}`),
		Risk:        registry.RiskExecute,
		Concurrency: registry.Exclusive,
	}
}

// Tools returns every built-in tool definition.
func Tools() []registry.Tool { return []registry.Tool{Bash()} }
