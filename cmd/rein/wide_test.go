package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// wideTurns reads, then writes twice.
const wideTurns = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"c1","name":"bash","args":"{\"command\":\"ls -la\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c2","name":"bash","args":"{\"command\":\"touch m1\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c3","name":"bash","args":"{\"command\":\"touch m2\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Done."},{"finish":"stop"}]}]}`

// Started in the home directory, rein says the whole of it is the
// workspace, and asks before the session's first write whatever the mode
// (yolo here): headless, that write is refused and says where to start
// rein; a read runs.
func TestStartedInHomeAsksBeforeTheFirstWrite(t *testing.T) {
	home, state, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	r := reinIn(t, home, []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "TMPDIR=" + tmp, "XDG_CONFIG_HOME=" + filepath.Join(tmp, "config")},
		append(scriptFlags(t, wideTurns), "exec", "--json", "--permission-mode", "yolo", "go")...)
	if !strings.Contains(r.stderr, "is your home directory") || !strings.Contains(r.stderr, "asks before the session's first write") {
		t.Errorf("no warning that the workspace is the home directory:\n%s", r.stderr)
	}
	var decisions []string
	for _, env := range decode(t, r.stdout) {
		if p, ok := env.Data.(*contract.ToolPermission); ok {
			decisions = append(decisions, string(p.Decision)+" by "+p.By)
			if p.Decision == contract.Deny && !strings.Contains(p.Reason, "start rein in a project's directory") {
				t.Errorf("the refusal does not say where to start rein: %s", p.Reason)
			}
		}
	}
	if want := "allow by mode,deny by headless,deny by headless"; strings.Join(decisions, ",") != want {
		t.Errorf("decisions %q, want %q", decisions, want)
	}
	if _, err := os.Stat(filepath.Join(home, "m1")); err == nil {
		t.Errorf("the first write ran without a question")
	}
}

// In the UI, that first write is asked about, with the reason; once
// allowed, the mode decides the next one.
func TestUIStartedInHomeAsksOnce(t *testing.T) {
	args := append(scriptFlags(t, wideTurns), "--permission-mode", "yolo")
	s := newScreenEnv(t, 100, 30, nil, nil, args...)
	// The workspace is made by newScreenEnv: start rein again with it as
	// its home.
	s.stop()
	s.env = append(s.env, "HOME="+s.dir)
	s.start(100, 30, args...)
	s.ready()
	// The warning rein gave while the session opened is the UI's, under
	// its banner, not a line written under its frame; a resize keeps it.
	all := s.waitFor("warning: The workspace is your home directory")
	if strings.Contains(all, "rein: warning: The workspace") {
		t.Errorf("the warning was written to the terminal under the UI:\n%s", all)
	}
	_ = s.tmux("resize-window", "-t", "0", "-x", "80", "-y", "30")
	time.Sleep(500 * time.Millisecond)
	s.waitFor("warning: The workspace is your home directory")
	s.text("go")
	s.keys("Enter")
	s.waitVisible("is your home directory")
	s.answer("y")
	s.waitFor("Done.")
	for _, f := range []string{"m1", "m2"} {
		if _, err := os.Stat(filepath.Join(s.dir, f)); err != nil {
			t.Errorf("%s was not made: %v", f, err)
		}
	}
	asks := 0
	for _, env := range s.events() {
		if p, ok := env.Data.(*contract.ToolPermission); ok && p.By == "user" {
			asks++
		}
	}
	if asks != 1 {
		t.Errorf("%d questions answered, want 1: the first write only", asks)
	}
}

// homeTurns has the model reach for the credential store with each file
// tool, then search the whole home directory.
const homeTurns = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"c1","name":"read_file","args":"{\"path\":\".ssh/id_ed25519\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c2","name":"read_file","args":"{\"path\":\"notes/key\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c3","name":"list_dir","args":"{\"path\":\".ssh\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c4","name":"grep","args":"{\"pattern\":\"FAKE-KEY\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c5","name":"glob","args":"{\"pattern\":\"**/*id_ed25519*\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"c6","name":"read_file","args":"{\"path\":\"notes/todo.md\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Done."},{"finish":"stop"}]}]}`

// Started in the home directory, the file tools do not read what the
// sandbox hides from commands: read_file and list_dir there ask (headless:
// refused), grep and glob over the whole home directory do not walk into
// it, nor read a link that leads there; the rest reads as before, and the
// key appears nowhere.
func TestHomeWorkspaceFileToolsKeepOutOfTheCredentials(t *testing.T) {
	home := t.TempDir()
	const key = "FAKE-KEY-hidden-4711"
	for name, text := range map[string]string{".ssh/id_ed25519": key + "\n", "notes/todo.md": "buy milk\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "notes", "key")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, ".local", "state")
	r := reinIn(t, home, []string{"HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "TMPDIR=" + t.TempDir()},
		append(scriptFlags(t, homeTurns), "exec", "--json", "--permission-mode", "default", "go")...)
	if r.code != 0 {
		t.Fatalf("rein exec: exit %d\n%s", r.code, r.stderr)
	}
	var decisions []string
	for _, env := range decode(t, r.stdout) {
		if p, ok := env.Data.(*contract.ToolPermission); ok {
			decisions = append(decisions, string(p.Decision)+" by "+p.By)
			if p.Decision == contract.Deny && !strings.Contains(p.Reason, "sandbox hides your credentials") {
				t.Errorf("the refusal does not say why: %s", p.Reason)
			}
		}
	}
	want := "deny by headless,deny by headless,deny by headless,allow by mode,allow by mode,allow by mode"
	if strings.Join(decisions, ",") != want {
		t.Errorf("decisions %q, want %q", decisions, want)
	}
	if strings.Contains(r.stdout, key) || strings.Contains(r.stderr, key) {
		t.Errorf("the key reached the output:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "buy milk") {
		t.Errorf("notes/todo.md was not read:\n%s", r.stdout)
	}
	_ = filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), key) {
				t.Errorf("%s holds the key", path)
			}
		}
		return nil
	})
}
