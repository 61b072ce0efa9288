package agent

import (
	"cmp"
	_ "embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/skill"
)

// The scopes of a definition: where it came from.
const (
	// ScopeProject is an agent of the workspace's own (.rein/agents,
	// .claude/agents, .codex/agents).
	ScopeProject = "project"
	// ScopeUser is an agent of the person's (~/.config/rein/agents,
	// ~/.claude/agents, ~/.codex/agents).
	ScopeUser = "user"
	// ScopeBuiltin is one of rein's own agents: explore and general.
	ScopeBuiltin = "built-in"
)

// Definition is one agent: what the parent's model is told of it, and
// what its child asks for. The runtime narrows what it asks to what the
// parent has; nothing here widens a child's rights. The zero Definition
// is no agent.
type Definition struct {
	// Name is what the task tool's agent input names it by: 1 to 64 ASCII
	// letters, digits, '_' and '-'.
	Name string
	// Description says when to use the agent, on one line, valid UTF-8.
	Description string
	// Tools are the tools it may use, rein's names: read_file, bash,
	// mcp__github__create_issue... An entry ending in "__*"
	// (mcp__github__*, mcp__*) stands for every MCP tool it matches as a
	// path.Match pattern. Nil means every tool the parent has; empty (not
	// nil) means none.
	Tools []string
	// DisallowedTools are tools it may not use, in the same form, taken
	// out of Tools (or of the parent's, when Tools is nil).
	DisallowedTools []string
	// Model is the model it runs: a catalogue alias or a model id, as
	// written; "" means the parent's (a file's "inherit").
	Model string
	// Effort is the reasoning effort it runs with, as written ("high");
	// "" means the parent's.
	Effort string
	// PermissionMode is the mode it asks for, one of rein's: "default",
	// "accept-edits", "plan", "yolo"; "" means the parent's. The runtime
	// runs it in the stricter of this and the parent's.
	PermissionMode string
	// ReadOnly says it may use only the read tools and the commands that
	// only read, whatever its Tools say.
	ReadOnly bool
	// MaxTurns is the most turns it may run; 0 means the task tool's
	// default (delegate.DefaultMaxTurns, 25).
	MaxTurns int
	// Prompt is its system prompt: the Markdown body of a Claude Code
	// file, a Codex file's developer_instructions, a built-in's own text.
	Prompt string
	// Source is the file it was read from, or "built-in".
	Source string
	// Scope is ScopeProject, ScopeUser or ScopeBuiltin.
	Scope string
}

// Problem is something wrong with an agent's file: it could not be read,
// it is malformed, it names a tool rein does not have, or it is shadowed
// by another agent of the same name. It is for the person to read, never
// a reason to stop a session.
type Problem struct {
	// Path is the file (or directory) the problem is in; "built-in" for a
	// built-in agent a file replaces.
	Path string
	// Line is the line of Path it is on, from 1; 0 means the file as a
	// whole.
	Line int
	// Message says what is wrong.
	Message string
	// Warning says the file's agent loaded all the same (a tool left
	// out, a name shadowed); false means it was not loaded.
	Warning bool
}

// Where returns "path:line", or the path alone when Line is 0.
func (p *Problem) Where() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d", p.Path, p.Line)
	}
	return p.Path
}

var (
	//go:embed explore.md
	explorePrompt string
	//go:embed general.md
	generalPrompt string
)

// Builtins returns rein's own agents: explore, which only reads and
// reports what it found with file and line, and general, which has every
// tool of its parent's but task.
func Builtins() []Definition {
	return []Definition{
		{
			Name: "explore", Scope: ScopeBuiltin, Source: ScopeBuiltin, ReadOnly: true,
			Description: "Searches the codebase without changing it and reports what it found with file:line evidence. " +
				"Use it to answer a question about the code or to survey before a change, keeping the search out of your context.",
			Tools:  []string{"read_file", "list_dir", "glob", "grep", "bash"},
			Prompt: strings.TrimSpace(explorePrompt),
		},
		{
			Name: "general", Scope: ScopeBuiltin, Source: ScopeBuiltin,
			Description: "General-purpose agent for a multi-step task: researches, changes files and runs commands with your tools, " +
				"and reports what it did and found.",
			// task too: the runtime gives a child task only when the
			// person allowed a depth beyond it (max_depth).
			Prompt: strings.TrimSpace(generalPrompt),
		},
	}
}

