package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"
)

// hostileTurns is a scripted model that tries to take over the terminal
// through its reasoning, its text (an escape sequence cut across two
// deltas), a command whose text and output carry sequences (and which
// writes a file, so that default mode asks about it), a tool name, and
// its provider's error message.
const hostileTurns = `{"turns":[
 {"steps":[
  {"reasoning":"plan \u001b]52;c;"},{"reasoning":"cmVhc29u\u0007 \u202etxt.exe\u200b"},
  {"text":"Clearing \u001b[2J\u001b[?1049h"},{"text":"\u009b31m done\rfake"},
  {"tool":{"index":0,"id":"call_1","name":"bash","input":{
    "command":"printf 'out \\033]52;c;b3V0\\007 \\033]0;out-title\\007 \\342\\200\\256 \\r\\n'; touch printed # \u001b]0;cmd-title\u0007\u202e"}}},
  {"finish":"tool_use"}]},
 {"steps":[
  {"text":"Next \u001b]0;title\u0007."},
  {"tool":{"index":0,"id":"call_2","name":"ls\u001b[2J\u202e","input":{}}},
  {"finish":"tool_use"}]},
 {"fail":[{"kind":"auth","http_status":401,"message":"denied \u001b]52;c;ZXJy\u0007 \u202e\u200b"}],
  "steps":[{"finish":"stop"}]}]}`

// rawSequence matches what a terminal acts on or hides, but rein's own
// colours: an ESC that does not start an SGR sequence, other C0 controls
// but newline and tab, DEL, C1 controls, and the bidirectional and
// zero-width characters.
var rawSequence = regexp.MustCompile("\x1b(?:[^\\[]|\\[[0-9;]*[^0-9;m])|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")

// checkTerminalSafe fails if out holds a raw sequence or bytes that are not
// UTF-8, or does not show what was attempted. A terminal's line discipline
// turns each newline rein writes into CR LF; rein itself writes no CR but
// in the erasure of its own status line (a retry's), \r\x1b[K.
func checkTerminalSafe(t *testing.T, what, out string, terminal bool) {
	t.Helper()
	if terminal {
		out = strings.ReplaceAll(out, "\r\n", "\n")
		out = strings.ReplaceAll(out, "\r\x1b[K", "")
	}
	if loc := rawSequence.FindStringIndex(out); loc != nil {
		t.Errorf("%s holds %q raw:\n%q", what, out[loc[0]:loc[1]], out[max(0, loc[0]-60):min(len(out), loc[1]+60)])
	}
	if !utf8.ValidString(out) || strings.HasSuffix(out, "\x1b") {
		t.Errorf("%s is not UTF-8, or ends inside a sequence:\n%q", what, out)
	}
	if !strings.Contains(out, `\x1b`) && !strings.Contains(out, `\u001b`) {
		t.Errorf("%s does not show the sequences:\n%s", what, out)
	}
}

