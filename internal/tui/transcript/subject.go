package transcript

import "encoding/json"

// Subject is what a tool call works on, as its card's header names it:
// the command (bash), the path relative to workspace (the file tools),
// the pattern (grep, glob), the agent and the description (task: "explore
// · find the auth code"), else the first of command, path, pattern,
// query, url and name its input has; one printable line, empty when the
// input names none of them. exec's trace and the line mode name a call
// with it too ("● bash go test ./..."), so that every renderer shows a
// call alike.
func Subject(tool string, input json.RawMessage, workspace string) string {
	return subjectOf(tool, input, workspace)
}
