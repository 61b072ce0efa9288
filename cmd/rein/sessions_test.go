package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
)

// reinIn runs the binary in dir with env added to a clean environment.
func reinIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(rein, args...)
	cmd.Dir = dir
	cmd.Env = append(append(cleanEnv(), "NO_COLOR=1"), env...)
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

// decode parses JSON lines of envelopes.
func decode(t *testing.T, text string) []contract.Envelope {
	t.Helper()
	var out []contract.Envelope
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var env contract.Envelope
		if err := env.UnmarshalJSON(sc.Bytes()); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		out = append(out, env)
	}
	return out
}

// world is every file and directory under roots, with what a write, a
// creation or a read would change: size, modification time, mode and
// access time. It lists directories without touching their access times.
func world(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(p string)
	walk = func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		desc := fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			desc += fmt.Sprintf(" atime %d.%d", st.Atim.Sec, st.Atim.Nsec)
		}
		out[p] = desc
		if !fi.IsDir() {
			return
		}
		d, err := eventlog.OpenReadOnly(p)
		if err != nil {
			t.Fatal(err)
		}
		names, err := d.Readdirnames(-1)
		d.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			walk(filepath.Join(p, n))
		}
	}
	for _, root := range roots {
		walk(root)
	}
	return out
}

// recorded runs the crash script to its end with --json and returns the
// run, its session id and its live events.
func recorded(t *testing.T) (*crashRun, string, []contract.Envelope) {
	t.Helper()
	c := newCrashRun(t)
	var out, errw bytes.Buffer
	cmd := c.command("exec", "--json", "do the four steps")
	cmd.Stdout, cmd.Stderr = &out, &errw
	if err := cmd.Run(); err != nil {
		t.Fatalf("rein exec: %v\n%s", err, errw.String())
	}
	live := decode(t, out.String())
	return c, live[0].Session, live
}

