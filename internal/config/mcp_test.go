package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMCPServers(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, filepath.Join(dir, "user.toml"), `# my servers
[mcp_servers.github]
url = "https://api.githubcopilot.com/mcp/"
bearer_token_env_var = "GITHUB_TOKEN"
headers = { "X-Team" = "core" }
tool_timeout_sec = 30

[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
env = { LEVEL = "debug" }
cwd = "/srv/data"
startup_timeout = 2.5

[mcp_servers."off-one"]
command = "x"
enabled = false
`)
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	want := []MCPServer{
		{Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, Env: map[string]string{"LEVEL": "debug"},
			Cwd: "/srv/data", Enabled: true, StartupTimeout: 2500 * time.Millisecond, Source: user + ":8"},
		{Name: "github", URL: "https://api.githubcopilot.com/mcp/", BearerEnv: "GITHUB_TOKEN", Headers: map[string]string{"X-Team": "core"},
			Enabled: true, ToolTimeout: 30 * time.Second, Source: user + ":2"},
		{Name: "off-one", Command: "x", Source: user + ":15"},
	}
	if d := cmp.Diff(want, c.MCPServers); d != "" {
		t.Errorf("servers (-want +got):\n%s", d)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}

}

func TestMCPServerTimeoutsAndHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	user := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), `[mcp_servers.a]
command = "x"
cwd = "~/src"
startup_timeout_sec = 10
tool_timeout = 86400
`)
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	want := []MCPServer{{Name: "a", Command: "x", Cwd: filepath.Join(home, "src"), Enabled: true,
		StartupTimeout: 10 * time.Second, ToolTimeout: 24 * time.Hour, Source: user + ":1"}}
	if d := cmp.Diff(want, c.MCPServers); d != "" {
		t.Errorf("servers (-want +got):\n%s", d)
	}
}

func TestMCPServerErrors(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		line       int
		want       string
	}{
		{"neither", "[mcp_servers.a]\nargs = [\"x\"]\n", 1, "[mcp_servers.a]: a server needs command"},
		{"both", "[mcp_servers.a]\ncommand = \"x\"\nurl = \"http://h/\"\n", 1, "not both"},
		{"bad name", "model = \"m\"\n[mcp_servers.\"a b\"]\ncommand = \"x\"\n", 2, "[mcp_servers.a b]: a server's name must be"},
		{"double underscore", "[mcp_servers.git__hub]\ncommand = \"x\"\n", 1, "[mcp_servers.git__hub]: a server's name must be"},
		{"long name", "[mcp_servers." + strings.Repeat("n", 65) + "]\ncommand = \"x\"\n", 1, "a server's name must be"},
		{"bad url", "\n[mcp_servers.a]\nurl = \"ftp://h/\"\n", 2, "[mcp_servers.a]: url = \"ftp://h/\": want an http"},
		{"no host", "[mcp_servers.a]\nurl = \"https:///x\"\n", 1, "want an http"},
		{"two tool timeouts", "[mcp_servers.a]\ncommand = \"x\"\ntool_timeout = 1\ntool_timeout_sec = 2\n", 1, "tool_timeout and tool_timeout_sec"},
		{"two startup timeouts", "[mcp_servers.a]\ncommand = \"x\"\nstartup_timeout = 1\nstartup_timeout_sec = 2\n", 1, "startup_timeout and startup_timeout_sec"},
		{"zero timeout", "[mcp_servers.a]\ncommand = \"x\"\nstartup_timeout = 0\n", 1, "startup_timeout = 0: want seconds"},
		{"negative timeout", "[mcp_servers.a]\ncommand = \"x\"\ntool_timeout_sec = -1\n", 1, "tool_timeout_sec = -1: want seconds"},
		{"over a day", "[mcp_servers.a]\ncommand = \"x\"\ntool_timeout = 86401\n", 1, "tool_timeout = 86401: want seconds, more than 0 and at most a day"},
		{"bad env name", "[mcp_servers.a]\nurl = \"https://h/\"\nbearer_token_env_var = \"A-B\"\n", 1, "not the name of an environment variable"},
		{"header break", "[mcp_servers.a]\nurl = \"https://h/\"\nheaders = { X = \"a\\nb\" }\n", 1, "line break"},
		{"header name break", "[mcp_servers.a]\nurl = \"https://h/\"\n[mcp_servers.a.headers]\n\"X\\r\" = \"a\"\n", 1, "line break"},
		{"headers on stdio", "[mcp_servers.a]\ncommand = \"x\"\nheaders = { X = \"a\" }\n", 1, "are for a server with a url"},
		{"unknown key", "[mcp_servers.z]\ncommand = \"x\"\n\n[mcp_servers.a]\ncomand = \"x\"\n", 4,
			`[mcp_servers.a]: unknown key "comand"; a server's keys are command, args, env, cwd, url, headers, bearer_token_env_var, enabled, startup_timeout`},
		{"bad cwd", "[mcp_servers.a]\ncommand = \"x\"\ncwd = \"rel/dir\"\n", 1, "[mcp_servers.a]: cwd: \"rel/dir\" is not an absolute path"},
		{"bad env", "[mcp_servers.a]\ncommand = \"x\"\nenv = { \"A=B\" = \"1\" }\n", 1, "env \"A=B\": a variable's name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), tt.body)
			_, err := Load(Paths{User: path})
			at := fmt.Sprintf("config: %s:%d: ", path, tt.line)
			if err == nil || !strings.HasPrefix(err.Error(), at) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v\nwant   %s...%s...", err, at, tt.want)
			}
		})
	}
}

