package tui

import (
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// /mcp, /hooks and /skills show what the session says of its
// extensions, problems as warnings, and say so when there are none.
func TestExtensionCommands(t *testing.T) {
	lines := map[string][]Fact{
		"mcp": {
			{"github", "ready · 3 tools · stdio · from /home/u/.config/rein/config.toml:12"},
			{"  tools", "mcp__github__get_issue, mcp__github__list_issues, mcp__github__create_issue"},
			{"!slow", "did not start within 30s: context deadline exceeded (log /state/sessions/ses_test/mcp-slow.log)"},
		},
		"skills": {{"pdf", "Fill PDF forms · /w/.rein/skills/pdf/SKILL.md"}},
	}
	h := newHarnessWith(t, 100, &fakeRuntime{}, func(o *Options) {
		o.Session.Extensions = func(kind string) []Fact { return lines[kind] }
	})
	for _, c := range []string{"/mcp", "/hooks", "/skills"} {
		h.typeText(c)
		h.key("enter")
	}
	h.golden("extensions")
}

// What the extensions did shows in the transcript: a server's tools
// joining and leaving, a hook's decisions; a hook that only ran shows
// nothing.
func TestExtensionEvents(t *testing.T) {
	h := newHarness(t, 90, &fakeRuntime{})
	h.m.running, h.m.run, h.m.started, h.m.activity = true, 1, h.m.now(), "working"
	h.m.activityAt = h.m.started
	var envs []contract.Envelope
	for i, e := range []contract.Event{
		&contract.ToolsChanged{Server: "github", Added: []string{"mcp__github__a", "mcp__github__b"}, Reason: "the server started"},
		&contract.HookRan{Event: contract.HookPreToolUse, Command: "./guard.sh", Exit: contract.ExitError, ExitCode: 2, Decision: contract.HookDeny, Reason: "rm is not allowed here"},
		&contract.HookRan{Event: contract.HookPostToolUse, Command: "./fmt.sh", Exit: contract.ExitOK},
		&contract.HookRan{Event: contract.HookStop, Command: "./tests-pass.sh", Exit: contract.ExitOK, Decision: contract.HookBlock, Reason: "2 tests fail"},
		&contract.ToolsChanged{Server: "github", Removed: []string{"mcp__github__a", "mcp__github__b"}, Reason: "the server exited (exit status 1); rein reconnects in 1s"},
	} {
		envs = append(envs, env(uint64(i+2), e))
	}
	h.send(eventsMsg{run: 1, events: envs})
	h.golden("extension-events")
}
