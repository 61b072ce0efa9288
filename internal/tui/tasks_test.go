package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// taskScreen drives the UI through a run whose task calls' events come
// as the kernel yields them, stamped with the harness's clock.
type taskScreen struct {
	*harness
	seq uint64
}

func newTaskScreen(t *testing.T) *taskScreen {
	h := newHarness(t, 80, &fakeRuntime{})
	h.m.running, h.m.run, h.m.started = true, 1, h.m.now()
	h.m.activityAt = h.m.started
	return &taskScreen{harness: h}
}

// events delivers events as one batch of the run.
func (s *taskScreen) events(events ...contract.Event) {
	var envs []contract.Envelope
	for _, e := range events {
		env := contract.Envelope{Session: "ses_test", Time: s.clock, Data: e}
		if !contract.IsDelta(e.EventType()) {
			s.seq++
			env.Seq = s.seq
		}
		envs = append(envs, env)
	}
	s.send(eventsMsg{run: 1, events: envs})
}

// start is a task call from its proposal to its child's start.
func (s *taskScreen) start(id, agent, description string) {
	in := rawInput(map[string]string{"description": description, "prompt": "Find " + description + ".", "agent": agent})
	s.events(
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: "task", Input: in}},
		&contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode"},
		&contract.InvocationStarted{IntentID: id, InvocationID: "inv_" + id, ToolName: "task", Input: in},
		&contract.TaskStarted{IntentID: id, Agent: agent, Description: description, Child: "ses_" + id},
	)
}

// child delivers events of task id's child, as its parent's bus carries
// them.
func (s *taskScreen) child(id string, events ...contract.Event) {
	var out []contract.Event
	for _, e := range events {
		out = append(out, &contract.TaskEvent{IntentID: id, Child: "ses_" + id, Event: contract.Envelope{Session: "ses_" + id, Time: s.clock, Data: e}})
	}
	s.events(out...)
}

// end is a task call's end: task.finished, the invocation's end and the
// observation (the answer and the tool's footer).
func (s *taskScreen) end(id, outcome, reason string, turns, calls int, ms int64, answer string) {
	exit := contract.ExitOK
	if outcome == contract.TaskCancelled {
		exit = contract.ExitCancelled
	}
	s.events(
		&contract.TaskFinished{IntentID: id, Agent: "explore", Child: "ses_" + id, Outcome: outcome, Reason: reason, Turns: turns, ToolCalls: calls,
			Usage: &contract.Totals{InputTokens: 20_000, OutputTokens: 1_400, Calls: turns, CostUSD: 0.0712}},
		&contract.InvocationCompleted{IntentID: id, InvocationID: "inv_" + id, Exit: exit, DurationMS: ms, OutputBytes: int64(len(answer))},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: "task", OK: outcome == contract.TaskCompleted, Phase: contract.PhaseExecution,
			Text: taskText(id, outcome, answer)}},
	)
}

func call(id, tool string, in map[string]string) []contract.Event {
	raw := rawInput(in)
	return []contract.Event{
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: tool, Input: raw}},
		&contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode"},
		&contract.InvocationStarted{IntentID: id, InvocationID: "inv_" + id, ToolName: tool, Input: raw},
	}
}

