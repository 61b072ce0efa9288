package main

// The session's extensions: the person's hooks (their config.toml, and a
// project's .claude/settings.json once they trust it, in Claude Code's
// format), the skills found in the workspace and the person's
// directories, and the agents the task tool may start (the built-ins,
// the person's agent files, and a project's once they trust them).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/agent"
	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/mcp"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/skill"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// projectSettings are the files of a project, relative to its root, whose
// hooks run commands, and projectServers the one whose MCP servers rein
// starts: they need the person's trust.
var (
	projectSettings = []string{filepath.Join(".claude", "settings.json"), filepath.Join(".claude", "settings.local.json")}
	projectServers  = ".mcp.json"
)

// maxShownDescription bounds an agent's description in rein agents and
// /agents: enough for a line or two, not a paragraph with examples.
const maxShownDescription = 240

// maxProjectFile bounds a project's settings and .mcp.json files.
const maxProjectFile = 1 << 20

// extensions are what a session brings of the person's own.
type extensions struct {
	hooks   []hook.Hook
	skills  []skill.Skill
	servers []mcp.Server
	// agents are the agents a child may run as: the built-ins and those of
	// the agent files found (a project's only when trusted). The task
	// tool is built from agentList, which has the built-ins for a session
	// without extensions too.
	agents  []agent.Definition
	maxStop int
	// hookFiles are the files the hooks came from, trusted or the
	// person's own.
	hookFiles []string
	// problems are what could not be loaded or was left out, by kind
	// ("mcp", "hooks", "skills", "agents"): a fact whose Key is "!" and the file,
	// its Value what is wrong.
	problems map[string][]cli.Fact
	// manager runs the servers once a session is built; nil before, and
	// when there are none.
	manager *mcp.Manager
}

// loadExtensions gathers the extensions of a session in the workspace at
// root under cfg (read from userFile and the project's file), asking
// spec.Trust about a project's file not trusted yet. It fails only when
// the person could not be asked.
func loadExtensions(ctx context.Context, spec cli.Spec, cfg *config.Config, root, userFile string) (*extensions, error) {
	x := &extensions{maxStop: cfg.MaxStopContinues, problems: map[string][]cli.Fact{}}
	if x.maxStop == 0 {
		x.maxStop = -1 // 0 continues: the hook runner's 0 would mean its default
	}
	for _, h := range cfg.Hooks {
		x.hooks = append(x.hooks, hook.Hook{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout, Source: h.Source})
	}
	if len(cfg.Hooks) > 0 {
		x.hookFiles = append(x.hookFiles, userFile)
	}
	x.servers = configServers(cfg)
	for _, name := range projectSettings {
		if err := x.projectHooks(ctx, spec, cfg, filepath.Join(root, name), userFile); err != nil {
			return nil, err
		}
	}
	if err := x.projectServers(ctx, spec, cfg, filepath.Join(root, projectServers), userFile); err != nil {
		return nil, err
	}
	roots := skill.UserRoots(root)
	skills, problems := skill.Discover(roots)
	x.skills = skills
	for _, p := range problems {
		x.problem("skills", p.Where(), p.Message)
	}
	if err := x.loadAgents(ctx, spec, cfg, agent.Roots{Project: roots.Project, User: roots.User, Home: roots.Home}, userFile); err != nil {
		return nil, err
	}
	return x, nil
}

// loadAgents finds the agents of roots, asking spec.Trust about each of
// the project's agent directories not trusted yet: one question for all
// the files of a directory, trusted by their names and content together.
func (x *extensions) loadAgents(ctx context.Context, spec cli.Spec, cfg *config.Config, roots agent.Roots, userFile string) error {
	agents, problems, err := agent.Load(roots, func(d *agent.Dir) (bool, error) {
		what := make([]string, len(d.Agents))
		for i, a := range d.Agents {
			what[i] = "agent " + a.Name + " (" + agentRights(a) + "), whose instructions a child follows: " + printable.Line(a.Source)
		}
		return x.trust(ctx, spec, cfg, trustee{path: d.Path, data: d.Content, what: what, kind: "agents",
			held: fmt.Sprintf("its %d agents are not offered", len(d.Agents))}, userFile)
	})
	if err != nil {
		return err
	}
	x.agents = agents
	for _, p := range problems {
		what := p.Message
		if !p.Warning {
			what += "; the agent is not loaded"
		}
		x.problem("agents", p.Where(), what)
	}
	return nil
}

