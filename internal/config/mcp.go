package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/mcp"
)

// MCPEntry is one [mcp_servers.NAME] table as written (Codex's keys).
type MCPEntry struct {
	// Command, Args, Env and Cwd start a stdio server.
	Command string            `toml:"command"`
	Args    []string          `toml:"args"`
	Env     map[string]string `toml:"env"`
	Cwd     string            `toml:"cwd"`
	// URL, Headers and BearerTokenEnvVar reach a streamable HTTP server;
	// the last names the environment variable holding its bearer token.
	URL               string            `toml:"url"`
	Headers           map[string]string `toml:"headers"`
	BearerTokenEnvVar string            `toml:"bearer_token_env_var"`
	// Enabled = false keeps the server in the file, not started.
	Enabled *bool `toml:"enabled"`
	// The timeouts, in seconds; the _sec spellings are Codex's.
	StartupTimeout    *float64 `toml:"startup_timeout"`
	StartupTimeoutSec *float64 `toml:"startup_timeout_sec"`
	ToolTimeout       *float64 `toml:"tool_timeout"`
	ToolTimeoutSec    *float64 `toml:"tool_timeout_sec"`
}

// MCPServer is one of the person's MCP servers, as a session starts it.
type MCPServer struct {
	Name, Command string
	Args          []string
	Env           map[string]string
	Cwd, URL      string
	Headers       map[string]string
	BearerEnv     string
	// Enabled is false when the table says enabled = false.
	Enabled bool
	// StartupTimeout and ToolTimeout are 0 when not set.
	StartupTimeout, ToolTimeout time.Duration
	// Source is the file and line of its table.
	Source string
}

// validEnvName is what bearer_token_env_var may name.
var validEnvName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// checkServers validates the [mcp_servers.NAME] tables of d, each error
// naming the file and the line of the table.
func (d *decoded) checkServers() error {
	if err := d.checkServerKeys(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(d.MCPTables)) {
		s := d.MCPTables[name]
		at := d.serverAt(name)
		if err := checkServer(name, &s); err != nil {
			return fmt.Errorf("config: %s: [mcp_servers.%s]: %v", at, name, err)
		}
	}
	return nil
}

// serverKeys are the keys a [mcp_servers.NAME] table may set: MCPEntry's.
var serverKeys = sync.OnceValue(func() []string {
	var keys []string
	for f := range reflect.TypeFor[MCPEntry]().Fields() {
		keys = append(keys, f.Tag.Get("toml"))
	}
	return keys
})

// checkServerKeys refuses a key of a [mcp_servers.NAME] table that rein
// does not know: unlike elsewhere, where an unknown key is a warning, a
// misspelt command or url would leave a server that cannot start, and a
// misspelt enabled one that starts when the person said not to.
func (d *decoded) checkServerKeys() error {
	if d.dropped["mcp_servers"] {
		return nil // a project's tables, ignored
	}
	for _, k := range d.md.Undecoded() {
		if len(k) < 3 || k[0] != "mcp_servers" {
			continue
		}
		return fmt.Errorf("config: %s: [mcp_servers.%s]: unknown key %q; a server's keys are %s",
			d.serverAt(k[1]), k[1], k[2], strings.Join(serverKeys(), ", "))
	}
	return nil
}

// checkServer validates one server's table.
func checkServer(name string, s *MCPEntry) error {
	if err := mcp.CheckName(name); err != nil {
		return err
	}
	switch {
	case (strings.TrimSpace(s.Command) == "") == (s.URL == ""):
		return errors.New("a server needs command (started by rein) or url (streamable HTTP), not both")
	case s.StartupTimeout != nil && s.StartupTimeoutSec != nil:
		return errors.New("startup_timeout and startup_timeout_sec say the same; keep one")
	case s.ToolTimeout != nil && s.ToolTimeoutSec != nil:
		return errors.New("tool_timeout and tool_timeout_sec say the same; keep one")
	case s.BearerTokenEnvVar != "" && !validEnvName().MatchString(s.BearerTokenEnvVar):
		return fmt.Errorf("bearer_token_env_var = %q is not the name of an environment variable", s.BearerTokenEnvVar)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url = %q: want an http:// or https:// URL", s.URL)
		}
	} else if len(s.Headers) > 0 || s.BearerTokenEnvVar != "" {
		return errors.New("headers and bearer_token_env_var are for a server with a url")
	}
	if s.Cwd != "" {
		if _, err := expandHome(s.Cwd); err != nil {
			return fmt.Errorf("cwd: %v", err)
		}
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env %q: a variable's name is not empty and has no '=' or NUL", k)
		}
	}
	for k, v := range s.Headers {
		if k == "" || strings.ContainsAny(k+v, "\r\n") || strings.ContainsAny(k, " :") {
			return fmt.Errorf("header %q: a header's name has no spaces or colons, and neither it nor its value a line break", k)
		}
	}
	for _, t := range []struct {
		key string
		v   *float64
	}{{"startup_timeout", s.StartupTimeout}, {"startup_timeout_sec", s.StartupTimeoutSec}, {"tool_timeout", s.ToolTimeout}, {"tool_timeout_sec", s.ToolTimeoutSec}} {
		if t.v != nil && (*t.v <= 0 || *t.v > 24*3600) {
			return fmt.Errorf("%s = %v: want seconds, more than 0 and at most a day", t.key, *t.v)
		}
	}
	return nil
}

