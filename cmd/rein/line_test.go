package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// reinFed runs the binary in dir with env added to a clean environment
// and stdin as its standard input (a pipe: the line mode).
func reinFed(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(rein, args...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errw.String()}
}

// repoWorld is a git repository (a .git directory is all rein looks for)
// with a subdirectory, and the private state and configuration of the
// runs in it.
type repoWorld struct {
	repo, sub, state string
	env              []string
}

func newRepoWorld(t *testing.T) *repoWorld {
	t.Helper()
	top := t.TempDir()
	w := &repoWorld{repo: filepath.Join(top, "repo"), state: t.TempDir()}
	w.sub = filepath.Join(w.repo, "pkg", "stats")
	for _, d := range []string{filepath.Join(w.repo, ".git"), w.sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"XDG_STATE_HOME=" + w.state, "XDG_CONFIG_HOME=" + t.TempDir(), "TMPDIR=" + t.TempDir()}
	return w
}

// sessionEvents reads the log of session id of w.
func (w *repoWorld) sessionEvents(t *testing.T, id string) []contract.Envelope {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.state, "rein", "sessions", id, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, string(b))
}

// sessionIDs matches the session ids a text names.
var sessionIDs = regexp.MustCompile(`ses_[0-9A-HJKMNP-TV-Z]{26}`)

// Through a pipe, rein is the same program as its UI: /help, /status,
// /mode, /model, /cost, /compact and /exit are rein's commands, never
// prompts for the model, //text sends a leading slash, an unknown
// command sends nothing, and the exit line names the session.
func TestPlainModeCommandsThroughAPipe(t *testing.T) {
	w := newRepoWorld(t)
	script := writeScript(t, `{"turns":[{"steps":[{"text":"You sent a path."},{"finish":"stop"}]}]}`)
	input := "/help\n/status\n/mode\n/mode plan\n/model\n/cost\n/permissions\n//etc/hosts is what\n/nosuch thing\n/compact\n/exit\nnever read\n"
	r := reinFed(t, w.repo, w.env, input, "--provider", "scripted", "--script", script, "--deny", "bash(git push:*)")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if r.stdout != "You sent a path.\n" {
		t.Errorf("stdout %q: want the one answer", r.stdout)
	}
	id := sessionIDs.FindString(r.stderr)
	for _, want := range []string{
		"/compact [focus]", "/mode [name]", "//text", // /help
		"  session        " + id, "  mode           default", // /status
		"permission mode: default · reads and read-only commands run", "modes: default, accept-edits, plan, yolo",
		"permission mode: plan · read-only",
		"model: scripted:", "session: no usage reported yet",
		"  deny  bash(git push:*) · a flag (--allow, --deny)", // /permissions
		"rein: unknown command /nosuch: nothing was sent",
		"rein: nothing to compact: the conversation is only its latest turn, which is kept verbatim",
		"session: " + filepath.Join(w.state, "rein", "sessions", id) + " (rein resume " + id + " -i goes on)",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	var sent, modes []string
	for _, env := range w.sessionEvents(t, id) {
		switch e := env.Data.(type) {
		case *contract.UserMessage:
			sent = append(sent, e.Text)
		case *contract.ModeChanged:
			modes = append(modes, e.From+" -> "+e.To)
		}
	}
	if d := cmp.Diff([]string{"/etc/hosts is what"}, sent); d != "" {
		t.Errorf("what reached the model (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"default -> plan"}, modes); d != "" {
		t.Errorf("mode changes (-want +got):\n%s", d)
	}
}

// Leaving at the first prompt, or after commands that record nothing,
// leaves no session, and the exit line names none.
func TestLeavingBeforeAnythingNamesNoSession(t *testing.T) {
	w := newRepoWorld(t)
	script := writeScript(t, `{"turns":[{"steps":[{"finish":"stop"}]}]}`)
	for _, input := range []string{"", "/status\n/cost\n/help\n/exit\n"} {
		r := reinFed(t, w.repo, w.env, input, "--provider", "scripted", "--script", script)
		if r.code != 0 || strings.Contains(r.stderr, "session: /") || strings.Contains(r.stderr, "goes on") {
			t.Errorf("input %q: exit %d, and an exit line names a session that does not exist:\n%s", input, r.code, r.stderr)
		}
	}
	if dirs, _ := filepath.Glob(filepath.Join(w.state, "rein", "sessions", "ses_*")); len(dirs) != 0 {
		t.Errorf("sessions left behind: %v", dirs)
	}
}

// rein exec -c goes on with the repository's latest session from any of
// its directories; rein sessions lists the repository's sessions from a
// subdirectory, each directory as seen from there; the trace names a
// tool call as the UI does; rein log --type tool is the tool.* family.
func TestExecContinueFromASubdirectory(t *testing.T) {
	w := newRepoWorld(t)
	script := writeScript(t, `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":"echo one"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"The first is done."},{"finish":"stop"}]},
 {"steps":[{"text":"The second is done."},{"finish":"stop"}]}]}`)
	flags := []string{"--provider", "scripted", "--script", script, "--permission-mode", "yolo"}
	if r := reinIn(t, w.sub, w.env, append([]string{"exec", "-c", "too soon"}, flags...)...); r.code != 2 ||
		!strings.Contains(r.stderr, "no session to go on with in "+w.repo) {
		t.Errorf("exec -c with no session yet: exit %d, want 2 and where none was:\n%s", r.code, r.stderr)
	}
	r := reinIn(t, w.repo, w.env, append([]string{"exec", "the first"}, flags...)...)
	if r.code != 0 || r.stdout != "The first is done.\n" || !strings.Contains(r.stderr, "● bash echo one\n") || strings.Contains(r.stderr, `{"command"`) {
		t.Fatalf("exec: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	id := sessionIDs.FindString(r.stderr)

	r = reinIn(t, w.sub, w.env, "sessions")
	if rows := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(rows) != 2 || !strings.HasPrefix(rows[1], id+"  ../..  ") {
		t.Errorf("sessions from a subdirectory: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = reinIn(t, w.sub, w.env, append([]string{"exec", "-c", "the second"}, flags...)...)
	if r.code != 0 || r.stdout != "The second is done.\n" || !strings.Contains(r.stderr, "resuming session "+id) {
		t.Errorf("exec -c from a subdirectory: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	var sent []string
	for _, env := range w.sessionEvents(t, id) {
		if m, ok := env.Data.(*contract.UserMessage); ok {
			sent = append(sent, m.Text)
		}
	}
	if d := cmp.Diff([]string{"the first", "the second"}, sent); d != "" {
		t.Errorf("the session's messages (-want +got):\n%s", d)
	}
	if dirs, _ := filepath.Glob(filepath.Join(w.state, "rein", "sessions", "ses_*")); len(dirs) != 1 {
		t.Errorf("sessions %v: exec -c made a new one", dirs)
	}

	r = reinIn(t, w.sub, w.env, "log", "--type", "tool", id)
	types := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			types[f[2]] = true
		}
	}
	if r.code != 0 || !types["tool.permission"] || !types["tool.invocation.completed"] || !types["tool.observation"] || types["tool_intent.proposed"] || len(types) != 5 {
		t.Errorf("log --type tool: exit %d, types %v\n%s", r.code, types, r.stderr)
	}
}
