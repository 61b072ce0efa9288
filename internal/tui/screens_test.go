package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// A streamed markdown answer, its tool card and the final state of the
// screen, at 80 columns.
func answerEvents() []contract.Envelope {
	return []contract.Envelope{
		env(1, &contract.SessionStarted{Provider: "anthropic", Model: "claude-sonnet-4-5"}),
		env(2, &contract.UserMessage{Text: "why do the tests fail?"}),
		env(3, &contract.RunStarted{}),
		env(4, &contract.ModelRequested{Provider: "anthropic", Model: "claude-sonnet-4-5"}),
		env(0, &contract.TextDelta{Text: "## What fails\n\nThe test `TestMean` divides by **zero** when the"}),
		env(0, &contract.TextDelta{Text: " slice is empty.\n\n"}),
		env(5, &contract.ModelText{Text: "## What fails\n\nThe test `TestMean` divides by **zero** when the slice is empty.\n\n"}),
		env(6, &contract.ModelUsage{InputTokens: 12000, OutputTokens: 800, CostUSD: new(0.048)}),
		env(7, &contract.ModelFinished{Reason: contract.FinishStop}),
		env(8, &contract.RunFinished{Outcome: contract.OutcomeCompleted}),
	}
}

func TestScreenIdle(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarness(t, w, &fakeRuntime{})
		h.golden("idle-" + itoa(w))
	}
}

func TestScreenAnswer(t *testing.T) {
	rt := &fakeRuntime{replies: [][]contract.Envelope{answerEvents()[1:]}}
	h := newHarness(t, 80, rt)
	h.typeText("why do the tests fail?")
	h.key("enter")
	if len(rt.sent) != 1 || rt.sent[0] != "why do the tests fail?" {
		t.Fatalf("sent %q", rt.sent)
	}
	h.golden("answer")
	if strings.Count(h.screenText(), "why do the tests fail?") != 1 {
		t.Errorf("the message is shown more than once:\n%s", h.screenText())
	}
}

// What is typed while a run works is queued, shown as queued, and sent
// when the run ends.
func TestQueuedWhileRunning(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 80, rt)
	h.m.running = true
	h.typeText("and then this")
	h.key("enter")
	if len(rt.sent) != 0 {
		t.Fatalf("sent while running: %q", rt.sent)
	}
	if !strings.Contains(h.screenText(), "queued: and then this") {
		t.Errorf("not shown as queued:\n%s", h.screenText())
	}
	h.m.run = 7
	h.send(runDoneMsg{run: 7})
	if len(rt.sent) != 1 || rt.sent[0] != "and then this" {
		t.Errorf("after the run: sent %q", rt.sent)
	}
}

func TestScreenApprovalWithDiff(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.activity, h.m.started = true, "waiting for your answer", h.m.now().Add(-1500*time.Millisecond)
	h.m.activityAt = h.m.started
	reply := make(chan kernel.Reply, 1)
	q := kernel.Question{Tool: "edit_file", Subject: "stats.go", Reason: "edit_file on stats.go is not covered by any rule",
		Rules:   []string{"edit_file(stats.go)"},
		SaveTo:  "~/.config/rein/projects.toml",
		Preview: "--- stats.go\n+++ stats.go\n@@ -3,3 +3,6 @@\n func Mean(xs []float64) float64 {\n+\tif len(xs) == 0 {\n+\t\treturn 0\n+\t}\n \treturn sum(xs) / float64(len(xs))\n"}
	h.send(askMsg{&question{q: q, reply: reply}})
	h.golden("approval-edit")
	h.later(time.Second)
	h.key("a")
	if got := <-reply; got.Answer != kernel.Always {
		t.Errorf("answer %v, want always", got)
	}
	if h.m.ask != nil {
		t.Errorf("the dialog stays after the answer")
	}
}

