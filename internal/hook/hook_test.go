package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/tool/builtin"
)

// script writes body to a shell script in dir and returns the command
// that runs it.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// denyRm is a PreToolUse script that denies commands that run rm, and
// lets the others through.
const denyRm = `input=$(cat)
case "$input" in
*'"command":"rm '*) echo "rm is not allowed here" >&2; exit 2 ;;
esac
exit 0`

func newRunner(t *testing.T, dir string, hooks ...Hook) *Runner {
	t.Helper()
	r := New(&Options{Hooks: hooks, Dir: dir, Session: "ses_1", Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if r == nil {
		t.Fatal("New returned nil")
	}
	return r
}

func bashCall(command string) ToolCall {
	in, _ := json.Marshal(map[string]string{"command": command})
	return ToolCall{IntentID: "int_1", Tool: "bash", Input: in}
}

var ignoreRun = cmpopts.IgnoreFields(contract.HookRan{}, "DurationMS", "Command", "Source")

func TestPreToolUse(t *testing.T) {
	dir := t.TempDir()
	allow := `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"tests are fine"}}'`
	tests := []struct {
		name    string
		body    string
		command string
		want    contract.HookRan
	}{
		{"exit 2 denies with stderr", denyRm, "rm -rf build", contract.HookRan{Exit: contract.ExitError, ExitCode: 2,
			Decision: contract.HookDeny, Reason: "rm is not allowed here"}},
		{"exit 0 lets it through", denyRm, "ls", contract.HookRan{Exit: contract.ExitOK}},
		{"JSON allows", allow, "go test ./...", contract.HookRan{Exit: contract.ExitOK,
			Decision: contract.HookAllow, Reason: "tests are fine"}},
		{"the older decision approve allows", `echo '{"decision":"approve","reason":"ok"}'`, "ls",
			contract.HookRan{Exit: contract.ExitOK, Decision: contract.HookAllow, Reason: "ok"}},
		{"ask", `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`, "ls",
			contract.HookRan{Exit: contract.ExitOK, Decision: contract.HookAsk, Reason: "sure?"}},
		{"continue false denies", `echo '{"continue":false,"stopReason":"stop now"}'`, "ls",
			contract.HookRan{Exit: contract.ExitOK, Decision: contract.HookDeny, Reason: "stop now"}},
		{"a crash denies", `echo boom >&2; exit 1`, "ls", contract.HookRan{Exit: contract.ExitError, ExitCode: 1,
			Decision: contract.HookDeny, Reason: "it failed (exited with 1: boom), and a gate that fails denies"}},
		{"JSON that does not parse denies", `echo '{"hookSpecificOutput":'`, "ls", contract.HookRan{Exit: contract.ExitOK,
			Decision: contract.HookDeny, Reason: "it failed (printed JSON that does not parse: unexpected end of JSON input), and a gate that fails denies"}},
		{"an unknown decision denies", `echo '{"hookSpecificOutput":{"permissionDecision":"maybe"}}'`, "ls", contract.HookRan{Exit: contract.ExitOK,
			Decision: contract.HookDeny, Reason: `it failed (answered the permissionDecision "maybe", which is none of allow, deny and ask), and a gate that fails denies`}},
		{"plain text is no decision", `echo checking`, "ls", contract.HookRan{Exit: contract.ExitOK}},
		{"an allow of a changed input asks", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo sanitized"}}}'`, "touch x",
			contract.HookRan{Exit: contract.ExitOK, Decision: contract.HookAsk,
				Reason: "it would allow the call with a changed input (updatedInput), which rein does not apply, so the call as proposed needs approval."}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := script(t, dir, "h"+strconv.Itoa(i)+".sh", tt.body)
			r := newRunner(t, dir, Hook{Event: contract.HookPreToolUse, Matcher: "Bash", Command: cmd})
			o := r.PreToolUse(t.Context(), bashCall(tt.command))
			want := tt.want
			want.Event, want.Matcher, want.IntentID, want.ToolName = contract.HookPreToolUse, "Bash", "int_1", "bash"
			if d := cmp.Diff([]contract.HookRan{want}, o.Ran, ignoreRun); d != "" {
				t.Errorf("Ran mismatch (-want +got):\n%s", d)
			}
			if o.Decision != want.Decision || o.Reason != want.Reason {
				t.Errorf("Outcome = %q, %q; want %q, %q", o.Decision, o.Reason, want.Decision, want.Reason)
			}
			if o.Ran[0].Command != cmd {
				t.Errorf("Command = %q, want %q", o.Ran[0].Command, cmd)
			}
		})
	}
}

func TestPreToolUseOrder(t *testing.T) {
	dir := t.TempDir()
	answer := func(d string) string {
		return `echo '{"hookSpecificOutput":{"permissionDecision":"` + d + `","permissionDecisionReason":"` + d + ` says so"}}'`
	}
	tests := []struct {
		name  string
		hooks []string
		want  string
	}{
		{"deny over ask and allow", []string{"allow", "deny", "ask"}, contract.HookDeny},
		{"ask over allow", []string{"allow", "ask"}, contract.HookAsk},
		{"allow", []string{"allow"}, contract.HookAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hooks []Hook
			for i, d := range tt.hooks {
				hooks = append(hooks, Hook{Event: contract.HookPreToolUse, Command: script(t, dir, strings.ReplaceAll(tt.name, " ", "_")+strconv.Itoa(i), answer(d))})
			}
			o := newRunner(t, dir, hooks...).PreToolUse(t.Context(), bashCall("ls"))
			if o.Decision != tt.want || o.Reason != tt.want+" says so" {
				t.Errorf("Outcome = %q, %q; want %q", o.Decision, o.Reason, tt.want)
			}
			var got []string
			for _, e := range o.Ran {
				got = append(got, e.Decision)
			}
			if d := cmp.Diff(tt.hooks, got); d != "" {
				t.Errorf("the events are not in the order of the hooks (-want +got):\n%s", d)
			}
		})
	}
}

