package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/contract"
)

// answerTurns is a model that answers each message with a little
// markdown, streamed slowly enough to be seen.
const answerTurns = `{"chunk_delay_ms": 10, "turns":[
 {"steps":[{"text":"# Findings\n\nThe answer has **bold** words "},{"text":"and ` + "`code`" + `.\n\n- first point\n"},{"text":"- second point\n"},{"finish":"stop"}]},
 {"steps":[{"text":"Second answer."},{"finish":"stop"}]},
 {"steps":[{"text":"Third answer."},{"finish":"stop"}]}]}`

// A prompt typed and sent gets a streamed answer rendered as markdown,
// the prompt set apart above it; Ctrl-D leaves with exit 0 and the
// session's line.
func TestUIPromptAndStreamedAnswer(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("what is wrong?")
	s.keys("Enter")
	all := s.waitFor("Findings", "second point", "› what is wrong?")
	if strings.Contains(all, "**bold**") || strings.Contains(all, "# Findings") {
		t.Errorf("markdown arrived raw:\n%s", all)
	}
	s.waitVisible("scripted")
	s.keys("C-d")
	if got := s.exited(); got != "REIN-EXITED 0" {
		t.Errorf("exit: %s", got)
	}
	s.waitFor("session: ")
	ev := s.events()
	if n := countType(ev, contract.TypeUserMessage); n != 1 {
		t.Errorf("%d user messages, want 1", n)
	}
}

// A bracketed paste of three lines is one message and one run.
func TestUIPasteIsOneMessage(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.paste("line one\nline two\nline three")
	s.keys("Enter")
	s.waitFor("second point")
	s.keys("C-d")
	s.exited()
	ev := s.events()
	if n := countType(ev, contract.TypeRunStarted); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	for _, e := range ev {
		if m, ok := e.Data.(*contract.UserMessage); ok && m.Text != "line one\nline two\nline three" {
			t.Errorf("the message is %q", m.Text)
		}
	}
}

// Up recalls the last prompt into the composer.
func TestUIUpRecallsThePrompt(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("remember me")
	s.keys("Enter")
	s.waitFor("second point")
	s.keys("Up")
	s.waitVisible("› remember me")
}

// /help is answered by rein itself: no message, no model request; an
// unknown command says so and sends nothing either.
func TestUIHelpIsLocal(t *testing.T) {
	s := newScreen(t, 100, 40, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("/help")
	s.keys("Enter")
	s.waitFor("Commands", "/compact", "Shift+Tab")
	s.text("/nosuchthing")
	s.keys("Enter")
	s.waitFor("unknown command /nosuchthing")
	s.waitVisible("› /nosuchthing") // what was typed is kept
	s.keys("C-c", "C-d")
	s.exited()
	logs, _ := filepath.Glob(filepath.Join(s.state, "rein", "sessions", "ses_*", "events.jsonl"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if strings.Contains(string(b), contract.TypeModelRequested) || strings.Contains(string(b), contract.TypeUserMessage) {
			t.Errorf("a local command reached the log as a message or a request:\n%s", b)
		}
	}
}

// slowTurns streams for a long time: there is time to interrupt it.
const slowTurns = `{"chunk_delay_ms": 200, "turns":[
 {"steps":[{"text":"Streaming slowly "},{"text":"one "},{"text":"two "},{"text":"three "},{"text":"four "},{"text":"five "},
  {"text":"six "},{"text":"seven "},{"text":"eight "},{"text":"nine "},{"text":"ten "},{"text":"eleven "},{"text":"twelve "},
  {"text":"thirteen "},{"text":"fourteen "},{"text":"fifteen "},{"text":"sixteen "},{"text":"seventeen "},{"text":"eighteen "},
  {"text":"nineteen "},{"text":"twenty "},{"text":"twenty-one "},{"text":"twenty-two "},{"text":"twenty-three "},{"text":"END"},{"finish":"stop"}]},
 {"steps":[{"text":"After the interrupt."},{"finish":"stop"}]}]}`

// Esc during a stream interrupts the turn, records it as cancelled and
// gives the composer back.
func TestUIEscInterruptsAStream(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, slowTurns)...)
	s.ready()
	s.text("go")
	s.keys("Enter")
	s.waitFor("Streaming slowly")
	s.keys("Escape")
	all := s.waitFor("interrupted")
	if strings.Contains(all, "END") {
		t.Fatalf("the stream was not interrupted:\n%s", all)
	}
	s.text("/help")
	s.keys("Enter")
	s.waitFor("Commands")
	ev := s.events()
	if !finishedAs(ev, contract.OutcomeCancelled) {
		t.Errorf("the run is not recorded as cancelled")
	}
}

