// Package builtin holds rein's built-in tools: read_file, write_file,
// edit_file, list_dir, glob, grep, bash and todo_write (the model's task
// list), and with a session's [Jobs] (bash's run_in_background)
// job_output and job_kill. Each is a registry.Tool with its
// schema, its preconditions (Check) and its executor; the description the
// model reads lives in a .md file beside the code.
//
// The tools run only through the tool runtime (internal/tool), which
// validates, asks permission, bounds the output and records every step.
// Every path a file tool touches is resolved through the session's
// workspace.Workspace, symbolic links followed, at validation and again
// at execution; the tools that only read reach the session's artifacts
// directory (Options.ArtifactDir) and its read roots (Options.ReadRoots,
// the skills' directories) too, and nothing else outside; bash runs in the
// workspace root, in a session and process group of its own, with
// credentials stripped from its environment.
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
	// ArtifactDir is the session's artifacts directory, where the tool
	// runtime keeps whole outputs (tool.Options.ArtifactDir): read_file,
	// list_dir, grep and glob may read the files there, by absolute path,
	// though it lies outside the workspace; write_file and edit_file are
	// refused there, even where it lies inside. It need not exist yet,
	// but its parent (the session's directory) must: its links are
	// resolved once, when the tools are made. Empty means no tool reaches
	// past the workspace.
	ArtifactDir string
	// ReadRoots are directories outside the workspace that read_file,
	// list_dir, grep and glob may read too, by absolute path: the
	// directories of the session's skills (skill.Dirs), whose SKILL.md
	// and the files beside it the model reads. write_file and edit_file
	// are refused there; a read root inside the workspace is the
	// workspace's, and changes nothing. Each is made absolute and its
	// links resolved once, when the tools are made, so a link put in its
	// place later, or a link or ".." inside it, cannot lead a read
	// elsewhere; one that cannot be resolved (neither it nor its parent
	// exists) is left out. Nil means none.
	ReadRoots []string
	// Hidden are absolute paths that grep and glob do not walk into: the
	// credential stores the sandbox hides from commands, and rein's own
	// configuration and sessions (a workspace that is the home directory
	// holds them). A walk that starts in one (the person was asked about
	// it, or it is a read root there: the skills, the artifacts) walks
	// it. They come resolved through their links ([workspace.Places]),
	// as the caller resolved them once for all who need them (the
	// permission policy too); a relative one is left out. list_dir does
	// not descend, and lists their names; read_file reads what the
	// permission policy lets it (which asks). Nil means none.
	Hidden []workspace.Place
}

// Tools returns the built-in tools of one session working in ws (the file
// and search tools, bash and todo_write), with
// job_output and job_kill when opts.Bash has the session's Jobs. The file
// tools keep no state between calls: a file read by read_file may then be
// edited because the read is recorded in the log and folded into the
// state's read ledger (see fileToolsIn); the jobs are the one state kept,
// the processes the session runs in the background.
func Tools(ws *workspace.Workspace, opts *Options) []registry.Tool {
	var o Options
	if opts != nil {
		o = *opts
	}
	sc := newScope(ws, o.ArtifactDir, o.ReadRoots...)
	sc.hide(o.Hidden)
	tools := fileToolsIn(sc)
	tools = append(tools, searchToolsIn(sc)...)
	tools = append(tools, Bash(ws, o.Bash), TodoWrite())
	if o.Bash != nil && o.Bash.Jobs != nil {
		tools = append(tools, JobTools(o.Bash.Jobs)...)
	}
	return tools
}
