package builtin

import (
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// FileTools is fileToolsIn over ws alone, for the tests.
func FileTools(ws *workspace.Workspace) []registry.Tool { return fileToolsIn(newScope(ws, "")) }

// SearchTools is searchToolsIn over ws alone, for the tests.
func SearchTools(ws *workspace.Workspace) []registry.Tool { return searchToolsIn(newScope(ws, "")) }
