package transcript

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/tui/style"
)

// The golden files under testdata hold transcripts rendered in the plain
// theme; go test ./internal/tui/transcript -update rewrites them.
var update = flag.Bool("update", false, "rewrite golden files")

// t0 is when every scripted session starts.
var t0 = time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC)

// script drives a Transcript as the UI does and records what it shows:
// the blocks printed into scrollback, and Live when asked.
type script struct {
	tr  *Transcript
	out strings.Builder
	now time.Time
}

func newScript(width int, th style.Theme) *script {
	return &script{now: t0, tr: New(Options{Width: width, Theme: th, Workspace: "/work/proj", SessionDir: "/home/u/.rein/sessions/s1"})}
}

// at moves the clock to d after t0.
func (s *script) at(d time.Duration) *script {
	s.now = t0.Add(d)
	return s
}

// apply folds events stamped with the clock and prints the blocks they
// finish.
func (s *script) apply(events ...contract.Event) *script {
	for _, e := range events {
		s.print(s.tr.Apply(contract.Envelope{Time: s.now, Session: "s1", Data: e}))
	}
	return s
}

func (s *script) print(blocks []string) {
	for _, b := range blocks {
		s.out.WriteString(b + "\n\n")
	}
}

// live records what Live shows now.
func (s *script) live() *script {
	s.out.WriteString("┄┄┄ live at " + s.now.Sub(t0).String() + " ┄┄┄\n" + s.tr.Live(s.now) + "\n┄┄┄\n\n")
	return s
}

// flush prints what Flush ends.
func (s *script) flush() *script {
	s.print(s.tr.Flush())
	return s
}

// deltas returns text as text deltas of n bytes.
func deltas(text string, n int) []contract.Event {
	var out []contract.Event
	for i := 0; i < len(text); i += n {
		out = append(out, &contract.TextDelta{Text: text[i:min(i+n, len(text))]})
	}
	return out
}

func intent(id, tool, input string) *contract.IntentProposed {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: tool, Input: json.RawMessage(input)}}
}

func started(id, tool, input string) *contract.InvocationStarted {
	return &contract.InvocationStarted{IntentID: id, InvocationID: "inv-" + id, ToolName: tool, Input: json.RawMessage(input)}
}

func completed(id string, exit contract.Exit, code int, ms, bytes int64) *contract.InvocationCompleted {
	return &contract.InvocationCompleted{IntentID: id, InvocationID: "inv-" + id, Exit: exit, ExitCode: code, DurationMS: ms, OutputBytes: bytes}
}

func observed(id, tool string, ok bool, text string) *contract.ToolObservation {
	o := &contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: tool, OK: ok, Phase: contract.PhaseExecution, Text: text}}
	if !ok {
		o.Code = contract.CodeToolError
	}
	return o
}

func allow(id string) *contract.ToolPermission {
	return &contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode"}
}

// taskCall is a task call's intent: agent may be empty (the default).
func taskCall(id, agent, description string) *contract.IntentProposed {
	in, _ := json.Marshal(map[string]string{"description": description, "prompt": "Find where " + description + "; report files and lines.", "agent": agent})
	if agent == "" {
		in, _ = json.Marshal(map[string]string{"description": description, "prompt": "Do it."})
	}
	return intent(id, "task", string(in))
}

// taskRuns is a task call from its proposal to its child's start.
func taskRuns(id, agent, description string) []contract.Event {
	p := taskCall(id, agent, description)
	if agent == "" {
		agent = "general"
	}
	return []contract.Event{p, allow(id), started(id, "task", string(p.Input)),
		&contract.TaskStarted{IntentID: id, Agent: agent, Description: description, Child: "ses_child_" + id}}
}

// child wraps events of the child of task call id as its parent's bus
// carries them.
func child(id string, events ...contract.Event) []contract.Event {
	var out []contract.Event
	for _, e := range events {
		out = append(out, &contract.TaskEvent{IntentID: id, Child: "ses_child_" + id, Event: contract.Envelope{Session: "ses_child_" + id, Data: e}})
	}
	return out
}

