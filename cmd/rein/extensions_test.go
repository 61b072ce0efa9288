package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// A PreToolUse hook written for Claude Code (matcher Bash, exit 2 with the
// reason on stderr) in the person's config.toml denies rein's bash; a
// project's .claude/settings.json hook runs only with --trust-project; a
// project's skill is listed in the system prompt, its body not.
func TestExecHooksAndSkills(t *testing.T) {
	cfgHome := t.TempDir()
	work := t.TempDir()
	hookDir := t.TempDir()
	deny := filepath.Join(hookDir, "deny-rm")
	if err := os.WriteFile(deny, []byte("#!/bin/sh\ncase \"$(cat)\" in *'\"tool_name\":\"Bash\"'*'\"command\":\"rm '*) echo 'no rm in this repo' >&2; exit 2;; esac\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(cfgHome, "rein", "config.toml"), "[[hooks.PreToolUse]]\nmatcher = \"Bash\"\ncommand = "+`"`+deny+`"`+"\n")
	marker := filepath.Join(hookDir, "project-hook-ran")
	writeTestFile(t, filepath.Join(work, ".claude", "settings.json"),
		`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}`)
	writeTestFile(t, filepath.Join(work, ".rein", "skills", "deploy", "SKILL.md"),
		"---\nname: deploy\ndescription: How this service is deployed\n---\nThe secret body.\n")
	script := writeScript(t, `{"turns":[`+bashTurn("rm -rf build")+`,
		{"expect":[{"ok":false,"contains":["hook denied it: no rm in this repo"]}],"steps":[{"text":"The hook said no."},{"finish":"stop"}]}]}`)

	for _, trust := range []bool{false, true} {
		stateDir := t.TempDir()
		args := []string{"exec", "--provider", "scripted", "--script", script, "clean up"}
		if trust {
			args = append([]string{"exec", "--trust-project"}, args[1:]...)
		}
		cmd := exec.Command(rein, args...)
		cmd.Dir = work
		cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+cfgHome, "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("rein exec (trust %v): %v\n%s", trust, err, out)
		}
		_, ran := os.Stat(marker)
		if (ran == nil) != trust {
			t.Errorf("trust %v: the project's hook ran = %v\n%s", trust, ran == nil, out)
		}
		if !trust && !strings.Contains(string(out), "not trusted, so its 1 hooks do not run") {
			t.Errorf("untrusted: no warning about the project's hooks:\n%s", out)
		}
		var by, system string
		for _, e := range events(t, stateDir) {
			switch d := e.Data.(type) {
			case *contract.ToolPermission:
				by = d.By
			case *contract.SessionStarted:
				system = d.System
			}
		}
		if by != "hook" {
			t.Errorf("trust %v: tool.permission by %q, want hook", trust, by)
		}
		if !strings.Contains(system, "deploy") || !strings.Contains(system, "How this service is deployed") || strings.Contains(system, "The secret body") {
			t.Errorf("the system prompt does not list the skill (and only its description):\n%s", system)
		}
	}
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Through the binary, the person's hooks of config.toml: a PostToolUse
// hook adds context, a PreToolUse hook that hangs is killed at its
// timeout and denies, a Stop hook that always blocks makes the run go on
// twice (max_stop_continues' default) and no more.
func TestExecHookEvents(t *testing.T) {
	cfgHome, work, hookDir := t.TempDir(), t.TempDir(), t.TempDir()
	post := filepath.Join(hookDir, "post")
	writeTestFile(t, post, "#!/bin/sh\ncat >/dev/null\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"the linter is happy\"}}'\n")
	gate := filepath.Join(hookDir, "gate")
	writeTestFile(t, gate, "#!/bin/sh\ncase \"$(cat)\" in *hang*) sleep 30;; esac\nexit 0\n")
	stop := filepath.Join(hookDir, "stop")
	writeTestFile(t, stop, "#!/bin/sh\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"run the tests first\"}'\n")
	for _, p := range []string{post, gate, stop} {
		os.Chmod(p, 0o755)
	}
	writeTestFile(t, filepath.Join(cfgHome, "rein", "config.toml"), `[[hooks.PostToolUse]]
matcher = "Bash"
command = "`+post+`"

[[hooks.PreToolUse]]
matcher = "Bash"
command = "`+gate+`"
timeout = 1

[[hooks.Stop]]
command = "`+stop+`"
`)
	text := `{"steps":[{"text":"done"},{"finish":"stop"}]}`
	script := writeScript(t, `{"turns":[`+bashTurn("echo hi")+`,`+
		bashTurnExpect("echo hang", `"expect":[{"ok":true,"contains":["hi"]}],`)+`,
		{"expect":[{"ok":false,"contains":["hook denied it"]}],"steps":[{"text":"done"},{"finish":"stop"}]},`+text+`,`+text+`]}`)
	stateDir := t.TempDir()
	r := reinIn(t, work, []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + cfgHome, "HOME=" + t.TempDir()},
		"exec", "--provider", "scripted", "--script", script, "--allow", "bash(echo:*)", "check")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var ran []string
	var outcome contract.Outcome
	for _, e := range events(t, stateDir) {
		switch d := e.Data.(type) {
		case *contract.HookRan:
			ran = append(ran, d.Event+":"+d.Decision+":"+d.Context)
		case *contract.RunFinished:
			outcome = d.Outcome
		}
	}
	want := []string{"PreToolUse::", "PostToolUse::the linter is happy", "PreToolUse:deny:", "Stop:block:", "Stop:block:", "Stop::"}
	if strings.Join(ran, " ") != strings.Join(want, " ") || outcome != contract.OutcomeCompleted {
		t.Errorf("hook.ran %q, outcome %s; want %q, completed", ran, outcome, want)
	}
}