// sleepTurns runs a long command.
const sleepTurns = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"call_1","name":"bash","input":{"command":"sleep 30"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"done"},{"finish":"stop"}]}]}`

// Esc during a command stops the command and the turn.
func TestUIEscInterruptsACommand(t *testing.T) {
	s := newScreen(t, 100, 30, nil, append(scriptFlags(t, sleepTurns), "--permission-mode", "yolo")...)
	s.ready()
	s.text("wait a while")
	s.keys("Enter")
	s.waitVisible("sleep 30")
	s.keys("Escape")
	s.waitFor("interrupted")
	ev := s.events()
	stopped := false
	for _, e := range ev {
		if c, ok := e.Data.(*contract.InvocationCompleted); ok && c.Exit != contract.ExitOK {
			stopped = true
		}
	}
	if !stopped || !finishedAs(ev, contract.OutcomeCancelled) {
		t.Errorf("the command was not recorded as stopped and the run as cancelled")
	}
}

// Ctrl-C clears what is typed; on an empty composer it asks for a second
// one, which leaves; during a run it interrupts and rein stays.
func TestUICtrlC(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, slowTurns)...)
	s.ready()
	s.text("go")
	s.keys("Enter")
	s.waitFor("Streaming slowly")
	s.keys("C-c")
	s.waitFor("interrupted")
	s.text("some draft")
	s.waitVisible("› some draft")
	s.keys("C-c")
	s.waitGone("some draft")
	s.keys("C-c")
	s.waitVisible("press Ctrl-C again to exit")
	s.keys("C-c")
	if got := s.exited(); got != "REIN-EXITED 0" {
		t.Errorf("exit: %s", got)
	}
}

// editTurns edits a file, then runs a command that writes one.
const editTurns = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"call_0","name":"read_file","input":{"path":"calc.go"}}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"call_1","name":"edit_file","input":{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}}},{"finish":"tool_use"}]},
 {"steps":[{"tool":{"index":0,"id":"call_2","name":"bash","input":{"command":"touch checked"}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"All done."},{"finish":"stop"}]}]}`

const calcGo = "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"

// An approval shows the diff before the key; y allows it once; a allows
// always and keeps the rule in the person's answers file, for the
// workspace, not in the project.
func TestUIApprovalWithDiffAndAlways(t *testing.T) {
	s := newScreen(t, 100, 40, map[string]string{"calc.go": calcGo}, scriptFlags(t, editTurns)...)
	s.ready()
	s.text("fix Add")
	s.keys("Enter")
	v := s.waitVisible("[a]")
	for _, want := range []*regexp.Regexp{regexp.MustCompile(`(?m)^\+\s+return a \+ b`), regexp.MustCompile(`(?m)^-\s+return a - b`), regexp.MustCompile(`\[y\] yes`)} {
		if !want.MatchString(v) {
			t.Errorf("the approval does not show %s before the key:\n%s", want, v)
		}
	}
	s.answer("y")
	// The second dialog's head, not "(saved in": the first dialog says
	// that too, and may still be on the screen; nor the command, which
	// its card shows before the dialog opens.
	v = s.waitVisible("rein wants to run a command:")
	if !strings.Contains(v, "(saved in") || !strings.Contains(v, "projects.toml") {
		t.Errorf("the approval does not say where always saves:\n%s", v)
	}
	s.answer("a")
	s.waitFor("All done.")
	b, err := os.ReadFile(filepath.Join(s.dir, "calc.go"))
	if err != nil || !strings.Contains(string(b), "return a + b") {
		t.Errorf("the edit was not made: %s %v", b, err)
	}
	cfg, err := os.ReadFile(filepath.Join(s.state, "config", "rein", "projects.toml"))
	if err != nil || !strings.Contains(string(cfg), `allow = ["bash(touch checked)"]`) {
		t.Errorf("always did not keep the rule: %s %v", cfg, err)
	}
	if b, _ := os.ReadFile(filepath.Join(s.dir, ".rein", "config.toml")); strings.Contains(string(b), "touch checked") {
		t.Errorf("always wrote into the project's .rein/config.toml:\n%s", b)
	}
}

// Shift+Tab cycles the permission mode; the status line shows it and the
// log records it.
func TestUIShiftTabCyclesTheMode(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.keys("BTab")
	s.waitVisible("accept-edits")
	s.keys("BTab")
	s.waitVisible("plan")
	s.keys("C-d")
	s.exited()
	if n := countType(s.events(), contract.TypeModeChanged); n != 2 {
		t.Errorf("%d mode changes recorded, want 2", n)
	}
}