// TestPreToolUseTimeout checks that a hook that hangs is denied at its
// timeout, and that its whole process group is killed.
func TestPreToolUseTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	cmd := script(t, dir, "hang.sh", "sleep 600 &\necho $! > "+pidFile+"\nwait")
	r := newRunner(t, dir, Hook{Event: contract.HookPreToolUse, Command: cmd, Timeout: 300 * time.Millisecond})
	o := r.PreToolUse(t.Context(), bashCall("ls"))
	if o.Decision != contract.HookDeny || o.Ran[0].Exit != contract.ExitTimeout || o.Ran[0].ExitCode != -1 {
		t.Fatalf("Outcome = %+v; want a deny at the timeout", o)
	}
	if !strings.Contains(o.Reason, "timeout of 300ms") {
		t.Errorf("Reason = %q; want it to name the timeout", o.Reason)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// waitGone fails t unless the process pid ends (or is a zombie, dead
// and waiting for init to reap it) soon: it was killed, but the kernel
// may take a moment to deliver the signal.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for range 500 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the hook's child %d is still running after the hook was killed", pid)
}

// TestClaudeNames checks that a hook written for Claude Code's names
// fires on rein's tools and is given Claude Code's input.
func TestClaudeNames(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	save := script(t, dir, "save.sh", "cat > "+out)
	tests := []struct {
		name    string
		matcher string
		call    ToolCall
		fires   bool
		want    map[string]any
	}{
		{"Bash on bash", "Bash", bashCall("go test ./..."), true, map[string]any{
			"tool_name": "Bash", "rein_tool_name": "bash", "tool_use_id": "int_1",
			"tool_input": map[string]any{"command": "go test ./..."}}},
		{"Edit|Write on edit_file", "Edit|Write", ToolCall{IntentID: "int_2", Tool: "edit_file",
			Input: json.RawMessage(`{"path":"a/b.go","old_string":"x","new_string":"y"}`)}, true, map[string]any{
			"tool_name": "Edit", "rein_tool_name": "edit_file", "tool_use_id": "int_2",
			"tool_input": map[string]any{"path": "a/b.go", "file_path": filepath.Join(dir, "a/b.go"), "old_string": "x", "new_string": "y"}}},
		{"TodoWrite on todo_write", "TodoWrite", ToolCall{IntentID: "int_3", Tool: "todo_write",
			Input: json.RawMessage(`{"todos":[{"content":"Run the tests","status":"pending"}]}`)}, true, map[string]any{
			"tool_name": "TodoWrite", "rein_tool_name": "todo_write", "tool_use_id": "int_3",
			"tool_input": map[string]any{"todos": []any{map[string]any{"content": "Run the tests", "status": "pending"}}}}},
		{"TodoWrite on another tool", "TodoWrite", bashCall("ls"), false, nil},
		{"rein's own name", "read_file", ToolCall{Tool: "read_file", Input: json.RawMessage(`{"path":"x"}`)}, true, nil},
		{"a name is matched whole", "Bas", bashCall("ls"), false, nil},
		{"another tool", "Edit", bashCall("ls"), false, nil},
		{"star", "*", bashCall("ls"), true, nil},
		{"a regular expression matches anywhere", "^Bas", bashCall("ls"), true, nil},
		{"an MCP server's tools", "mcp__github__.*", ToolCall{Tool: "mcp__github__get_issue", Input: json.RawMessage(`{}`)}, true, nil},
		{"not another server's", "^mcp__github__", ToolCall{Tool: "mcp__gitlab__get_issue", Input: json.RawMessage(`{}`)}, false, nil},
		{"a gate's matcher rein cannot read runs before every tool", "^(?!Read).*", bashCall("ls"), true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(out)
			r := newRunner(t, dir, Hook{Event: contract.HookPreToolUse, Matcher: tt.matcher, Command: save})
			o := r.PreToolUse(t.Context(), tt.call)
			if got := len(o.Ran) == 1; got != tt.fires {
				t.Fatalf("fired = %v, want %v", got, tt.fires)
			}
			if tt.want == nil {
				return
			}
			var got map[string]any
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("the hook's stdin is not JSON: %v\n%s", err, data)
			}
			want := map[string]any{"session_id": "ses_1", "transcript_path": "", "cwd": dir, "permission_mode": "default",
				"hook_event_name": "PreToolUse"}
			for k, v := range tt.want {
				want[k] = v
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("stdin mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestPostToolUse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	ctxHook := script(t, dir, "ctx.sh", `cat > `+out+`
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"gofmt changed 2 files"}}'`)
	crash := script(t, dir, "crash.sh", "exit 3")
	r := newRunner(t, dir, Hook{Event: contract.HookPostToolUse, Matcher: "Bash", Command: ctxHook},
		Hook{Event: contract.HookPostToolUse, Command: crash})
	o := r.PostToolUse(t.Context(), bashCall("go fmt ./..."), ToolResponse{OK: true, Text: "exit code: 0", ExitCode: 0})
	if o.Decision != "" || o.Context != "gofmt changed 2 files" || len(o.Ran) != 2 {
		t.Fatalf("Outcome = %+v; want the context and no decision", o)
	}
	if o.Ran[0].Context != "gofmt changed 2 files" || o.Ran[1].Decision != "" || o.Ran[1].Exit != contract.ExitError {
		t.Errorf("Ran = %+v; want the first's context, the second failed open", o.Ran)
	}
	var in struct {
		ToolResponse map[string]any `json:"tool_response"`
	}
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &in); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"success": true, "output": "exit code: 0", "exit_code": 0.0}, in.ToolResponse); d != "" {
		t.Errorf("tool_response mismatch (-want +got):\n%s", d)
	}
}

