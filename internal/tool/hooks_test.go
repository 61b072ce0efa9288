package tool

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/hook"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/workspace"
)

// hookScript writes a shell script to dir and returns its path.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// hookFixture is a runtime in the default mode, with no one to ask, the
// rules given, a bash-named tool that says its text back, and hooks.
func hookFixture(t *testing.T, rules map[string][]string, hooks ...hook.Hook) *fixture {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	var r permission.Rules
	for kind, texts := range rules {
		parsed, err := permission.ParseRules(texts)
		if err != nil {
			t.Fatal(err)
		}
		switch kind {
		case "allow":
			r.Allow = parsed
		case "ask":
			r.Ask = parsed
		case "deny":
			r.Deny = parsed
		}
	}
	policy, err := permission.New(permission.Default, r, ws)
	if err != nil {
		t.Fatal(err)
	}
	bash := echo("bash", registry.RiskExecute, registry.Exclusive, func(_ context.Context, c *registry.Call) (registry.Result, error) {
		var in struct{ Command string }
		if err := json.Unmarshal(c.Input, &in); err != nil {
			return registry.Result{}, err
		}
		_, err := io.WriteString(c.Output, in.Command)
		return registry.Result{}, err
	})
	bash.InputSchema = json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)
	reg, err := registry.New(bash)
	if err != nil {
		t.Fatal(err)
	}
	runner := hook.New(&hook.Options{Hooks: hooks, Dir: dir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
	rt, err := New(reg, policy, &Options{Hooks: runner})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{rt: rt, dir: dir, sink: &sink{}}
}

// hookRuns are the hook.ran events emitted, as event:decision.
func (s *sink) hookRuns() []string {
	var out []string
	for _, e := range s.events {
		if h, ok := e.(*contract.HookRan); ok {
			out = append(out, h.Event+":"+h.Decision)
		}
	}
	return out
}

// A PreToolUse hook is a gate after the policy: its deny denies by hook,
// its allow stands for the mode's ask but not for an ask rule, and a
// policy deny is never put to it.
func TestPreToolUseHookJoinsThePermissionStage(t *testing.T) {
	dir := t.TempDir()
	denyRm := hookScript(t, dir, "deny-rm", `case "$(cat)" in *'"command":"rm '*) echo "no rm here" >&2; exit 2;; esac`)
	allow := hookScript(t, dir, "allow", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine by me"}}'`)
	tests := []struct {
		name      string
		rules     map[string][]string
		command   string
		hook      string
		wantPerm  contract.ToolPermission
		wantHooks []string
	}{
		{"exit 2 denies", nil, "rm -rf build", denyRm,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByHook},
			[]string{"PreToolUse:deny"}},
		{"no decision leaves the mode's ask (headless: denied)", nil, "ls", denyRm,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByHeadless},
			[]string{"PreToolUse:"}},
		{"JSON allow stands for the mode's ask", nil, "go test ./...", allow,
			contract.ToolPermission{Decision: contract.Allow, By: permission.ByHook},
			[]string{"PreToolUse:allow"}},
		{"an ask rule still asks over a hook's allow", map[string][]string{"ask": {"bash"}}, "go test ./...", allow,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByHeadless},
			[]string{"PreToolUse:allow"}},
		{"a write outside the workspace still asks over a hook's allow", nil, "touch /etc/rein-hook-test", allow,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByHeadless},
			[]string{"PreToolUse:allow"}},
		{"a write to a hook script under .claude still asks over a hook's allow", nil, "echo evil > .claude/hooks/fmt.sh", allow,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByHeadless},
			[]string{"PreToolUse:allow"}},
		{"a write under .git still asks over a hook's allow", nil, "echo evil > .git/hooks/pre-commit", allow,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByHeadless},
			[]string{"PreToolUse:allow"}},
		{"the workspace swept away is refused with bash allowed, and no hook runs", map[string][]string{"allow": {"bash"}}, "rm -rf .", allow,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByPolicy},
			nil},
		{"a deny rule stands and no hook runs", map[string][]string{"deny": {"bash(ls)"}}, "ls", allow,
			contract.ToolPermission{Decision: contract.Deny, By: permission.ByRule, Rule: "bash(ls)"},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := hookFixture(t, tt.rules, hook.Hook{Event: contract.HookPreToolUse, Matcher: "Bash", Command: tt.hook})
			f.run(t, t.Context(), intent("int_1", "bash", `{"command":"`+tt.command+`"}`))
			p := f.sink.permission("int_1")
			if p == nil {
				t.Fatal("no tool.permission")
			}
			got := contract.ToolPermission{Decision: p.Decision, By: p.By, Rule: p.Rule}
			if d := cmp.Diff(tt.wantPerm, got); d != "" {
				t.Errorf("tool.permission mismatch (-want +got):\n%s\nreason: %s", d, p.Reason)
			}
			if d := cmp.Diff(tt.wantHooks, f.sink.hookRuns()); d != "" {
				t.Errorf("hook.ran mismatch (-want +got):\n%s", d)
			}
			if tt.wantPerm.By == permission.ByHook && tt.wantPerm.Decision == contract.Deny {
				obs := f.sink.observation(t, "int_1")
				if want := "The user's PreToolUse hook denied it: no rm here"; !strings.Contains(obs.Text, want) {
					t.Errorf("observation = %q, want it to say %q", obs.Text, want)
				}
			}
		})
	}
}

