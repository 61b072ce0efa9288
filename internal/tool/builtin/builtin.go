// Package builtin holds rein's built-in tools: read_file, write_file,
// edit_file, list_dir, glob, grep and bash. Each is a registry.Tool with its
// schema, its preconditions (Check) and its executor; the description the
// model reads lives in a .md file beside the code.
//
// The tools run only through the tool runtime (internal/tool), which
// validates, asks permission, bounds the output and records every step.
// Every path a file tool touches is resolved through the session's
// workspace.Workspace, symbolic links followed, at validation and again
// at execution; bash runs in the workspace root, in a session and process
// group of its own, with credentials stripped from its environment.
package builtin

import (
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// Options configure the built-in tools. The zero value uses the process's
// environment, minus what looks secret, for commands.
type Options struct {
	// Bash configures the bash tool; nil means its defaults.
	Bash *BashOptions
}

// Tools returns the built-in tools of one session working in ws. They
// keep no state between calls: a file read by read_file may then be
// edited because the read is recorded in the log and folded into the
// state's read ledger (see FileTools).
func Tools(ws *workspace.Workspace, opts *Options) []registry.Tool {
	var bash *BashOptions
	if opts != nil {
		bash = opts.Bash
	}
	tools := FileTools(ws)
	tools = append(tools, SearchTools(ws)...)
	return append(tools, Bash(ws, bash))
}