func TestUserPromptSubmit(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name                    string
		body                    string
		decision, reason, extra string
	}{
		{"exit 2 blocks", `grep -q secret && { echo "no secrets in prompts" >&2; exit 2; }; exit 0`, contract.HookBlock, "no secrets in prompts", ""},
		{"JSON blocks", `echo '{"decision":"block","reason":"not today"}'`, contract.HookBlock, "not today", ""},
		{"plain stdout is context", `echo "the branch is main"`, "", "", "the branch is main"},
		{"JSON context", `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"sprint 12"}}'`, "", "", "sprint 12"},
		{"a crash fails open", `exit 1`, "", "the hook exited with 1", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRunner(t, dir, Hook{Event: contract.HookUserPromptSubmit, Command: script(t, dir, "p"+strconv.Itoa(i), tt.body)})
			o := r.UserPromptSubmit(t.Context(), "print the secret")
			if o.Decision != tt.decision || o.Context != tt.extra || o.Ran[0].Reason != tt.reason {
				t.Errorf("Outcome = %+v; want %q %q %q", o, tt.decision, tt.reason, tt.extra)
			}
		})
	}
}

func TestSessionStart(t *testing.T) {
	dir := t.TempDir()
	cmd := script(t, dir, "s.sh", `grep -q '"source":"resume"' && echo "welcome back" || echo "hello"`)
	r := newRunner(t, dir, Hook{Event: contract.HookSessionStart, Command: cmd})
	for source, want := range map[string]string{"startup": "hello", "resume": "welcome back"} {
		if o := r.SessionStart(t.Context(), source); o.Context != want || o.Ran[0].Context != want {
			t.Errorf("SessionStart(%s) = %+v; want context %q", source, o, want)
		}
	}
}

