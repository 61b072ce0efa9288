// Package hook runs a person's hooks around prompts, tool calls and the end
// of a run, in Claude Code's protocol, so that hook scripts written for
// Claude Code work unchanged: the event's input as JSON on stdin, and the
// answer in the exit code (2 blocks, with stderr as the reason) or in JSON
// on stdout (decision, hookSpecificOutput.permissionDecision,
// additionalContext).
//
// A hook proposes; the caller decides. PreToolUse is a gate that fails
// closed: a hook that cannot start, crashes (an exit other than 0 or 2),
// times out or prints JSON that does not parse denies the call. The other
// events observe and fail open. Every run of a hook command is a
// contract.HookRan for the caller to record: the Runner emits nothing
// itself and never writes the conversation (the state turns the events into
// what the model reads).
//
// Hooks run through `sh -c` in the workspace root with the stripped
// environment of the tools' commands (builtin.ToolEnv) plus
// CLAUDE_PROJECT_DIR, REIN_PROJECT_DIR and REIN_SESSION_ID, in a session and
// process group of their own that is killed as a whole at the hook's
// timeout, and when rein dies, kill -9 included (package tether); what
// they print is bounded.
//
// What differs from Claude Code, on purpose or not yet: a hook's
// updatedInput is not applied (an allow that carries one asks, since the
// log records what the model proposed and that is what runs); a hook's
// allow never lifts an ask no rule can lift (a protected directory, what
// the sandbox forbids); PostToolUse also runs for a failed call (there is
// no PostToolUseFailure), and its tool_response carries rein's
// observation (success, output, exit_code) rather than Claude Code's
// per-tool fields; transcript_path names rein's own events.jsonl, in
// rein's format. A process a hook starts that leaves the process group
// (setsid) is not killed at the timeout.
package hook
