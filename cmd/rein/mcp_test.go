package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// mcpTurn is a scripted turn that calls tool with input.
func mcpTurn(tool, input, expect string) string {
	return `{` + expect + `"steps":[{"tool":{"index":0,"id":"c1","name":"` + tool + `","input":` + input + `}},{"finish":"tool_use"}]}`
}

// The person's server (config.toml) and a project's (.mcp.json, once
// trusted) start before a headless run's first request; their tools are
// called through the binary: a result, a tool error, 50 MB bounded, the
// environment stripped but for the server's own env, a crash during a
// call; the secrets of a server's env never reach the log.
func TestExecMCP(t *testing.T) {
	cfgHome, work := t.TempDir(), t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(cfgHome, "rein", "config.toml"), `[mcp_servers.conf]
command = `+quote(self)+`
env = { `+testServerEnv+` = "1", NAMED_KEY = "configured-secret-4821" }
`)
	writeTestFile(t, filepath.Join(work, ".mcp.json"), `{"mcpServers": {"proj": {"command": `+quote(self)+`, "env": {"`+testServerEnv+`": "1", "LEVEL": "${LEVEL:-info}"}}}}`)
	expect := func(ok bool, contains ...string) string {
		b, _ := json.Marshal(map[string]any{"ok": ok, "contains": contains})
		return `"expect":[` + string(b) + `],`
	}
	script := writeScript(t, `{"turns":[`+
		mcpTurn("mcp__conf__echo", `{"text":"hi"}`, "")+`,`+
		mcpTurn("mcp__conf__env", `{"names":["GITHUB_TOKEN","NAMED_KEY"]}`, expect(true, "echo: hi"))+`,`+
		mcpTurn("mcp__conf__fail", `{}`, expect(true, "GITHUB_TOKEN set=false", "NAMED_KEY set=true"))+`,`+
		mcpTurn("mcp__conf__big", `{"mb":50}`, expect(false, "the widget is broken"))+`,`+
		mcpTurn("mcp__conf__crash", `{}`, expect(true, "0123456789abcdef"))+`,
		{`+expect(false, `the MCP server "conf" stopped during the call`)+`"steps":[{"text":"It crashed."},{"finish":"stop"}]}]}`)

	for _, trust := range []bool{false, true} {
		stateDir := t.TempDir()
		args := []string{"exec", "--provider", "scripted", "--script", script, "--allow", "mcp__conf__*", "use the tools"}
		if trust {
			args = append([]string{"exec", "--trust-project"}, args[1:]...)
		}
		r := reinIn(t, work, []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + cfgHome, "HOME=" + t.TempDir(),
			"GITHUB_TOKEN=ghp_notforservers1234567890"}, args...)
		if r.code != 0 {
			t.Fatalf("rein exec (trust %v): exit %d\n%s\n%s", trust, r.code, r.stdout, r.stderr)
		}
		if !trust && !strings.Contains(r.stderr, ".mcp.json: not trusted, so its 1 MCP servers do not start") {
			t.Errorf("untrusted: no warning about the project's servers:\n%s", r.stderr)
		}
		envs := events(t, stateDir)
		var added []string
		for _, e := range envs {
			if d, ok := e.Data.(*contract.ToolsChanged); ok {
				added = append(added, d.Added...)
			}
		}
		if !slices.Contains(added, "mcp__conf__echo") || slices.Contains(added, "mcp__proj__echo") != trust {
			t.Errorf("trust %v: tools added %v", trust, added)
		}
		obs := observationsOf(envs)
		if len(obs) != 5 {
			t.Fatalf("%d observations, want 5", len(obs))
		}
		if big := obs[3]; !big.OK || !big.Truncated || !big.Untrusted || len(big.Text) > 1<<20 {
			t.Errorf("the 50 MB result: ok %v truncated %v untrusted %v, %d bytes shown to the model", big.OK, big.Truncated, big.Untrusted, len(big.Text))
		}
		if strings.Contains(string(sessionLog(t, result{state: stateDir})), "configured-secret-4821") {
			t.Error("a server's env value is in the session log")
		}
		logs, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "*", "mcp-conf.log"))
		if len(logs) != 1 {
			t.Errorf("no mcp-conf.log beside the session log:\n%s", r.stderr)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
