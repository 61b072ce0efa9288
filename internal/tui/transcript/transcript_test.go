package transcript

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/tui/style"
)

// TestColourTheme runs every scenario in a colour theme at several
// widths: styles are applied and no line is wider than the width, but a
// path to a whole output, which is never cut.
func TestColourTheme(t *testing.T) {
	th := style.New(true, true)
	for name, run := range scenarios {
		for _, width := range []int{30, 60, 100} {
			s := newScript(width, th)
			run(s)
			out := s.out.String()
			if !strings.Contains(out, "\x1b[") {
				t.Errorf("%s at %d: no style applied:\n%s", name, width, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "┄┄┄ live at") || strings.HasPrefix(strings.TrimSpace(ansi.Strip(l)), "full output: ") {
					continue // a path is never cut: the terminal folds it
				}
				if w := lipgloss.Width(l); w > width {
					t.Errorf("%s at %d: line %q is %d wide", name, width, ansi.Strip(l), w)
				}
			}
			plain := newScript(width, style.Theme{})
			run(plain)
			if strings.Contains(plain.out.String(), "\x1b") {
				t.Errorf("%s at %d: the plain theme wrote an escape", name, width)
			}
		}
	}
}

func TestDiff(t *testing.T) {
	diff := "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n"
	tests := []struct {
		name     string
		maxLines int
		width    int
		want     string
	}{
		{"whole", 0, 40, strings.TrimSuffix(diff, "\n")},
		{"shortened", 4, 40, "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n ctx\n… 2 more lines"},
		{"wrapped to width", 0, 6, "--- a/\n↳ x\n+++ b/\n↳ x\n@@ -1,\n↳ 2 +1\n↳ ,2 @\n↳ @\n ctx\n-old\n+new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Diff(diff, tt.width, tt.maxLines, style.Theme{})); d != "" {
				t.Errorf("Diff() mismatch (-want +got):\n%s", d)
			}
		})
	}
	t.Run("a long line wraps at a space, its rows marked as going on", func(t *testing.T) {
		long := "@@ -1 +1 @@\n+return fmt.Errorf(\"open %s: %w\", path, err)\n"
		want := "@@ -1 +1 @@\n+return fmt.Errorf(\"\n↳ open %s: %w\", \n↳ path, err)"
		if d := cmp.Diff(want, Diff(long, 20, 0, style.Theme{})); d != "" {
			t.Errorf("Diff() mismatch (-want +got):\n%s", d)
		}
	})
	t.Run("coloured", func(t *testing.T) {
		th := style.New(true, true)
		lines := strings.Split(Diff(diff, 40, 0, th), "\n")
		for i, st := range []lipgloss.Style{th.File, th.File, th.Hunk} {
			if want := st.Render(ansi.Strip(lines[i])); lines[i] != want {
				t.Errorf("line %d = %q, want %q", i, lines[i], want)
			}
		}
		if lines[4] != th.Del.Render("-old") || lines[5] != th.Add.Render("+new") {
			t.Errorf("added and removed lines not coloured: %q", lines[4:])
		}
	})
}

func TestNote(t *testing.T) {
	tests := []struct{ kind, text, want string }{
		{"info", "resumed", "· resumed"},
		{"warn", "slow", "warning: slow"},
		{"error", "bad \x1b[2J\nthing", `error: bad \x1b[2J\nthing`},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			if got := Note(tt.kind, tt.text, 80, style.Theme{}); got != tt.want {
				t.Errorf("Note(%q, %q) = %q, want %q", tt.kind, tt.text, got, tt.want)
			}
		})
	}
}

func TestUser(t *testing.T) {
	got := User("one two three four", 10, style.Theme{})
	if want := "› one two\n  three\n  four"; got != want {
		t.Errorf("User() = %q, want %q", got, want)
	}
}

func TestLastReasoningAndNothingShown(t *testing.T) {
	tr := New(Options{Width: 40})
	if tr.LastReasoning() != "" || tr.Live(t0) != "" || tr.Flush() != nil {
		t.Fatal("a new transcript shows something")
	}
	for _, e := range []contract.Event{
		&contract.ModelRequested{}, &contract.ContextProjected{}, &contract.ModelUsage{},
		&contract.RunStarted{}, &contract.ModelStarted{}, &contract.ModelFinished{},
		&contract.IntentDelta{}, &contract.SessionStarted{}, &contract.Unknown{Type: "new.thing"},
	} {
		if got := tr.Apply(contract.Envelope{Data: e}); got != nil {
			t.Errorf("Apply(%s) = %q, want nil", e.EventType(), got)
		}
	}
	tr.Apply(contract.Envelope{Data: &contract.ModelReasoning{Text: "from \x1b the log"}})
	if got, want := tr.LastReasoning(), `from \x1b the log`; got != want {
		t.Errorf("LastReasoning() = %q, want %q", got, want)
	}
	// Streamed, the deltas are what is shown: the kernel may have held
	// back part of the durable text (a secret).
	tr.Apply(contract.Envelope{Data: &contract.ReasoningDelta{Text: "thinking"}})
	tr.Apply(contract.Envelope{Data: &contract.ModelReasoning{Text: "thinking sk-secret"}})
	if got := tr.LastReasoning(); got != "thinking" {
		t.Errorf("LastReasoning() = %q, want %q", got, "thinking")
	}
	if got := tr.Live(t0.Add(time.Second)); got != "" {
		t.Errorf("Live() after the reasoning ended = %q, want \"\"", got)
	}
}

