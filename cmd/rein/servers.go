package main

// The session's MCP servers: started once the kernel exists, their tools
// joining and leaving its registry through ChangeTools.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rein-agent/rein/internal/cli"
	"github.com/rein-agent/rein/internal/config"
	"github.com/rein-agent/rein/internal/mcp"
	"github.com/rein-agent/rein/internal/printable"
)

// startServers starts the servers of x with opts, each change of a
// server's tools given to change (nil: none, for rein mcp list). It does
// nothing when x has no servers.
func (x *extensions) startServers(ctx context.Context, opts mcp.Options, change func(mcp.Change)) {
	if x == nil || len(x.servers) == 0 {
		return
	}
	opts.Servers = x.servers
	opts.OnChange = change
	opts.Logger = warnings()
	x.manager = mcp.New(&opts)
	x.manager.Start(context.WithoutCancel(ctx))
}

// stopServers stops the servers of x, if it started any.
func (x *extensions) stopServers() error {
	if x == nil || x.manager == nil {
		return nil
	}
	return x.manager.Close()
}

// ready waits until every server of x is ready or has failed once, for a
// headless run, and warns of each one that failed: its tools are not
// there, and no event says so (none joined or left).
func (x *extensions) ready(ctx context.Context) {
	if x == nil || x.manager == nil {
		return
	}
	x.manager.Settled(ctx)
	for _, st := range x.manager.Status() {
		if st.State == mcp.StateFailed {
			warn(fmt.Sprintf("MCP server %s (%s): %s", st.Name, st.Source, printable.Line(st.Error)))
		}
	}
}

// secrets are the values of x's servers that must not reach the log: the
// values of their env and headers, their bearer tokens.
func (x *extensions) secrets() []string {
	if x == nil {
		return nil
	}
	var out []string
	for _, s := range x.servers {
		out = append(out, s.Secrets(os.Getenv)...)
	}
	return out
}

// status is what each server of x is doing: its manager's status, or
// "not started" before there is one.
func (x *extensions) status() []mcp.Status {
	if x.manager != nil {
		return x.manager.Status()
	}
	var out []mcp.Status
	for _, s := range x.servers {
		out = append(out, mcp.Status{Name: s.Name, Source: s.Source, Transport: s.Transport(), State: "not started"})
	}
	return out
}

// serverFacts are the lines of /mcp and rein mcp list: a server a line.
func (x *extensions) serverFacts() []cli.Fact {
	var out []cli.Fact
	for _, st := range x.status() {
		v := fmt.Sprintf("%s, %s, %d tools  (%s)", st.State, st.Transport, len(st.Tools), st.Source)
		if st.Error != "" {
			v += ": " + st.Error
		}
		out = append(out, cli.Fact{Key: st.Name, Value: printable.Line(v)})
	}
	return out
}

// serverFacts1 are the lines of rein mcp get NAME: where the server is
// configured, how it is started, its state, its log, its tools.
func (x *extensions) serverFacts1(name string) []cli.Fact {
	var cfg *mcp.Server
	for i := range x.servers {
		if x.servers[i].Name == name {
			cfg = &x.servers[i]
		}
	}
	if cfg == nil {
		return x.problems["mcp"]
	}
	var st mcp.Status
	for _, s := range x.status() {
		if s.Name == name {
			st = s
		}
	}
	run := cfg.URL
	if run == "" {
		run = strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
	}
	if cfg.Written != "" {
		run = cfg.Written // a project's: as written, its ${VAR} not expanded
	}
	out := []cli.Fact{{Key: "source", Value: cfg.Source}, {Key: st.Transport, Value: printable.Line(run)}, {Key: "state", Value: st.State}}
	if st.Error != "" {
		out = append(out, cli.Fact{Key: "error", Value: printable.Line(st.Error)})
	}
	if st.Log != "" {
		out = append(out, cli.Fact{Key: "log", Value: st.Log})
	}
	for _, t := range st.Tools {
		out = append(out, cli.Fact{Key: "tool", Value: t})
	}
	for _, t := range st.Skipped {
		out = append(out, cli.Fact{Key: "!" + cfg.Source, Value: printable.Line("left out: " + t)})
	}
	return out
}

// serverSecrets are the secrets of the servers a session in cwd may
// start (the person's, and the project's .mcp.json if it is trusted, or
// trustProject), read
// quietly: the configuration's warnings come when the session is built.
func serverSecrets(cwd string, trustProject bool) []string {
	var x extensions
	cfg, err := readConfig(config.DefaultPaths(cwd))
	if err != nil {
		return nil
	}
	x.servers = configServers(cfg)
	path := filepath.Join(cwd, projectServers)
	if data, _ := readProjectFile(path); data != nil && (trustProject || cfg.IsTrusted(path, data)) {
		servers, _ := mcp.ParseProjectFile(path, data, os.Getenv)
		x.servers = append(x.servers, servers...)
	}
	return x.secrets()
}

// addServer answers rein mcp add: the server goes into the person's own
// config.toml.
func addServer(spec cli.Spec, s cli.MCPServer) (string, error) {
	user := config.DefaultPaths(spec.Cwd).User
	if user == "" {
		return "", errors.New("rein mcp add: there is no config.toml of yours to add it to (is $HOME set?)")
	}
	err := config.SaveMCPServer(user, config.MCPServer{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env,
		URL: s.URL, Headers: s.Headers, BearerEnv: s.BearerEnv, Enabled: true}, false)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("added MCP server %s to %s; its tools are mcp__%s__*, and each call asks unless a rule allows it", s.Name, user, s.Name), nil
}

// removeServer answers rein mcp remove.
func removeServer(spec cli.Spec, name string) (string, error) {
	user := config.DefaultPaths(spec.Cwd).User
	ok, err := config.RemoveMCPServer(user, name)
	switch {
	case err != nil:
		return "", err
	case !ok:
		return "", fmt.Errorf("%s has no MCP server called %s (rein mcp list shows where each is configured)", user, name)
	}
	return fmt.Sprintf("removed MCP server %s from %s", name, user), nil
}