// applyServers adds d's servers to c, in name order.
func (c *Config) applyServers(d *decoded) error {
	for _, name := range slices.Sorted(maps.Keys(d.MCPTables)) {
		e := d.MCPTables[name]
		s := MCPServer{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers,
			BearerEnv: e.BearerTokenEnvVar, Enabled: e.Enabled == nil || *e.Enabled, Source: d.serverAt(name),
			StartupTimeout: seconds(e.StartupTimeout, e.StartupTimeoutSec), ToolTimeout: seconds(e.ToolTimeout, e.ToolTimeoutSec)}
		if e.Cwd != "" {
			cwd, err := expandHome(e.Cwd)
			if err != nil {
				return fmt.Errorf("config: %s: [mcp_servers.%s] cwd: %w", s.Source, name, err)
			}
			s.Cwd = cwd
		}
		c.MCPServers = slices.DeleteFunc(c.MCPServers, func(o MCPServer) bool { return o.Name == name })
		c.MCPServers = append(c.MCPServers, s)
	}
	sort.Slice(c.MCPServers, func(i, j int) bool { return c.MCPServers[i].Name < c.MCPServers[j].Name }) // see wrongTypes (explain.go)
	return nil
}

// seconds is the duration of whichever of a and b is set; 0 when neither.
func seconds(a, b *float64) time.Duration {
	for _, v := range []*float64{a, b} {
		if v != nil {
			return time.Duration(*v * float64(time.Second))
		}
	}
	return 0
}

// serverAt is the file and line of the [mcp_servers.NAME] table of d, or
// the file alone when it is not written that way.
func (d *decoded) serverAt(name string) string {
	doc, err := scanTOML(d.text)
	if err != nil {
		return d.path
	}
	if i := serverHeader(doc, name); i >= 0 {
		return where(d.path, strings.Count(d.text[:doc.headers[i].start], "\n")+1)
	}
	return d.path
}

// serverHeader is the index in doc of the header [mcp_servers.NAME]
// (however its key is quoted or spaced), or -1.
func serverHeader(doc *tomlLayout, name string) int {
	return slices.IndexFunc(doc.headers, func(h header) bool {
		return !h.array && slices.Equal(h.key, []string{"mcp_servers", name})
	})
}

// SaveMCPServer writes s as a [mcp_servers.NAME] table of the person's own
// config.toml, userFile: at the end, or, with replace, in the place of the
// table of that name (which without replace is an error). The rest of the
// file is kept byte for byte; the result is decoded and validated before
// it is written, atomically, 0600, its directory created when missing. A
// file that is not TOML is left alone and reported.
func SaveMCPServer(userFile string, s MCPServer, replace bool) error {
	if err := mcp.CheckName(s.Name); err != nil {
		return fmt.Errorf("config: add MCP server %q: %w", s.Name, err)
	}
	src, err := readUser(userFile)
	if err != nil {
		return err
	}
	rest, at, found, err := cutServer(src, s.Name)
	if err != nil {
		return fmt.Errorf("config: %s: could not add [mcp_servers.%s] (%v); add it yourself", userFile, s.Name, err)
	}
	if found && !replace {
		return fmt.Errorf("config: %s already has a server called %s; remove it first (rein mcp remove %s)", userFile, s.Name, s.Name)
	}
	out := insertBlock(rest, at, serverTable(s))
	d := &decoded{path: userFile, text: out}
	if d.md, err = toml.Decode(out, &d.File); err != nil {
		return fmt.Errorf("config: %s: could not add [mcp_servers.%s]: %v", userFile, s.Name, err)
	}
	if err := d.validate(); err != nil {
		return err
	}
	if e, ok := d.MCPTables[s.Name]; !ok || e.Command != s.Command || e.URL != s.URL {
		return fmt.Errorf("config: %s: could not add [mcp_servers.%s] (is mcp_servers written another way?)", userFile, s.Name)
	}
	return writeUser(userFile, out)
}

