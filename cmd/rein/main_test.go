package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/mcp/mcptest"
)

// testServerEnv makes the test binary an MCP server (mcptest.Serve).
const testServerEnv = mcptest.Env

// rein is the binary under test, built once by TestMain.
var rein string

func TestMain(m *testing.M) {
	if mcptest.Serve() {
		return
	}
	dir, err := os.MkdirTemp("", "rein-bin-")
	if err != nil {
		panic(err)
	}
	rein = filepath.Join(dir, "rein")
	if out, err := exec.Command("go", "build", "-o", rein, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cleanEnv is the environment without any provider key or endpoint, so
// that tests never reach a real provider whatever the machine has set.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_BASE_URL") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

type result struct {
	code           int
	stdout, stderr string
	state          string // XDG_STATE_HOME of the run
}

// run runs the binary with a private state directory and temp directory.
func run(t *testing.T, args ...string) result {
	t.Helper()
	stateDir, tmp := t.TempDir(), t.TempDir()
	r := reinIn(t, "", []string{"XDG_STATE_HOME=" + stateDir, "TMPDIR=" + tmp, "XDG_CONFIG_HOME=" + filepath.Join(tmp, "config")}, args...)
	r.state = stateDir
	return r
}

// sessionLog returns the one events.jsonl under the run's state directory.
func sessionLog(t *testing.T, r result) []byte {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(r.state, "rein", "sessions", "*", "events.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("found %d session logs, want 1", len(logs))
	}
	b, err := os.ReadFile(logs[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDemo(t *testing.T) {
	r := run(t, "demo")
	if r.code != 0 {
		t.Fatalf("rein demo: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"I'll start by running the test suite to see which test fails and how.", "The tests pass now."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	// Every step is visible: intent, decision, execution, observation.
	for _, want := range []string{"SCRIPTED", "● bash go test ./...\n", "allowed by rule bash(go test:*)", "exit 1", "--- FAIL: TestMean",
		"● read_file", "● edit_file", "+\treturn sum / float64(len(xs))", "exit code: 0", "session: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// The commands the demo suggests work as shown, or it says how to
	// make them work.
	if _, err := exec.LookPath("rein"); err != nil && !strings.Contains(r.stderr, "go install ./cmd/rein") {
		t.Errorf("rein is not on PATH, and the demo does not say how to install it:\n%s", r.stderr)
	}
	sessionLog(t, r)
	// The fix is real: the demo's workspace now passes its tests.
	_, rest, _ := strings.Cut(r.stderr, "workspace: ")
	ws, _, _ := strings.Cut(rest, " ")
	test := exec.Command("go", "test", "./...")
	test.Dir = ws
	test.Env = append(cleanEnv(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := test.CombinedOutput(); err != nil {
		t.Errorf("go test in the demo workspace %s: %v\n%s", ws, err, out)
	}
}

func TestDemoJSON(t *testing.T) {
	r := run(t, "demo", "--json")
	if r.code != 0 {
		t.Fatalf("rein demo --json: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var seen []string
	for i, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var env contract.Envelope
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("stdout line %d is not an envelope: %v\n%s", i+1, err, line)
		}
		if env.Seq != uint64(i+1) {
			t.Errorf("line %d has seq %d: not dense", i+1, env.Seq)
		}
		seen = append(seen, env.Type())
	}
	for _, want := range []string{contract.TypeUserMessage, contract.TypeModelRequested, contract.TypeIntentProposed, contract.TypeModelFinished,
		contract.TypeToolValidation, contract.TypeToolPermission, contract.TypeInvocationStarted, contract.TypeInvocationCompleted,
		contract.TypeToolObservation, contract.TypeRunFinished} {
		if !slices.Contains(seen, want) {
			t.Errorf("demo --json lacks %s; got %v", want, seen)
		}
	}
	if log := sessionLog(t, r); string(log) != r.stdout {
		t.Errorf("--json output differs from events.jsonl:\n--json:\n%s\nevents.jsonl:\n%s", r.stdout, log)
	}
}

func TestVersion(t *testing.T) {
	r := run(t, "version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "rein ") {
		t.Errorf("rein version: exit %d, %q", r.code, r.stdout)
	}
}

func TestProviders(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown":                    {[]string{"exec", "--provider", "nosuch", "hi"}, `unknown provider "nosuch" (known: openai, responses, anthropic, gemini, scripted)`},
		"no key":                     {[]string{"exec", "--provider", "anthropic", "hi"}, "ANTHROPIC_API_KEY is not set; export it, or pick another provider with --provider"},
		"gemini":                     {[]string{"exec", "--provider", "gemini", "hi"}, "GEMINI_API_KEY or GOOGLE_API_KEY is not set"},
		"none":                       {[]string{"exec", "hi"}, "no model provider: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY"},
		"none, how to name a server": {[]string{"exec", "hi"}, "--provider openai --base-url http://127.0.0.1:11434/v1"},
		"noscript":                   {[]string{"exec", "--provider", "scripted", "hi"}, "needs --script FILE"},
		"bad url":                    {[]string{"exec", "--provider", "openai", "--base-url", "localhost:11434", "hi"}, `base URL "localhost:11434"`},
		"fallback":                   {[]string{"exec", "--provider", "openai", "--base-url", "http://127.0.0.1:1/v1", "--fallback", "gemini", "hi"}, `fallback "gemini": GEMINI_API_KEY or GOOGLE_API_KEY is not set`},
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

func TestExecScripted(t *testing.T) {
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"turns":[{"steps":[{"text":"The answer "},{"text":"is 42."},{"finish":"stop"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "exec", "--provider", "scripted", "--script", script, "what is the answer?")
	if r.code != 0 || r.stdout != "The answer is 42.\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// Ctrl-C during a headless run cancels the model call, records the run as
// cancelled, and exits 130.
func TestInterruptedExec(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "slow.json")
	steps := `{"text":"first "}`
	for range 200 {
		steps += `,{"text":"word "}`
	}
	if err := os.WriteFile(script, []byte(`{"chunk_delay_ms":20,"turns":[{"steps":[`+steps+`,{"finish":"stop"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stateDir := t.TempDir()
	// The deltas show when the answer streams (stdout, a pipe, gets plain
	// text only once a call finished).
	cmd := exec.Command(rein, "exec", "--json", "--deltas", "--provider", "scripted", "--script", script, "go on")
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !strings.Contains(lines.Text(), `"first "`) {
	}
	if lines.Err() != nil {
		t.Fatal(lines.Err())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if ee, ok := errors.AsType[*exec.ExitError](err); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want 130", err)
	}
	log := sessionLog(t, result{state: stateDir})
	recorded := strings.Split(strings.TrimSpace(string(log)), "\n")
	var last contract.Envelope
	if err := json.Unmarshal([]byte(recorded[len(recorded)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if f, ok := last.Data.(*contract.RunFinished); !ok || f.Outcome != contract.OutcomeCancelled {
		t.Errorf("last event %s %+v, want run.finished cancelled", last.Type(), last.Data)
	}
}

func TestSIGTERMExits143(t *testing.T) {
	script := filepath.Join(t.TempDir(), "slow.json")
	if err := os.WriteFile(script, []byte(`{"chunk_delay_ms":50,"turns":[{"steps":[{"text":"first "},{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"},{"finish":"stop"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rein, "exec", "--json", "--deltas", "--provider", "scripted", "--script", script, "go on")
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && !strings.Contains(lines.Text(), `"first "`) {
	}
	cmd.Process.Signal(syscall.SIGTERM)
	io.Copy(io.Discard, stdout)
	if ee, ok := errors.AsType[*exec.ExitError](cmd.Wait()); !ok || ee.ExitCode() != 143 {
		t.Errorf("exit after SIGTERM: %v, want 143", ee)
	}
}

// A closed stdout does not kill rein before its log is synced: the run is
// recorded as cancelled, and rein ends quietly (exit 0, no complaint about
// the pipe), as a command whose reader went away does.
func TestClosedStdoutKeepsTheLog(t *testing.T) {
	stateDir := t.TempDir()
	cmd := exec.Command(rein, "demo", "--json")
	cmd.Env = append(cleanEnv(), "XDG_STATE_HOME="+stateDir, "TMPDIR="+t.TempDir())
	var errw strings.Builder
	cmd.Stderr = &errw
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 1)
	if _, err := stdout.Read(line); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	if err := cmd.Wait(); err != nil || strings.Contains(errw.String(), "pipe") {
		t.Errorf("rein demo --json into a closed pipe: %v, stderr:\n%s", err, errw.String())
	}
	log := sessionLog(t, result{state: stateDir})
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	var last contract.Envelope
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if f, ok := last.Data.(*contract.RunFinished); !ok || f.Outcome != contract.OutcomeCancelled {
		t.Errorf("%d events, last %s; want the run recorded as cancelled", len(lines), last.Type())
	}
}

func TestVersionFlag(t *testing.T) {
	if r := run(t, "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "rein ") {
		t.Errorf("rein --version: exit %d, %q", r.code, r.stdout)
	}
}

func TestNoEmptySessionLeftBehind(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(script, []byte(`{"turns":[{"steps":[{"finish":"stop"}]}]}`), 0o600)
	r := run(t, "--provider", "scripted", "--script", script) // interactive, stdin at EOF at once
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if logs, _ := filepath.Glob(filepath.Join(r.state, "rein", "sessions", "*")); len(logs) != 0 {
		t.Errorf("an interactive session left with Ctrl-D at once left %v behind", logs)
	}
}
