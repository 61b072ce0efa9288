package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
)

// askingTurns streams for about a second, then asks to run a command
// that writes (default mode asks), then answers.
const askingTurns = `{"chunk_delay_ms": 60, "turns":[
 {"steps":[{"text":"Looking "},{"text":"at "},{"text":"the "},{"text":"files "},{"text":"first, "},{"text":"then "},{"text":"one "},
  {"text":"command. "},{"text":"Here "},{"text":"it "},{"text":"comes."},
  {"tool":{"index":0,"id":"c1","name":"bash","args":"{\"command\":\"echo bench-ok > out.txt\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Done."},{"finish":"stop"}]},
 {"steps":[{"text":"And again."},{"finish":"stop"}]}]}`

// Keys typed ahead while the model works never answer the question that
// appears mid-word: they go on into the draft; only a key after a pause
// answers. Nothing is saved, and the draft is all that was typed.
func TestUITypeAheadNeverAnswers(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, askingTurns)...)
	s.ready()
	s.text("go")
	s.keys("Enter")
	typed := ""
	deadline := time.Now().Add(uiWait)
	// A slow typist's keys, 430 ms apart (each after a gap longer than
	// the guard's 300 ms), from before the question appears to well after
	// it.
	for i := 0; ; i++ {
		c := string("and also check the tests please "[i%32])
		s.text(c)
		typed += c
		time.Sleep(430 * time.Millisecond)
		if strings.Contains(s.visible(), "[y] yes") && i > 0 && len(typed) > 12 {
			for range 10 {
				c := string("ayadyayad"[i%9])
				s.text(c)
				typed += c
				time.Sleep(430 * time.Millisecond)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question appeared:\n%s", s.all())
		}
	}
	for _, e := range s.events() {
		if p, ok := e.Data.(*contract.ToolPermission); ok && p.By == "user" {
			t.Fatalf("typing answered the question: %+v", p)
		}
	}
	s.waitVisible("your draft, kept:")
	s.answer("n")
	s.waitFor("Done.")
	var answer *contract.ToolPermission
	for _, e := range s.events() {
		if p, ok := e.Data.(*contract.ToolPermission); ok && p.By == "user" {
			answer = p
		}
	}
	if answer == nil || answer.Decision != contract.Deny || answer.Rule != "" {
		t.Errorf("the answer recorded is %+v, want the no given after the pause", answer)
	}
	if _, err := os.Stat(filepath.Join(s.state, "config", "rein", "projects.toml")); err == nil {
		t.Errorf("a rule was saved")
	}
	if _, err := os.Stat(filepath.Join(s.dir, "out.txt")); err == nil {
		t.Errorf("the command ran")
	}
	if !strings.Contains(s.visible(), "› "+typed) {
		t.Errorf("the draft does not hold what was typed (%q):\n%s", typed, s.visible())
	}
}

