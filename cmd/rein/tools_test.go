package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// writeScript writes a scripted model's script and returns its path.
func writeScript(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// events reads the one session log under stateDir.
func events(t *testing.T, stateDir string) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	for _, line := range strings.Split(strings.TrimSpace(string(sessionLog(t, result{state: stateDir}))), "\n") {
		var env contract.Envelope
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

func observationsOf(envs []contract.Envelope) []contract.Observation {
	var out []contract.Observation
	for _, e := range envs {
		if o, ok := e.Data.(*contract.ToolObservation); ok {
			out = append(out, o.Observation)
		}
	}
	return out
}

const bashCall = `{"steps":[{"tool":{"index":0,"id":"c1","name":"bash","input":{"command":%q}}},{"finish":"tool_use"}]}`

func bashTurn(command string) string {
	b, _ := json.Marshal(command)
	return strings.Replace(bashCall, "%q", string(b), 1)
}

// A headless run never waits: the command asks in default mode, so it is
// denied by "headless" with the flag that would allow it; the model goes
// on, and the run completes: exit 0.
func TestExecDeniesWhatWouldAskAndExitsZero(t *testing.T) {
	script := writeScript(t, `{"turns":[`+bashTurn("touch made-by-rein")+`,
		{"expect":[{"ok":false,"contains":["Blocked","--permission-mode accept-edits"]}],"steps":[{"text":"I may not."},{"finish":"stop"}]}]}`)
	work := t.TempDir()
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "exec", "--permission-mode", "default", "--provider", "scripted", "--script", script, "make a file")
	cmd.Dir = work
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("y\n") // context for the prompt, never an answer: exec does not ask
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(work, "made-by-rein")); err == nil {
		t.Error("the denied command ran")
	}
	if !strings.Contains(string(out), "deny by headless") {
		t.Errorf("output does not show the denial:\n%s", out)
	}
}