func TestScreenApprovalCommand(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.started = true, h.m.now()
	h.m.activityAt = h.m.started
	reply := make(chan kernel.Reply, 2)
	long := "rm -rf build && go build -o build/app ./cmd/app && ./build/app --config testdata/config.toml --verbose --output build/report.txt"
	h.send(askMsg{&question{q: kernel.Question{Tool: "bash", Subject: long, Reason: "`rm -rf build` is not covered by any rule", Rules: []string{"bash(rm -rf build)"},
		SaveTo: "~/.config/rein/projects.toml"}, reply: reply}})
	h.send(askMsg{&question{q: kernel.Question{Tool: "bash", Subject: "ls"}, reply: reply}})
	h.golden("approval-command")
	h.later(time.Second)
	h.key("esc")
	if got := <-reply; got.Answer != kernel.No {
		t.Errorf("esc answered %v", got)
	}
	if h.m.ask == nil || h.m.ask.q.Subject != "ls" {
		t.Fatalf("the second question is not shown next")
	}
	h.later(time.Second)
	h.key("x") // answers nothing
	if h.m.ask == nil {
		t.Fatalf("an unrelated key answered")
	}
	h.later(time.Second)
	h.key("y")
	if got := <-reply; got.Answer != kernel.Yes {
		t.Errorf("y answered %v", got)
	}
}

func TestScreenToolRunningAndDenied(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 80, rt)
	h.m.running, h.m.run, h.m.started = true, 1, h.m.now()
	h.m.activityAt = h.m.started
	in := rawInput(map[string]string{"command": "go test ./..."})
	h.send(eventsMsg{run: 1, events: []contract.Envelope{
		env(3, &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "int_1", ToolName: "bash", Input: in}}),
		env(4, &contract.ToolPermission{IntentID: "int_1", Decision: contract.Allow, By: "rule", Rule: "bash(go test:*)"}),
		env(5, &contract.InvocationStarted{IntentID: "int_1", InvocationID: "inv_1", ToolName: "bash", Input: in}),
		env(0, &contract.ToolOutputDelta{IntentID: "int_1", InvocationID: "inv_1", Text: "ok  \tpkg/a\t0.1s\n--- FAIL: TestMean (0.00s)\n"}),
	}})
	h.golden("tool-running")
	h.send(eventsMsg{run: 1, events: []contract.Envelope{
		env(6, &contract.InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: contract.ExitError, ExitCode: 1, DurationMS: 2300, OutputBytes: 4200}),
		env(7, &contract.ToolObservation{Observation: contract.Observation{IntentID: "int_1", ToolName: "bash", Text: "--- FAIL: TestMean (0.00s)\nFAIL\texample/stats\t0.01s\nexit status 1", ArtifactRef: "artifacts/inv_1.txt", Truncated: true, OmittedBytes: 1200}}),
		env(8, &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "int_2", ToolName: "bash", Input: rawInput(map[string]string{"command": "rm -rf /"})}}),
		env(9, &contract.ToolPermission{IntentID: "int_2", Decision: contract.Deny, By: "rule", Rule: "bash(rm:*)", Reason: "rm is denied by your rule"}),
		env(10, &contract.ToolObservation{Observation: contract.Observation{IntentID: "int_2", ToolName: "bash", Phase: "permission", Code: "permission_denied", Text: "denied: rm is denied by your rule"}}),
		env(11, &contract.ProviderError{Kind: contract.KindOverloaded, Message: "the provider is overloaded"}),
	}})
	h.send(runDoneMsg{run: 1})
	h.golden("tool-denied-error")
}

// The status line fits 80 and 120 columns, and says what a run does.
func TestStatusLine(t *testing.T) {
	for _, w := range []int{40, 80, 120} {
		rt := &fakeRuntime{usage: contract.Totals{InputTokens: 120000, OutputTokens: 3400, Calls: 4, CostUSD: 0.4242}}
		h := newHarness(t, w, rt)
		h.m.contextUsed = 46000
		h.m.running, h.m.activity = true, "running go test ./..."
		h.m.started = h.m.now().Add(-3200 * time.Millisecond)
		h.m.activityAt = h.m.started
		h.golden("status-" + itoa(w))
	}
}

// Ctrl-C: clears a draft; on an empty composer asks again; the second
// leaves. Ctrl-D on an empty composer leaves.
func TestCtrlCAndCtrlD(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.typeText("draft")
	h.key("ctrl+c")
	if !h.m.comp.Empty() || h.quit {
		t.Fatalf("Ctrl-C did not clear the draft (empty %v, quit %v)", h.m.comp.Empty(), h.quit)
	}
	h.key("ctrl+c")
	if h.quit || !strings.Contains(h.screenText(), "press Ctrl-C again to exit") {
		t.Fatalf("the first Ctrl-C on an empty composer did not ask:\n%s", h.screenText())
	}
	h.key("ctrl+c")
	if !h.quit {
		t.Fatalf("the second Ctrl-C did not leave")
	}
	h = newHarness(t, 80, &fakeRuntime{})
	h.key("ctrl+d")
	if !h.quit {
		t.Fatalf("Ctrl-D did not leave")
	}
}

