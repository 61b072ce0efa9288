// Package mcp makes the person's MCP servers a source of tools for a
// session: it starts each configured server (a program spoken to over its
// standard input and output, or a URL spoken to with streamable HTTP),
// lists its tools as registry tools named mcp__<server>__<tool>, calls
// them when the tool runtime executes one, and reports every change of a
// server's tool set: it started, it listed new tools, it crashed, it came
// back. A stdio server runs in a process group of its own, tethered to
// rein (package tether): it and what it started in its group die with
// rein, kill -9 included, even if it ignores the end of its input.
//
// The package decides nothing. A server's annotations are its claim, and
// turn into a tool's risk and read-only flag only for the permission
// policy to weigh; whether a call runs is the tool runtime's decision, and
// each change of the tool set is recorded by the caller (the kernel's
// ChangeTools) as a tools.changed event. A server is untrusted: what it
// returns goes through the observation stage like every tool's output,
// written to it in pieces (never copied whole on the way), and no message
// of it is held past Options.MaxMessage: a stdio server's lines are read by
// rein's own transport (stdioTransport), an HTTP server's bodies through a
// limit (limitTransport), and one past it is refused as it arrives, the
// connection ended and the server started again.
package mcp

import (
	"context"
	"log/slog"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rein-agent/rein/internal/registry"
)

// The defaults of a server's timeouts.
const (
	// DefaultStartupTimeout bounds connecting, initializing and the first
	// tools/list of a server.
	DefaultStartupTimeout = 30 * time.Second
	// DefaultToolTimeout bounds one tool call.
	DefaultToolTimeout = 10 * time.Minute
)

// Server is one configured MCP server.
type Server struct {
	// Name is the server's name in the config or the .mcp.json; its tools
	// are named after it.
	Name string
	// Source is where it was configured (a file, with its line when
	// known), for /mcp and errors.
	Source string

	// Command, Args, Env and Cwd describe a stdio server: the program,
	// its arguments, the variables its configuration adds to the stripped
	// environment (they pass even if they look secret), and its working
	// directory (empty: the workspace root; relative: to it).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	// URL, Headers and BearerEnv describe a streamable HTTP server: its
	// endpoint, headers sent with each request, and the name of an
	// environment variable whose value is sent as "Authorization: Bearer
	// <value>" (read when connecting, never kept in Server).
	URL       string
	Headers   map[string]string
	BearerEnv string

	// Written is the server's entry as its file has it (a .mcp.json's
	// JSON, its ${VAR} not expanded), for a person asked to trust it;
	// empty for a server of the person's own config.
	Written string

	// StartupTimeout bounds the start (connect, initialize, first
	// tools/list); 0 means DefaultStartupTimeout.
	StartupTimeout time.Duration
	// ToolTimeout bounds each tool call; 0 means DefaultToolTimeout.
	ToolTimeout time.Duration
}

// Transport names how rein speaks to s: "stdio" or "http".
func (s Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// Secrets returns the values of s that must never reach a log, an event
// or a terminal: those of its env variables whose names say they hold a
// credential (TOKEN, KEY, SECRET, PASSWORD, AUTH...), those of its
// credential headers (Authorization, Cookie, X-Api-Key, ...) and its bearer
// token's value (looked up with getenv). Values shorter than 8 bytes are
// left out: cutting them from every line would cut ordinary words. The
// caller adds them to the session's secrets.
func (s Server) Secrets(getenv func(string) string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecret {
			out = append(out, v)
		}
	}
	for k, v := range s.Env {
		if secretName(k) {
			add(v)
		}
	}
	for k, v := range s.Headers {
		if secretName(k) || strings.EqualFold(k, "Cookie") {
			add(v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				add(tok) // "Bearer <token>": the token alone, wherever it appears
			}
		}
	}
	if s.BearerEnv != "" && getenv != nil {
		add(getenv(s.BearerEnv))
	}
	return out
}

// minSecret is the shortest value Secrets takes.
const minSecret = 8

