package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxName is the longest tool name the model APIs accept.
const maxName = 64

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
	name := "mcp__" + safe(server) + "__" + safe(tool)
	if len(name) <= maxName && !hashed {
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return name[:min(len(name), maxName-len(suffix))] + suffix
}

// safe replaces the characters a tool name may not hold.
func safe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}