// Roots says where to look for agent files. A field left empty is not
// searched.
type Roots struct {
	// Project is the workspace root: its .rein/agents, .claude/agents and
	// .codex/agents are searched.
	Project string
	// User is rein's user configuration directory ($XDG_CONFIG_HOME/rein,
	// else ~/.config/rein): its agents directory is searched.
	User string
	// Home is the person's home directory: ~/.claude/agents and
	// ~/.codex/agents are searched.
	Home string
}

// Dir is one directory of agent files, read: what the person is asked to
// trust for a project's.
type Dir struct {
	// Path is the directory, absolute, as found.
	Path string
	// Scope is ScopeProject or ScopeUser.
	Scope string
	// Agents are the definitions its files hold, in the order of their
	// paths.
	Agents []Definition
	// Content stands for every file read under it, loaded or not: each
	// one's path below Path and its bytes. Trust is given to this
	// content; a file added, removed or changed changes it.
	Content []byte
}

// Trust says whether the agents of a project's directory d may be used.
// It is asked only of a project's directory that holds agents; an error
// stops [Load].
type Trust func(d *Dir) (bool, error)

// dirs returns the agent directories of r in order of precedence.
func (r Roots) dirs() []Dir {
	var out []Dir
	add := func(base, scope string, elem ...string) {
		if base != "" {
			out = append(out, Dir{Path: filepath.Join(append([]string{base}, elem...)...), Scope: scope})
		}
	}
	add(r.Project, ScopeProject, ".rein", "agents")
	add(r.Project, ScopeProject, ".claude", "agents")
	add(r.Project, ScopeProject, ".codex", "agents")
	add(r.User, ScopeUser, "agents")
	add(r.Home, ScopeUser, ".claude", "agents")
	add(r.Home, ScopeUser, ".codex", "agents")
	return out
}

// Load returns the agents of r and the built-ins, and the problems met.
// The directories are read in order of precedence; trust, when not nil,
// is asked about each of the project's that holds agents, and one it does
// not trust is left out (its caller says so; nil trust leaves every
// project's directory out). The first definition of a name wins, a later
// one is a warning that it is shadowed; a built-in is shadowed by a file
// of its name. The agents come back with the built-ins first, then the
// project's, then the person's, each group sorted by name: the same files
// give the same list, so a system prompt made of it stays the same. It
// fails only when trust does.
func Load(r Roots, trust Trust) ([]Definition, []Problem, error) {
	var (
		found    []Definition
		problems []Problem
		seen     = map[string]bool{}
		byName   = map[string]Definition{}
	)
	project := skill.Resolved(r.Project)
	for _, d := range r.dirs() {
		real := skill.Resolved(d.Path)
		if real == "" || seen[real] {
			continue // missing, or the same directory reached twice
		}
		seen[real] = true
		limit := ""
		if d.Scope == ScopeProject {
			limit = project
			if !skill.Inside(limit, real) {
				problems = append(problems, Problem{Path: d.Path, Message: outsideProject})
				continue
			}
		}
		probs := d.read(real, limit)
		problems = append(problems, probs...)
		if len(d.Agents) == 0 {
			continue
		}
		if d.Scope == ScopeProject {
			ok := false
			if trust != nil {
				var err error
				if ok, err = trust(&d); err != nil {
					return nil, nil, err
				}
			}
			if !ok {
				continue
			}
		}
		for _, a := range d.Agents {
			if first, ok := byName[a.Name]; ok {
				problems = append(problems, Problem{Path: a.Source, Warning: true, Message: fmt.Sprintf(
					"agent %q is shadowed by the %s agent of the same name in %s; this one is not used", a.Name, first.Scope, first.Source)})
				continue
			}
			byName[a.Name] = a
			found = append(found, a)
		}
	}
	for _, b := range Builtins() {
		if first, ok := byName[b.Name]; ok {
			problems = append(problems, Problem{Path: ScopeBuiltin, Warning: true, Message: fmt.Sprintf(
				"the built-in agent %q is replaced by the %s agent of the same name in %s", b.Name, first.Scope, first.Source)})
			continue
		}
		byName[b.Name] = b
		found = append(found, b)
	}
	slices.SortStableFunc(found, func(a, b Definition) int {
		return cmp.Or(cmp.Compare(scopeRank(a.Scope), scopeRank(b.Scope)), cmp.Compare(a.Name, b.Name))
	})
	return found, problems, nil
}

func scopeRank(scope string) int {
	switch scope {
	case ScopeBuiltin:
		return 0
	case ScopeProject:
		return 1
	}
	return 2
}
