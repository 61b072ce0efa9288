package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
	"github.com/rein-agent/rein/internal/eventlog/memstore"
	"github.com/rein-agent/rein/internal/kernel"
)

func TestPrompterAnswers(t *testing.T) {
	q := kernel.Question{Tool: "bash", Subject: "go test ./...", Reason: "Commands ask in default mode.", Rules: []string{"bash(go test:*)"}}
	for _, c := range []struct {
		name, input string
		want        kernel.Reply
		err         error
	}{
		{"yes", "y\n", kernel.Reply{Answer: kernel.Yes}, nil},
		{"no", "no\n", kernel.Reply{Answer: kernel.No}, nil},
		{"always", "a\n", kernel.Reply{Answer: kernel.Always}, nil},
		{"never", "D\n", kernel.Reply{Answer: kernel.Never}, nil},
		{"asks again", "maybe\nyes\n", kernel.Reply{Answer: kernel.Yes}, nil},
		{"end of input", "", kernel.Reply{Answer: kernel.No}, io.EOF},
		{"no, and what to do instead", "n, use the test helper instead\n", kernel.Reply{Answer: kernel.No, Text: "use the test helper instead"}, nil},
		{"no: with a colon", "  No:  run go vet first \n", kernel.Reply{Answer: kernel.No, Text: "run go vet first"}, nil},
		{"a space is no separator", "n try make test\nn; try make test\n", kernel.Reply{Answer: kernel.No, Text: "try make test"}, nil},
		{"no and nothing after the comma", "n,\n", kernel.Reply{Answer: kernel.No}, nil},
		{"never, and what to do instead", "d; never touch the vendored tree\n", kernel.Reply{Answer: kernel.Never, Text: "never touch the vendored tree"}, nil},
		{"a yes says nothing more", "y, and then commit\ny\n", kernel.Reply{Answer: kernel.Yes}, nil},
		{"an always says nothing more", "always, quickly\nn\n", kernel.Reply{Answer: kernel.No}, nil},
		{"words that start like an answer", "nope\nnever mind, do it differently\nn\n", kernel.Reply{Answer: kernel.No}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w bytes.Buffer
			p := &prompter{lines: readLines(strings.NewReader(c.input)), w: &w}
			got, err := p.Approve(t.Context(), q)
			if got != c.want || !errors.Is(err, c.err) {
				t.Errorf("Approve() = %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
			for _, s := range []string{"run: go test ./...", "[a] always allow bash(go test:*)", "Commands ask",
				"(to say no and tell the model what to do instead, type it after the n: n, use the test helper)"} {
				if !strings.Contains(w.String(), s) {
					t.Errorf("prompt lacks %q:\n%s", s, w.String())
				}
			}
			asked := strings.Count(w.String(), "  › ")
			again := strings.Count(w.String(), "Answer y, n, a or d; after n or d you may say what to do instead")
			if c.err == nil && again != asked-1 {
				t.Errorf("asked %d times and said how to answer %d times, want once after each line that did not answer:\n%s", asked, again, w.String())
			}
		})
	}
	// A cancelled run stops waiting for the answer.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	blocked, _ := io.Pipe()
	p := &prompter{lines: readLines(blocked), w: io.Discard}
	if _, err := p.Approve(ctx, q); !errors.Is(err, context.Canceled) {
		t.Errorf("Approve(cancelled) error = %v", err)
	}
}

// An edit's question shows the diff it would make, made printable.
func TestPrompterShowsThePreview(t *testing.T) {
	q := kernel.Question{Tool: "edit_file", Subject: "calc.go", Preview: "--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-return a - b\n+return a + b \x1b[2J\n"}
	var w bytes.Buffer
	p := &prompter{lines: readLines(strings.NewReader("y\n")), w: &w}
	if _, err := p.Approve(t.Context(), q); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"  | -return a - b\n", `  | +return a + b \x1b[2J`} {
		if !strings.Contains(w.String(), s) {
			t.Errorf("prompt lacks %q:\n%s", s, w.String())
		}
	}
}