// TestStreamedEqualsReplayed checks that an answer streamed in deltas
// prints what the same answer read back from a log prints.
func TestStreamedEqualsReplayed(t *testing.T) {
	stream := newScript(50, style.Theme{})
	stream.apply(deltas(answer, 2)...).apply(&contract.ModelText{Text: answer})
	replay := newScript(50, style.Theme{})
	replay.apply(&contract.ModelText{Text: answer})
	if d := cmp.Diff(replay.out.String(), stream.out.String()); d != "" {
		t.Errorf("streamed and replayed differ (-replayed +streamed):\n%s", d)
	}
}

func TestRunningOutputLineEnds(t *testing.T) {
	tr := New(Options{Width: 40})
	in := []byte(`{"command":"make"}`)
	tr.Apply(contract.Envelope{Time: t0, Data: started("i1", "bash", string(in))})
	for _, d := range []string{"one\r", "\ntwo\r\n", "50%\r100%\n\x1b[2Jthree"} {
		tr.Apply(contract.Envelope{Data: &contract.ToolOutputDelta{IntentID: "i1", Text: d}})
	}
	want := "● bash make\n  ⎿ running · 1 s\n    one\n    two\n    50%\n    100%\n    \\x1b[2Jthree"
	if got := tr.Live(t0.Add(time.Second)); got != want {
		t.Errorf("Live() mismatch (-want +got):\n%s", cmp.Diff(want, got))
	}
}