// A PostToolUse hook sees the observation and adds context: its hook.ran
// comes after the invocation and before the observation.
func TestPostToolUseHookAddsContext(t *testing.T) {
	dir := t.TempDir()
	post := hookScript(t, dir, "post", `case "$(cat)" in *'"tool_response"'*'hello'*) echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"the linter is happy"}}';; esac`)
	f := hookFixture(t, map[string][]string{"allow": {"bash"}}, hook.Hook{Event: contract.HookPostToolUse, Command: post})
	f.run(t, t.Context(), intent("int_1", "bash", `{"command":"hello"}`))
	var order []string
	var ctx string
	for _, e := range f.sink.events {
		order = append(order, e.EventType())
		if h, ok := e.(*contract.HookRan); ok {
			ctx = h.Context
		}
	}
	want := []string{"tool.validation", "tool.permission", "tool.invocation.started", "tool.invocation.completed", "hook.ran", "tool.observation"}
	if d := cmp.Diff(want, order); d != "" {
		t.Errorf("events mismatch (-want +got):\n%s", d)
	}
	if ctx != "the linter is happy" {
		t.Errorf("context = %q, want the hook's", ctx)
	}
}

// byHook keeps the asks no rule can lift: a hook's allow stands for the
// mode's own ask only, its deny denies whatever the policy said, and its
// ask of a firm ask stays firm.
func TestByHookKeepsFirmAsks(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	askRules, err := permission.ParseRules([]string{"write_file(secret/**)"})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := permission.New(permission.Default, permission.Rules{Ask: askRules}, ws)
	if err != nil {
		t.Fatal(err)
	}
	write := echo("write_file", registry.RiskWrite, registry.Exclusive, nil)
	type verdict struct {
		Decision contract.Decision
		By       string
		Firm     bool
	}
	tests := []struct {
		name string
		path string
		hook string
		want verdict
	}{
		{"an allow stands for the mode's ask", "notes.md", contract.HookAllow, verdict{contract.Allow, permission.ByHook, false}},
		{"an allow does not lift a write under .git", ".git/hooks/pre-commit", contract.HookAllow, verdict{contract.Ask, permission.ByMode, true}},
		{"an allow does not lift a write under .claude", ".claude/settings.json", contract.HookAllow, verdict{contract.Ask, permission.ByMode, true}},
		{"an allow does not lift an ask rule", "secret/key", contract.HookAllow, verdict{contract.Ask, permission.ByRule, false}},
		{"a deny denies a firm ask", ".git/hooks/pre-commit", contract.HookDeny, verdict{contract.Deny, permission.ByHook, false}},
		{"an ask of a firm ask stays firm", ".rein/config.toml", contract.HookAsk, verdict{contract.Ask, permission.ByHook, true}},
		{"no decision leaves the policy's", ".git/config", "", verdict{contract.Ask, permission.ByMode, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := policy.Decide(permission.RequestFor(write, json.RawMessage(`{"path":"`+tt.path+`"}`)))
			got := byHook(v, hook.Outcome{Decision: tt.hook, Reason: "the hook's reason"})
			if d := cmp.Diff(tt.want, verdict{got.Decision, got.By, got.Firm}); d != "" {
				t.Errorf("byHook(%+v) mismatch (-want +got):\n%s", v, d)
			}
		})
	}
}

// A hook's allow is checked again before a later call of the turn runs,
// as the policy's own answers are: an earlier call that turns docs/ into a
// link to .claude/ makes the write allowed by the hook a firm ask, which
// no one is there to answer; a link to src/ leaves the mode's ask, which
// the hook's allow still lifts.
func TestHookAllowIsTakenAgainAfterAnEarlierCall(t *testing.T) {
	for _, tt := range []struct {
		target string
		runs   bool
	}{
		{".claude", false},
		{"src", true},
	} {
		t.Run(tt.target, func(t *testing.T) {
			var root string
			relink := func(context.Context, *registry.Call) (registry.Result, error) {
				os.RemoveAll(filepath.Join(root, "docs"))
				return registry.Result{}, os.Symlink(filepath.Join(root, tt.target), filepath.Join(root, "docs"))
			}
			wrote := false
			write := func(context.Context, *registry.Call) (registry.Result, error) {
				wrote = true
				return registry.Result{}, nil
			}
			w := echo("write", registry.RiskWrite, registry.Exclusive, write)
			w.InputSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
			hooksDir := t.TempDir()
			allow := hookScript(t, hooksDir, "allow", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`)
			runner := hook.New(&hook.Options{Hooks: []hook.Hook{{Event: contract.HookPreToolUse, Matcher: "*", Command: allow}},
				Dir: hooksDir, Environ: []string{"PATH=" + os.Getenv("PATH")}})
			f := newFixture(t, permission.Default, []string{"relink"}, &Options{Hooks: runner},
				echo("relink", registry.RiskExecute, registry.Exclusive, relink), w)
			root = f.dir
			for _, d := range []string{"docs", "src", ".claude"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			f.run(t, t.Context(), intent("int_1", "relink", `{}`), intent("int_2", "write", `{"path":"docs/x.md"}`))
			if p := f.sink.permission("int_2"); p == nil || p.Decision != contract.Allow || p.By != permission.ByHook {
				t.Fatalf("as the turn began: permission %+v, want the hook's allow", p)
			}
			o := f.sink.observation(t, "int_2")
			if wrote != tt.runs {
				t.Errorf("wrote = %v, want %v (observation %+v)", wrote, tt.runs, o)
			}
			if !tt.runs && (o.Code != contract.CodeDenied || !strings.Contains(o.Text, "earlier call of the same turn")) {
				t.Errorf("observation %+v, want the recheck's denial", o)
			}
		})
	}
}
