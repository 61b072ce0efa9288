package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// screen drives rein's terminal UI as a person does: in a real terminal
// (tmux, with its own server), typing keys and reading what the terminal
// shows, scrollback included.
type screen struct {
	t      *testing.T
	socket string
	dir    string // the workspace
	state  string // XDG_STATE_HOME
	env    []string
}

// uiWait bounds how long a test waits for the screen to show something;
// it is a deadline for a broken UI, not a timing assertion.
const uiWait = 20 * time.Second

// newScreen starts rein with args in a fresh workspace (files written
// into it first) on a terminal of cols x rows.
func newScreen(t *testing.T, cols, rows int, files map[string]string, args ...string) *screen {
	t.Helper()
	return newScreenEnv(t, cols, rows, files, nil, args...)
}

// newScreenEnv is newScreen with env added to rein's environment.
func newScreenEnv(t *testing.T, cols, rows int, files map[string]string, env []string, args ...string) *screen {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("REIN_REQUIRE_UI") != "" {
			t.Fatalf("tmux is needed to drive the terminal UI: %v", err)
		}
		t.Skipf("no tmux here: %v", err)
	}
	s := &screen{t: t, dir: shortDir(t), state: shortDir(t)}
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	for name, body := range files {
		p := filepath.Join(s.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.env = append(cleanEnv(), "XDG_STATE_HOME="+s.state, "XDG_CONFIG_HOME="+filepath.Join(s.state, "config"),
		"TMPDIR="+t.TempDir(), "TERM=xterm-256color", "NO_COLOR=")
	s.env = append(s.env, env...)
	s.start(cols, rows, args...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the screen at the end:\n%s", s.all())
		}
		s.stop()
	})
	return s
}

// shortDir makes a directory whose path has the same length in every
// run (/tmp/rein-ui-0123abcd), so that a screen that shows it wraps the
// same way each time; golden screens mask it.
func shortDir(t *testing.T) string {
	t.Helper()
	for {
		dir := fmt.Sprintf("/tmp/rein-ui-%08x", rand.Uint32())
		if err := os.Mkdir(dir, 0o700); err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) }) // a leftover is harmless
			return dir
		} else if !os.IsExist(err) {
			t.Fatal(err)
		}
	}
}

// start runs rein args in a new tmux window.
func (s *screen) start(cols, rows int, args ...string) {
	s.t.Helper()
	quoted := []string{shellQuote(rein)}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	// remain-on-exit keeps the pane (and its last screen) when rein ends.
	cmd := strings.Join(quoted, " ") + "; code=$?; echo; echo REIN-EXITED $code; sleep 30"
	if err := s.tmux("new-session", "-d", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), "-c", s.dir, "sh", "-c", cmd); err != nil {
		s.t.Fatalf("tmux new-session: %v", err)
	}
}

// stop ends the terminal and waits for rein to be gone: the terminal's
// hangup makes rein record how its run ended, and its session directory
// must not be written while the test's temporary directories go.
func (s *screen) stop() {
	var pids []int
	if out, err := exec.Command("tmux", "-S", s.socket, "list-panes", "-a", "-F", "#{pane_pid}").Output(); err == nil {
		for _, shell := range strings.Fields(string(out)) {
			if kids, err := exec.Command("pgrep", "-P", shell).Output(); err == nil {
				for _, k := range strings.Fields(string(kids)) {
					if pid, err := strconv.Atoi(k); err == nil {
						pids = append(pids, pid)
					}
				}
			}
		}
	}
	_ = s.tmux("kill-server") // the server may be gone already
	deadline := time.Now().Add(uiWait)
	for _, pid := range pids {
		for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func (s *screen) tmux(args ...string) error {
	cmd := exec.Command("tmux", append([]string{"-S", s.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = s.env
	cmd.Dir = s.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// keys sends tmux key names (Enter, Escape, C-c, BTab, Up) or literal
// text (with -l when literal).
func (s *screen) keys(keys ...string) {
	s.t.Helper()
	if err := s.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...); err != nil {
		s.t.Fatal(err)
	}
}

// text types text literally.
func (s *screen) text(text string) {
	s.t.Helper()
	if err := s.tmux("send-keys", "-t", "0", "-l", text); err != nil {
		s.t.Fatal(err)
	}
}

// paste pastes text as a terminal does (bracketed, when the program
// asked for it).
func (s *screen) paste(text string) {
	s.t.Helper()
	if err := s.tmux("set-buffer", "--", text); err != nil {
		s.t.Fatal(err)
	}
	if err := s.tmux("paste-buffer", "-p", "-t", "0"); err != nil {
		s.t.Fatal(err)
	}
}

// visible is what the terminal shows now; all adds the scrollback.
func (s *screen) visible() string { return s.capture() }
func (s *screen) all() string     { return s.capture("-S", "-") }

func (s *screen) capture(extra ...string) string {
	cmd := exec.Command("tmux", append([]string{"-S", s.socket, "capture-pane", "-p", "-J", "-t", "0"}, extra...)...)
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// waitFor waits until the screen (scrollback included) holds every one
// of want, and returns it.
func (s *screen) waitFor(want ...string) string {
	s.t.Helper()
	deadline := time.Now().Add(uiWait)
	for {
		all := s.all()
		missing := ""
		for _, w := range want {
			if !strings.Contains(all, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return all
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", missing, all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitVisible waits until the visible screen (no scrollback) holds want.
func (s *screen) waitVisible(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(uiWait)
	for {
		v := s.visible()
		if strings.Contains(v, want) {
			return v
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", want, v)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answerAfter is how long a person looks at a question before the key:
// a key pressed as it appears is typing, never an answer.
const answerAfter = 600 * time.Millisecond

// answer presses key on the question shown, after looking at it.
func (s *screen) answer(key string) {
	s.t.Helper()
	time.Sleep(answerAfter)
	s.keys(key)
}

// waitGone waits until the visible screen no longer holds text.
func (s *screen) waitGone(text string) {
	s.t.Helper()
	deadline := time.Now().Add(uiWait)
	for strings.Contains(s.visible(), text) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen still shows %q:\n%s", text, s.visible())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ready waits for the composer's first frame.
func (s *screen) ready() { s.t.Helper(); s.waitVisible("› ") }

// exited waits for rein to end and returns its exit code's line.
func (s *screen) exited() string {
	s.t.Helper()
	all := s.waitFor("REIN-EXITED")
	i := strings.LastIndex(all, "REIN-EXITED")
	line, _, _ := strings.Cut(all[i:], "\n")
	return strings.TrimSpace(line)
}

// events returns the durable events of the workspace's only (or last)
// session.
func (s *screen) events() []contract.Envelope {
	s.t.Helper()
	logs, _ := filepath.Glob(filepath.Join(s.state, "rein", "sessions", "ses_*", "events.jsonl"))
	if len(logs) == 0 {
		s.t.Fatalf("no session log under %s", s.state)
	}
	var newest string
	var at time.Time
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil && fi.ModTime().After(at) {
			newest, at = l, fi.ModTime()
		}
	}
	f, err := os.Open(newest)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	var out []contract.Envelope
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var env contract.Envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			s.t.Fatalf("%s: %v", newest, err)
		}
		out = append(out, env)
	}
	return out
}

// count counts the events of type typ.
func countType(events []contract.Envelope, typ string) int {
	n := 0
	for _, e := range events {
		if e.Type() == typ {
			n++
		}
	}
	return n
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// script writes a scripted model's turns into a file and returns the
// flags that use it.
func scriptFlags(t testing.TB, turns string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(p, []byte(turns), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"--provider", "scripted", "--script", p}
}
