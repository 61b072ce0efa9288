package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A project's .claude/settings.json and .mcp.json are asked about before
// the UI starts, and a yes is remembered; a server that is slow to start
// does not hold the prompt back (/mcp shows it starting, then ready);
// /hooks and /skills show what was loaded and from where; a file changed
// since it was trusted is asked about again.
func TestUIExtensions(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(t.TempDir(), "server-may-start")
	files := map[string]string{
		".mcp.json":                    `{"mcpServers": {"slow": {"command": ` + quote(self) + `, "env": {"` + testServerEnv + `": "1", "REIN_TEST_MCP_WAIT": ` + quote(gate) + `}}}}`,
		".claude/settings.json":        `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo the build is green"}]}]}}`,
		".rein/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: How this service is deployed\n---\nbody\n",
	}
	s := newScreen(t, 120, 40, files, scriptFlags(t, answerTurns)...)
	s.waitFor("settings.json would start", "SessionStart hook: echo the build is green", "Trust it?")
	s.answer("y")
	s.keys("Enter")
	s.waitFor(".mcp.json would start", `MCP server slow: {"command":`+quote(self))
	s.answer("y")
	s.keys("Enter")
	s.ready()

	s.text("/mcp")
	s.keys("Enter")
	s.waitFor("slow", "starting, stdio, 0 tools")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The server answers now: its tools join, and /mcp says so.
	deadline := time.Now().Add(uiWait)
	for !strings.Contains(s.all(), "ready, stdio, 8 tools") {
		if time.Now().After(deadline) {
			t.Fatalf("the server never showed ready:\n%s", s.all())
		}
		time.Sleep(200 * time.Millisecond)
		s.text("/mcp")
		s.keys("Enter")
	}
	s.text("/hooks")
	s.keys("Enter")
	s.waitFor("SessionStart", "echo the build is green", filepath.Join(".claude", "settings.json"))
	s.text("/skills")
	s.keys("Enter")
	s.waitFor("deploy", "How this service is deployed", "project")
	s.keys("C-d")
	if got := s.exited(); got != "REIN-EXITED 0" {
		t.Errorf("exit: %s", got)
	}
	cfg, err := os.ReadFile(filepath.Join(s.state, "config", "rein", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "[trusted]") || !strings.Contains(string(cfg), filepath.Join(s.dir, ".mcp.json")) {
		t.Fatalf("the answers are not remembered (%v):\n%s", err, cfg)
	}

	// Trusted files that did not change are not asked about again; one
	// that changed is.
	s.stop()
	if err := os.WriteFile(filepath.Join(s.dir, ".mcp.json"), []byte(`{"mcpServers": {"other": {"command": "true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.start(120, 40, scriptFlags(t, answerTurns)...)
	all := s.waitFor(".mcp.json changed since you trusted it", `MCP server other: {"command":"true"}`)
	if strings.Contains(all, "settings.json would start") {
		t.Errorf("an unchanged trusted file was asked about again:\n%s", all)
	}
	s.answer("n")
	s.keys("Enter")
	s.ready()
	s.text("/mcp")
	s.keys("Enter")
	s.waitFor("changed since you trusted it, so its 1 MCP servers do not start")
}
