package main

import (
	"encoding/json"
	"fmt"
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
// called through the binary: a result, a tool error, 15 MiB shortened
// for the model and kept whole as an artifact (a result over
// mcp_max_message_bytes is refused: TestExecMCPRefusesALargeMessage), the
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
		mcpTurn("mcp__conf__big", `{"mb":15}`, expect(false, "the widget is broken"))+`,`+
		mcpTurn("mcp__conf__grow", `{}`, expect(true, "0123456789abcdef"))+`,`+
		// The server's list_changed, and later its restart, come in the
		// background: a command gives them time (the backoff is 1 s).
		bashTurnExpect("sleep 2", expect(true, "grew"))+`,`+
		mcpTurn("mcp__conf__grown", `{}`, "")+`,`+
		mcpTurn("mcp__conf__crash", `{}`, expect(true, "grown here"))+`,`+
		bashTurnExpect("sleep 4", expect(false, `the MCP server "conf" stopped during the call`))+`,`+
		mcpTurn("mcp__conf__echo", `{"text":"back"}`, "")+`,
		{`+expect(true, "echo: back")+`"steps":[{"text":"It came back."},{"finish":"stop"}]}]}`)

	for _, trust := range []bool{false, true} {
		stateDir := t.TempDir()
		args := []string{"exec", "--provider", "scripted", "--script", script, "--allow", "mcp__conf__*", "--allow", "bash(sleep:*)", "use the tools"}
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
		var added, changes []string
		for _, e := range envs {
			if d, ok := e.Data.(*contract.ToolsChanged); ok && d.Server == "conf" {
				added = append(added, d.Added...)
				changes = append(changes, fmt.Sprintf("+%d -%d %s", len(d.Added), len(d.Removed), d.Reason))
			} else if ok {
				added = append(added, d.Added...)
			}
		}
		if !slices.Contains(added, "mcp__conf__echo") || slices.Contains(added, "mcp__proj__echo") != trust {
			t.Errorf("trust %v: tools added %v", trust, added)
		}
		// Started, grown, gone with the crash, back.
		want := []string{"+8 -0 the server started", "+1 -0 the server listed new tools", "+0 -9 the server exited (exit status 3)", "+8 -0 the server is back"}
		if len(changes) != len(want) {
			t.Fatalf("tools.changed of conf: %q, want %q", changes, want)
		}
		for i := range want {
			if !strings.HasPrefix(changes[i], want[i]) {
				t.Errorf("tools.changed %d: %q, want it to start %q", i, changes[i], want[i])
			}
		}
		obs := observationsOf(envs)
		if len(obs) != 10 {
			t.Fatalf("%d observations, want 10", len(obs))
		}
		if big := obs[3]; !big.OK || !big.Truncated || !big.Untrusted || len(big.Text) > 1<<20 || big.ArtifactRef == "" {
			t.Errorf("the 15 MiB result: ok %v truncated %v untrusted %v, %d bytes shown to the model, artifact %q", big.OK, big.Truncated, big.Untrusted, len(big.Text), big.ArtifactRef)
		} else if arts, _ := filepath.Glob(filepath.Join(stateDir, "rein", "sessions", "*", filepath.FromSlash(big.ArtifactRef))); len(arts) != 1 {
			t.Errorf("no artifact %s", big.ArtifactRef)
		} else if fi, err := os.Stat(arts[0]); err != nil || fi.Size() != 15<<20 {
			t.Errorf("the artifact of the 15 MiB result: %v, %d bytes", err, fi.Size())
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

// A result over mcp_max_message_bytes is refused: the call fails saying so
// and naming the setting, and the server, started again, answers the next
// call.
func TestExecMCPRefusesALargeMessage(t *testing.T) {
	cfgHome, work, stateDir := t.TempDir(), t.TempDir(), t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(cfgHome, "rein", "config.toml"), `mcp_max_message_bytes = 1_048_576
[mcp_servers.conf]
command = `+quote(self)+`
env = { `+testServerEnv+` = "1" }
`)
	expect := func(ok bool, contains ...string) string {
		b, _ := json.Marshal(map[string]any{"ok": ok, "contains": contains})
		return `"expect":[` + string(b) + `],`
	}
	script := writeScript(t, `{"turns":[`+
		mcpTurn("mcp__conf__big", `{"mb":2}`, "")+`,`+
		bashTurnExpect("sleep 3", expect(false, `the MCP server "conf"`, "more than 1 MiB", "mcp_max_message_bytes", "starts the server again"))+`,`+
		mcpTurn("mcp__conf__echo", `{"text":"back"}`, "")+`,
		{`+expect(true, "echo: back")+`"steps":[{"text":"It came back."},{"finish":"stop"}]}]}`)
	r := reinIn(t, work, []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + cfgHome, "HOME=" + t.TempDir()},
		"exec", "--provider", "scripted", "--script", script, "--allow", "mcp__conf__*", "--allow", "bash(sleep:*)", "use the tools")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if obs := observationsOf(events(t, stateDir)); len(obs) != 3 || obs[0].OK || !obs[2].OK {
		t.Errorf("observations: %+v", obs)
	}
}

// bashTurnExpect is a scripted turn that runs command, after checking
// the observations of the turn before.
func bashTurnExpect(command, expect string) string {
	return strings.Replace(bashTurn(command), `{"steps"`, `{`+expect+`"steps"`, 1)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A server that does not start is said on a headless run's stderr: no
// event says so, since no tool joined or left.
func TestExecWarnsOfAServerThatDidNotStart(t *testing.T) {
	cfgHome, work := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(cfgHome, "rein", "config.toml"), "[mcp_servers.missing]\ncommand = \"/nonexistent/server\"\n")
	script := writeScript(t, `{"turns":[{"steps":[{"text":"hello"},{"finish":"stop"}]}]}`)
	r := reinIn(t, work, []string{"XDG_STATE_HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + cfgHome, "HOME=" + t.TempDir()},
		"exec", "--provider", "scripted", "--script", script, "hi")
	if r.code != 0 || !strings.Contains(r.stderr, "MCP server missing") || !strings.Contains(r.stderr, "the server did not start") {
		t.Errorf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
}