func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{seconds(40), "40 ms"}, {seconds(300), "0.3 s"}, {seconds(2300), "2.3 s"}, {seconds(2000), "2 s"},
		{seconds(12_345), "12 s"}, {seconds(125_000), "2 min 5 s"},
		{thousands(0), "0"}, {thousands(999), "999"}, {thousands(1000), "1,000"}, {thousands(120_000), "120,000"},
		{thousands(-1234567), "-1,234,567"},
		{size(512), "512 B"}, {size(4198), "4.1 KiB"}, {size(3 << 20), "3.0 MiB"},
		{plural(1, "line"), "1 line"}, {plural(2, "line"), "2 lines"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestSubject(t *testing.T) {
	tests := []struct{ tool, input, want string }{
		{"bash", `{"command":"go test\n  ./..."}`, "go test ./..."},
		{"read_file", `{"path":"/ws/a/b.go"}`, "a/b.go"},
		{"read_file", `{"path":"/wsx/b.go"}`, "/wsx/b.go"},
		{"read_file", `{"path":"/ws"}`, "."},
		{"grep", `{"pattern":"TODO","path":"/ws/x"}`, "TODO"},
		{"glob", `{"pattern":"**/*.go"}`, "**/*.go"},
		{"mcp_fetch", `{"url":"https://go.dev"}`, "https://go.dev"},
		{"bash", `not json`, ""},
		{"bash", `{"command":"a\u0000b"}`, `a\x00b`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.want, func(t *testing.T) {
			if got := subjectOf(tt.tool, []byte(tt.input), "/ws"); got != tt.want {
				t.Errorf("subjectOf(%s, %s) = %q, want %q", tt.tool, tt.input, got, tt.want)
			}
		})
	}
}

// A provider's error shows no line of its own (a retry is the working
// line's, a run that fails says why at its end) but for a malformed tool
// call; the discard of a partial answer shows, but for the one right
// after a call rein stopped.
func TestOnlyAMalformedCallsErrorIsShown(t *testing.T) {
	aborted := &contract.ProviderError{Kind: contract.KindAborted, Message: "the request was cancelled: context canceled"}
	discard := &contract.ModelDiscarded{Reason: "rein stopped during this model call"}
	for _, tc := range []struct {
		name   string
		events []contract.Event
		want   []string // what each block shown holds
	}{
		{"the stop", []contract.Event{aborted, discard}, nil},
		{"another error", []contract.Event{&contract.ProviderError{Kind: contract.KindRateLimit, Message: "slow down"}, discard},
			[]string{"warning: the partial answer was discarded"}},
		{"a malformed tool call", []contract.Event{&contract.ProviderError{Kind: contract.KindMalformedToolCall, Message: "bad arguments"}},
			[]string{"warning: bad arguments"}},
		{"a later discard", []contract.Event{aborted, &contract.SessionResumed{}, discard},
			[]string{"resumed session s1", "warning: the partial answer was discarded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(Options{Width: 80})
			var got []string
			for _, e := range tc.events {
				got = append(got, tr.Apply(contract.Envelope{Session: "s1", Data: e})...)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("blocks %q, want %d holding %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("block %d = %q, want it to hold %q", i, got[i], w)
				}
			}
		})
	}
}

// A call the person said no to says so, not the reason written for the
// model.
func TestDeniedByThePerson(t *testing.T) {
	got := denialReason(&contract.ToolPermission{Decision: contract.Deny, By: "user", Reason: "The user said no. Do not retry the same call."})
	if got != "you said no" {
		t.Errorf("denialReason = %q", got)
	}
}

// A no that said what to do instead shows what was said.
func TestDeniedByThePersonWithAMessage(t *testing.T) {
	got := denialReason(&contract.ToolPermission{Decision: contract.Deny, By: "user", Reason: "The user said no, and said what to do instead.", Message: "use the helper"})
	if got != "you said no: use the helper" {
		t.Errorf("denialReason = %q", got)
	}
}

// An "always" or a "never" says, once answered, which rules it saved and
// where, in the person's words.
func TestAnswerSaysWhatItSaved(t *testing.T) {
	for _, tc := range []struct {
		e    contract.ToolPermission
		want string
	}{
		{contract.ToolPermission{Decision: contract.Allow, By: "user", Rule: "bash(touch:*)",
			Reason: "The user allowed it and saved bash(touch:*) in ~/.config/rein/projects.toml."},
			"always: saved bash(touch:*) in ~/.config/rein/projects.toml"},
		{contract.ToolPermission{Decision: contract.Deny, By: "user", Rule: "bash(rm -rf build)",
			Reason: "The user denied it and saved bash(rm -rf build) for this session only. Do not try to get around this denial; ask the user what they want instead."},
			"never: saved bash(rm -rf build) for this session only"},
	} {
		if got := answerNote(&tc.e); got != tc.want {
			t.Errorf("answerNote = %q, want %q", got, tc.want)
		}
	}
	tr := New(Options{Width: 100})
	var out []string
	for _, e := range []contract.Event{
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "i1", ToolName: "bash", Input: json.RawMessage(`{"command":"touch m1"}`)}},
		&contract.ToolPermission{IntentID: "i1", Decision: contract.Allow, By: "user", Rule: "bash(touch m1)", Reason: "The user allowed it and saved bash(touch m1) in ~/.config/rein/projects.toml."},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "i1", ToolName: "bash", OK: true, Text: "exit code: 0\n"}},
	} {
		out = append(out, tr.Apply(contract.Envelope{Data: e})...)
	}
	if got := strings.Join(out, "\n"); !strings.Contains(got, "⎿ always: saved bash(touch m1) in ~/.config/rein/projects.toml") {
		t.Errorf("the card does not say what always saved:\n%s", got)
	}
}

// A shortened output counts what the tool left out: the card shows the
// head's first lines and how many more there are in all.
func TestFirstLinesCountWhatWasLeftOut(t *testing.T) {
	text := "1\n2\n3\n[... 199994 lines omitted (1288888 bytes); the whole output is artifacts/i1.txt ...]\n199998\n199999\n200000\n"
	got := ansi.Strip(strings.Join(firstLines(view{width: 80}, text, 5), "\n"))
	want := "    1\n    2\n    3\n    +199,997 lines (ctrl+o shows the whole output)"
	if got != want {
		t.Errorf("firstLines =\n%s\nwant\n%s", got, want)
	}
}

// A child's event that comes after its task's card was printed (or for
// a call never seen) draws nothing: no card is made for it, so nothing
// is left running in the live region.
func TestTaskEventAfterTheCardEnds(t *testing.T) {
	s := newScript(80, style.Theme{})
	s.apply(taskRuns("t1", "explore", "find the auth code")...)
	s.apply(taskEnds("t1", contract.TaskCompleted, "", 1, 0, nil, 100, "done")...)
	s.apply(child("t1", &contract.ModelRequested{})...).apply(child("t9", &contract.ModelRequested{})...)
	s.apply(&contract.TaskFinished{IntentID: "t8", Outcome: contract.TaskCompleted})
	if live := s.tr.Live(s.now); live != "" {
		t.Errorf("the live region shows %q, want nothing", live)
	}
	if got := Subject("task", json.RawMessage(`{"description":"find  the\nauth code","agent":"explore"}`), ""); got != "explore · find the auth code" {
		t.Errorf("Subject(task) = %q", got)
	}
}