// taskEnds is a task call's end: task.finished, the invocation's end
// and the observation (the answer and the tool's footer).
func taskEnds(id, outcome, reason string, turns, calls int, usage *contract.Totals, ms int64, answer string) []contract.Event {
	exit := contract.ExitOK
	if outcome == contract.TaskCancelled {
		exit = contract.ExitCancelled
	}
	ok := outcome == contract.TaskCompleted
	// The footer as the task tool writes it: after the answer, or before
	// the last words of a child that did not complete.
	footer := fmt.Sprintf("[task explore, %s: %d turns, %d tool calls, 0 files read, 0 changed, no usage reported; session ses_child_%s]", outcome, turns, calls, id)
	text := answer + "\n\n" + footer + "\n"
	if !ok {
		text = footer + "\nIts last words: " + answer + "\n"
	}
	o := observed(id, "task", ok, text)
	return []contract.Event{
		&contract.TaskFinished{IntentID: id, Agent: "explore", Child: "ses_child_" + id, Outcome: outcome, Reason: reason, Usage: usage, Turns: turns, ToolCalls: calls},
		completed(id, exit, 0, ms, int64(len(answer))), o,
	}
}

const answer = "Here is the plan:\n\n1. read `main.go`\n2. fix the **off-by-one** in the loop\n\n```go\nfor i := 0; i < n; i++ {\n\tsum += xs[i] // was i <= n\n}\n```\n\nThat should do it; see [the issue](https://example.com/issue/12) for the report.\n"

const editDiff = "edited main.go: 1 replacement\n--- a/main.go\n+++ b/main.go\n@@ -3,5 +3,5 @@\n func sum(xs []int) int {\n \tsum := 0\n-\tfor i := 0; i <= len(xs); i++ {\n+\tfor i := 0; i < len(xs); i++ {\n \t\tsum += xs[i]\n \t}\n"

