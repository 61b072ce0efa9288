package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// retried is a model call whose stream broke mid-answer, then a retry
// that gave the whole answer.
var retried = []contract.Event{
	&contract.ModelRequested{Provider: "p", Model: "m"},
	&contract.TextDelta{Text: "The answ"},
	&contract.ProviderError{Kind: contract.KindStreamInterrupted, Retryable: true, Provider: "p", Message: "the stream broke off"},
	&contract.ModelDiscarded{Reason: "the model call failed (stream_interrupted)"},
	&contract.RetryScheduled{Attempt: 2, DelayMS: 800, Kind: contract.KindStreamInterrupted},
	&contract.ModelRequested{Provider: "p", Model: "m"},
	&contract.TextDelta{Text: "The answer "},
	&contract.TextDelta{Text: "is 42."},
	&contract.ModelText{Text: "The answer is 42."},
	&contract.ModelFinished{Reason: contract.FinishStop},
	&contract.RunFinished{Outcome: contract.OutcomeCompleted},
}

func render(t *testing.T, term *terminal, evs []contract.Event) {
	t.Helper()
	for _, e := range evs {
		if err := term.event(contract.Envelope{Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	term.end()
}

// When stdout is not a terminal it gets only the text of calls that
// finished; a person watching stderr sees the stream and the discard.
func TestStdoutHoldsOnlyTextThatStands(t *testing.T) {
	for _, tc := range []struct {
		name           string
		live           bool // stderr is a terminal: the stream is shown there
		wantOut        string
		wantErr, noErr []string
	}{
		{"nobody watching", false, "The answer is 42.\n", []string{"the partial answer of the failed call is discarded"}, []string{"The answ"}},
		{"stderr watched", true, "The answer is 42.\n", []string{"The answ\n", "the partial answer above is discarded", "The answer is 42.\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw strings.Builder
			term := &terminal{out: &out, errw: &errw, settle: true}
			if tc.live {
				term.live = &errw
			}
			render(t, term, retried)
			if out.String() != tc.wantOut {
				t.Errorf("stdout %q, want %q", out.String(), tc.wantOut)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(errw.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errw.String())
				}
			}
			for _, not := range tc.noErr {
				if strings.Contains(errw.String(), not) {
					t.Errorf("stderr holds %q:\n%s", not, errw.String())
				}
			}
		})
	}
}

// On a terminal the answer streams as it comes, and the discard is said
// right after the fragment it concerns.
func TestTerminalStreamsAndShowsTheDiscard(t *testing.T) {
	var out, errw strings.Builder
	term := &terminal{out: &out, errw: &errw}
	term.live = term.out
	render(t, term, retried)
	if want := "The answ\nThe answer is 42.\n"; out.String() != want {
		t.Errorf("stdout %q, want %q", out.String(), want)
	}
	if !strings.Contains(errw.String(), "the partial answer above is discarded") {
		t.Errorf("stderr does not say the fragment was discarded:\n%s", errw.String())
	}
}

// A run cancelled mid-answer leaves no fragment on a script's stdout.
func TestCancelledCallLeavesNoText(t *testing.T) {
	var out, errw strings.Builder
	render(t, &terminal{out: &out, errw: &errw, settle: true}, []contract.Event{
		&contract.ModelRequested{}, &contract.TextDelta{Text: "Let me"}, &contract.RunFinished{Outcome: contract.OutcomeCancelled},
	})
	if out.String() != "" {
		t.Errorf("stdout %q after a cancelled call", out.String())
	}
}

// A failure is said once: the retries as one quiet status line, and the
// end of the run with its whole reason, never the model error and then
// the run's failure with the same text. On a terminal each retry rewrites
// the line, and what comes next erases it; in a pipe or a file the first
// retry of a run of them is written, and the others are not.
func TestFailureIsSaidOnce(t *testing.T) {
	refused := &contract.ProviderError{Kind: contract.KindNetwork, Retryable: true, Provider: "openai",
		Message: "could not connect to http://127.0.0.1:18099/v1 (connection refused): is the server running?"}
	events := []contract.Event{
		&contract.ModelRequested{}, refused,
		&contract.RetryScheduled{Attempt: 2, MaxAttempts: 3, DelayMS: 600, Kind: contract.KindNetwork},
		&contract.ContextProjected{}, &contract.ModelRequested{}, &contract.ModelStarted{}, refused,
		&contract.RetryScheduled{Attempt: 3, MaxAttempts: 3, DelayMS: 1400, Kind: contract.KindNetwork},
		&contract.ModelRequested{}, refused,
		&contract.RunFinished{Outcome: contract.OutcomeFailed, Reason: refused.Error() + "; gave up after 3 attempts"},
	}
	final := "✗ run failed: openai: network: could not connect to http://127.0.0.1:18099/v1 (connection refused): is the server running?; gave up after 3 attempts\n"
	for _, tc := range []struct {
		name    string
		inPlace bool
		raw     string // what errw gets, the erasures shown as {erase}
		screen  string // what a terminal shows of it at the end
	}{
		{"piped", false,
			"  retrying in 0.6s (cannot connect, attempt 2 of 3)\n" + final,
			"  retrying in 0.6s (cannot connect, attempt 2 of 3)\n" + final},
		{"terminal", true,
			"  retrying in 0.6s (cannot connect, attempt 2 of 3){erase}  retrying in 1.4s (cannot connect, attempt 3 of 3){erase}" + final,
			final},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw strings.Builder
			render(t, &terminal{out: &out, errw: &errw, settle: true, inPlace: tc.inPlace}, events)
			got := errw.String()
			if raw := strings.ReplaceAll(got, "\r\x1b[K", "{erase}"); raw != tc.raw {
				t.Errorf("stderr:\n%q\nwant\n%q", raw, tc.raw)
			}
			if screen := erased(got); screen != tc.screen {
				t.Errorf("the terminal shows:\n%s\nwant\n%s", screen, tc.screen)
			}
			if out.String() != "" {
				t.Errorf("stdout %q", out.String())
			}
		})
	}
}

