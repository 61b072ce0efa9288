package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// The trace of a turn that hands work to two children at once: what the
// kernel yields for task calls (task.started, the children's events as
// task.event, task.finished), their events interleaved as two children
// running side by side make them. Each child's lines are indented under
// its task, named again whenever the other's came between.

// taskTurn is the parent's events, with the children's carried in
// task.event, for a workspace at ws.
func taskTurn(ws string) []contract.Event {
	in := func(v any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	call := func(id, tool string, input json.RawMessage) []contract.Event {
		return []contract.Event{
			&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: tool, Input: input}},
			&contract.ToolValidation{IntentID: id, OK: true},
			&contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode", Reason: "Default mode allows reads."},
			&contract.InvocationStarted{IntentID: id, InvocationID: "inv_" + id, ToolName: tool, Input: input},
		}
	}
	child := func(id string, events ...contract.Event) []contract.Event {
		var out []contract.Event
		for _, e := range events {
			out = append(out, &contract.TaskEvent{IntentID: id, Child: "ses_child_" + id, Event: contract.Envelope{Session: "ses_child_" + id, Data: e}})
		}
		return out
	}
	t1 := in(map[string]string{"description": "find the auth code", "prompt": "Find where users log in; give files and lines.", "agent": "explore"})
	t2 := in(map[string]string{"description": "list the test helpers", "prompt": "List the test helpers."})
	grep := in(map[string]string{"pattern": "func Login", "path": ws})
	read := in(map[string]string{"path": ws + "/auth/login.go"})
	rm := in(map[string]string{"command": "rm -rf /tmp/cache && go test ./..."})
	answer := "Login is in auth/login.go:12; it checks the password with bcrypt\nand calls NewSession (auth/session.go:40)."

	var evs []contract.Event
	add := func(e ...contract.Event) { evs = append(evs, e...) }
	add(&contract.SessionStarted{Cwd: ws, Provider: "scripted", Model: "m"},
		&contract.UserMessage{Text: "how do users log in, and what test helpers are there?"},
		&contract.RunStarted{}, &contract.ModelRequested{Provider: "scripted", Model: "m"},
		&contract.TextDelta{Text: "I'll look in both places at once."},
		&contract.ModelText{Text: "I'll look in both places at once."},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "t1", ToolName: "task", Input: t1}},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "t2", ToolName: "task", Input: t2}},
		&contract.ModelFinished{Reason: contract.FinishToolUse})
	for _, id := range []string{"t1", "t2"} {
		input := map[string]json.RawMessage{"t1": t1, "t2": t2}[id]
		add(&contract.ToolValidation{IntentID: id, OK: true},
			&contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode", Reason: "task runs without a question; its child's calls are decided as they come."},
			&contract.InvocationStarted{IntentID: id, InvocationID: "inv_" + id, ToolName: "task", Input: input})
	}
	add(&contract.TaskStarted{IntentID: "t1", Agent: "explore", Description: "find the auth code", Child: "ses_child_t1"},
		&contract.TaskStarted{IntentID: "t2", Agent: "general", Description: "list the test helpers", Child: "ses_child_t2"})
	add(child("t1", &contract.SessionStarted{Cwd: ws}, &contract.UserMessage{Text: "Find where users log in; give files and lines."},
		&contract.RunStarted{}, &contract.ModelRequested{}, &contract.ModelReasoning{Text: "Search for the login function first."})...)
	// The other child's line comes between a call's title and its
	// decision: the two stay together.
	add(child("t1", call("c1", "grep", grep)[0], &contract.ModelFinished{Reason: contract.FinishToolUse})...)
	add(child("t2", &contract.SessionStarted{Cwd: ws}, &contract.RunStarted{}, &contract.ModelRequested{},
		&contract.ModelReasoning{Text: "A risky command first."})...)
	add(child("t1", call("c1", "grep", grep)[1:]...)...)
	add(child("t2", call("c1", "bash", rm)[:2]...)...)
	add(child("t2", &contract.ToolPermission{IntentID: "c1", Decision: contract.Deny, By: "headless", Reason: "no one is there to ask"},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "c1", ToolName: "bash", Phase: contract.PhasePermission, Code: contract.CodeDenied, Text: "denied: no one is there to ask"}})...)
	add(child("t1", &contract.InvocationCompleted{IntentID: "c1", InvocationID: "inv_c1", Exit: contract.ExitOK, DurationMS: 4, OutputBytes: 41},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "c1", ToolName: "grep", OK: true, Phase: contract.PhaseExecution, Text: "1 match\nauth/login.go:12: func Login(w http.ResponseWriter, r *http.Request) {"}},
		&contract.ModelUsage{InputTokens: 3100, OutputTokens: 60}, &contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.ModelRequested{})...)
	add(child("t1", call("c2", "read_file", read)...)...)
	add(child("t1", &contract.InvocationCompleted{IntentID: "c2", InvocationID: "inv_c2", Exit: contract.ExitOK, DurationMS: 2, OutputBytes: 900},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "c2", ToolName: "read_file", OK: true, Phase: contract.PhaseExecution, Text: "    12\tfunc Login(w http.ResponseWriter, r *http.Request) {\n    13\t\tuser := r.FormValue(\"user\")"}},
		&contract.ModelRequested{}, &contract.ModelText{Text: answer}, &contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted})...)
	add(&contract.TaskFinished{IntentID: "t1", Agent: "explore", Child: "ses_child_t1", Outcome: contract.TaskCompleted, Turns: 3, ToolCalls: 2,
		Usage: &contract.Totals{InputTokens: 9800, OutputTokens: 210, Calls: 3, CostUSD: 0.0314}, FilesRead: []string{ws + "/auth/login.go"}},
		&contract.InvocationCompleted{IntentID: "t1", InvocationID: "inv_t1", Exit: contract.ExitOK, DurationMS: 5200, OutputBytes: 180},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "t1", ToolName: "task", OK: true, Phase: contract.PhaseExecution,
			Text: answer + "\n\n[task explore, completed: 3 turns, 2 tool calls, 1 file read, 0 changed, 10,010 tokens, $0.0314; session ses_child_t1]\n"}})
	add(child("t2", &contract.ModelRequested{}, &contract.ProviderError{Kind: contract.KindOverloaded, Retryable: true, Message: "overloaded"},
		&contract.RetryScheduled{Attempt: 2, DelayMS: 2000, Kind: contract.KindOverloaded})...)
	add(&contract.TaskFinished{IntentID: "t2", Agent: "general", Child: "ses_child_t2", Outcome: contract.TaskTimeout, Reason: "it ran past its 15 min timeout", Turns: 2, ToolCalls: 1,
		Usage: &contract.Totals{InputTokens: 2000, OutputTokens: 20, Calls: 2, Unpriced: 2}},
		&contract.InvocationCompleted{IntentID: "t2", InvocationID: "inv_t2", Exit: contract.ExitError, DurationMS: 900_000, OutputBytes: 120},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "t2", ToolName: "task", Phase: contract.PhaseExecution, Code: contract.CodeToolError,
			Text: "[task general, timeout: 2 turns, 1 tool call, 0 files read, 0 changed, 2,020 tokens, cost unknown; session ses_child_t2]\n"}})
	add(&contract.ModelRequested{Provider: "scripted", Model: "m"},
		&contract.TextDelta{Text: "Users log in through auth/login.go:12."},
		&contract.ModelText{Text: "Users log in through auth/login.go:12."},
		&contract.ModelFinished{Reason: contract.FinishStop}, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
	return evs
}