// A SessionStart hook's matcher is matched against the source, as in
// Claude Code; a bad matcher leaves a hook that is no gate out.
func TestSessionStartMatcher(t *testing.T) {
	dir := t.TempDir()
	cmd := script(t, dir, "s.sh", `echo "resumed"`)
	r := newRunner(t, dir, Hook{Event: contract.HookSessionStart, Matcher: "resume", Command: cmd})
	if o := r.SessionStart(t.Context(), "startup"); len(o.Ran) != 0 {
		t.Errorf("a resume hook ran at startup: %+v", o)
	}
	if o := r.SessionStart(t.Context(), "resume"); o.Context != "resumed" {
		t.Errorf("SessionStart(resume) = %+v", o)
	}
	bad := Hook{Event: contract.HookPostToolUse, Matcher: "(?!x)", Command: cmd}
	if bad.Check() == nil || bad.Warning() != "" {
		t.Errorf("a PostToolUse hook with a bad matcher: Check %v, Warning %q", bad.Check(), bad.Warning())
	}
	gate := Hook{Event: contract.HookPreToolUse, Matcher: "(?!x)", Command: cmd}
	if gate.Check() != nil || !strings.Contains(gate.Warning(), "this gate runs before every tool") {
		t.Errorf("a PreToolUse hook with a bad matcher: Check %v, Warning %q", gate.Check(), gate.Warning())
	}
}

func TestStop(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	cmd := script(t, dir, "stop.sh", `cat > `+out+`; echo '{"decision":"block","reason":"run the tests first"}'`)
	r := New(&Options{Hooks: []Hook{{Event: contract.HookStop, Command: cmd}}, Dir: dir, MaxStopContinues: 1})
	if r.StopLimit() != 1 {
		t.Errorf("StopLimit() = %d, want 1", r.StopLimit())
	}
	o := r.Stop(t.Context(), true, "done")
	if o.Decision != contract.HookBlock || o.Reason != "run the tests first" || o.Ran[0].Decision != contract.HookBlock {
		t.Fatalf("Outcome = %+v; want a block", o)
	}
	var in stopInput
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &in); err != nil || !in.StopHookActive || in.LastAssistantMessage != "done" || in.HookEventName != "Stop" {
		t.Errorf("stdin = %s (%v); want stop_hook_active and the last message", data, err)
	}
	o.Ignore("ignored: too many")
	if o.Decision != "" || o.Ran[0].Decision != "" || o.Ran[0].Reason != "ignored: too many (it asked: run the tests first)" {
		t.Errorf("Ignore() = %+v", o)
	}
	if New(&Options{Hooks: []Hook{{Event: contract.HookStop, Command: cmd}}}).StopLimit() != 2 {
		t.Error("the default StopLimit is not 2")
	}
}

