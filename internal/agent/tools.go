package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/id"
)

// claudeTools are Claude Code's tool names that rein has a tool for.
// Task was renamed Agent; both are delegation, rein's task (which the
// runtime gives a child only when the person allows grandchildren).
// BashOutput and KillShell (KillBash before) are its background jobs';
// TodoWrite its task list.
var claudeTools = map[string]string{
	"Read": "read_file", "Edit": "edit_file", "MultiEdit": "edit_file", "Write": "write_file",
	"Bash": "bash", "Grep": "grep", "Glob": "glob", "LS": "list_dir",
	"Task": "task", "Agent": "task",
	"BashOutput": "job_output", "KillShell": "job_kill", "KillBash": "job_kill",
	"TodoWrite": "todo_write",
}

// claudeOnly are Claude Code's tools that rein has no tool for: denying
// one is no mistake.
var claudeOnly = []string{"WebFetch", "WebSearch", "NotebookEdit", "NotebookRead", "TodoRead", "ExitPlanMode",
	"EnterPlanMode", "AskUserQuestion", "Skill", "SlashCommand", "ListMcpResourcesTool", "ReadMcpResourceTool", "PowerShell", "LSP"}

// reinTools are the names of rein's own tools, which pass as they are.
var reinTools = []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "bash", "task", "job_output", "job_kill", "todo_write"}

// mcpPrefix begins the name of every MCP tool: mcp__server__tool.
const mcpPrefix = "mcp__"

// splitTools splits Claude Code's "Read, Grep, Agent(worker, researcher)"
// at the commas outside parentheses, each name trimmed, empty ones left
// out.
func splitTools(s string) []string {
	var (
		out   []string
		depth int
		start int
	)
	add := func(end int) {
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				add(i)
				start = i + 1
			}
		}
	}
	add(len(s))
	return out
}

// mapTools maps tool names as an agent file writes them to rein's, in
// order, each once. A tool rein does not have is left out with a warning
// (and named in dropped); a name that cannot be a tool's is a problem. A
// name with a pattern in parentheses (Bash(git diff:*)) is left out of a
// list of tools the agent may use, since rein cannot narrow the tool to
// the pattern, and stands for the whole tool in a list of those it may
// not (deny, the narrower reading); Agent(...) and Task(...) are task, as
// Claude Code reads them in an agent's file.
func mapTools(names []string, deny bool) (out []string, problems []Problem, dropped []string) {
	for _, written := range names {
		name, pattern, hasPattern := strings.Cut(written, "(")
		name = strings.TrimSpace(name)
		if hasPattern && (!strings.HasSuffix(pattern, ")") || !id.ValidName(name, id.MaxName)) {
			problems = append(problems, Problem{Message: fmt.Sprintf("%s is not a tool's name", quote(written))})
			continue
		}
		rein, ok := toolName(name)
		switch {
		case !ok:
			problems = append(problems, Problem{Message: fmt.Sprintf("%s is not a tool's name", quote(written))})
			continue
		case rein == "" && !deny:
			problems = append(problems, Problem{Warning: true, Message: fmt.Sprintf("rein has no tool %s; the agent goes without it", name)})
			dropped = append(dropped, name)
			continue
		case rein == "":
			// Denying a tool rein lacks changes nothing; a name Claude
			// Code does not know either may be a misspelt one meant.
			if !slices.Contains(claudeOnly, name) {
				problems = append(problems, Problem{Warning: true, Message: fmt.Sprintf("rein has no tool %s, so denying it denies nothing (is it misspelt?)", name)})
			}
			continue
		case hasPattern && rein != "task" && !deny:
			problems = append(problems, Problem{Warning: true, Message: fmt.Sprintf(
				"%s is left out: rein cannot hold %s to a pattern in an agent's tools, so the agent goes without it", written, name)})
			dropped = append(dropped, written)
			continue
		case hasPattern && rein != "task":
			problems = append(problems, Problem{Warning: true, Message: fmt.Sprintf(
				"%s denies all of %s: rein cannot hold it to a pattern in an agent's tools", written, rein)})
		}
		if !slices.Contains(out, rein) {
			out = append(out, rein)
		}
	}
	return out, problems, dropped
}

// toolName returns rein's name for a tool an agent file names: Claude
// Code's mapped, rein's own and MCP tools' as they are (mcp__server,
// Claude Code's for all of a server's tools, made mcp__server__*), or ""
// for a tool rein does not have. ok is false for a name no tool could
// have.
func toolName(name string) (rein string, ok bool) {
	if r, ok := claudeTools[name]; ok {
		return r, true
	}
	if slices.Contains(reinTools, name) {
		return name, true
	}
	if rest, isMCP := strings.CutPrefix(name, mcpPrefix); isMCP {
		if rest == "*" {
			return name, true
		}
		server, tool, hasTool := strings.Cut(rest, "__")
		switch {
		case !id.ValidName(server, id.MaxName):
			return "", false
		case !hasTool:
			return name + "__*", true
		case tool == "*" || id.ValidName(tool, 2*id.MaxName):
			return name, true
		}
		return "", false
	}
	if !id.ValidName(name, id.MaxName) {
		return "", false
	}
	return "", true
}