// Shift+Tab cycles the permission mode through the runtime.
func TestShiftTab(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 80, rt)
	for range 3 {
		h.key("shift+tab")
	}
	if want := []string{"accept-edits", "plan", "default"}; strings.Join(rt.modes, ",") != strings.Join(want, ",") {
		t.Errorf("modes %q, want %q", rt.modes, want)
	}
}

// Commands are answered locally; an unknown one is never sent; //text
// sends text with its slash; !cmd runs the person's command.
func TestCommands(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 100, rt)
	for _, line := range []string{"/help", "/nosuch bar", "/cost", "/status", "/mode plan", "/model gpt-5"} {
		h.typeText(line)
		h.key("enter")
		if line == "/nosuch bar" {
			// An unknown command keeps what was typed.
			if v := h.m.comp.Value(); v != line {
				t.Errorf("after an unknown command the composer holds %q, want %q", v, line)
			}
			h.key("ctrl+c")
		}
	}
	if len(rt.sent) != 0 {
		t.Fatalf("a command was sent to the model: %q", rt.sent)
	}
	screen := h.screenText()
	for _, want := range []string{"/compact", "unknown command /nosuch", "no model call yet", "Status", "permission mode: plan", "gpt-5"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	h.typeText("//etc/hosts is a path")
	h.key("enter")
	h.typeText("!ls -la")
	h.key("enter")
	if len(rt.sent) != 2 || rt.sent[0] != "/etc/hosts is a path" || len(rt.shells) != 1 || rt.shells[0] != "ls -la" {
		t.Errorf("sent %q, shells %q", rt.sent, rt.shells)
	}
}

