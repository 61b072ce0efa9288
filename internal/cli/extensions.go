package cli

import (
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
)

// extension shows what the session's extensions did: an MCP server's
// tools joining or leaving, a hook that decided something, failed or
// added context. It reports whether data was one of those.
func (t *terminal) extension(data contract.Event) bool {
	switch e := data.(type) {
	case *contract.ToolsChanged:
		t.line(t.toolsChanged(e))
	case *contract.HookRan:
		if line, code := hookLine(e); line != "" {
			t.line(t.style(code, line))
		}
	default:
		return false
	}
	return true
}

// toolsChanged is the line of a change of an MCP server's tools.
func (t *terminal) toolsChanged(e *contract.ToolsChanged) shown {
	switch {
	case len(e.Removed) > 0 && len(e.Added) > 0:
		return t.style("33", sayf("  mcp %s: %d tools joined, %d left: %s", e.Server, len(e.Added), len(e.Removed), e.Reason))
	case len(e.Removed) > 0:
		return t.style("33", sayf("  mcp %s: its %d tools left: %s", e.Server, len(e.Removed), e.Reason))
	}
	return t.style("2", sayf("  mcp %s: %d tools joined: %s", e.Server, len(e.Added), e.Reason))
}

// hookLine is the line of a hook's run and its colour, "" for a run
// worth no line (it decided nothing, added nothing and did not fail).
func hookLine(e *contract.HookRan) (shown, string) {
	what := sayf("  hook %s %s", e.Event, excerpt.Prefix(e.Command, 80))
	reason := ""
	if e.Reason != "" {
		reason = ": " + e.Reason
	}
	switch {
	case e.Decision == contract.HookDeny:
		return what + sayf(" denied the call%s", reason), "33"
	case e.Decision == contract.HookBlock && e.Event == contract.HookStop:
		return what + sayf(" asks the model to go on%s", reason), "33"
	case e.Decision == contract.HookBlock:
		return what + sayf(" blocked the message%s", reason), "33"
	case e.Decision == contract.HookAsk:
		return what + sayf(" asks you%s", reason), "2"
	case e.Decision == contract.HookAllow:
		return what + sayf(" allowed the call%s", reason), "2"
	case e.Exit != contract.ExitOK && e.Exit != "":
		return what + sayf(" failed (%s, exit code %d)%s", e.Exit, e.ExitCode, reason), "33"
	case e.Context != "":
		return what + sayf(" added context (%d bytes)", len(e.Context)), "2"
	}
	return "", ""
}
