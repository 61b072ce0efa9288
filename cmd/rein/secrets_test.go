package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
)

// The secrets of rein's environment in these tests, by the rule that makes
// each one a secret: a name ending in _API_KEY, a name holding PASSWORD, a
// URL with a password (its password on its own too), a name ending in
// _TOKEN. The marker's name is in rein's environment only: tools never get
// it, so a tool's output that names it has read rein's own environment.
const (
	testKey      = "sk-test-e2e-0123456789abcdef"
	testPassword = "db-pass-5f3a9c1e"
	testURL      = "postgres://u:longpassword-77@db.internal/app"
	testURLPass  = "longpassword-77"
	markerName   = "TEST_MARKER_SECRET_TOKEN"
	markerValue  = "marker-token-91b2c3d4"
)

// secretEnv is rein's environment in these tests, beside the sandbox's
// directories.
var secretEnv = []string{
	"FOO_API_KEY=" + testKey, "DB_PASSWORD=" + testPassword, "DATABASE_URL=" + testURL, markerName + "=" + markerValue,
}

// forbidden is what no output of rein and no file of a session may hold:
// every secret and its reverse (`env | rev`), the names of the variables
// that hold them as env prints them, and the marker's name.
func forbidden() []string {
	var out []string
	for _, s := range []string{testKey, testPassword, testURL, testURLPass, markerValue, markerName,
		"FOO_API_KEY=", "DB_PASSWORD=", "DATABASE_URL="} {
		out = append(out, s, reverse(s))
	}
	return out
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// checkClean fails the test for every forbidden string in what.
func checkClean(t *testing.T, name, what string) {
	t.Helper()
	for _, s := range forbidden() {
		if strings.Contains(what, s) {
			t.Errorf("%s holds %q:\n%s", name, s, excerptAround(what, s))
		}
	}
}

// excerptAround is the part of s around the first occurrence of sub.
func excerptAround(s, sub string) string {
	i := strings.Index(s, sub)
	return s[max(0, i-200):min(len(s), i+len(sub)+200)]
}

// checkFilesClean fails the test for every file under root holding a
// forbidden string.
func checkFilesClean(t *testing.T, root string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		checkClean(t, path, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("no file under %s", root)
	}
}

// sandboxUser runs rein as a user of its own, in a directory of its own:
// the marker of what non-dumpable protects against is another process of
// the same user, and root reads any process's memory whatever it says.
// When the test runs as root, rein runs as nobody (65534), and everything
// it needs is that user's.
type sandboxUser struct {
	root string // holds bin/rein, ws, state, config, home, tmp
	bin  string
	cred *syscall.Credential // nil: the test's own user
}

func newSandboxUser(t *testing.T) *sandboxUser {
	t.Helper()
	root, err := os.MkdirTemp("", "rein-secrets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	u := &sandboxUser{root: root, bin: filepath.Join(root, "bin", "rein")}
	for _, d := range []string{"bin", "ws", "state", "config", "home", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(rein)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u.bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u.cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	return u
}

// dir is the path of one of u's directories.
func (u *sandboxUser) dir(name string) string { return filepath.Join(u.root, name) }

// write writes a file under u's root, u's to read.
func (u *sandboxUser) write(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(u.root, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// run runs rein with args in u's workspace, with env added to the
// sandbox's own variables, as u's user.
func (u *sandboxUser) run(t *testing.T, env []string, args ...string) result {
	t.Helper()
	if u.cred != nil {
		// What rein writes, and the files the test put there, are the
		// user's.
		err := filepath.WalkDir(u.root, func(path string, _ fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, int(u.cred.Uid), int(u.cred.Gid))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(u.bin, args...)
	cmd.Dir = u.dir("ws")
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1", "HOME="+u.dir("home"), "TMPDIR="+u.dir("tmp"),
		"XDG_STATE_HOME="+u.dir("state"), "XDG_CONFIG_HOME="+u.dir("config")), env...)
	if u.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	}
	var out, errw bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errw
	err := cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code = ee.ExitCode()
	} else if errors.Is(err, syscall.EPERM) {
		t.Skipf("cannot run rein as uid %d: %v", u.cred.Uid, err)
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errw.String(), state: u.dir("state")}
}

// sessionIDs are the ids of the sessions under u's state directory.
func (u *sandboxUser) sessionIDs(t *testing.T) []string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(u.dir("state"), "rein", "sessions", "ses_*"))
	var ids []string
	for _, d := range dirs {
		ids = append(ids, filepath.Base(d))
	}
	return ids
}

// findRein walks up from the shell to the outermost process named rein
// (a sandbox helper rein starts is named rein too) and tries to read its
// environment: non-dumpable, rein's /proc entries are root's and this
// fails.
const findRein = `p=$$; r=; while [ "$p" -gt 1 ]; do c=$(cat /proc/$p/comm); [ "$c" = rein ] && r=$p; ` +
	`p=$(grep '^PPid:' /proc/$p/status | cut -f2); done; echo "rein pid: ${r:-none}"; ` +
	`if [ -n "$r" ]; then tr '\0' '\n' < /proc/$r/environ; cat /proc/$r/environ; head -c 64 /proc/$r/mem; fi; echo "walk done"`

// secretScript is a scripted model that says the secrets (split across
// its text, reasoning and tool call deltas) and runs bash commands that
// print the workspace's notes holding them, the environment, reversed,
// and rein's own environment through /proc.
func secretScript(t *testing.T) string {
	t.Helper()
	type step = map[string]any
	split := func(s string, n int) []string {
		var out []string
		for len(s) > n {
			out = append(out, s[:n])
			s = s[n:]
		}
		return append(out, s)
	}
	var steps []step
	for _, p := range split("I must not repeat "+testPassword+" nor "+testKey, 5) {
		steps = append(steps, step{"reasoning": p})
	}
	for _, p := range split("The key is "+testKey+", the password "+testPassword+", the database "+testURL+".", 7) {
		steps = append(steps, step{"text": p})
	}
	commands := []string{
		"cat notes.txt",
		"env; echo ---; env | rev",
		`cat /proc/$PPID/environ | tr '\0' '\n'`,
		findRein,
		"echo 'the key: " + testKey + "'",
	}
	for i, c := range commands {
		args, err := json.Marshal(map[string]string{"command": c})
		if err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprintf("call_%d", i)
		for k, p := range split(string(args), 6) {
			tool := step{"index": i, "args": p}
			if k == 0 {
				tool["id"], tool["name"] = id, "bash"
			}
			steps = append(steps, step{"tool": tool})
		}
		steps = append(steps, step{"tool_end": step{"index": i}})
	}
	steps = append(steps, step{"finish": "tool_use"})
	script := map[string]any{"turns": []any{
		map[string]any{"steps": steps},
		map[string]any{"steps": []step{{"text": "Done; the key was " + testKey + "."}, {"finish": "stop"}}},
	}}
	b, err := json.Marshal(script)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// End to end: with secrets in rein's environment, a model that says them
// and runs commands that print them, reversed, and read rein's own
// environment through /proc, no secret reaches stdout, stderr, --json
// (deltas included), replay, log, or any file of the session.
func TestSecretsStaySecretEverywhere(t *testing.T) {
	t.Parallel()
	u := newSandboxUser(t)
	u.write(t, "ws/notes.txt", "key="+testKey+"\npassword="+testPassword+"\nurl="+testURL+"\n")
	script := u.write(t, "script.json", secretScript(t))
	args := []string{"exec", "--provider", "scripted", "--script", script, "--permission-mode", "yolo"}
	plain := u.run(t, secretEnv, append(args, "look at the notes")...)
	jsonRun := u.run(t, secretEnv, append(args, "--json", "--deltas", "look at the notes")...)
	for name, r := range map[string]result{"exec": plain, "exec --json --deltas": jsonRun} {
		if r.code != 0 {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", name, r.code, r.stdout, r.stderr)
		}
		checkClean(t, name+" stdout", r.stdout)
		checkClean(t, name+" stderr", r.stderr)
	}
	if !strings.Contains(jsonRun.stdout, "[REDACTED]") || !strings.Contains(jsonRun.stdout, contract.TypeTextDelta) {
		t.Errorf("--json --deltas shows no delta or nothing redacted:\n%s", jsonRun.stdout)
	}
	ids := u.sessionIDs(t)
	if len(ids) != 2 {
		t.Fatalf("%d sessions, want 2", len(ids))
	}
	for _, id := range ids {
		for _, cmd := range [][]string{{"replay", id}, {"replay", "--json", id}, {"log", id}, {"log", "--json", id}} {
			r := u.run(t, secretEnv, cmd...)
			if r.code != 0 {
				t.Errorf("%s: exit %d: %s", cmd, r.code, r.stderr)
			}
			checkClean(t, strings.Join(cmd, " ")+" stdout", r.stdout)
			checkClean(t, strings.Join(cmd, " ")+" stderr", r.stderr)
		}
	}
	checkFilesClean(t, u.dir("state"))
	checkToolsRan(t, u, ids[0])
}

// checkToolsRan checks that the commands ran and saw what they should:
// the environment (without the secrets), and no way into rein's.
func checkToolsRan(t *testing.T, u *sandboxUser, id string) {
	t.Helper()
	var obs []string
	_, err := eventlog.ReadFile(filepath.Join(u.dir("state"), "rein", "sessions", id), nil, func(env contract.Envelope) error {
		if o, ok := env.Data.(*contract.ToolObservation); ok {
			obs = append(obs, o.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs) != 5 {
		t.Fatalf("%d observations, want 5: %q", len(obs), obs)
	}
	for i, want := range []string{"password=[REDACTED]", "HTAP", "", "walk done", "the key: [REDACTED]"} {
		if !strings.Contains(obs[i], want) {
			t.Errorf("observation %d lacks %q:\n%s", i+1, want, obs[i])
		}
	}
	walk := obs[3]
	if strings.Contains(walk, "rein pid: none") {
		t.Logf("no process named rein above the command (a PID namespace?); nothing to read: %s", walk)
		return
	}
	if strings.Count(walk, "Permission denied") < 3 {
		t.Errorf("reading rein's environment and memory was not refused three times:\n%s", walk)
	}
}

// A provider whose error echoes the key and a password of rein's
// environment: neither reaches stdout, stderr, --json or the session.
func TestProviderErrorEchoingSecrets(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (and the database said %s for %s)","type":"invalid_request_error","code":"invalid_api_key"}}`,
			testKey, testPassword, testURL)
	}))
	t.Cleanup(srv.Close)
	u := newSandboxUser(t)
	env := append([]string{"OPENAI_API_KEY=" + testKey}, secretEnv...)
	args := []string{"exec", "--provider", "openai", "--model", "m", "--base-url", srv.URL + "/v1"}
	for _, extra := range [][]string{nil, {"--json"}, {"--json", "--deltas"}} {
		r := u.run(t, env, append(append(args, extra...), "hi")...)
		name := strings.Join(append([]string{"exec"}, extra...), " ")
		if r.code != 1 || !strings.Contains(r.stderr+r.stdout, "OPENAI_API_KEY") {
			t.Errorf("%s: exit %d, want 1 naming OPENAI_API_KEY\nstdout:\n%s\nstderr:\n%s", name, r.code, r.stdout, r.stderr)
		}
		checkClean(t, name+" stdout", r.stdout)
		checkClean(t, name+" stderr", r.stderr)
		if !strings.Contains(r.stderr+r.stdout, "Incorrect API key provided: [REDACTED]") {
			t.Errorf("%s: the provider's message is not shown, cut:\nstdout:\n%s\nstderr:\n%s", name, r.stdout, r.stderr)
		}
	}
	checkFilesClean(t, u.dir("state"))
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || auth[0] != "Bearer "+testKey {
		t.Errorf("the server got %q, want the key sent as it is", auth)
	}
}

// rein's warnings on stderr have the secrets cut out, as the log does.
func TestWarningsCutSecrets(t *testing.T) {
	var buf bytes.Buffer
	r := eventlog.NewRedactor([]string{testKey, testPassword})
	logger := slog.New(&lineHandler{w: &buf, mu: new(sync.Mutex), redact: r.String})
	logger.With("endpoint", "http://u:"+testPassword+"@h").Warn("the server said "+testKey, "body", testKey)
	want := "rein: warning: the server said [REDACTED] (endpoint=http://u:[REDACTED]@h, body=[REDACTED])\n"
	if buf.String() != want {
		t.Errorf("warning line %q, want %q", buf.String(), want)
	}
}

// An error's message has the secrets cut out, and it is still the error
// it was for errors.Is.
func TestRedactErrKeepsTheError(t *testing.T) {
	sentinel := errors.New("sentinel")
	cut := eventlog.NewRedactor([]string{testKey}).String
	err := redactErr(fmt.Errorf("the key %s failed: %w", testKey, sentinel), cut)
	if err.Error() != "the key [REDACTED] failed: sentinel" || !errors.Is(err, sentinel) {
		t.Errorf("redactErr() = %q (is sentinel: %v)", err, errors.Is(err, sentinel))
	}
	if plain := errors.New("nothing secret"); redactErr(plain, cut) != plain {
		t.Error("an error without a secret was wrapped")
	}
}