// agentRights says what an agent asks for: its tools, model and
// permission mode ("inherit" where it takes its parent's).
func agentRights(a agent.Definition) string {
	var b strings.Builder
	if a.ReadOnly {
		b.WriteString("read-only, ")
	}
	switch {
	case a.Tools == nil:
		b.WriteString("all tools")
	case len(a.Tools) == 0:
		b.WriteString("no tools")
	default:
		b.WriteString("tools " + strings.Join(a.Tools, ", "))
	}
	if len(a.DisallowedTools) > 0 {
		b.WriteString(" but " + strings.Join(a.DisallowedTools, ", "))
	}
	b.WriteString("; model " + cmp.Or(a.Model, "inherit"))
	if a.Effort != "" {
		b.WriteString(", effort " + a.Effort)
	}
	b.WriteString("; mode " + cmp.Or(a.PermissionMode, "inherit"))
	return printable.Line(b.String())
}

// configServers are the enabled servers of the person's config.toml.
func configServers(cfg *config.Config) []mcp.Server {
	var out []mcp.Server
	for _, s := range cfg.MCPServers {
		if !s.Enabled {
			continue
		}
		out = append(out, mcp.Server{Name: s.Name, Source: s.Source, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, BearerEnv: s.BearerEnv, StartupTimeout: s.StartupTimeout, ToolTimeout: s.ToolTimeout})
	}
	return out
}

// projectHooks adds the hooks of the project's settings file at path
// when the person trusts it.
func (x *extensions) projectHooks(ctx context.Context, spec cli.Spec, cfg *config.Config, path, userFile string) error {
	data := x.projectFile("hooks", path)
	if data == nil {
		return nil
	}
	hooks, problems, err := hook.ParseClaudeSettings(path, data)
	if err != nil {
		x.problem("hooks", path, err.Error())
		return nil
	}
	for _, p := range problems {
		x.problem("hooks", path, p)
		warn(p)
	}
	if len(hooks) == 0 {
		return nil
	}
	var what []string
	for _, h := range hooks {
		on := h.Event + " hook"
		if h.Matcher != "" {
			on += " (" + h.Matcher + ")"
		}
		if h.Event == contract.HookPreToolUse {
			on += ", which may approve tool calls"
		}
		what = append(what, on+": "+printable.Line(h.Command))
	}
	ok, err := x.trust(ctx, spec, cfg, trustee{path: path, data: data, what: what, kind: "hooks",
		held: fmt.Sprintf("its %d hooks do not run", len(hooks))}, userFile)
	if err != nil || !ok {
		return err
	}
	x.hooks = append(x.hooks, hooks...)
	x.hookFiles = append(x.hookFiles, path)
	return nil
}

// projectServers adds the servers of the project's .mcp.json at path when
// the person trusts it. A server of the person's own config.toml keeps its
// name: the project's of the same name is left out.
func (x *extensions) projectServers(ctx context.Context, spec cli.Spec, cfg *config.Config, path, userFile string) error {
	data := x.projectFile("mcp", path)
	if data == nil {
		return nil
	}
	servers, err := mcp.ParseProjectFile(path, data, os.Getenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			x.problem("mcp", path, strings.TrimPrefix(line, "mcp: "))
		}
	}
	servers = slices.DeleteFunc(servers, func(s mcp.Server) bool {
		mine := slices.ContainsFunc(x.servers, func(c mcp.Server) bool { return c.Name == s.Name })
		if mine {
			x.problem("mcp", path, fmt.Sprintf("server %q is left out: your config.toml has a server of that name", s.Name))
		}
		return mine
	})
	if len(servers) == 0 {
		return nil
	}
	var what []string
	for _, s := range servers {
		// As the file has it, env and headers too, its ${VAR} not
		// expanded: what is trusted, with no secret shown.
		what = append(what, "MCP server "+s.Name+": "+printable.Line(s.Written))
	}
	ok, err := x.trust(ctx, spec, cfg, trustee{path: path, data: data, what: what, kind: "mcp",
		held: fmt.Sprintf("its %d MCP servers do not start", len(servers))}, userFile)
	if err != nil || !ok {
		return err
	}
	x.servers = append(x.servers, servers...)
	return nil
}

// trustee is a project file that needs the person's trust: its path and
// content, what it would run (for the question), the kind of extension,
// and what is held back while it is not trusted.
type trustee struct {
	path       string
	data       []byte
	what       []string
	kind, held string
}

// trust says whether the person trusts f: trusted before with this
// content, trusted for this run (--trust-project), or trusted now when
// asked, the yes remembered in userFile. A file not trusted is a warning
// and a problem of its kind.
func (x *extensions) trust(ctx context.Context, spec cli.Spec, cfg *config.Config, f trustee, userFile string) (bool, error) {
	if cfg.IsTrusted(f.path, f.data) || spec.TrustProject {
		return true, nil
	}
	if spec.Trust != nil {
		yes, err := spec.Trust(ctx, cli.TrustQuestion{Path: f.path, Changed: cfg.TrustedBefore(f.path), What: f.what})
		if err != nil {
			return false, err
		}
		if yes {
			if err := config.SaveTrust(userFile, f.path, config.TrustHash(f.data)); err != nil {
				warn(fmt.Sprintf("%s is trusted for this run only: your answer could not be saved: %v", f.path, err))
			}
			return true, nil
		}
	}
	why := "not trusted, so " + f.held + "; run rein interactively to be asked, or pass --trust-project"
	if cfg.TrustedBefore(f.path) {
		why = "changed since you trusted it, so " + f.held + " until you trust it again (interactively, or --trust-project)"
	}
	x.problem(f.kind, f.path, why)
	warn(f.path + ": " + why)
	return false, nil
}