func TestProjectMayNotStartServers(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		line       int
		want       string
	}{
		{"servers", "model = \"m\"\n\n[mcp_servers.a]\ncommand = \"x\"\n", 3, "mcp_servers is ignored: a project's file may not start programs on your behalf"},
		{"servers inline", "mcp_servers = { a = { command = \"x\" } }\n", 1, "mcp_servers is ignored"},
		{"unknown key", "[mcp_servers.a]\ncomand = \"x\"\n", 1, "mcp_servers is ignored"},
		{"allow rule", "[permissions]\nallow = [\"mcp__github__*\"]\n", 2, `allow rule "mcp__github__*" is ignored: a project's file may not let the model use your MCP servers' tools`},
		{"allow one tool", "[permissions]\ndeny = [\"bash\"]\nallow = [\"read_file\", \"mcp__github__get_issue\"]\n", 3, "your MCP servers' tools"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			project := writeFile(t, filepath.Join(t.TempDir(), ".rein", "config.toml"), tt.body)
			at := fmt.Sprintf("%s:%d: ", project, tt.line)
			c, err := Load(Paths{Project: project})
			if err != nil {
				t.Fatalf("Load = %v; want it ignored with a warning", err)
			}
			if !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.HasPrefix(w, at) && strings.Contains(w, tt.want) }) {
				t.Errorf("warnings = %q\nwant   %s...%s...", c.Warnings, at, tt.want)
			}
			if len(c.MCPServers) > 0 || slices.ContainsFunc(c.Permissions.Allow, func(r string) bool { return strings.HasPrefix(r, "mcp__") }) {
				t.Errorf("the project's servers or rules applied: %v, %v", c.MCPServers, c.Permissions.Allow)
			}
		})
	}
	project := writeFile(t, filepath.Join(t.TempDir(), ".rein", "config.toml"), "[permissions]\ndeny = [\"mcp__github__*\"]\nask = [\"mcp__fs__write_file\"]\n")
	if c, err := Load(Paths{Project: project}); err != nil || len(c.Permissions.Deny) != 1 || len(c.Permissions.Ask) != 1 {
		t.Errorf("deny and ask rules naming MCP tools: %v", err)
	}
}