// outputTurns runs a command with twelve lines of output and lists the
// workspace.
const outputTurns = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"c1","name":"bash","args":"{\"command\":\"seq 101 112\"}"}},
  {"tool":{"index":1,"id":"c2","name":"list_dir","args":"{\"path\":\".\"}"}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Listed."},{"finish":"stop"}]}]}`

// A command that succeeded shows its first five lines and how many more;
// list_dir shows what it found; Ctrl-O prints the latest output whole.
func TestUIToolOutputAndCtrlO(t *testing.T) {
	files := map[string]string{}
	for i := range 9 {
		files["f"+strconv.Itoa(i)+".txt"] = "x\n"
	}
	s := newScreen(t, 100, 40, files, scriptFlags(t, outputTurns)...)
	s.ready()
	s.keys("C-o")
	s.waitFor("no tool output to show yet")
	s.text("go")
	s.keys("Enter")
	all := s.waitFor("Listed.")
	for _, want := range []string{"● bash seq 101 112", "101\n    102\n    103\n    104\n    105\n    +7 lines (ctrl+o shows the whole output)",
		"● list_dir .", "f0.txt"} {
		if !strings.Contains(all, want) {
			t.Errorf("the screen lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "    112") {
		t.Errorf("the card shows all the output, not its first lines:\n%s", all)
	}
	s.keys("C-o")
	s.waitFor("  f8.txt  2 B")
	s.keys("C-d")
	s.exited()
	// After a resume, Ctrl-O shows the earlier conversation's latest
	// output.
	id := s.events()[0].Session
	s.stop()
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	s.start(100, 40, append([]string{"resume", id, "-i"}, scriptFlags(t, outputTurns)...)...)
	s.waitFor("earlier conversation above")
	if strings.Contains(s.all(), "f8.txt") {
		t.Fatalf("the resumed card shows more than its first lines:\n%s", s.all())
	}
	s.keys("C-o")
	s.waitFor("  f8.txt  2 B") // the whole listing, from the earlier conversation
}

// Ctrl-Z suspends rein as a shell's job, its frame taken off the screen;
// fg brings it back, and it works. Without a shell's job control it says
// why it cannot.
func TestUICtrlZSuspends(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	// Started by sh -c, which has no job control: nothing could bring a
	// stopped rein back, so it says so and goes on.
	s.keys("C-z")
	s.waitFor("Ctrl-Z needs a shell with job control")
	s.text("still here")
	s.waitVisible("› still here")
	s.stop()
	// A shell with job control, which the screen's sh -c has not.
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	if err := s.tmux("new-session", "-d", "-x", "100", "-y", "30", "-c", s.dir, "bash", "--norc", "--noprofile", "-i"); err != nil {
		t.Fatal(err)
	}
	args := []string{shellQuote(rein)}
	for _, a := range scriptFlags(t, answerTurns) {
		args = append(args, shellQuote(a))
	}
	s.text("PS1='$ ' " + strings.Join(args, " "))
	s.keys("Enter")
	s.ready()
	s.text("a draft")
	s.keys("C-z")
	s.waitFor("Stopped")
	if strings.Contains(s.visible(), "› a draft") {
		t.Errorf("the frame stayed on the screen after Ctrl-Z:\n%s", s.visible())
	}
	s.text("fg")
	s.keys("Enter")
	s.waitVisible("› a draft")
	s.keys("C-u")
	s.text("the first question")
	s.keys("Enter")
	s.waitFor("second point")
	s.keys("C-c", "C-c")
	s.waitFor("goes on)")
}

// rein demo in a terminal plays in the UI, in default mode: the scripted
// model is labelled as such, its edit is asked about with the diff, the
// answer is the person's, and the run ends with the tests passing.
func TestUIDemo(t *testing.T) {
	s := newScreen(t, 90, 40, nil, "demo")
	all := s.waitFor("the model is SCRIPTED", "[y] yes", "+    return sum / float64(len(xs))")
	if !strings.Contains(all, "rein wants to use edit_file") {
		t.Errorf("the edit is not asked about:\n%s", all)
	}
	s.answer("y")
	s.waitFor("The demo is done", "The tests pass now.")
	s.keys("C-d")
	if code := s.exited(); code != "REIN-EXITED 0" {
		t.Errorf("rein demo ended with %q", code)
	}
	s.waitFor("See it again from the log alone: rein replay ses_")
	var answered bool
	for _, e := range s.events() {
		if p, ok := e.Data.(*contract.ToolPermission); ok && p.By == "user" && p.Decision == contract.Allow {
			answered = true
		}
	}
	if !answered {
		t.Errorf("the demo's edit was not answered by the person")
	}
}

// /model opens a picker of the models the session knows; typing filters
// it, Enter switches; /model NAME switches with one Enter.
func TestUIModelPicker(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	s.text("/model")
	s.keys("Enter")
	s.waitVisible("Switch model")
	s.keys("Escape")
	s.waitGone("Switch model")
	time.Sleep(300 * time.Millisecond)
	s.text("/model scripted:other")
	s.keys("Enter")
	s.waitFor("model: scripted:other for the next turns")
	s.keys("C-d")
	s.exited()
	if n := countType(s.events(), contract.TypeModelSwitched); n != 1 {
		t.Errorf("%d model switches recorded, want 1", n)
	}
}

// A long paste shows as [pasted N lines] when typed, and as that again
// when the session is resumed with -i: the log keeps what was shown.
func TestUIResumeShowsAPasteAsTyped(t *testing.T) {
	s := newScreen(t, 100, 30, nil, scriptFlags(t, answerTurns)...)
	s.ready()
	var lines []string
	for i := range 120 {
		lines = append(lines, "pasted line "+strconv.Itoa(i))
	}
	s.paste(strings.Join(lines, "\n"))
	s.keys("Enter")
	s.waitFor("second point", "[pasted 120 lines]")
	s.keys("C-d")
	s.exited()
	id := s.events()[0].Session
	s.stop()
	s.socket = filepath.Join(t.TempDir(), "tmux.sock")
	s.start(100, 30, append([]string{"resume", id, "-i"}, scriptFlags(t, answerTurns)...)...)
	all := s.waitFor("earlier conversation above")
	if !strings.Contains(all, "[pasted 120 lines]") || strings.Contains(all, "pasted line 57") {
		t.Errorf("the resumed view does not show the paste as it was typed:\n%s", all)
	}
}

// In the line mode on a terminal, a line typed while the model works is
// the person's next message, not the answer to the question that comes
// meanwhile: "never mind the tests, just fix it" never saves a never; it
// is sent once the run is over.
func TestLineModeTypeAheadIsNoAnswer(t *testing.T) {
	s := newScreen(t, 100, 30, nil, append(scriptFlags(t, askingTurns), "--plain")...)
	s.waitFor("›")
	s.text("go")
	s.keys("Enter")
	s.waitFor("Looking")
	s.text("never mind the tests, just fix it")
	s.keys("Enter")
	s.waitFor("[a] always", "kept for after this run")
	time.Sleep(300 * time.Millisecond)
	s.text("n")
	s.keys("Enter")
	s.waitFor("And again.")
	s.keys("C-d")
	s.exited()
	var sent []string
	for _, e := range s.events() {
		switch d := e.Data.(type) {
		case *contract.UserMessage:
			sent = append(sent, d.Text)
		case *contract.ToolPermission:
			if d.By == "user" && (d.Decision != contract.Deny || d.Rule != "") {
				t.Errorf("the answer recorded is %+v, want a plain no", d)
			}
		}
	}
	if strings.Join(sent, "|") != "go|never mind the tests, just fix it" {
		t.Errorf("messages %q, want the line typed ahead sent after the run", sent)
	}
	if _, err := os.Stat(filepath.Join(s.state, "config", "rein", "projects.toml")); err == nil {
		t.Errorf("a rule was saved")
	}
}