// readProjectFile reads a project's file: a regular file of at most
// maxProjectFile bytes (not a pipe or a device a cloned repository could
// make it). It returns nil data and no error when there is no such file.
func readProjectFile(path string) ([]byte, error) {
	data, err := config.ReadBounded(path, maxProjectFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// projectFile reads the project's file of kind at path (readProjectFile):
// nil when there is none, or when it cannot be read, which is a problem
// of kind.
func (x *extensions) projectFile(kind, path string) []byte {
	data, err := readProjectFile(path)
	if data == nil && err != nil {
		x.problem(kind, path, err.Error())
	}
	return data
}

// problem notes what is wrong with the file at path, of kind.
func (x *extensions) problem(kind, path, what string) {
	what = strings.TrimPrefix(what, path+": ")
	x.problems[kind] = append(x.problems[kind], cli.Fact{Key: "!" + path, Value: printable.Line(what)})
}

// hookRunner is the runner of the session's hooks, nil when it has none.
func (x *extensions) hookRunner(opts hook.Options) *hook.Runner {
	if x == nil || len(x.hooks) == 0 {
		return nil
	}
	opts.Hooks, opts.MaxStopContinues = x.hooks, x.maxStop
	return hook.New(&opts)
}

// systemSkills is the list of skills for the system prompt, and the
// directories the read tools may read for them.
func (x *extensions) systemSkills() (text string, dirs []string) {
	if x == nil {
		return "", nil
	}
	text, _ = skill.Prompt(x.skills, skill.DefaultBudget)
	return text, skill.Dirs(x.skills)
}

// agentList is the session's agents: those loaded, or the built-ins
// alone for a session without extensions (the demo).
func (x *extensions) agentList() []agent.Definition {
	if x == nil {
		return agent.Builtins()
	}
	return x.agents
}

// systemAgents is the list of agents for the system prompt.
func (x *extensions) systemAgents() string {
	text, _ := agent.Prompt(x.agentList(), agent.DefaultBudget)
	return text
}

// facts are the lines /hooks, /skills and /agents and rein hooks, rein
// skills and rein agents show of kind.
func (x *extensions) facts(kind string) []cli.Fact {
	var out []cli.Fact
	if kind == "agents" {
		for _, a := range x.agentList() {
			out = append(out, cli.Fact{Key: a.Name, Value: printable.Line(excerpt.Text(a.Description, maxShownDescription)) +
				"  (" + agentRights(a) + "; " + printable.Line(a.Source) + ")"})
		}
	}
	if x == nil {
		return out
	}
	switch kind {
	case "hooks":
		for _, h := range x.hooks {
			what := h.Event
			if h.Matcher != "" {
				what += " (" + h.Matcher + ")"
			}
			out = append(out, cli.Fact{Key: what, Value: printable.Line(h.Command) + "  (" + h.Source + ")"})
		}
	case "mcp":
		out = x.serverFacts()
	case "skills":
		for _, s := range x.skills {
			out = append(out, cli.Fact{Key: s.Name, Value: printable.Line(s.Description) + "  (" + s.Path + ", " + s.Scope + ")"})
		}
	case "agents":
	default:
		if name, ok := strings.CutPrefix(kind, "mcp:"); ok {
			return x.serverFacts1(name)
		}
		return nil
	}
	return append(out, x.problems[kind]...)
}

// listExtensions answers rein mcp list, rein mcp get, rein hooks and
// rein skills for the workspace of spec. For the servers it starts them,
// waits until each is ready or has failed, and stops them.
func listExtensions(ctx context.Context, spec cli.Spec, kind string) ([]cli.Fact, error) {
	cfg, err := loadConfig(spec.Cwd)
	if err != nil {
		return nil, err
	}
	x, err := loadExtensions(ctx, spec, cfg, spec.Cwd, config.DefaultPaths(spec.Cwd).User)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(kind, "mcp") && len(x.servers) > 0 {
		x.startServers(ctx, mcp.Options{Dir: spec.Cwd, Environ: os.Environ(), Passthrough: cfg.EnvPassthrough,
			Secrets: append(builtin.Credentials(os.Environ()), x.secrets()...), Strip: builtin.ToolEnv, MaxMessage: cfg.MCPMaxMessageBytes, Version: version}, nil)
		defer x.manager.Close()
		x.manager.Settled(ctx)
	}
	return x.facts(kind), nil
}
