package mcp

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/rein-agent/rein/internal/id"
)

// ToolName returns the name the model knows a server's tool by:
// "mcp__<server>__<tool>", with every character outside [A-Za-z0-9_-]
// made '_', at most 64 characters. A longer name is cut, and ends with a
// short hash of the whole so that two long names stay distinct.
func ToolName(server, tool string) string {
	return toolName(server, tool, false)
}

// toolName is ToolName, always ending with the hash when hashed is true
// (for a tool whose safe name another tool of the server has taken).
func toolName(server, tool string, hashed bool) string {
	name := "mcp__" + id.SafeName(server) + "__" + id.SafeName(tool)
	if len(name) <= id.MaxName && !hashed {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:min(len(name), id.MaxName-len(suffix))] + suffix
}