// Replay re-reads the world, it never re-runs it: a session whose tools
// would change the workspace if run, and whose model cannot be asked (its
// script is gone), replays to the same state and transcript, and nothing
// at all changes on disk: no file written, created, or even read for its
// access time.
func TestReplayHasNoSideEffects(t *testing.T) {
	c, id, live := recorded(t)
	if err := os.Remove(c.script); err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(c.state, "rein", "sessions")
	logText, err := os.ReadFile(filepath.Join(sessions, id, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	before := world(t, sessions, c.ws) // after the read above: its access time counts as before
	empty := t.TempDir()               // no program can be found on PATH
	env := []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg, "PATH=" + empty}

	js := reinIn(t, c.ws, env, "replay", "--json", id)
	if js.code != 0 {
		t.Fatalf("rein replay --json: exit %d\n%s", js.code, js.stderr)
	}
	replayed := decode(t, js.stdout)
	if js.stdout != string(logText) {
		t.Errorf("replay --json is not the log, line for line")
	}
	want, got := statetest.Reduce(live), statetest.Reduce(replayed)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("replayed state mismatch (-live +replayed):\n%s", diff)
	}
	if got.Status != state.Completed {
		t.Errorf("replayed status %s, want completed", got.Status)
	}

	text := reinIn(t, c.ws, env, "replay", id)
	if text.code != 0 {
		t.Fatalf("rein replay: exit %d\n%s", text.code, text.stderr)
	}
	// The transcript: every model text and tool call, in order.
	rest := text.stdout
	for _, env := range live {
		var want string
		switch e := env.Data.(type) {
		case *contract.UserMessage:
			want = "› " + e.Text
		case *contract.ModelText:
			want = e.Text
		case *contract.IntentProposed:
			want = "● " + e.ToolName
		case *contract.InvocationCompleted:
			want = fmt.Sprintf("exit %d", e.ExitCode)
		}
		if want == "" {
			continue
		}
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("the replay lacks %q (seq %d) after what came before:\n%s", want, env.Seq, text.stdout)
		}
		rest = rest[i+len(want):]
	}
	for _, args := range [][]string{{"log", id[:12]}, {"log", "--type", "tool.*", "--json", id}, {"sessions", "--all"}, {"why", "effects.txt"}} {
		if r := reinIn(t, c.ws, env, args...); r.code != 0 {
			t.Errorf("rein %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if diff := cmp.Diff(before, world(t, sessions, c.ws)); diff != "" {
		t.Errorf("replay, log, sessions or why changed the disk (-before +after):\n%s", diff)
	}
}

// A fork at SEQ holds the parent's events up to SEQ; resuming the fork
// leaves the parent as it was.
func TestForkThenResumeLeavesTheParent(t *testing.T) {
	c, id, live := recorded(t)
	env := []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg}
	var at uint64 // inside the long tool call: started, not completed
	for _, e := range live {
		if s, ok := e.Data.(*contract.InvocationStarted); ok && strings.Contains(string(s.Input), "inside-b") {
			at = e.Seq
		}
	}
	parentDir := filepath.Join(c.state, "rein", "sessions", id)
	before := world(t, parentDir)
	f := reinIn(t, c.ws, env, "fork", id, "--at", fmt.Sprint(at))
	if f.code != 0 {
		t.Fatalf("rein fork: exit %d\n%s", f.code, f.stderr)
	}
	fork := strings.TrimSpace(f.stdout)
	js := reinIn(t, c.ws, env, "log", "--json", fork)
	events := decode(t, js.stdout)
	if uint64(len(events)) != at+1 {
		t.Fatalf("the fork holds %d events, want %d and session.forked", len(events), at)
	}
	if diff := cmp.Diff(statetest.Reduce(live[:at]), statetest.Reduce(events[:at]), cmpopts.IgnoreFields(state.State{}, "Session")); diff != "" {
		t.Errorf("fork state at %d mismatch (-parent +fork):\n%s", at, diff)
	}
	r := reinIn(t, c.ws, append(env, "PATH="+os.Getenv("PATH")), "resume", fork, "--provider", "scripted", "--script", writeScript(t, crashScript), "--permission-mode", "yolo")
	if r.code != 0 {
		t.Fatalf("rein resume of the fork: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "interrupted") {
		t.Errorf("the fork stopped inside a tool call; the resume should say it was interrupted:\n%s", r.stderr)
	}
	if diff := cmp.Diff(before, world(t, parentDir)); diff != "" {
		t.Errorf("resuming the fork changed the parent (-before +after):\n%s", diff)
	}
}

// Bad logs get clear messages, and nothing valid is lost or silently
// skipped.
func TestDamagedLogs(t *testing.T) {
	c, id, live := recorded(t)
	env := []string{"XDG_STATE_HOME=" + c.state, "XDG_CONFIG_HOME=" + c.cfg}
	dir := filepath.Join(c.state, "rein", "sessions", id)
	good, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	n := len(live)
	newer := fmt.Sprintf(`{"seq":%d,"id":"evt_x","time":"2026-11-30T08:00:00Z","session":%q,"turn":5,"type":"tool.sandboxed","data":{"profile":"strict"}}`+"\n", n+1, id)
	for _, tc := range []struct {
		name     string
		log      string
		events   int    // events replay shows
		replay   string // in replay's stderr
		resume   string // in resume's stderr
		resumeOK bool
	}{
		{name: "torn last line", log: string(good) + `{"seq":99,"id":"evt_`, events: n,
			replay: "torn", resume: "cut off a torn last line", resumeOK: true},
		{name: "garbage in the middle", log: strings.Join(lines[:5], "") + "garbage\n" + strings.Join(lines[5:], ""), events: n,
			replay: "damaged line", resume: "line 6"},
		{name: "newer event type", log: string(good) + newer, events: n + 1,
			replay: "", resume: "tool.sandboxed at seq " + fmt.Sprint(n+1)},
		{name: "empty file", log: "", events: 0, replay: "holds no event", resume: "holds no event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(tc.log), 0o600); err != nil {
				t.Fatal(err)
			}
			r := reinIn(t, c.ws, env, "replay", "--json", id)
			if r.code != 0 || !strings.Contains(r.stderr, tc.replay) {
				t.Errorf("replay: exit %d, stderr lacks %q:\n%s", r.code, tc.replay, r.stderr)
			}
			if got := len(decode(t, r.stdout)); got != tc.events {
				t.Errorf("replay showed %d events, want %d", got, tc.events)
			}
			if tc.name == "newer event type" {
				text := reinIn(t, c.ws, env, "replay", id)
				if !strings.Contains(text.stdout, "? tool.sandboxed: an event this rein does not know") {
					t.Errorf("replay does not show the unknown event as such:\n%s", text.stdout)
				}
			}
			after, _ := os.ReadFile(filepath.Join(dir, "events.jsonl"))
			if string(after) != tc.log {
				t.Errorf("replay changed the log")
			}
			goOn := strings.Replace(crashScript, `{"finish":"stop"}]}]}`, `{"finish":"stop"}]},{"steps":[{"text":"Going on."},{"finish":"stop"}]}]}`, 1)
			res := reinIn(t, c.ws, env, "resume", id, "go on", "--provider", "scripted", "--script", writeScript(t, goOn), "--permission-mode", "yolo")
			if (res.code == 0) != tc.resumeOK || !strings.Contains(res.stderr, tc.resume) {
				t.Errorf("resume: exit %d, want ok=%v and %q in:\n%s", res.code, tc.resumeOK, tc.resume, res.stderr)
			}
			if !tc.resumeOK {
				if after, _ := os.ReadFile(filepath.Join(dir, "events.jsonl")); string(after) != tc.log {
					t.Errorf("a refused resume changed the log")
				}
			}
		})
	}
	for _, args := range [][]string{{"replay", "ses_nothing"}, {"resume", "ses_nothing"}, {"log", "../../etc"}, {"fork", "ses_nothing"}} {
		r := reinIn(t, c.ws, env, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "ses_nothing") && !strings.Contains(r.stderr, "not a session id") {
			t.Errorf("rein %s: exit %d, want 2 and a message naming the id:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// Secrets never reach a session's files: a run whose key really is sent
// to a (local) model server, with a token in the environment, a tool that
// prints the environment, and a file holding both that a tool reads in
// full (its output is long enough to be kept as an artifact).
func TestSecretsNeverReachSessionFiles(t *testing.T) {
	const key, token = "sk-test-secret-4f9c2a7e", "ghp_testtoken8d3b1e60"
	ws := t.TempDir()
	big := strings.Repeat("filler line\n", 10) + "key " + key + " token " + token + "\n" + strings.Repeat("more filler\n", 8000)
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := serveChat(t, []chatTurn{
		{text: "Looking at the environment.", tool: "bash", args: `{"command":"env; echo key=$OPENAI_API_KEY token=$GITHUB_TOKEN"}`},
		{text: "Reading the notes.", tool: "bash", args: `{"command":"cat notes.txt"}`},
		{text: "Reading them again.", tool: "read_file", args: `{"path":"notes.txt","limit":100000}`},
		{text: "Done."},
	})
	stateDir := t.TempDir()
	r := reinIn(t, ws, []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=" + key, "GITHUB_TOKEN=" + token},
		"exec", "--provider", "openai", "--model", "m", "--base-url", srv.URL+"/v1", "--permission-mode", "yolo", "look around")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s", r.code, r.stderr)
	}
	srv.mu.Lock()
	auth := srv.auth
	srv.mu.Unlock()
	if len(auth) != 4 || auth[0] != "Bearer "+key {
		t.Fatalf("the server saw Authorization %q, want the key sent on each of 4 requests", auth)
	}
	files, artifacts := 0, 0
	err := filepath.Walk(filepath.Join(stateDir, "rein", "sessions"), func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		files++
		if strings.Contains(p, "artifacts") {
			artifacts++
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, secret := range []string{key, token} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the secret %s", p, secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if artifacts == 0 || files < 3 {
		t.Errorf("searched %d files, %d of them artifacts; the run should have left a log, an index and artifacts", files, artifacts)
	}
	log := sessionLog(t, result{state: stateDir})
	if !bytes.Contains(log, []byte("filler line")) || !bytes.Contains(log, []byte("[REDACTED]")) {
		t.Errorf("the log should hold the notes with the secrets cut out")
	}
}

// Without --provider, a resumed session goes on with the provider, model
// and endpoint its log recorded; the endpoint is recorded without the
// credentials a URL can carry.
func TestResumeReachesTheSameServer(t *testing.T) {
	srv := serveChat(t, []chatTurn{{text: "First answer."}, {text: "Second answer."}})
	ws, stateDir := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=sk-resume-test-key"}
	base := strings.Replace(srv.URL, "http://", "http://user:pw@", 1) + "/v1?token=abc"
	r := reinIn(t, ws, env, "exec", "--provider", "openai", "--model", "local-model", "--base-url", base, "first")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s", r.code, r.stderr)
	}
	first := decode(t, string(sessionLog(t, result{state: stateDir})))[0].Data.(*contract.SessionStarted)
	if want := srv.URL + "/v1"; first.BaseURL != want || first.Model != "local-model" {
		t.Errorf("session.started records %q %q, want %q local-model", first.BaseURL, first.Model, want)
	}
	r = reinIn(t, ws, env, "resume", "--last", "second")
	if r.code != 0 || !strings.Contains(r.stdout, "Second answer.") {
		t.Fatalf("rein resume: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.requests != 2 || len(srv.problems) > 0 {
		t.Errorf("the server saw %d requests (%v), want 2", srv.requests, srv.problems)
	}
}

// A local server's dummy key ("x") is no secret: cutting it out of the
// record would break it (event types, field names and words hold an x).
func TestShortKeyLeavesTheLogWhole(t *testing.T) {
	srv := serveChat(t, []chatTurn{{text: "next text"}})
	ws, stateDir := t.TempDir(), t.TempDir()
	r := reinIn(t, ws, []string{"XDG_STATE_HOME=" + stateDir, "XDG_CONFIG_HOME=" + t.TempDir(), "OPENAI_API_KEY=x"},
		"exec", "--provider", "openai", "--model", "local-model", "--base-url", srv.URL+"/v1", "say next")
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s", r.code, r.stderr)
	}
	log := sessionLog(t, result{state: stateDir})
	if bytes.Contains(log, []byte("REDACTED")) {
		t.Errorf("a one-letter key was cut out of the log:\n%s", log)
	}
	if events := decode(t, string(log)); events[len(events)-1].Type() != contract.TypeRunFinished {
		t.Errorf("the log does not end with run.finished")
	}
}