// A retry that works leaves no trace on a terminal: the answer takes the
// status line's place.
func TestRetryThatWorksIsErased(t *testing.T) {
	screen := &screenWriter{b: &strings.Builder{}}
	render(t, &terminal{out: screen, errw: screen, live: screen, inPlace: true}, []contract.Event{
		&contract.ModelRequested{}, &contract.ProviderError{Kind: contract.KindOverloaded, Retryable: true, Message: "busy"},
		&contract.RetryScheduled{Attempt: 2, MaxAttempts: 4, DelayMS: 1000, Kind: contract.KindOverloaded},
		&contract.ModelRequested{}, &contract.ModelStarted{}, &contract.TextDelta{Text: "The answer is 42."},
		&contract.ModelText{Text: "The answer is 42."}, &contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted},
	})
	if got := erased(screen.b.String()); got != "The answer is 42.\n" {
		t.Errorf("the terminal shows %q, want the answer alone", got)
	}
}

// On a narrow terminal the status line is cut to one row, which its
// erasure takes whole.
func TestStatusLineFitsOneRow(t *testing.T) {
	var errw strings.Builder
	render(t, &terminal{out: &strings.Builder{}, errw: &errw, inPlace: true, cols: 40}, []contract.Event{
		&contract.RetryScheduled{Attempt: 2, MaxAttempts: 4, DelayMS: 1500, Kind: contract.KindOverloaded},
	})
	want := "  retrying in 1.5s (server overloaded,…"
	if got := strings.TrimSuffix(errw.String(), "\r\x1b[K"); got != want || utf8.RuneCountInString(got) >= 40 {
		t.Errorf("status %q, want %q, within 39 columns", got, want)
	}
}

// erased is what a terminal shows of s once each "\r\x1b[K" has erased
// the line it ends.
func erased(s string) string {
	var b strings.Builder
	for i, part := range strings.Split(s, "\r\x1b[K") {
		if i > 0 {
			cut := strings.LastIndexByte(b.String(), '\n') + 1
			kept := b.String()[:cut]
			b.Reset()
			b.WriteString(kept)
		}
		b.WriteString(part)
	}
	return b.String()
}

// Ctrl-C is a person stopping the run, never a model error.
func TestInterruptIsStopped(t *testing.T) {
	var out, errw strings.Builder
	render(t, &terminal{out: &out, errw: &errw, settle: true}, []contract.Event{
		&contract.ModelRequested{}, &contract.TextDelta{Text: "Let me"},
		&contract.ProviderError{Kind: contract.KindAborted, Provider: "openai", Message: "the request was cancelled"},
		&contract.ModelDiscarded{Reason: "the model call was stopped; its partial output is not part of the conversation"},
		&contract.RunFinished{Outcome: contract.OutcomeCancelled, Reason: "the request was cancelled"},
	})
	if got := errw.String(); got != "stopped\n" {
		t.Errorf("stderr %q, want %q", got, "stopped\n")
	}
}

// A tool call whose arguments do not parse is said, and the call's text
// still stands: the stream went on.
func TestMalformedToolCallIsSaidAndTheTextStands(t *testing.T) {
	var out, errw strings.Builder
	render(t, &terminal{out: &out, errw: &errw, settle: true}, []contract.Event{
		&contract.ModelRequested{}, &contract.TextDelta{Text: "Running it."},
		&contract.ProviderError{Kind: contract.KindMalformedToolCall, Message: "call_1: invalid JSON"},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted},
	})
	if out.String() != "Running it.\n" || !strings.Contains(errw.String(), "could not be parsed: call_1: invalid JSON") {
		t.Errorf("stdout %q, stderr %q", out.String(), errw.String())
	}
}

