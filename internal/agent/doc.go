// Package agent finds the agents the model may hand work to with the
// task tool: two built in, explore and general, and those of agent files
// written for Claude Code or Codex.
//
// An agent is a [Definition]: a name and a description (what the parent's
// model reads to choose it), the tools it may use, the model, permission
// mode and turns it runs with, and its system prompt. The definition is a
// request, never a grant: the runtime gives a child the intersection of
// its agent's tools with the parent's, a mode no looser than the
// parent's, and never the task tool unless the person allows deeper
// delegation.
//
// Files are read from these directories, the first definition of a name
// winning (a later one is reported as shadowed): the project's
// .rein/agents, .claude/agents and .codex/agents, then the person's
// $XDG_CONFIG_HOME/rein/agents (~/.config/rein/agents), ~/.claude/agents
// and ~/.codex/agents, then the built-ins, which a file of the same name
// replaces, as Claude Code lets a project replace its own. A directory is
// searched with its subdirectories, as Claude Code does (a link to a
// directory is not followed); a *.md file is in Claude Code's format, a
// *.toml file in Codex's, and other files are not read.
//
// Claude Code's format is Markdown with YAML front matter between a first
// line "---" and the next "---" line: name and description (required),
// tools and disallowedTools (a comma-separated string or a list of
// Claude Code's tool names, mapped to rein's: Read read_file, Edit and
// MultiEdit edit_file, Write write_file, Bash bash, Grep grep, Glob glob,
// LS list_dir, Task and Agent task; rein's own names and MCP tools'
// mcp__server__tool names pass as they are), model (inherit, an alias or
// a model id), effort, permissionMode and maxTurns. The body is the
// agent's system prompt. Codex's format is TOML with name, description,
// developer_instructions (the system prompt), model,
// model_reasoning_effort and sandbox_mode (read-only makes a read-only
// agent). Keys of either format that rein does not use (color, hooks,
// skills, nickname_candidates...) are ignored.
//
// Nothing here fails a session. A file that cannot be read or is
// malformed is a [Problem] naming the file and line and is not loaded; a
// tool rein does not have is left out of the agent's tools with a
// warning, and the agent loads. Files are read bounded ([MaxFileSize]),
// only regular files, and a project's only where they lie inside the
// project once links are followed: a cloned repository decides neither
// what rein reads nor that rein blocks on a pipe.
package agent