func TestSaveMCPServer(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "rein", "config.toml")
	awkward := MCPServer{Name: "odd", Command: `C:\tools\srv "x"`, Args: []string{"it's", "ünï", `a\b`},
		Env: map[string]string{"TOKEN": `q"uo'te\`}, Enabled: true, StartupTimeout: 5 * time.Second}
	if err := SaveMCPServer(user, awkward, false); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(user); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the new file: %v %v", info, err)
	}
	web := MCPServer{Name: "web", URL: "https://example.com/mcp", BearerEnv: "WEB_TOKEN", Enabled: true,
		Headers: map[string]string{"X-Team": "core", `X-"Q"`: `back\slash 'n' "quotes" ☃ \u00e9`}, ToolTimeout: 1500 * time.Millisecond}
	if err := SaveMCPServer(user, web, false); err != nil {
		t.Fatal(err)
	}
	// A comment of the person's, and a table after, stay.
	text, _ := os.ReadFile(user)
	os.WriteFile(user, []byte("# mine\nmodel = \"m\"\n\n"+string(text)+"\n[permissions]\nallow = [\"read_file\"]\n"), 0o600)
	if err := SaveMCPServer(user, web, false); err == nil || !strings.Contains(err.Error(), "already has a server called web") {
		t.Errorf("a second web: %v", err)
	}
	web.URL = "https://example.com/v2"
	if err := SaveMCPServer(user, web, true); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	awkward.Source, web.Source = c.MCPServers[0].Source, c.MCPServers[1].Source
	if d := cmp.Diff([]MCPServer{awkward, web}, c.MCPServers); d != "" {
		t.Errorf("servers read back (-want +got):\n%s", d)
	}
	if c.Model != "m" || len(c.Permissions.Allow) != 1 {
		t.Errorf("the rest of the file: model %q, allow %v", c.Model, c.Permissions.Allow)
	}
	text, _ = os.ReadFile(user)
	if !strings.HasPrefix(string(text), "# mine\n") || strings.Count(string(text), "[mcp_servers.web]") != 1 {
		t.Errorf("the file:\n%s", text)
	}

	for _, name := range []string{"web", "odd"} {
		if ok, err := RemoveMCPServer(user, name); !ok || err != nil {
			t.Fatalf("remove %s: %v %v", name, ok, err)
		}
	}
	if ok, err := RemoveMCPServer(user, "web"); ok || err != nil {
		t.Errorf("remove an absent server: %v %v", ok, err)
	}
	c, err = Load(Paths{User: user})
	if err != nil || len(c.MCPServers) != 0 || c.Model != "m" || len(c.Permissions.Allow) != 1 {
		t.Errorf("after removing both: %+v %v", c, err)
	}
}

func TestRemoveMCPServerWithSubTables(t *testing.T) {
	user := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), `[mcp_servers.a]
command = "x"

[mcp_servers.a.env]
K = "v"

# the next one
[mcp_servers.b] # kept
command = "y"
`)
	if ok, err := RemoveMCPServer(user, "a"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	text, _ := os.ReadFile(user)
	if want := "\n# the next one\n[mcp_servers.b] # kept\ncommand = \"y\"\n"; string(text) != want {
		t.Errorf("after removing a:\n%q\nwant\n%q", text, want)
	}
	broken := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), "model = \n")
	if err := SaveMCPServer(broken, MCPServer{Name: "a", Command: "x"}, false); err == nil {
		t.Error("a broken file was edited")
	}
	if b, _ := os.ReadFile(broken); string(b) != "model = \n" {
		t.Errorf("the broken file changed: %q", b)
	}
}

func TestProjectMayNotRaiseStopContinues(t *testing.T) {
	project := writeFile(t, filepath.Join(t.TempDir(), ".rein", "config.toml"), "max_stop_continues = 10\n")
	c, err := Load(Paths{Project: project})
	if err != nil || c.MaxStopContinues != DefaultMaxStopContinues || len(c.Warnings) != 1 ||
		!strings.HasPrefix(c.Warnings[0], project+":1: max_stop_continues is ignored") {
		t.Errorf("Load = %v, max_stop_continues %d, warnings %q", err, c.MaxStopContinues, c.Warnings)
	}
}

func TestSaveMCPServerDisabledAndRefused(t *testing.T) {
	user := filepath.Join(t.TempDir(), "config.toml")
	off := MCPServer{Name: "off", Command: "srv"}
	if err := SaveMCPServer(user, off, false); err != nil {
		t.Fatal(err)
	}
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	off.Source = user + ":1"
	if d := cmp.Diff([]MCPServer{off}, c.MCPServers); d != "" {
		t.Errorf("a disabled server read back (-want +got):\n%s", d)
	}
	before, _ := os.ReadFile(user)
	for _, tt := range []struct {
		name string
		s    MCPServer
		want string
	}{
		{"header in the name", MCPServer{Name: "x]\n[permissions", Command: "srv"}, "a server's name must be"},
		{"neither command nor url", MCPServer{Name: "none"}, "a server needs command"},
		{"bad url", MCPServer{Name: "u", URL: "file:///etc/passwd"}, "want an http"},
		{"relative cwd", MCPServer{Name: "c", Command: "srv", Cwd: "src"}, "is not an absolute path"},
		{"header break", MCPServer{Name: "h", URL: "https://h/", Headers: map[string]string{"X": "a\r\nEvil: 1"}}, "line break"},
		{"replace absent is an add", MCPServer{Name: "off", Command: "srv2", Enabled: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := SaveMCPServer(user, tt.s, tt.want == "")
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
			if after, _ := os.ReadFile(user); string(after) != string(before) {
				t.Errorf("the file changed:\n%s", after)
			}
		})
	}
}

func TestMCPServerTablesWrittenOtherways(t *testing.T) {
	body := `[permissions]
allow = ["read_file"]

[ mcp_servers . "a" ] # spaced and quoted
command = "x"
args = ["""
[mcp_servers.b]
""", "y"]

[mcp_servers.'a'.env]
K = "v"
[mcp_servers.b]
command = "z"
`
	user := writeFile(t, filepath.Join(t.TempDir(), "config.toml"), body)
	c, err := Load(Paths{User: user})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{c.MCPServers[0].Source, c.MCPServers[1].Source}
	if d := cmp.Diff([]string{user + ":4", user + ":12"}, got); d != "" {
		t.Errorf("where the tables are (-want +got):\n%s", d)
	}
	if err := SaveMCPServer(user, MCPServer{Name: "a", Command: "new", Enabled: true}, true); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(user)
	want := "[permissions]\nallow = [\"read_file\"]\n\n[mcp_servers.a]\ncommand = \"new\"\n[mcp_servers.b]\ncommand = \"z\"\n"
	if string(text) != want {
		t.Errorf("replaced in place:\n%s\nwant\n%s", text, want)
	}
	if ok, err := RemoveMCPServer(user, "b"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	text, _ = os.ReadFile(user)
	if want := "[permissions]\nallow = [\"read_file\"]\n\n[mcp_servers.a]\ncommand = \"new\"\n"; string(text) != want {
		t.Errorf("after removing b:\n%s\nwant\n%s", text, want)
	}
}