// RemoveMCPServer removes the [mcp_servers.NAME] table of the person's
// own config.toml, userFile, with the tables under it; false when there is
// none. The rest of the file is kept byte for byte.
func RemoveMCPServer(userFile, name string) (bool, error) {
	src, err := readUser(userFile)
	if err != nil {
		return false, err
	}
	out, _, found, err := cutServer(src, name)
	if err != nil {
		return false, fmt.Errorf("config: %s: could not remove [mcp_servers.%s] (%v); remove it yourself", userFile, name, err)
	}
	if !found {
		return false, nil
	}
	var back File
	if _, err := toml.Decode(out, &back); err != nil {
		return false, fmt.Errorf("config: %s: could not remove [mcp_servers.%s] (is it written another way?): %v", userFile, name, err)
	}
	if _, still := back.MCPTables[name]; still {
		return false, fmt.Errorf("config: %s: could not remove [mcp_servers.%s]: it is written another way; remove it yourself", userFile, name)
	}
	return true, writeUser(userFile, out)
}

// cutServer is src without the table of server name and the tables under
// it ([mcp_servers.NAME.env]), and the offset where it was; found is false
// when src has no such table, and err says src is not TOML the scanner
// follows.
func cutServer(src, name string) (rest string, at int, found bool, err error) {
	doc, err := scanTOML(src)
	if err != nil {
		return "", 0, false, err
	}
	i := serverHeader(doc, name)
	if i < 0 {
		return src, -1, false, nil
	}
	start := strings.LastIndexByte(src[:doc.headers[i].start], '\n') + 1
	end := len(src)
	for _, h := range doc.headers[i+1:] {
		if len(h.key) < 3 || !slices.Equal(h.key[:2], []string{"mcp_servers", name}) {
			end = strings.LastIndexByte(src[:h.start], '\n') + 1
			break
		}
	}
	// The blank lines and comments before the next table stay with it.
	lines := strings.SplitAfter(src[start:end], "\n")
	for len(lines) > 1 {
		t := strings.TrimSpace(lines[len(lines)-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end -= len(lines[len(lines)-1])
		lines = lines[:len(lines)-1]
	}
	return src[:start] + src[end:], start, true, nil
}

// insertBlock puts block at offset at of src, or at its end when at < 0.
func insertBlock(src string, at int, block string) string {
	if at >= 0 {
		return src[:at] + block + src[at:]
	}
	if src != "" && !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	if src != "" {
		src += "\n"
	}
	return src + block
}

// serverTable is the TOML text of s's table.
func serverTable(s MCPServer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mcp_servers.%s]\n", s.Name)
	line := func(k, v string) { fmt.Fprintf(&b, "%s = %s\n", k, v) }
	if s.Command != "" {
		line("command", tomlString(s.Command))
	}
	if len(s.Args) > 0 {
		var q []string
		for _, a := range s.Args {
			q = append(q, tomlString(a))
		}
		line("args", "["+strings.Join(q, ", ")+"]")
	}
	if s.Cwd != "" {
		line("cwd", tomlString(s.Cwd))
	}
	if s.URL != "" {
		line("url", tomlString(s.URL))
	}
	if s.BearerEnv != "" {
		line("bearer_token_env_var", tomlString(s.BearerEnv))
	}
	for _, m := range []struct {
		key string
		m   map[string]string
	}{{"env", s.Env}, {"headers", s.Headers}} {
		if len(m.m) == 0 {
			continue
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			kv = append(kv, tomlString(k)+" = "+tomlString(m.m[k]))
		}
		line(m.key, "{ "+strings.Join(kv, ", ")+" }")
	}
	if !s.Enabled {
		line("enabled", "false")
	}
	if s.StartupTimeout > 0 {
		line("startup_timeout", fmt.Sprint(s.StartupTimeout.Seconds()))
	}
	if s.ToolTimeout > 0 {
		line("tool_timeout", fmt.Sprint(s.ToolTimeout.Seconds()))
	}
	return b.String()
}

// readUser reads the person's own config.toml for an edit: "" when it
// does not exist yet, an error when it is not TOML.
func readUser(userFile string) (string, error) {
	src, err := os.ReadFile(userFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("config: %w", err)
	}
	if _, err := decodeMap(string(src)); err != nil {
		return "", tomlError(userFile, string(src), err)
	}
	return string(src), nil
}

// writeUser writes the person's own config.toml atomically, 0600, its
// directory created when missing, through a symbolic link to it.
func writeUser(userFile, text string) error {
	if err := atomicfile.MkdirAll(filepath.Dir(userFile), 0o700); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return fmt.Errorf("config: %w", err)
	}
	if real, err := filepath.EvalSymlinks(userFile); err == nil {
		userFile = real
	}
	if err := atomicfile.Write(userFile, []byte(text), 0o600); err != nil && !errors.Is(err, atomicfile.ErrNotDurable) {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}