// Two children side by side, each card following its own child: the
// tool it runs, its counts, its time; the one that ends first is printed
// with its answer collapsed while the other goes on; one that times out
// says so.
func TestScreenTasks(t *testing.T) {
	s := newTaskScreen(t)
	s.start("t1", "explore", "find the auth code")
	s.start("t2", "explore", "list the test helpers")
	if !strings.Contains(s.screenText(), "running task explore · list the test helpers") {
		t.Errorf("the working line does not say which task runs:\n%s", s.screenText())
	}
	s.later(1200 * time.Millisecond)
	s.child("t1", &contract.ModelRequested{}, &contract.ModelUsage{InputTokens: 4100, OutputTokens: 150})
	s.child("t1", call("c1", "grep", map[string]string{"pattern": "func (Login|Logout)"})...)
	s.child("t2", &contract.ModelRequested{}, &contract.ModelUsage{InputTokens: 3900, OutputTokens: 80})
	s.child("t2", call("c1", "bash", map[string]string{"command": "grep -rn 't.Helper()' --include=*_test.go ."})...)
	s.later(2 * time.Second)
	s.golden("task-running")

	s.child("t1",
		&contract.InvocationCompleted{IntentID: "c1", InvocationID: "inv_c1", Exit: contract.ExitOK, DurationMS: 4},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "c1", ToolName: "grep", OK: true, Phase: contract.PhaseExecution, Text: "2 matches"}},
		&contract.ModelRequested{}, &contract.ModelText{Text: "Found it."})
	s.later(3 * time.Second)
	s.end("t1", contract.TaskCompleted, "", 2, 3, 6200, "## Where auth lives\n\nauth/login.go:12 Login checks the password with bcrypt, then auth/session.go:40 NewSession sets the cookie.\n\n- auth/login.go:12 Login\n- auth/login.go:58 Logout\n- auth/session.go:40 NewSession\n- auth/token.go:8 Sign")
	s.golden("task-done")

	s.later(15 * time.Minute)
	s.end("t2", contract.TaskTimeout, "it ran past its 15 min timeout", 9, 24, 900_000, "The child timed out after 24 tool calls. It had found helpers in 3 files.")
	s.events(&contract.RunFinished{Outcome: contract.OutcomeCompleted})
	s.send(runDoneMsg{run: 1})
	s.golden("task-timeout")
	if live := s.m.tr.Live(s.m.now()); live != "" {
		t.Errorf("something is still live after the run:\n%s", live)
	}
}

// A child's question says which child asks, and its card says it waits.
func TestScreenTaskApproval(t *testing.T) {
	s := newTaskScreen(t)
	s.start("t1", "general", "fix the build")
	s.child("t1", &contract.ModelRequested{})
	// The child's permission is recorded once answered: the question
	// names its intent.
	s.child("t1", &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "c1", ToolName: "bash", Input: rawInput(map[string]string{"command": "rm -rf build && make"})}})
	reply := make(chan kernel.Reply, 1)
	s.send(askMsg{&question{q: kernel.Question{IntentID: "c1", Tool: "bash", Subject: "rm -rf build && make", Reason: "`rm -rf build` is not covered by any rule",
		Rules: []string{"bash(rm -rf build)"}, SaveTo: "~/.config/rein/projects.toml", Agent: "general", Task: "fix the build"}, reply: reply}})
	s.golden("approval-task")
	s.later(time.Second)
	s.key("y")
	if got := <-reply; got.Answer != kernel.Yes {
		t.Errorf("answer %v, want yes", got)
	}
	if v := s.screenText(); strings.Contains(v, "waiting for your approval") || !strings.Contains(v, "⎿ bash rm -rf build && make") {
		t.Errorf("after the answer the card still waits, or lost the call:\n%s", v)
	}
}

// Esc stops every child: the kernel cancels the run's context, the
// children end cancelled, and nothing is left running, not even a card
// whose end the run did not record.
func TestEscStopsEveryTask(t *testing.T) {
	s := newTaskScreen(t)
	stopped := 0
	s.m.cancel = func() { stopped++ }
	s.start("t1", "explore", "find the auth code")
	s.start("t2", "explore", "list the test helpers")
	s.child("t1", call("c1", "bash", map[string]string{"command": "sleep 60"})...)
	s.later(2 * time.Second)
	s.key("esc")
	if stopped != 1 {
		t.Fatalf("esc cancelled the run %d times, want once", stopped)
	}
	s.end("t1", contract.TaskCancelled, "the run was cancelled", 1, 1, 2000, "The child was cancelled. It had run 1 command.")
	s.events(&contract.RunFinished{Outcome: contract.OutcomeCancelled})
	s.send(runDoneMsg{run: 1})
	screen := s.screenText()
	if n := strings.Count(screen, "⎿ cancelled"); n != 2 {
		t.Errorf("%d cards say cancelled, want both:\n%s", n, screen)
	}
	if s.m.running || s.m.tr.Live(s.m.now()) != "" || strings.Contains(screen, "turn 1 · ") {
		t.Errorf("something still runs after the interrupt:\n%s", screen)
	}
}

// taskText is a task's observation as the task tool writes it: the answer
// and the footer, or the footer and the last words of a child that did
// not complete.
func taskText(id, outcome, answer string) string {
	footer := "[task explore, " + outcome + ": 2 turns, 3 tool calls, 1 file read, 0 changed, 21,400 tokens, $0.0712; session ses_" + id + "]"
	if outcome == contract.TaskCompleted {
		return answer + "\n\n" + footer + "\n"
	}
	return footer + "\nIts last words: " + answer + "\n"
}