// secretName says whether a variable's or a header's name says it holds
// a credential.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "SESSION"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

func (s Server) startupTimeout() time.Duration {
	if s.StartupTimeout > 0 {
		return s.StartupTimeout
	}
	return DefaultStartupTimeout
}

func (s Server) toolTimeout() time.Duration {
	if s.ToolTimeout > 0 {
		return s.ToolTimeout
	}
	return DefaultToolTimeout
}

// Options configure a Manager.
type Options struct {
	// Servers are the servers to run, in the order Status lists them.
	Servers []Server
	// Dir is the workspace root: a stdio server's default working
	// directory.
	Dir string
	// Environ is rein's environment (os.Environ() in production). A stdio
	// server gets Strip(Environ, Passthrough plus the names of its Env,
	// Secrets) with its Env set over it.
	Environ []string
	// Passthrough and Secrets are passed to Strip: the variables kept
	// whatever they look like, and the values that mark a variable secret.
	Passthrough, Secrets []string
	// Strip strips secrets from an environment (builtin.ToolEnv in
	// production); nil gives a server only its Env, PATH and HOME.
	Strip func(environ, passthrough, secrets []string) []string
	// LogDir is where each stdio server's standard error goes, to
	// mcp-<name>.log (created 0600, appended to across restarts); empty
	// discards it.
	LogDir string
	// ArtifactDir is where images, audio and binary resources of results
	// are written, as files named after the invocation; empty: they are
	// not kept, and the output says so.
	ArtifactDir string
	// OnChange is called with every change of a server's tool set, one
	// call at a time and, for one server, in order. It may call Status.
	OnChange func(Change)
	// Backoff is the delays between attempts to start a server that
	// failed or stopped; zero: 1 s doubling up to 30 s.
	Backoff Backoff
	// Version is rein's version, told to the servers.
	Version string
	// Logger receives what the package has to say beside the changes;
	// nil discards it.
	Logger *slog.Logger
	// MaxMessage is the largest message rein takes from a server, in
	// bytes (a line of a stdio server, a response body or a stream's
	// event of an HTTP server); 0 means DefaultMaxMessage. A message past
	// it is refused before it is held whole: the call it answers fails
	// with a TooLargeError's sentence, and the server is started again,
	// as after a crash.
	MaxMessage int64
	// Connect returns the transport to server s; nil means the stdio or
	// streamable HTTP transport that s describes. Tests pass in-memory
	// transports.
	Connect func(ctx context.Context, s Server) (sdk.Transport, error)
}

// Backoff is the delays between attempts to reach a server: Min after the
// first failure, doubling up to Max.
type Backoff struct{ Min, Max time.Duration }

func (b Backoff) orDefault() Backoff {
	if b.Min <= 0 {
		b.Min = time.Second
	}
	if b.Max < b.Min {
		b.Max = max(30*time.Second, b.Min)
	}
	return b
}

// Change is a server's whole tool set after a change (none when its tools
// left), and why, in a sentence for people and for the model: "the
// server started", "the server listed new tools", "the server exited
// (exit status 1); rein reconnects in 2s".
type Change struct {
	Server string
	Tools  []registry.Tool
	Reason string
}

// Source returns the registry source of the tools of server name.
func Source(name string) string { return "mcp:" + name }

// The states of a server, as Status reports them.
const (
	StateStarting     = "starting"
	StateReady        = "ready"
	StateFailed       = "failed"
	StateReconnecting = "reconnecting"
	StateStopped      = "stopped"
)

// Status is what a server is doing, for /mcp and `rein mcp list`.
type Status struct {
	Name, Source string
	// Transport is "stdio" or "http".
	Transport string
	// State is one of the State constants.
	State string
	// Tools are the names of its tools the model sees (mcp__...), and
	// Skipped those of its tools rein could not use, with why.
	Tools   []string
	Skipped []string
	// Error is why it failed or stopped last, empty when it did not.
	Error string
	// Log is the file its standard error goes to, if any.
	Log string
	// Since is when it entered State.
	Since time.Time
}