// gitWorkspace returns a new git repository with a committed README.md,
// its path resolved through links (the key of the person's answers).
func gitWorkspace(t *testing.T) string {
	t.Helper()
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = work
		cmd.Env = append(cleanEnv(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+work)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return work
}

// permissions returns the tool.permission events of a state directory's
// one session, as "decision by rule" lines, and the events themselves.
func permissions(t *testing.T, stateDir string) ([]string, []*contract.ToolPermission) {
	t.Helper()
	var lines []string
	var ps []*contract.ToolPermission
	for _, e := range events(t, stateDir) {
		if p, ok := e.Data.(*contract.ToolPermission); ok {
			lines = append(lines, strings.TrimSpace(string(p.Decision)+" by "+p.By+" "+p.Rule))
			ps = append(ps, p)
		}
	}
	return lines, ps
}

// Interactive rein asks, naming the command, and "always" keeps the rule
// in the person's own answers file, for this workspace: nothing new in the
// repository (git status stays clean), the next identical call is not
// asked again, and in the next session the command runs without a
// question, its write inside the workspace included.
func TestInteractiveAlwaysSavesTheRule(t *testing.T) {
	script := writeScript(t, `{"turns":[`+bashTurn("touch m1")+`,`+bashTurn("touch m1")+`,
		{"steps":[{"text":"Both ran."},{"finish":"stop"}]}]}`)
	work := gitWorkspace(t)
	stateDir, configDir := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + configDir, "NO_COLOR=1", "HOME=" + t.TempDir()}
	cmd := exec.Command(rein, "--permission-mode", "default", "--provider", "scripted", "--script", script, "touch twice")
	cmd.Dir = work
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader("a\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein: %v\n%s", err, out)
	}
	answers := filepath.Join(configDir, "rein", "projects.toml")
	if n := strings.Count(string(out), "? rein wants to run"); n != 1 {
		t.Errorf("asked %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(string(out), "? rein wants to run: touch m1") || !strings.Contains(string(out), "[a] always allow bash(touch m1)") ||
		!strings.Contains(string(out), "(saved in "+answers+")") {
		t.Errorf("the question does not name the command, the rule and the file:\n%s", out)
	}
	saved, err := os.ReadFile(answers)
	if err != nil || !strings.Contains(string(saved), `[projects."`+work+`".permissions]`) || !strings.Contains(string(saved), `allow = ["bash(touch m1)"]`) {
		t.Errorf("%s = %q, %v", answers, saved, err)
	}
	status := exec.Command("git", "status", "--porcelain", "--ignored")
	status.Dir = work
	if st, err := status.Output(); err != nil || strings.TrimSpace(string(st)) != "?? m1" {
		t.Errorf("git status after always = %q, %v; want only the file the command made", st, err)
	}
	decisions, ps := permissions(t, stateDir)
	if len(decisions) != 2 || decisions[0] != "allow by user bash(touch m1)" || decisions[1] != "allow by rule bash(touch m1)" {
		t.Errorf("decisions %q", decisions)
	}
	if len(ps) > 0 && !strings.Contains(ps[0].Reason, "saved bash(touch m1) in "+answers) {
		t.Errorf("the answer's reason does not name the rule and the file: %s", ps[0].Reason)
	}

	// The next session in that directory: no question, even headless.
	os.Remove(filepath.Join(work, "m1"))
	next := t.TempDir()
	r := reinIn(t, work, append(env[1:], "XDG_STATE_HOME="+next), "exec", "--permission-mode", "default", "--provider", "scripted",
		"--script", writeScript(t, `{"turns":[`+bashTurn("touch m1")+`,{"steps":[{"text":"ok"},{"finish":"stop"}]}]}`), "touch")
	if r.code != 0 {
		t.Fatalf("rein exec: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if decisions, _ := permissions(t, next); len(decisions) != 1 || decisions[0] != "allow by rule bash(touch m1)" {
		t.Errorf("next session: decisions %q", decisions)
	}
	if _, err := os.Stat(filepath.Join(work, "m1")); err != nil {
		t.Errorf("the command did not run in the next session: %v", err)
	}
	// Another directory has rules of its own: there it is asked (and,
	// headless, denied).
	other := gitWorkspace(t)
	third := t.TempDir()
	r = reinIn(t, other, append(env[1:], "XDG_STATE_HOME="+third), "exec", "--permission-mode", "default", "--provider", "scripted",
		"--script", writeScript(t, `{"turns":[`+bashTurn("touch m1")+`,{"steps":[{"text":"ok"},{"finish":"stop"}]}]}`), "touch")
	if decisions, _ := permissions(t, third); r.code != 0 || len(decisions) != 1 || decisions[0] != "deny by headless" {
		t.Errorf("another directory: exit %d, decisions %q", r.code, decisions)
	}
}

// A broken answers file keeps no session from starting: rein warns, with
// the file and the line to fix, and goes on without its rules (it asks
// more). An "always" then holds for this session only, and says so: rein
// writes nothing into a file it cannot read, so nothing in it is lost.
func TestBrokenAnswersFile(t *testing.T) {
	script := writeScript(t, `{"turns":[`+bashTurn("touch m1")+`,`+bashTurn("touch m1")+`,
		{"steps":[{"text":"Both ran."},{"finish":"stop"}]}]}`)
	work := gitWorkspace(t)
	stateDir, configDir := t.TempDir(), t.TempDir()
	answers := filepath.Join(configDir, "rein", "projects.toml")
	broken := "# my answers\n[projects.\"/x\".permissions\nallow = [\"bash(make)\"]\n" // the header's ] forgotten on line 2
	if err := os.MkdirAll(filepath.Dir(answers), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(answers, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + configDir, "NO_COLOR=1", "HOME=" + t.TempDir()}
	cmd := exec.Command(rein, "--permission-mode", "default", "--provider", "scripted", "--script", script, "touch twice")
	cmd.Dir = work
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader("a\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein: %v\n%s", err, out)
	}
	warning := "rein: warning: " + answers + ":2:27: expected '.' or ']' to end table name, but got '\\n' instead; " +
		"the rules your always and never answers saved there are not in force in this session: fix the file or delete it\n"
	if strings.Count(string(out), warning) != 1 {
		t.Errorf("the start does not warn once:\n%s\nit says:\n%s", warning, out)
	}
	if n := strings.Count(string(out), "? rein wants to run"); n != 1 {
		t.Errorf("asked %d times, want once:\n%s", n, out)
	}
	decisions, ps := permissions(t, stateDir)
	if len(decisions) != 2 || decisions[0] != "allow by user bash(touch m1)" || decisions[1] != "allow by rule bash(touch m1)" {
		t.Errorf("decisions %q; want the answer, then its rule for the rest of the session", decisions)
	}
	if len(ps) > 0 && !strings.HasPrefix(ps[0].Reason, "The user allowed it for this session only: bash(touch m1) was not saved: "+answers+":2:27:") {
		t.Errorf("the answer's reason does not say it holds for this session only, and why: %s", ps[0].Reason)
	}
	if after, err := os.ReadFile(answers); err != nil || string(after) != broken {
		t.Errorf("the answers file changed: %q, %v", after, err)
	}
}

// "never" on a compound command denies the part that was the reason to
// ask, in the person's answers file: in the next session that part is
// denied by the rule, the harmless part beside it is not.
func TestInteractiveNeverDeniesTheReasonToAsk(t *testing.T) {
	script := writeScript(t, `{"turns":[`+bashTurn("rm -rf build && echo cleaned")+`,{"steps":[{"text":"ok"},{"finish":"stop"}]}]}`)
	work := gitWorkspace(t)
	if err := os.MkdirAll(filepath.Join(work, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	stateDir, configDir := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + configDir, "NO_COLOR=1", "HOME=" + t.TempDir()}
	cmd := exec.Command(rein, "--permission-mode", "default", "--provider", "scripted", "--script", script, "clean")
	cmd.Dir = work
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdin = strings.NewReader("d\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "[d] never: deny bash(rm -rf build) (saved in") {
		t.Errorf("the question does not offer to deny the reason to ask alone:\n%s", out)
	}
	if decisions, _ := permissions(t, stateDir); len(decisions) != 1 || decisions[0] != "deny by user bash(rm -rf build)" {
		t.Errorf("decisions %q", decisions)
	}
	next := t.TempDir()
	r := reinIn(t, work, append(env[1:], "XDG_STATE_HOME="+next), "exec", "--permission-mode", "default", "--allow", "bash(echo cleaned)",
		"--provider", "scripted", "--script", writeScript(t, `{"turns":[`+bashTurn("echo cleaned")+`,`+bashTurn("rm -rf build")+
			`,{"steps":[{"text":"ok"},{"finish":"stop"}]}]}`), "clean")
	decisions, _ := permissions(t, next)
	if r.code != 0 || len(decisions) != 2 || decisions[0] != "allow by rule bash(echo cleaned)" || decisions[1] != "deny by rule bash(rm -rf build)" {
		t.Errorf("next session: exit %d, decisions %q", r.code, decisions)
	}
	if _, err := os.Stat(filepath.Join(work, "build")); err != nil {
		t.Errorf("build was removed: %v", err)
	}
}

// A command's environment holds no credentials: rein's own provider keys
// and anything named like a token are stripped.
func TestToolsSeeNoCredentials(t *testing.T) {
	script := writeScript(t, `{"turns":[`+bashTurn("env")+`,
		{"expect":[{"ok":true,"contains":["REIN_VISIBLE=yes"],"excludes":["ANTHROPIC_API_KEY","GITHUB_TOKEN","sk-ant-secret","ghp_secret"]}],
		 "steps":[{"text":"Clean."},{"finish":"stop"}]}]}`)
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "exec", "--allow", "bash(env)", "--provider", "scripted", "--script", script, "show env")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(),
		"ANTHROPIC_API_KEY=sk-ant-secret", "GITHUB_TOKEN=ghp_secret", "REIN_VISIBLE=yes")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein exec: %v\n%s", err, out)
	}
	if obs := observationsOf(events(t, stateDir)); len(obs) != 1 || !strings.Contains(obs[0].Text, "REIN_VISIBLE=yes") {
		t.Errorf("observations %+v", obs)
	}
}

// Ctrl-C during a command stops the command (its whole process group),
// records it as cancelled, ends the run as cancelled with nothing pending,
// and exits 130.
func TestInterruptStopsTheRunningTool(t *testing.T) {
	marker := "rein-interrupt-" + time.Now().Format("150405.000000")
	script := writeScript(t, `{"turns":[`+bashTurn("echo started; (sleep 300; echo "+marker+") & sleep 300")+`,{"steps":[{"finish":"stop"}]}]}`)
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "exec", "--permission-mode", "yolo", "--provider", "scripted", "--script", script, "wait")
	cmd.Dir = t.TempDir()
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The command has started once its invocation is recorded; the
	// terminal shows the intent, then the decision.
	sc := bufio.NewScanner(stderr)
	var seen bytes.Buffer
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "allowed by mode") {
			break
		}
	}
	time.Sleep(200 * time.Millisecond) // let bash start; a later signal is only slower
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		seen.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130\n%s", err, seen.String())
	}
	envs := events(t, stateDir)
	var completed *contract.InvocationCompleted
	for _, e := range envs {
		if c, ok := e.Data.(*contract.InvocationCompleted); ok {
			completed = c
		}
	}
	if completed == nil || completed.Exit != contract.ExitCancelled {
		t.Errorf("invocation completed %+v, want exit cancelled", completed)
	}
	if f, ok := envs[len(envs)-1].Data.(*contract.RunFinished); !ok || f.Outcome != contract.OutcomeCancelled {
		t.Errorf("last event %s, want run.finished cancelled", envs[len(envs)-1].Type())
	}
	// No process of the command survives it.
	if out, _ := exec.Command("pgrep", "-f", marker).Output(); len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("processes of the cancelled command survive: %s", out)
	}
}
