package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// MCPServer is a server `rein mcp add` adds to the person's own
// config.toml: a command to start (stdio) or a URL (streamable HTTP).
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// BearerEnv names the environment variable that holds the server's
	// bearer token; the token itself is never written.
	BearerEnv string
}

// Extensions is what cmd/rein answers for the commands about a
// workspace's extensions: rein mcp, rein hooks, rein skills, rein agents.
type Extensions struct {
	// List returns the lines of kind for the workspace of spec: "mcp"
	// (the servers, started to show their state and tools), "mcp:NAME"
	// (one server, its tools one a line), "hooks", "skills", "agents". A line whose
	// Key starts with "!" is a problem.
	List func(ctx context.Context, spec Spec, kind string) ([]Fact, error)
	// Add adds a server to the person's config.toml and says where;
	// Remove removes one and says from where.
	Add    func(spec Spec, s MCPServer) (string, error)
	Remove func(spec Spec, name string) (string, error)
}

// mcpFlags are the flags of rein mcp add.
type mcpFlags struct {
	url, bearerEnv string
	env, headers   []string
}

// extensionCommands are rein mcp, rein hooks, rein skills and rein agents.
func (a *app) extensionCommands() []*cobra.Command {
	mcp := &cobra.Command{
		Use:   "mcp",
		Short: "The MCP servers whose tools rein offers the model: list, get, add, remove",
		Long: "The MCP servers whose tools rein offers the model: those of [mcp_servers.NAME] in your\n" +
			"config.toml, and those of the project's .mcp.json (Claude Code's format) once you trust it.\n" +
			"Their tools are named mcp__SERVER__TOOL; each call asks unless a rule allows it\n" +
			"(--allow 'mcp__github__*').",
	}
	var mf mcpFlags
	list := &cobra.Command{
		Use: "list", Short: "Start the servers and show each one's state and tools", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.listExtensions(cmd.Context(), "mcp") },
	}
	get := &cobra.Command{
		Use: "get NAME", Short: "Show one server: where it is configured, its state, its tools", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.listExtensions(cmd.Context(), "mcp:"+args[0]) },
	}
	add := &cobra.Command{
		Use:   "add NAME [--url URL | COMMAND [ARGS...]]",
		Short: "Add a server to your own config.toml",
		Long: "Add a server to your own config.toml ([mcp_servers.NAME]): a command rein starts and speaks\n" +
			"to on its standard input and output, or --url for a streamable HTTP server.\n\n" +
			"  rein mcp add fs -- npx -y @modelcontextprotocol/server-filesystem /tmp\n" +
			"  rein mcp add github --url https://api.githubcopilot.com/mcp/ --bearer-env GITHUB_TOKEN",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.addServer(args, mf) },
	}
	add.Flags().StringVar(&mf.url, "url", "", "the server's URL (streamable HTTP)")
	add.Flags().StringVar(&mf.bearerEnv, "bearer-env", "", "the environment variable holding the server's bearer token (its name is saved, never the token)")
	listFlagVar(add.Flags(), &mf.env, false, "env", "KEY=VALUE for the server's environment, repeatable")
	listFlagVar(add.Flags(), &mf.headers, false, "header", "'Name: value' sent to an HTTP server, repeatable")
	remove := &cobra.Command{
		Use: "remove NAME", Short: "Remove a server from your own config.toml", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.removeServer(args[0]) },
	}
	mcp.AddCommand(list, get, add, remove)
	hooks := &cobra.Command{
		Use: "hooks", Short: "The hooks that run around prompts and tool calls, and where each is configured", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.listExtensions(cmd.Context(), "hooks") },
	}
	skills := &cobra.Command{
		Use: "skills", Short: "The skills the model is told of, and where each was found", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.listExtensions(cmd.Context(), "skills") },
	}
	agents := &cobra.Command{
		Use: "agents", Short: "The agents the task tool may start, where each was found, and what failed", Args: cobra.NoArgs,
		Long: "The agents the model may hand work to with the task tool: the built-ins (explore, general), then\n" +
			"the agent files of the project's .rein/agents/, .claude/agents/ and .codex/agents/ once you trust them,\n" +
			"and of your ~/.config/rein/agents/, ~/.claude/agents/ and ~/.codex/agents/: *.md in Claude Code's format,\n" +
			"*.toml in Codex's. The first agent of a name wins; a file that failed is named with its line.",
		RunE: func(cmd *cobra.Command, _ []string) error { return a.listExtensions(cmd.Context(), "agents") },
	}
	for _, c := range []*cobra.Command{list, get, hooks, skills, agents} {
		c.Flags().BoolVar(&a.flags.trustProject, "trust-project", false,
			"count the project's .mcp.json, .claude/settings.json and agent files as trusted for this command")
	}
	return []*cobra.Command{mcp, hooks, skills, agents}
}