// scenarios are the transcripts checked against golden files, each
// written to run in any theme and width.
var scenarios = map[string]func(s *script){
	"streamed_answer": func(s *script) {
		ds := deltas(answer, 3)
		s.apply(&contract.UserMessage{Text: "fix the sum"}).apply(ds[:20]...).live().
			apply(ds[20:]...).live().apply(&contract.ModelText{Text: answer}).live().
			apply(&contract.RunFinished{Outcome: contract.OutcomeCompleted})
	},
	"tool_running": func(s *script) {
		in := `{"command":"go test ./..."}`
		s.apply(intent("i1", "bash", in)).live().apply(allow("i1"), started("i1", "bash", in))
		s.at(1200 * time.Millisecond).apply(&contract.ToolOutputDelta{IntentID: "i1", Text: "ok  \tpkg/a\t0.1s\nok  \tpkg/b\t0.2s\n--- FAIL: TestC (0.00s)\n"})
		s.at(3200 * time.Millisecond).apply(&contract.ToolOutputDelta{IntentID: "i1", Text: "    c_test.go:12: got 1, want 2\nFAIL\nFAIL\tpkg/c\t0.3s\nok  \tpkg/d"}).live()
	},
	"bash_ok": func(s *script) {
		in := `{"command":"go build ./...\n&& go vet ./..."}`
		s.apply(intent("i1", "bash", in), allow("i1"), started("i1", "bash", in)).
			at(2300*time.Millisecond).apply(completed("i1", contract.ExitOK, 0, 2300, 0), observed("i1", "bash", true, "exit code: 0\n"))
	},
	"bash_failed": func(s *script) {
		in := `{"command":"go test ./..."}`
		s.apply(intent("i1", "bash", in), allow("i1"), started("i1", "bash", in)).
			apply(completed("i1", contract.ExitError, 1, 2345, 4198),
				observed("i1", "bash", false, "ok  \tpkg/a\t0.1s\n--- FAIL: TestC (0.00s)\n    c_test.go:12: got 1, want 2\nFAIL\texit code: 1 is not this line\nFAIL\tpkg/c\t0.3s\nexit code: 1\n"))
	},
	"user_command": func(s *script) {
		in := `{"command":"ls -la"}`
		p := intent("i1", "bash", in)
		p.Origin = contract.OriginUser
		s.apply(p, started("i1", "bash", in), completed("i1", contract.ExitOK, 0, 40, 120), observed("i1", "bash", true, "total 0\nexit code: 0\n"))
	},
	"edit_diff": func(s *script) {
		in := `{"path":"/work/proj/main.go","old_string":"<=","new_string":"<"}`
		s.apply(intent("i1", "edit_file", in), allow("i1"), started("i1", "edit_file", in),
			completed("i1", contract.ExitOK, 0, 3, 0), observed("i1", "edit_file", true, editDiff))
	},
	"write_diff": func(s *script) {
		// A created file shows its content as an all-added diff, cut to
		// diffLines; an updated one the diff its observation holds.
		in := `{"path":"/work/proj/b.txt","content":"one\ntwo\n"}`
		s.apply(intent("i1", "write_file", in), allow("i1"), started("i1", "write_file", in),
			completed("i1", contract.ExitOK, 0, 2, 0), observed("i1", "write_file", true, "created b.txt (2 lines)\n"))
		long := ""
		for i := range 30 {
			long += fmt.Sprintf("line %d \\u001b[2J\\n", i+1)
		}
		in = `{"path":"notes/long.txt","content":"` + long + `"}`
		s.apply(intent("i2", "write_file", in), allow("i2"), started("i2", "write_file", in),
			completed("i2", contract.ExitOK, 0, 2, 0), observed("i2", "write_file", true, "created notes/long.txt (30 lines)\n"))
		in = `{"path":"/work/proj/b.txt","content":"one\n2\n"}`
		s.apply(intent("i3", "write_file", in), allow("i3"), started("i3", "write_file", in), completed("i3", contract.ExitOK, 0, 2, 0),
			observed("i3", "write_file", true, "updated b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"))
	},
	"cancelled_stream": func(s *script) {
		// The person's Esc during a stream: one "interrupted", no error,
		// no note of the discard.
		s.apply(&contract.UserMessage{Text: "explain"}).apply(deltas("Partial answ", 4)...).live().
			apply(&contract.ProviderError{Kind: contract.KindAborted, Provider: "scripted", Message: "the request was cancelled: context canceled"},
				&contract.ModelDiscarded{Reason: "the model call was stopped; its partial output is not part of the conversation"},
				&contract.RunFinished{Outcome: contract.OutcomeCancelled})
	},
	"denial": func(s *script) {
		in := `{"command":"rm -rf build"}`
		s.apply(intent("i1", "bash", in),
			&contract.ToolPermission{IntentID: "i1", Decision: contract.Deny, By: "rule", Rule: "bash(rm:*)", Reason: "removing files is denied"}).live().
			apply(&contract.ToolObservation{Observation: contract.Observation{IntentID: "i1", ToolName: "bash", Phase: contract.PhasePermission, Code: contract.CodeDenied, Text: "denied: removing files is denied"}})
		in = `{"path":"x.go","content":1}`
		s.apply(intent("i2", "write_file", in),
			&contract.ToolValidation{IntentID: "i2", Code: contract.CodeSchemaInvalid, Errors: []string{"content: expected string"}},
			&contract.ToolObservation{Observation: contract.Observation{IntentID: "i2", ToolName: "write_file", Phase: contract.PhaseValidation, Code: contract.CodeSchemaInvalid, Text: "invalid input"}})
	},
	"error": func(s *script) {
		s.apply(&contract.UserMessage{Text: "hi"}).apply(deltas("Partial answ", 4)...).
			apply(&contract.ProviderError{Kind: contract.ErrorKind("rate_limit"), Provider: "anthropic", HTTPStatus: 429, Message: "rate limited \x1b[31mnow"},
				&contract.ModelDiscarded{Reason: "rate_limit"},
				&contract.RetryScheduled{Attempt: 2, DelayMS: 2000, Kind: contract.ErrorKind("rate_limit")},
				&contract.FallbackSelected{From: "anthropic", To: "openai", Reason: "rate_limit"},
				&contract.RunFinished{Outcome: contract.OutcomeFailed, Reason: "the provider kept refusing"})
	},
	"artifact": func(s *script) {
		in := `{"command":"seq 1 100000"}`
		o := observed("i1", "bash", true, "1\n2\n[… 99,996 lines omitted …]\n99999\n100000\nexit code: 0\n")
		o.Truncated, o.ArtifactRef, o.OmittedBytes = true, "artifacts/i1.txt", 588_000
		s.apply(intent("i1", "bash", in), started("i1", "bash", in), completed("i1", contract.ExitOK, 0, 150, 588_895), o)
		in = `{"pattern":"TODO"}`
		o = observed("i2", "grep", true, "1,204 matching lines in 310 files\na.go:1: TODO\n")
		o.Truncated, o.ArtifactRef = true, "artifacts/i2.txt"
		s.apply(intent("i2", "grep", in), started("i2", "grep", in), completed("i2", contract.ExitOK, 0, 80, 90_000), o)
	},
	"user_message": func(s *script) {
		s.apply(&contract.UserMessage{Text: "please look at the failing test in pkg/c and fix it without changing the public API\nthanks \x1b]0;title\x07"})
	},
	"reasoning": func(s *script) {
		r := "First I read the test.\nIt expects 2.\nThe loop runs once too often.\nSo the bound is wrong.\nFix: use < instead of <=.\nThen run the tests."
		for _, d := range deltas(r, 7) {
			s.apply(&contract.ReasoningDelta{Text: d.(*contract.TextDelta).Text})
		}
		s.live().apply(&contract.ModelReasoning{Text: r}).apply(&contract.ModelReasoning{Text: "Short."})
	},
	"parallel_reads": func(s *script) {
		a, b := `{"path":"/work/proj/a.go"}`, `{"path":"/elsewhere/b.go"}`
		s.apply(intent("r1", "read_file", a), intent("r2", "read_file", b), started("r1", "read_file", a), started("r2", "read_file", b)).
			at(500*time.Millisecond).live().
			apply(completed("r2", contract.ExitOK, 0, 600, 90), observed("r2", "read_file", true, "     1\tpackage b\n     2\t\n     3\tfunc B() {}\n")).live().
			apply(completed("r1", contract.ExitOK, 0, 700, 0), observed("r1", "read_file", false, "read_file: a.go: no such file or directory"))
	},
	"interrupted": func(s *script) {
		in := `{"command":"sleep 100"}`
		s.apply(deltas("Sleeping now.\n\nStill", 5)...).apply(intent("i1", "bash", in), started("i1", "bash", in)).
			apply(&contract.ReasoningDelta{Text: "hmm"}).at(4 * time.Second).live().
			apply(&contract.RunFinished{Outcome: contract.OutcomeCancelled})
	},
	"hostile": func(s *script) {
		// Escape sequences from the model, a tool's output, a file and a
		// provider: every one shown, none sent.
		in := "{\"command\":\"echo \\u001b]52;c;aGk=\\u0007 \\u202egnp.exe\"}"
		s.apply(&contract.ModelText{Text: "Done \x1b[2J\x1b[H. `\x1b[31mred`\n\n```sh\nrm \x1b[8mhidden\n```"}).
			apply(intent("i1", "bash\x1b[5m", in), started("i1", "bash", in),
				&contract.ToolOutputDelta{IntentID: "i1", Text: "out \x1b]0;title\x07\x9b1m"}).live().
			apply(completed("i1", contract.ExitError, 1, 10, 20), observed("i1", "bash", false, "\x1b[41mbad\x1b[0m\nexit code: 1\n"))
		in = "{\"path\":\"/work/proj/\\u001b[1mx.go\"}"
		s.apply(intent("i2", "edit_file", in), started("i2", "edit_file", in), completed("i2", contract.ExitOK, 0, 1, 0),
			observed("i2", "edit_file", true, "edited x: 1 replacement\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\x1b[1mold\n+new\u200b\n"),
			&contract.ProviderError{Message: "bad \x1b]8;;http://evil\x07link"})
	},
	"task_running": func(s *script) {
		// A task card's live line: what the child does, its counts, its
		// time; its tool as that tool's card names it; a question it
		// waits on.
		s.apply(taskRuns("t1", "explore", "find the auth code")...).live()
		resumed := taskRuns("t2", "explore", "map the packages")
		resumed[3].(*contract.TaskStarted).Resumed = true
		s.apply(resumed...).live().apply(taskEnds("t2", contract.TaskCompleted, "", 4, 9, nil, 100, "a, b")...)
		grep := `{"pattern":"func Login"}`
		s.at(1500 * time.Millisecond).apply(child("t1",
			&contract.SessionStarted{Cwd: "/work/proj"},
			&contract.UserMessage{Text: "Find where the auth code is"},
			&contract.ModelRequested{},
			&contract.ModelUsage{InputTokens: 3100, OutputTokens: 120},
			intent("c1", "grep", grep), allow("c1"), started("c1", "grep", grep))...).live()
		in := `{"command":"go test ./auth/... -run TestLogin -count=1 -v -timeout 30s"}`
		s.at(4200 * time.Millisecond).apply(child("t1",
			completed("c1", contract.ExitOK, 0, 3, 40), observed("c1", "grep", true, "1 match\nauth/login.go:12: func Login"),
			&contract.ModelRequested{}, &contract.ModelUsage{InputTokens: 3400, OutputTokens: 90},
			intent("c2", "bash", in),
			&contract.ToolPermission{IntentID: "c2", Decision: contract.Ask, By: "mode"})...).live()
		s.at(9 * time.Second).apply(child("t1",
			&contract.ToolPermission{IntentID: "c2", Decision: contract.Allow, By: "user"}, started("c2", "bash", in))...).live()
	},
	"task_completed": func(s *script) {
		// Done: the counts task.finished says, the answer's first lines
		// (a long line wrapped), how many more; never the tool's footer.
		s.apply(taskRuns("t1", "explore", "find the auth code")...)
		s.apply(child("t1", &contract.ModelRequested{}, &contract.ModelText{Text: "Found it."})...)
		ans := "The login code is in auth/login.go:12 (Login), which checks the password with bcrypt and then calls auth/session.go:40 (NewSession).\n\n- auth/login.go:12 Login\n- auth/session.go:40 NewSession\n- auth/token.go:8 Sign\n- auth/token.go:30 Verify"
		s.at(12 * time.Second).apply(taskEnds("t1", contract.TaskCompleted, "", 3, 7, &contract.Totals{InputTokens: 11_800, OutputTokens: 640, Calls: 3, CostUSD: 0.0412}, 12_300, ans)...)
		// A short answer shows whole; an agent the input left to the
		// default is the one task.started names.
		s.apply(taskRuns("t2", "", "list the commands")...)
		s.apply(taskEnds("t2", contract.TaskCompleted, "", 1, 0, &contract.Totals{InputTokens: 900, OutputTokens: 30, Calls: 1}, 800, "build, test, lint")...)
	},
	"task_failed": func(s *script) {
		// Not completed: which way it ended, in the warning's style (the
		// error's for failed), why, and what it had done.
		s.apply(taskRuns("t1", "explore", "find the flaky test")...)
		s.apply(child("t1", &contract.ModelRequested{}, &contract.ModelRequested{})...)
		s.at(15 * time.Minute).apply(taskEnds("t1", contract.TaskTimeout, "it ran past its 15 min timeout", 2, 5, nil, 900_000, "The child timed out. It had read 4 files.")...)
		s.apply(taskRuns("t2", "general", "fix the build")...)
		s.apply(taskEnds("t2", contract.TaskFailed, "anthropic: authentication failed (HTTP 401)", 1, 0, nil, 300, "The child failed: authentication failed.")...)
		s.apply(taskRuns("t3", "explore", "map the packages")...)
		s.apply(taskEnds("t3", contract.TaskMaxTurns, "25 turns", 25, 61, &contract.Totals{InputTokens: 1_250_000, OutputTokens: 9000, Calls: 25, CostUSD: 3.5}, 200_000, "It had listed 12 of the packages.")...)
	},
	"task_parallel": func(s *script) {
		// Two children side by side, their events interleaved: each card
		// follows its own; the one that ends first is printed first.
		a, b := `{"path":"/work/proj/auth/login.go"}`, `{"command":"go list ./..."}`
		s.apply(taskCall("t1", "explore", "find the auth code"), taskCall("t2", "explore", "list the packages"))
		s.apply(taskRuns("t1", "explore", "find the auth code")[1:]...).apply(taskRuns("t2", "explore", "list the packages")[1:]...)
		s.at(2 * time.Second).apply(child("t1", &contract.ModelRequested{}, intent("c1", "read_file", a), started("c1", "read_file", a))...).
			apply(child("t2", &contract.ModelRequested{}, intent("c1", "bash", b), started("c1", "bash", b))...).live()
		s.at(5 * time.Second).apply(child("t2", completed("c1", contract.ExitOK, 0, 400, 90), observed("c1", "bash", true, "a\nb\nexit code: 0"),
			&contract.ModelRequested{}, &contract.ModelText{Text: "Two packages."})...).
			apply(taskEnds("t2", contract.TaskCompleted, "", 2, 1, &contract.Totals{InputTokens: 4000, OutputTokens: 80, Calls: 2}, 3000, "Two packages: a and b.")...).live()
		s.at(8 * time.Second).apply(taskEnds("t1", contract.TaskCompleted, "", 2, 1, nil, 6000, "auth/login.go:12")...)
	},
	"task_cancelled": func(s *script) {
		// Esc: the kernel cancels the children, which end cancelled;
		// a card whose end the run did not record ends with the run.
		s.apply(taskRuns("t1", "explore", "find the auth code")...).apply(taskRuns("t2", "explore", "list the packages")...)
		s.apply(child("t1", &contract.ModelRequested{}, intent("c1", "bash", `{"command":"sleep 60"}`), started("c1", "bash", `{"command":"sleep 60"}`))...)
		s.at(3 * time.Second).apply(taskEnds("t1", contract.TaskCancelled, "the parent's run was cancelled", 1, 1, nil, 3000, "The child was cancelled. It had run 1 command.")...).
			apply(&contract.RunFinished{Outcome: contract.OutcomeCancelled}).live()
	},
	"task_replay": func(s *script) {
		// Read back from the log, which holds no task.event: the card
		// ends as the live one did.
		events := append(taskRuns("t1", "explore", "find the auth code"),
			taskEnds("t1", contract.TaskCompleted, "", 3, 7, &contract.Totals{InputTokens: 11_800, OutputTokens: 640, Calls: 3, CostUSD: 0.0412}, 12_300, "auth/login.go:12")...)
		for i, e := range events {
			env := contract.Envelope{Seq: uint64(i + 1), ID: "e", Time: t0, Session: "s1", Data: e}
			b, err := json.Marshal(env)
			if err != nil {
				panic(err)
			}
			var back contract.Envelope
			if err := json.Unmarshal(b, &back); err != nil {
				panic(err)
			}
			s.print(s.tr.Apply(back))
		}
	},
	"replay": func(s *script) {
		// A whole session read back from its log: durable events only,
		// each through JSON as the log holds them.
		in := `{"command":"go test ./pkg/c"}`
		events := []contract.Event{
			&contract.SessionStarted{Cwd: "/work/proj", Provider: "anthropic", Model: "claude"},
			&contract.UserMessage{Text: "fix the sum"},
			&contract.RunStarted{Goal: "fix the sum"},
			&contract.ModelRequested{Provider: "anthropic", MessageCount: 1},
			&contract.ModelReasoning{Text: "The loop bound is off by one."},
			&contract.ModelText{Text: answer},
			intent("i1", "edit_file", `{"path":"main.go"}`), allow("i1"), started("i1", "edit_file", `{"path":"main.go"}`),
			completed("i1", contract.ExitOK, 0, 3, 0), observed("i1", "edit_file", true, editDiff),
			intent("i2", "bash", in), allow("i2"), started("i2", "bash", in),
			completed("i2", contract.ExitOK, 0, 1900, 31), observed("i2", "bash", true, "ok  \tpkg/c\t0.3s\nexit code: 0\n"),
			&contract.ModelUsage{InputTokens: 10},
			&contract.ContextCompacted{TokensBefore: 120_000, TokensAfter: 12_000, By: contract.CompactAuto},
			&contract.CompactionFailed{Reason: "the summary was empty"},
			&contract.ModelText{Text: "Fixed: the tests pass."},
			&contract.RunFinished{Outcome: contract.OutcomeCompleted},
			&contract.SessionResumed{FromSeq: 21},
			&contract.ModeChanged{From: "default", To: "accept-edits", By: "user"},
			&contract.ModelSwitched{From: "anthropic:claude", To: "openai:gpt", By: "user"},
			&contract.UserMessage{Text: "and the docs?"},
			&contract.RunFinished{Outcome: contract.OutcomeBudget, Reason: "max_cost $1.00 reached"},
			&contract.SessionForked{ParentSession: "s0", ParentSeq: 7},
			&contract.RunFinished{Outcome: contract.OutcomeMaxTurns, Reason: "30 turns"},
		}
		for i, e := range events {
			env := contract.Envelope{Seq: uint64(i + 1), ID: "e", Time: t0, Session: "s1", Data: e}
			b, err := json.Marshal(env)
			if err != nil {
				panic(err)
			}
			var back contract.Envelope
			if err := json.Unmarshal(b, &back); err != nil {
				panic(err)
			}
			s.print(s.tr.Apply(back))
		}
		s.flush()
	},
}

func TestGolden(t *testing.T) {
	for name, run := range scenarios {
		t.Run(name, func(t *testing.T) {
			s := newScript(60, style.Theme{})
			run(s)
			golden(t, filepath.Join("testdata", name+".golden"), s.out.String())
		})
	}
}

// golden compares got with the golden file at path, or rewrites it with
// -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; go test ./internal/tui/transcript -update writes it", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s\nIf the change is meant, rewrite it with go test ./internal/tui/transcript -update and review its diff.", path, d)
	}
}