// !ls runs the person's own command, shows its output, and records it as
// theirs.
func TestUIBangRunsTheCommand(t *testing.T) {
	s := newScreen(t, 100, 30, map[string]string{"visible-file.txt": "x"}, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("!ls")
	s.keys("Enter")
	s.waitFor("visible-file.txt")
	s.keys("C-d")
	s.exited()
	mine := false
	for _, e := range s.events() {
		if p, ok := e.Data.(*contract.IntentProposed); ok && p.Origin == contract.OriginUser {
			mine = true
		}
	}
	if !mine {
		t.Errorf("!ls is not recorded as the person's own call")
	}
}

// rein resume ID -i shows the earlier conversation before the composer.
func TestUIResumeShowsThePast(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("the first question")
	s.keys("Enter")
	s.waitFor("second point")
	s.keys("C-d")
	s.exited()
	id := s.events()[0].Session
	s.stop() // the pane's shell sleeps
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	s.start(100, 30, append([]string{"resume", id, "-i"}, scriptFlags(t, answerTurns)...)...)
	s.ready()
	all := s.waitFor("the first question", "second point", "earlier conversation above")
	if strings.Index(all, "the first question") > strings.Index(all, "earlier conversation above") {
		t.Errorf("the past is not shown before the composer:\n%s", all)
	}
}

// A resize re-wraps the live region to the new width.
func TestUIResize(t *testing.T) {
	s := newScreen(t, 120, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	if err := s.tmux("resize-window", "-t", "0", "-x", "50", "-y", "20"); err != nil {
		t.Fatal(err)
	}
	s.text("a long draft that certainly does not fit in fifty columns of the terminal, not at all")
	v := s.waitVisible("not at all")
	// The scrollback keeps the width it was printed at, as a terminal's
	// does; the live region (the draft, the status line) follows the new
	// one.
	live := v[strings.LastIndex(v, "› "):]
	for _, l := range strings.Split(strings.TrimRight(live, "\n "), "\n") {
		if len([]rune(l)) > 50 {
			t.Errorf("a line is wider than the terminal (%d): %q", len([]rune(l)), l)
		}
	}
}

// finishedAs reports whether the last run.finished has outcome o.
func finishedAs(ev []contract.Envelope, o contract.Outcome) bool {
	var last *contract.RunFinished
	for _, e := range ev {
		if f, ok := e.Data.(*contract.RunFinished); ok {
			last = f
		}
	}
	return last != nil && last.Outcome == o
}

// A hostile model cannot drive the terminal through the UI either: its
// reasoning, text, command, tool name and error reach the screen made
// visible, never as the sequences themselves.
func TestUIHostileModel(t *testing.T) {
	ws, script := hostileWorkspace(t)
	state := t.TempDir()
	env := append(cleanEnv(), "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+filepath.Join(state, "config"), "TMPDIR="+t.TempDir(), "TERM=xterm-256color")
	cmd, ptmx := onPTY(t, ws, env, "--provider", "scripted", "--script", script, "tidy \x1b]0;prompt\x07 up")
	defer ptmx.Close()
	var seen strings.Builder
	wait := func(want string) {
		t.Helper()
		buf := make([]byte, 4096)
		deadline := time.Now().Add(uiWait)
		for !strings.Contains(ansiStrip(seen.String()), want) {
			if time.Now().After(deadline) {
				t.Fatalf("the terminal never showed %q:\n%q", want, seen.String())
			}
			_ = ptmx.SetReadDeadline(time.Now().Add(time.Second))
			n, _ := ptmx.Read(buf)
			seen.Write(buf[:n])
		}
	}
	wait("[y]")
	time.Sleep(answerAfter)
	if _, err := ptmx.WriteString("y"); err != nil {
		t.Fatal(err)
	}
	wait("denied")
	if _, err := ptmx.WriteString("\x04"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	buf := make([]byte, 4096)
	for {
		_ = ptmx.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := ptmx.Read(buf)
		seen.Write(buf[:n])
		select {
		case <-done:
			goto check
		default:
		}
		if err != nil && !os.IsTimeout(err) {
			<-done
			goto check
		}
	}
check:
	out := seen.String()
	for _, raw := range []string{"\x1b]52;", "\x1b]0;cmd-title", "\x1b]0;title", "\x1b]0;out-title", "\x1b]0;prompt", "\x1b]0;dir-title", "\u202e", "\u200b", "\u009b"} {
		if strings.Contains(out, raw) {
			t.Errorf("the model's %q reached the terminal raw", raw)
		}
	}
	if !strings.Contains(out, `\x1b]52;c;`) {
		t.Errorf("the model's sequences are not shown visibly:\n%q", out)
	}
}

// ansiStrip drops the terminal's own sequences, to read what it shows.
func ansiStrip(s string) string { return ansi.Strip(s) }

// Closing the terminal (SIGHUP) during the person's own command stops the
// command and records the run's end, as Ctrl-C would, before rein exits.
func TestUIHangupStopsTheCommand(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("!sleep 3; touch effect")
	s.keys("Enter")
	s.waitVisible("sleep 3")
	out, err := exec.Command("tmux", "-S", s.socket, "display", "-p", "-t", "0", "#{pane_pid}").Output()
	if err != nil {
		t.Fatal(err)
	}
	children, err := exec.Command("pgrep", "-P", strings.TrimSpace(string(out))).Output()
	if err != nil {
		t.Fatalf("no rein under the pane's shell: %v", err)
	}
	pid, err := strconv.Atoi(strings.Fields(string(children))[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if got := s.exited(); got != "REIN-EXITED 129" {
		t.Errorf("exit: %s, want 129", got)
	}
	time.Sleep(4 * time.Second) // past the sleep: the command must be gone
	if _, err := os.Stat(filepath.Join(s.dir, "effect")); err == nil {
		t.Errorf("the command went on after rein was hung up")
	}
	stopped := false
	for _, e := range s.events() {
		if c, ok := e.Data.(*contract.InvocationCompleted); ok && c.Exit != contract.ExitOK {
			stopped = true
		}
	}
	if !stopped {
		t.Errorf("the command's end was not recorded as stopped")
	}
}