func TestFlagsReachTheSpec(t *testing.T) {
	var got Spec
	deps := Deps{
		Open: func(ctx context.Context, spec Spec) (*Session, error) {
			got = spec
			log := eventlog.New(memstore.New(), nil)
			k, err := kernel.New(model(answer...), log, nil)
			return &Session{Runtime: k, Close: log.Close}, err
		},
		Stdout: io.Discard, Stderr: io.Discard, Stdin: strings.NewReader(""),
	}
	args := []string{"exec", "--permission-mode", "accept-edits", "--allow", "bash(go test:*)", "--allow", "edit_file(src/{a,b}/**)",
		"--deny", "bash(rm:*)", "--add-dir", "/tmp", "--max-turns", "7", "fix it"}
	if code := Execute(t.Context(), args, deps); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := Spec{PermissionMode: "accept-edits", Allow: []string{"bash(go test:*)", "edit_file(src/{a,b}/**)"}, Deny: []string{"bash(rm:*)"},
		AddDirs: []string{"/tmp"}, MaxTurns: 7}
	got.Cwd = ""
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Spec mismatch (-want +got):\n%s", d)
	}
	// exec never asks: no approver; the interactive session has one.
	deps.Stdin = strings.NewReader("")
	Execute(t.Context(), []string{"hello"}, deps)
	if got.Approver == nil {
		t.Error("the interactive session has no approver")
	}
}

func TestTerminalShowsEveryStage(t *testing.T) {
	var out, errw bytes.Buffer
	r := &terminal{out: &out, errw: &errw}
	for _, e := range []contract.Event{
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}},
		&contract.ToolPermission{Decision: contract.Allow, By: "rule", Rule: "bash(go test:*)"},
		&contract.InvocationCompleted{Exit: contract.ExitError, ExitCode: 1, DurationMS: 1200, OutputBytes: 2048},
		&contract.ToolObservation{Observation: contract.Observation{Phase: "execution", Text: "--- FAIL: TestMean\nFAIL\nexit code: 1\n"}},
		&contract.ToolPermission{Decision: contract.Deny, By: "headless", Reason: "Commands ask. To allow it, run rein again with --allow 'bash(rm:*)'."},
	} {
		r.event(contract.Envelope{Seq: 1, Data: e})
	}
	for _, want := range []string{"● bash", "allowed by rule bash(go test:*)", "exit 1 · 1.2s · 2.0 KiB", "│ --- FAIL: TestMean", "✗ deny by headless", "--allow"} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, errw.String())
		}
	}
}

// A command to approve cannot rewrite the line the person reads.
func TestPrompterEscapesControlCharacters(t *testing.T) {
	var w bytes.Buffer
	p := &prompter{lines: readLines(strings.NewReader("n\n")), w: &w}
	p.Approve(t.Context(), kernel.Question{Tool: "bash", Subject: "rm -rf ~ #\r\x1b[2Kgo test ./...\u009b \u202e", Reason: "no rule \u2066covers\u2069 it",
		Rules: []string{"bash(rm\u200b:*)"}})
	if strings.ContainsAny(w.String(), "\r\x1b\u009b\u202e\u2066\u200b") {
		t.Errorf("prompt = %q", w.String())
	}
	for _, want := range []string{`rm -rf ~ #\r\x1b[2Kgo test ./...\x9b <U+202E>`, `(no rule <U+2066>covers<U+2069> it)`, `always allow bash(rm<U+200B>:*)`} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("prompt lacks %q:\n%s", want, w.String())
		}
	}
	if got := preview("ok\n\x1b]0;title\x07done", 5); strings.ContainsAny(string(got), "\x1b\x07") {
		t.Errorf("preview = %q", got)
	}
}