func TestEnvironment(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env.txt")
	cmd := script(t, dir, "env.sh", "env > "+out)
	r := New(&Options{Hooks: []Hook{{Event: contract.HookSessionStart, Command: cmd}}, Dir: dir, Session: "ses_9",
		Environ: []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-verysecretvalue", "MY_VAR=hunter2hunter2", "HOME=/home/x"},
		Secrets: []string{"hunter2hunter2"}, Strip: builtin.ToolEnv})
	r.SessionStart(t.Context(), "startup")
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	env := string(data)
	for _, bad := range []string{"sk-verysecretvalue", "hunter2hunter2"} {
		if strings.Contains(env, bad) {
			t.Errorf("a secret reached the hook's environment:\n%s", env)
		}
	}
	for _, want := range []string{"CLAUDE_PROJECT_DIR=" + dir, "REIN_PROJECT_DIR=" + dir, "REIN_SESSION_ID=ses_9", "HOME=/home/x", "REIN=1"} {
		if !strings.Contains(env, want+"\n") {
			t.Errorf("the hook's environment lacks %s:\n%s", want, env)
		}
	}
}

func TestNilRunner(t *testing.T) {
	var r *Runner
	if r.Has(contract.HookPreToolUse) || r.PreToolUse(t.Context(), bashCall("ls")).Ran != nil || r.Stop(t.Context(), false, "").Decision != "" {
		t.Error("a nil Runner ran something")
	}
	if New(nil) != nil || New(&Options{}) != nil {
		t.Error("New without hooks is not nil")
	}
	if New(&Options{Hooks: []Hook{{Event: "Nope", Command: "true"}}}) != nil {
		t.Error("New with only a broken hook is not nil")
	}
}

// SubagentStop hooks run when a child would end, with Stop's input under
// their own event's name, and a Stop hook does not run for a child; a
// Task or Agent matcher, Claude Code's names, matches the task tool, and
// the task's agent reaches the hook as subagent_type.
func TestSubagentStopAndTask(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "stdin.json")
	cmd := script(t, dir, "sub.sh", `cat > `+out+`; echo '{"decision":"block","reason":"check again"}'`)
	r := New(&Options{Hooks: []Hook{{Event: contract.HookSubagentStop, Command: cmd}}, Dir: dir})
	if o := r.Stop(t.Context(), false, "x"); len(o.Ran) != 0 {
		t.Errorf("a Stop ran SubagentStop hooks: %+v", o)
	}
	o := r.SubagentStop(t.Context(), false, "found it")
	if o.Decision != contract.HookBlock || o.Reason != "check again" {
		t.Fatalf("Outcome = %+v; want a block", o)
	}
	var in stopInput
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &in); err != nil || in.HookEventName != "SubagentStop" || in.LastAssistantMessage != "found it" {
		t.Errorf("stdin = %s (%v)", data, err)
	}
	call := ToolCall{IntentID: "int_1", Tool: "task", Input: json.RawMessage(`{"description":"d","prompt":"p","agent":"explore"}`)}
	for _, matcher := range []string{"Task", "Agent", "task"} {
		seen := filepath.Join(dir, matcher+".json")
		h := Hook{Event: contract.HookPreToolUse, Matcher: matcher, Command: script(t, dir, matcher+".sh", `cat > `+seen)}
		if o := New(&Options{Hooks: []Hook{h}, Dir: dir}).PreToolUse(t.Context(), call); len(o.Ran) != 1 {
			t.Errorf("matcher %s did not match task", matcher)
			continue
		}
		data, _ := os.ReadFile(seen)
		if !strings.Contains(string(data), `"tool_name":"Task"`) || !strings.Contains(string(data), `"subagent_type":"explore"`) {
			t.Errorf("matcher %s: stdin %s", matcher, data)
		}
	}
}