// hostileWorkspace is a workspace whose own name carries a title
// sequence (a repository cloned under any name), with a project
// configuration that makes rein warn, naming the file.
func hostileWorkspace(t *testing.T) (ws, script string) {
	t.Helper()
	ws = filepath.Join(t.TempDir(), "repo\x1b]0;dir-title\x07\u202e")
	if err := os.MkdirAll(filepath.Join(ws, ".rein"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".rein", "config.toml"), []byte("colour = \"\u202e\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(t.TempDir(), "hostile.json")
	if err := os.WriteFile(script, []byte(hostileTurns), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, script
}

// toFiles runs rein in dir with stdout and stderr sent to files, as
// `rein ... > out 2> err` does, and returns what each holds.
func toFiles(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string) {
	t.Helper()
	files := t.TempDir()
	out, err := os.Create(filepath.Join(files, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errw, err := os.Create(filepath.Join(files, "err"))
	if err != nil {
		t.Fatal(err)
	}
	defer errw.Close()
	cmd := exec.Command(rein, args...)
	cmd.Dir, cmd.Env = dir, append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = out, errw
	if err := cmd.Run(); err != nil {
		if _, ok := errors.AsType[*exec.ExitError](err); !ok {
			t.Fatal(err)
		}
	}
	o, _ := os.ReadFile(out.Name())
	e, _ := os.ReadFile(errw.Name())
	return string(o), string(e)
}

// onTerminal runs rein in dir on a pseudo-terminal (stdin, stdout and
// stderr all on it, as a person's shell runs it), types input, and
// returns everything the terminal was sent.
func onTerminal(t *testing.T, dir string, env []string, input string, args ...string) string {
	t.Helper()
	cmd := exec.Command(rein, args...)
	cmd.Dir, cmd.Env = dir, append(cleanEnv(), env...)
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if input != "" {
		if _, err := io.WriteString(ptmx, input); err != nil {
			t.Fatal(err)
		}
	}
	var screen bytes.Buffer
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(&screen, ptmx)
		read <- err
	}()
	if err := cmd.Wait(); err != nil {
		if _, ok := errors.AsType[*exec.ExitError](err); !ok {
			t.Fatal(err)
		}
	}
	// The terminal reports EIO once the last process holding it is gone.
	if err := <-read; err != nil && !errors.Is(err, syscall.EIO) {
		t.Fatal(err)
	}
	return screen.String()
}

// A hostile model, in a workspace with a hostile name and a project
// configuration rein warns about, cannot send one escape sequence to the
// terminal: not from exec with its output in files, not from exec or an
// interactive session (with its approval prompt) on a real terminal, and
// not from replay and log of those sessions.
func TestNoRawSequenceReachesTheTerminal(t *testing.T) {
	ws, script := hostileWorkspace(t)
	state := t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + filepath.Join(state, "config"), "TMPDIR=" + t.TempDir()}
	outputs := map[string]string{}
	outputs["exec stdout (a file)"], outputs["exec stderr (a file)"] = toFiles(t, ws, env,
		"exec", "--provider", "scripted", "--script", script, "--permission-mode", "yolo", "tidy \x1b]0;prompt\x07 up")
	outputs["exec on a terminal"] = onTerminal(t, ws, env, "",
		"exec", "--provider", "scripted", "--script", script, "--permission-mode", "yolo", "tidy \x1b]0;prompt\x07 up")
	// Interactive, default mode: the command asks; the person says yes,
	// then leaves with Ctrl-D.
	interactive := onTerminal(t, ws, env, "y\n\x04", "--plain", "--provider", "scripted", "--script", script, "tidy \x1b]0;prompt\x07 up")
	outputs["interactive on a terminal"] = interactive
	if !strings.Contains(interactive, "? rein wants to run:") || !strings.Contains(interactive, `# \x1b]0;cmd-title\x07<U+202E>`) {
		t.Errorf("the approval prompt does not show the command visibly:\n%s", interactive)
	}
	if !regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(outputs["exec on a terminal"]) {
		t.Errorf("exec on a terminal has no colour; is it a terminal?\n%q", outputs["exec on a terminal"])
	}
	logs, _ := filepath.Glob(filepath.Join(state, "rein", "sessions", "ses_*"))
	if len(logs) != 3 {
		t.Fatalf("found %d sessions, want 3", len(logs))
	}
	for _, dir := range logs {
		id := filepath.Base(dir)
		outputs["replay "+id], _ = toFiles(t, ws, env, "replay", id)
		outputs["log "+id], _ = toFiles(t, ws, env, "log", id)
		outputs["replay on a terminal "+id] = onTerminal(t, ws, env, "", "replay", id)
	}
	outputs["sessions on a terminal"] = onTerminal(t, ws, env, "", "sessions", "--all")
	for what, out := range outputs {
		checkTerminalSafe(t, what, out, strings.Contains(what, "on a terminal"))
	}
	for _, want := range []string{`plan \x1b]52;c;cmVhc29u\x07 <U+202E>txt.exe<U+200B>`, `Clearing \x1b[2J\x1b[?1049h\x9b31m done\rfake`,
		`\x1b]52;c;b3V0\x07 \x1b]0;out-title\x07 <U+202E> \r`, `ls\x1b[2J<U+202E>`, `denied \x1b]52;c;ZXJy\x07 <U+202E><U+200B>`,
		`repo\x1b]0;dir-title\x07<U+202E>/.rein/config.toml:1: unknown key`} {
		if !strings.Contains(outputs["exec stdout (a file)"]+outputs["exec stderr (a file)"], want) {
			t.Errorf("exec does not show %q:\nstdout:\n%s\nstderr:\n%s", want, outputs["exec stdout (a file)"], outputs["exec stderr (a file)"])
		}
	}
}