// A resumed session shows its earlier conversation before the composer.
func TestPast(t *testing.T) {
	rt := &fakeRuntime{}
	for _, e := range answerEvents() {
		if !contract.IsDelta(e.Type()) { // a log holds no delta
			rt.past = append(rt.past, e)
		}
	}
	h := newHarnessWith(t, 80, rt, func(o *Options) { o.Past = true })
	screen := h.screenText()
	if !strings.Contains(screen, "why do the tests fail?") || !strings.Contains(screen, "divides by") {
		t.Errorf("the past is not shown:\n%s", screen)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// While an answer streams, its finished blocks are in the scrollback and
// the block being written is live, above the working line.
func TestScreenStreaming(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.run, h.m.started, h.m.activity = true, 1, h.m.now().Add(-2100*time.Millisecond), "writing"
	h.m.activityAt = h.m.started
	h.send(eventsMsg{run: 1, events: []contract.Envelope{
		env(2, &contract.UserMessage{Text: "explain the failure"}),
		env(0, &contract.TextDelta{Text: "## Why it fails\n\n`Mean` divides by `len(xs)-1`, so every mean is too large:\n\n"}),
		env(0, &contract.TextDelta{Text: "- for `[1, 2, 3]` it returns 3, not 2\n- for one sample it divides"}),
	}})
	h.golden("streaming")
}

// Keys typed as a question appears, or in a burst, are the person typing:
// they fill the composer and answer nothing; a key a moment later does.
func TestTypingNeverAnswers(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.started = true, h.m.now()
	h.m.activityAt = h.m.started
	reply := make(chan kernel.Reply, 1)
	h.send(askMsg{&question{q: kernel.Question{Tool: "bash", Subject: "rm -rf build", Rules: []string{"bash(rm -rf build)"}}, reply: reply}})
	h.typeText("yay") // within the first moment
	h.later(time.Second)
	h.typeText("a") // a burst? no: a second later, alone
	select {
	case got := <-reply:
		if got.Answer != kernel.Always {
			t.Errorf("answer %v, want always from the key pressed alone", got)
		}
	default:
		t.Fatalf("the key pressed a second later did not answer")
	}
	if v := h.m.comp.Value(); v != "yay" {
		t.Errorf("the composer holds %q, want the typing %q", v, "yay")
	}
}

// A typist's next letter after a question appears mid-word goes to the
// draft: the question must have been on screen 500 ms and no key may have
// come in the 300 ms before the one that answers. Typing "and also" with
// the question appearing after "and " wrote bash(echo bench-ok) into the
// project's config when the "a" came 430 ms after the question.
func TestTypeAheadNeverAnswers(t *testing.T) {
	for _, gap := range []time.Duration{150 * time.Millisecond, 350 * time.Millisecond, 430 * time.Millisecond} {
		t.Run(gap.String(), func(t *testing.T) {
			h := newHarness(t, 80, &fakeRuntime{})
			h.m.running, h.m.started = true, h.m.now()
			h.m.activityAt = h.m.started
			reply := make(chan kernel.Reply, 1)
			for _, r := range "and " {
				h.typeText(string(r))
				h.later(gap)
			}
			h.send(askMsg{&question{q: kernel.Question{Tool: "bash", Subject: "echo bench-ok", Rules: []string{"bash(echo bench-ok)"}}, reply: reply}})
			h.later(430 * time.Millisecond)
			const rest = "also yes and always, done"
			for _, r := range rest {
				h.typeText(string(r)) // a typist's letters, every one of them after the question
				h.later(gap)
			}
			select {
			case got := <-reply:
				t.Fatalf("typing answered the question: %v", got)
			default:
			}
			if v, want := h.m.comp.Value(), "and "+rest; v != want {
				t.Errorf("the draft holds %q, want every letter typed, %q", v, want)
			}
			if !strings.Contains(h.screenText(), "your draft, kept: and also") {
				t.Errorf("the dialog does not show the draft kept:\n%s", h.screenText())
			}
			h.later(time.Second)
			h.key("n")
			if got := <-reply; got.Answer != kernel.No {
				t.Errorf("the key after a pause answered %v, want no", got)
			}
		})
	}
}

// t answers no and tells the model what to do instead: a line of text,
// Enter sends it with the no; Esc goes back to the keys.
func TestNoAndTellTheModel(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.started = true, h.m.now()
	h.m.activityAt = h.m.started
	reply := make(chan kernel.Reply, 1)
	h.send(askMsg{&question{q: kernel.Question{Tool: "bash", Subject: "rm -rf build", Rules: []string{"bash(rm -rf build)"}}, reply: reply}})
	h.later(time.Second)
	h.key("t")
	h.key("esc")
	if h.m.ask == nil || h.m.tell != nil {
		t.Fatalf("esc on the line did not go back to the question")
	}
	h.later(time.Second)
	h.key("t")
	if !strings.Contains(h.screenText(), "Tell the model what to do instead") {
		t.Fatalf("t does not open the line:\n%s", h.screenText())
	}
	h.typeText("use make clean; a and y are words here")
	if h.m.ask == nil {
		t.Fatalf("a letter typed on the line answered the question")
	}
	h.key("enter")
	got := <-reply
	if got.Answer != kernel.No || got.Text != "use make clean; a and y are words here" {
		t.Errorf("reply %+v, want no with the text", got)
	}
}

// An interrupt gives back everything queued, after what is being typed,
// and sends none of it.
func TestInterruptGivesTheQueueBack(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 80, rt)
	h.m.running, h.m.run, h.m.cancel = true, 3, func() {}
	for _, q := range []string{"first queued", "second queued"} {
		h.typeText(q)
		h.key("enter")
	}
	h.typeText("draft")
	h.key("esc")
	h.send(runDoneMsg{run: 3})
	if len(rt.sent) != 0 {
		t.Errorf("the interrupted run's end sent %q", rt.sent)
	}
	if v := h.m.comp.Value(); v != "draft\nfirst queued\nsecond queued" {
		t.Errorf("the composer holds %q", v)
	}
}

// A command too long for the screen shows its start and how many lines
// are left; the dialog keeps its header and its keys, and v prints it whole.
func TestLongCommandDialog(t *testing.T) {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.started = true, h.m.now()
	h.m.activityAt = h.m.started
	var cmd []string
	for i := range 60 {
		cmd = append(cmd, fmt.Sprintf("echo line %d", i))
	}
	reply := make(chan kernel.Reply, 1)
	h.send(askMsg{&question{q: kernel.Question{Tool: "bash", Subject: "rm -rf ~\n" + strings.Join(cmd, "\n")}, reply: reply}})
	v := ansi.Strip(h.m.View().Content)
	if n := strings.Count(v, "\n") + 1; n > 30 {
		t.Errorf("the live region is %d rows on a 30-row screen", n)
	}
	for _, want := range []string{"rein wants to run a command:", "rm -rf ~", "more lines · v prints it whole", "[y] yes"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	h.later(time.Second)
	h.key("v")
	if !strings.Contains(h.screenText(), "echo line 59") {
		t.Errorf("v did not print the whole command")
	}
}

// /permissions lists the rules in force, deny first, each with the file
// it came from.
func TestPermissionsListsTheRulesAndTheirFiles(t *testing.T) {
	rt := &fakeRuntime{rules: []kernel.Rule{
		{Decision: contract.Deny, Rule: "bash(git push:*)", Origin: "user", File: "/home/ada/.config/rein/config.toml"},
		{Decision: contract.Allow, Rule: "bash(go test:*)", Origin: "project", File: "/work/app/.rein/config.toml"},
		{Decision: contract.Allow, Rule: "bash(touch m1)", Origin: "answers", File: "/home/ada/.config/rein/projects.toml"},
		{Decision: contract.Allow, Rule: "edit_file(docs/**)", Origin: "flag"},
	}}
	h := newHarness(t, 100, rt)
	h.typeText("/permissions")
	h.key("enter")
	got := h.screenText()
	for _, want := range []string{
		"Permissions\n  mode default: reads and read-only commands run",
		"deny  bash(git push:*) · /home/ada/.config/rein/config.toml",
		"allow bash(go test:*) · /work/app/.rein/config.toml",
		"allow bash(touch m1) · /home/ada/.config/rein/projects.toml (your answers)",
		"allow edit_file(docs/**) · a flag (--allow, --deny)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/permissions lacks %q:\n%s", want, got)
		}
	}
}