// errNoExtensions is returned when this build cannot answer the
// extension commands.
var errNoExtensions = errors.New("this build has no extensions")

// listExtensions prints the lines of kind: the facts on stdout, the
// problems on stderr as warnings.
func (a *app) listExtensions(ctx context.Context, kind string) error {
	if a.deps.Extensions.List == nil {
		return errNoExtensions
	}
	spec, err := a.spec(nil)
	if err != nil {
		return err
	}
	facts, err := a.deps.Extensions.List(ctx, spec, kind)
	if err != nil {
		return err
	}
	return a.facts(a.deps.Stdout, facts, kind)
}

// facts prints the lines of kind: the facts on w, the problems on stderr
// as warnings, and, when there are none, that there are none and how to
// add some.
func (a *app) facts(w io.Writer, facts []Fact, kind string) error {
	if len(facts) == 0 {
		printf(a.deps.Stderr, "rein: %s\n", noneOf(kind))
		return nil
	}
	for _, f := range facts {
		if problem, ok := strings.CutPrefix(f.Key, "!"); ok {
			printf(a.deps.Stderr, "rein: warning: %s: %s\n", problem, f.Value)
			continue
		}
		if err := printf(w, "%-22s %s\n", f.Key, f.Value); err != nil {
			return err
		}
	}
	return nil
}

// noneOf says there is nothing of kind, and how to add some.
func noneOf(kind string) string {
	switch {
	case kind == "mcp":
		return "no MCP servers: add one with rein mcp add, or put a .mcp.json in the project"
	case strings.HasPrefix(kind, "mcp:"):
		return "no MCP server is called " + strings.TrimPrefix(kind, "mcp:") + " (rein mcp list)"
	case kind == "hooks":
		return "no hooks: [[hooks.PreToolUse]] in your config.toml, or a trusted project's .claude/settings.json"
	case kind == "agents":
		return "no agents: a *.md file in Claude Code's format under .claude/agents/ or ~/.config/rein/agents/"
	}
	return "no skills: a directory with a SKILL.md under .rein/skills/ or ~/.config/rein/skills/"
}

// addServer runs rein mcp add.
func (a *app) addServer(args []string, mf mcpFlags) error {
	if a.deps.Extensions.Add == nil {
		return errNoExtensions
	}
	s := MCPServer{Name: args[0], URL: mf.url, BearerEnv: mf.bearerEnv}
	switch {
	case mf.url != "" && len(args) > 1:
		return fmt.Errorf("%w: rein mcp add: give either --url or a command, not both", ErrUsage)
	case mf.url == "" && len(args) < 2:
		return fmt.Errorf("%w: rein mcp add %s: give the command that starts the server (rein mcp add %s -- npx -y PACKAGE) or --url", ErrUsage, args[0], args[0])
	case mf.url == "":
		s.Command, s.Args = args[1], args[2:]
	}
	var err error
	if s.Env, err = pairs(mf.env, "=", "--env"); err != nil {
		return err
	}
	if s.Headers, err = pairs(mf.headers, ":", "--header"); err != nil {
		return err
	}
	return a.configure(func(spec Spec) (string, error) { return a.deps.Extensions.Add(spec, s) })
}

// removeServer runs rein mcp remove.
func (a *app) removeServer(name string) error {
	if a.deps.Extensions.Remove == nil {
		return errNoExtensions
	}
	return a.configure(func(spec Spec) (string, error) { return a.deps.Extensions.Remove(spec, name) })
}

// configure makes one change to the person's configuration (rein mcp add,
// remove) with the spec rein's flags give, and says what it did.
func (a *app) configure(change func(Spec) (string, error)) error {
	spec, err := a.spec(nil)
	if err != nil {
		return err
	}
	done, err := change(spec)
	if err != nil {
		return err
	}
	return printf(a.deps.Stderr, "rein: %s\n", done)
}

// pairs reads KEY<sep>VALUE flags into a map; nil when there are none.
func pairs(list []string, sep, flag string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, sep)
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%w: %s %q: want KEY%sVALUE", ErrUsage, flag, kv, sep)
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m, nil
}