// The question after the sandbox refused a command something offers y
// and n only, says that yes runs it with no sandbox at all, and shows what
// the sandbox refused, printable, a line each.
func TestPrompterOutsideTheSandbox(t *testing.T) {
	q := kernel.Question{Kind: kernel.AskOutsideSandbox, Tool: "bash", Subject: "touch /outside/x",
		Reason: "the sandbox refused a write to /outside/x\x1b]52;c;aGk=\x07: outside the writable roots\n" +
			"the sandbox refused a network connection: the network is off\nRun it again outside the sandbox?"}
	for _, c := range []struct {
		name, input string
		want        kernel.Reply
		err         error
	}{
		{"yes", "y\n", kernel.Reply{Answer: kernel.Yes}, nil},
		{"no", "No\n", kernel.Reply{Answer: kernel.No}, nil},
		{"no, and what to do instead", "n, write into ./build instead\n", kernel.Reply{Answer: kernel.No, Text: "write into ./build instead"}, nil},
		{"always is not offered", "a\nyes\n", kernel.Reply{Answer: kernel.Yes}, nil},
		{"never is not offered", "d\nn\n", kernel.Reply{Answer: kernel.No}, nil},
		{"end of input", "", kernel.Reply{Answer: kernel.No}, io.EOF},
	} {
		t.Run(c.name, func(t *testing.T) {
			var w bytes.Buffer
			p := &prompter{lines: readLines(strings.NewReader(c.input)), w: &w}
			got, err := p.Approve(t.Context(), q)
			if got != c.want || !errors.Is(err, c.err) {
				t.Errorf("Approve() = %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
			out := w.String()
			for _, s := range []string{
				"? the sandbox stopped part of this command: touch /outside/x\n",
				"\n  the sandbox refused a write to /outside/x\\x1b]52;c;aGk=\\x07: outside the writable roots\n",
				"\n  the sandbox refused a network connection: the network is off\n  Run it again outside the sandbox?\n",
				"Yes runs this one command again with no sandbox at all",
				"  [y] yes, run it again with no sandbox  [n] no, keep the refusal\n  (to say no and tell the model what to do instead, type it after the n: n, use the test helper)\n  › ",
			} {
				if !strings.Contains(out, s) {
					t.Errorf("prompt lacks %q:\n%s", s, out)
				}
			}
			if strings.Contains(out, "[a]") || strings.ContainsAny(out, "\x1b\x07") {
				t.Errorf("prompt offers always, or holds a raw control:\n%q", out)
			}
			if strings.HasPrefix(c.name, "always") || strings.HasPrefix(c.name, "never") {
				if !strings.Contains(out, "Answer y or n; after n you may say what to do instead.") {
					t.Errorf("a refused answer is not asked again:\n%s", out)
				}
			}
		})
	}
}

// A child's question, asked through its parent's prompt, says which
// child asks: its agent and its task's description, printable.
func TestPrompterSaysWhichChildAsks(t *testing.T) {
	for _, c := range []struct {
		q    kernel.Question
		want string
	}{
		{kernel.Question{Tool: "bash", Subject: "make", Agent: "general", Task: "fix the\nbuild \x1b[2J"}, "\n? general · fix the build \\x1b[2J wants to run: make\n"},
		{kernel.Question{Tool: "edit_file", Subject: "a.go", Agent: "explore"}, "\n? explore wants to use edit_file on: a.go\n"},
		{kernel.Question{Tool: "bash", Subject: "make"}, "\n? rein wants to run: make\n"},
		{kernel.Question{Kind: kernel.AskOutsideSandbox, Tool: "bash", Subject: "touch /x", Agent: "general", Task: "fix the build"},
			"\n? the sandbox stopped part of general · fix the build's command: touch /x\n"},
	} {
		var w bytes.Buffer
		p := &prompter{lines: readLines(strings.NewReader("y\n")), w: &w}
		if _, err := p.Approve(t.Context(), c.q); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(w.String(), c.want) {
			t.Errorf("prompt lacks %q:\n%s", c.want, w.String())
		}
	}
}