// On a short terminal the dialog keeps its heading, the subject's first
// line and the keys (on one compact line when the full ones leave no
// room), within the screen less a row.
func TestDialogOnAShortTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 12}, {40, 12}, {40, 8}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := newHarness(t, size[0], &fakeRuntime{})
			h.m.height = size[1]
			h.m.running, h.m.started = true, h.m.now()
			h.m.activityAt = h.m.started
			reply := make(chan kernel.Reply, 1)
			q := kernel.Question{Tool: "bash", Subject: "touch bench-ok && echo done", Rules: []string{"bash(touch bench-ok)"},
				SaveTo: "~/.config/rein/projects.toml",
				Reason: "Default mode asks before running commands, and no allow rule covers `touch bench-ok && echo done`: `touch bench-ok` is not allowed by any rule."}
			h.send(askMsg{&question{q: q, reply: reply}})
			v := h.m.View().Content
			if n := strings.Count(v, "\n") + 1; n > size[1]-1 {
				t.Errorf("the frame takes %d rows of %d", n, size[1])
			}
			plain := ansi.Strip(v)
			for _, want := range []string{"rein wants to run a command:", "touch bench-ok", "[y] yes", "[n] no"} {
				if !strings.Contains(plain, want) {
					t.Errorf("the dialog lacks %q:\n%s", want, plain)
				}
			}
		})
	}
}

// While /model lists the models (a server may take seconds), what the
// person sends waits, as during a run, and the list that comes after they
// went on does not open a picker over their typing.
func TestModelListingDoesNotTakeTheKeys(t *testing.T) {
	rt := &fakeRuntime{}
	h := newHarness(t, 80, rt)
	h.m.sess.Models = func(context.Context) ([]string, error) { return []string{"openai:a", "openai:b"}, nil }
	h.typeText("/model")
	cmd := h.m.key(keyMsg("enter")) // lists outside the loop: held back here
	if h.m.modelBusy == 0 {
		t.Fatalf("/model did not start listing")
	}
	h.typeText("hello there")
	h.key("enter")
	if len(rt.sent) != 0 {
		t.Fatalf("a message went to the model while /model was listing: %q", rt.sent)
	}
	h.do(cmd) // the list comes
	for len(h.pending) > 0 {
		next := h.pending[0]
		h.pending = h.pending[1:]
		_, c := h.m.Update(next)
		h.do(c)
	}
	if h.m.models != nil {
		t.Errorf("the picker opened after the person went on")
	}
	if len(rt.sent) != 1 || rt.sent[0] != "hello there" {
		t.Errorf("sent %q, want the message that waited", rt.sent)
	}
}
