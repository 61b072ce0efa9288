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

// Interactive rein asks, naming the command, and "always" writes the rule
// into the project's .rein/config.toml: the next identical call is not
// asked again.
func TestInteractiveAlwaysSavesTheRule(t *testing.T) {
	script := writeScript(t, `{"turns":[`+bashTurn("echo first")+`,`+bashTurn("echo first")+`,
		{"expect":[{"ok":true,"contains":["first"]}],"steps":[{"text":"Both ran."},{"finish":"stop"}]}]}`)
	work := t.TempDir()
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "--provider", "scripted", "--script", script, "echo twice")
	cmd.Dir = work
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	cmd.Stdin = strings.NewReader("a\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("rein: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "? rein wants to run"); n != 1 {
		t.Errorf("asked %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(string(out), "? rein wants to run: echo first") || !strings.Contains(string(out), "[a] always allow bash(echo first)") {
		t.Errorf("the question does not name the command and the rule:\n%s", out)
	}
	cfg, err := os.ReadFile(filepath.Join(work, ".rein", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "[permissions]") || !strings.Contains(string(cfg), `allow = ["bash(echo first)"]`) {
		t.Errorf(".rein/config.toml = %q, %v", cfg, err)
	}
	var decisions []string
	for _, e := range events(t, stateDir) {
		if p, ok := e.Data.(*contract.ToolPermission); ok {
			decisions = append(decisions, string(p.Decision)+" by "+p.By+" "+p.Rule)
		}
	}
	if len(decisions) != 2 || decisions[0] != "allow by user bash(echo first)" || decisions[1] != "allow by rule bash(echo first)" {
		t.Errorf("decisions %q", decisions)
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