// The replayed trace keeps every failed call, which the live rendering
// says only by its kind.
func TestReplayShowsEveryFailedCall(t *testing.T) {
	var w strings.Builder
	r := newReplayer(&w)
	for _, e := range retried {
		if _, ok := e.(*contract.TextDelta); ok {
			continue // deltas are not in a log
		}
		if err := r.event(contract.Envelope{Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	r.end()
	for _, want := range []string{"✗ model error: p: stream_interrupted: the stream broke off", "retrying in 0.8s (the stream broke off, attempt 2)", "The answer is 42."} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, w.String())
		}
	}
}

// Deltas cut at any byte render as the whole text does: on a terminal
// (streamed to out), redirected (streamed to errw, out settled), and
// piped; a character or a sequence split between two deltas is never
// garbled or let through.
func TestDeltasCutAnywhereRenderAsTheWhole(t *testing.T) {
	const answer = "caf\u00e9 \x1b]52;c;aGk=\x07 \u202e\U0001F642 \x9b2J \xff\r\nend"
	renders := func(pieces []string) []string {
		var got []string
		for _, mk := range []func(out, errw *strings.Builder) *terminal{
			func(out, errw *strings.Builder) *terminal { return &terminal{out: out, errw: errw, live: out} },
			func(out, errw *strings.Builder) *terminal {
				return &terminal{out: out, errw: errw, settle: true, live: errw}
			},
			func(out, errw *strings.Builder) *terminal { return &terminal{out: out, errw: errw, settle: true} },
		} {
			var out, errw strings.Builder
			evs := []contract.Event{&contract.ModelRequested{}}
			for _, p := range pieces {
				evs = append(evs, &contract.TextDelta{Text: p})
			}
			evs = append(evs, &contract.ModelText{Text: answer}, &contract.ModelFinished{Reason: contract.FinishStop},
				&contract.RunFinished{Outcome: contract.OutcomeCompleted})
			render(t, mk(&out, &errw), evs)
			got = append(got, out.String(), errw.String())
		}
		return got
	}
	whole := renders([]string{answer})
	if want := "café \\x1b]52;c;aGk=\\x07 <U+202E>🙂 \\x9b2J \\xff\\r\nend\n"; whole[0] != want {
		t.Errorf("rendered %q, want %q", whole[0], want)
	}
	var bytes []string
	for j := range len(answer) {
		bytes = append(bytes, answer[j:j+1])
	}
	if d := cmp.Diff(whole, renders(bytes)); d != "" {
		t.Errorf("byte by byte: mismatch (-whole +pieces):\n%s", d)
	}
	for i := 1; i < len(answer); i++ {
		if d := cmp.Diff(whole, renders([]string{answer[:i], answer[i:]})); d != "" {
			t.Fatalf("cut at %d: mismatch (-whole +pieces):\n%s", i, d)
		}
	}
}

// A tool call's line names it as the UI's card does: the tool and what
// it works on (the command, the path relative to the session's
// workspace, the pattern), never its input's JSON.
func TestToolCallTitle(t *testing.T) {
	intent := func(tool, input string, origin string) contract.Event {
		return &contract.IntentProposed{ToolIntent: contract.ToolIntent{ToolName: tool, Input: []byte(input), Origin: origin}}
	}
	for _, tc := range []struct {
		name string
		e    contract.Event
		want string
	}{
		{"a command", intent("bash", `{"command":"go test ./...","description":"Run the tests"}`, ""), "● bash go test ./...\n"},
		{"a path in the workspace", intent("edit_file", `{"path":"/ws/pkg/stats.go","old_string":"a","new_string":"b"}`, ""), "● edit_file pkg/stats.go\n"},
		{"a path outside it", intent("read_file", `{"path":"/etc/hosts"}`, ""), "● read_file /etc/hosts\n"},
		{"a pattern", intent("grep", `{"pattern":"func main","path":"."}`, ""), "● grep func main\n"},
		{"a script on one line", intent("bash", `{"command":"cd x &&\n  make"}`, ""), "● bash cd x && make\n"},
		{"nothing it names", intent("mcp__x__y", `{"n":3}`, ""), "● mcp__x__y\n"},
		{"the person's own command", intent("bash", `{"command":"ls"}`, contract.OriginUser), "! ls\n"},
		{"a hostile command", intent("bash", `{"command":"echo \u001b]52;c;eA==\u0007"}`, ""), `● bash echo \x1b]52;c;eA==\x07` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw strings.Builder
			term := &terminal{out: &out, errw: &errw}
			render(t, term, []contract.Event{&contract.SessionStarted{Cwd: "/ws"}, tc.e})
			if got := errw.String(); got != tc.want {
				t.Errorf("trace %q, want %q", got, tc.want)
			}
		})
	}
}