func TestGoldenTasks(t *testing.T) {
	s := newStage(t, scenario{name: "tasks"})
	for _, e := range taskTurn(s.ws) {
		s.envs = append(s.envs, contract.Envelope{Session: "ses_test", Data: e})
	}
	checkGolden(t, "render/tasks.tty.golden", s.screen())
	checkGolden(t, "render/tasks.redirected.golden", s.redirected())
	// Piped: stdout holds the answers that stand, stderr the trace.
	var out, errw bytes.Buffer
	term := newTerminal(&out, &errw)
	s.play(term)
	checkGolden(t, "render/tasks.piped.golden", s.scrub("--- stdout\n"+out.String()+"--- stderr\n"+errw.String()))
	if !strings.Contains(errw.String(), "    ● grep func Login\n      allowed by mode") {
		t.Errorf("a child's call is parted from its decision:\n%s", errw.String())
	}
	// No child line is written flush with its parent's, and none of the
	// brief (the task's line says what it is).
	for _, l := range strings.Split(errw.String(), "\n") {
		if strings.Contains(l, "func Login") && !strings.HasPrefix(l, "    ") {
			t.Errorf("a child's line is not indented under its task: %q", l)
		}
		if strings.Contains(l, "give files and lines") {
			t.Errorf("the brief is shown: %q", l)
		}
	}
}

// --json prints the durable events of a task call as any other's, and a
// child's events (task.event, a delta: the child's own log holds them)
// only with --deltas, as the other deltas.
func TestJSONTaskEvents(t *testing.T) {
	for _, deltas := range []bool{false, true} {
		var out bytes.Buffer
		j := &jsonLines{w: &out, deltas: deltas}
		for _, e := range taskTurn("/w") {
			if err := j.event(contract.Envelope{Session: "ses_test", Data: e}); err != nil {
				t.Fatal(err)
			}
		}
		got := out.String()
		if !strings.Contains(got, `"type":"task.started"`) || !strings.Contains(got, `"type":"task.finished"`) {
			t.Errorf("deltas %v: the task's durable events are missing", deltas)
		}
		if n := strings.Count(got, `"type":"task.event"`); deltas != (n > 0) {
			t.Errorf("deltas %v: %d task.event lines", deltas, n)
		}
	}
}
