// Package eventlogtest writes realistic session logs for tests and
// benchmarks: the events a real session records, with realistic sizes, ids
// and causes, but made up and deterministic. It is a normal package so that
// tests and benchmarks of several packages can share it; production code
// must not import it.
package eventlogtest

import (
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
)

// The shape of a session: a prefix of three events, tool turns of eleven,
// and a final model call of five followed by run.finished.
const (
	prefixEvents = 3
	turnEvents   = 11
	finalEvents  = 6
)

// start is the fixed clock the sessions are stamped with; each event comes
// a little over 37 ms after the previous one.
var start = time.Date(2026, 11, 30, 5, 1, 2, 123456789, time.UTC)

const step = 37*time.Millisecond + 654321*time.Nanosecond

// The constant parts of every session.
const (
	provider = "openai"
	model    = "gpt-4.1"
	cwd      = "/work/project"
	goal     = "look at why this project's tests fail and fix them"
	command  = `{"command":"go test ./..."}`
	rawInput = `{"command": "go test ./..."}`
	// testOutput is about 200 bytes of failing test output.
	testOutput = "--- FAIL: TestMean (0.00s)\n" +
		"    stats_test.go:15: Mean([4]) = +Inf, want 4\n" +
		"    stats_test.go:15: Mean([1 2 3 4]) = 3.3333333333333335, want 2.5\n" +
		"FAIL\nFAIL\texample.com/stats\t0.005s\nFAIL\nexit code: 1\n"
)

// toolNames are the tools every model call offers, as rein's built-ins.
var toolNames = []string{"read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "bash"}

// turns returns how many tool turns a session of about events events has:
// the count that brings its length nearest to events.
func turns(events int) int {
	return max(0, (events-prefixEvents-finalEvents+turnEvents/2)/turnEvents)
}

// Len returns the exact number of events Session and WriteSession produce
// when asked for about events events: the nearest number of the form
// 9+11k, k being the number of tool turns.
func Len(events int) int { return prefixEvents + turns(events)*turnEvents + finalEvents }

// Session yields the envelopes of a valid session with the given id and
// about events events (exactly Len(events)), numbered densely from 1:
// session.started (cwd "/work/project", provider "openai", model
// "gpt-4.1"), user.message and run.started; then tool turns of the eleven
// events of one bash tool call (model.requested with seven tool names,
// model.started, model.text of about 100 characters, tool_intent.proposed,
// model.usage, model.finished, tool.validation, tool.permission,
// tool.invocation.started, tool.invocation.completed, and tool.observation
// with about 200 bytes of test output); then a final model call with text
// that finishes with reason "stop", and run.finished with outcome
// "completed". Lines average about 420 bytes. Every event has a fresh id,
// intents and invocations have fresh ids of their own, tool.observation
// names the intent of its turn, and causes chain as the kernel chains
// them. The output depends only on the arguments: the clock is fixed.
func Session(session string, events int) iter.Seq[contract.Envelope] {
	return func(yield func(contract.Envelope) bool) {
		g := &gen{session: session, run: ident("run", 1), yield: yield}
		g.emit(0, "", &contract.SessionStarted{Cwd: cwd, Version: "0.1.0-dev", Provider: provider, Model: model})
		user := g.emit(0, "", &contract.UserMessage{Text: goal})
		cause := g.emit(0, user, &contract.RunStarted{Goal: goal})
		for turn := 1; turn <= turns(events) && cause != ""; turn++ {
			cause = g.turn(turn, cause)
		}
		g.final(turns(events)+1, cause)
	}
}

// WriteSession writes Session(session, events) to the log of the
// session directory dir, dir/events.jsonl, through an [eventlog.FileStore],
// and syncs it. The directory is created if needed; it must not hold a
// log yet.
func WriteSession(dir, session string, events int) error {
	s, err := eventlog.OpenFile(dir, nil)
	if err != nil {
		return fmt.Errorf("eventlogtest: write session: %w", err)
	}
	for env := range Session(session, events) {
		if _, err := s.Append(env); err != nil {
			_ = s.Close() // the append error is the one to report
			return fmt.Errorf("eventlogtest: write session: %w", err)
		}
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("eventlogtest: write session: %w", err)
	}
	return nil
}

// gen numbers, stamps and yields the envelopes of one session.
type gen struct {
	session, run string
	seq          uint64
	yield        func(contract.Envelope) bool
	stopped      bool
}

// emit yields the next envelope and returns its id, or "" once the
// consumer has stopped (it then yields nothing more). Every event but
// session.started belongs to the session's one run.
func (g *gen) emit(turn int, cause string, ev contract.Event) string {
	if g.stopped {
		return ""
	}
	g.seq++
	id := ident("evt", g.seq)
	env := contract.Envelope{
		Seq: g.seq, ID: id, Time: start.Add(time.Duration(g.seq) * step),
		Session: g.session, Run: g.run, Turn: turn, Cause: cause, Data: ev,
	}
	if _, ok := ev.(*contract.SessionStarted); ok {
		env.Run = ""
	}
	if !g.yield(env) {
		g.stopped = true
		return ""
	}
	return id
}

// call emits the first three events of a model call, model.requested,
// model.started and model.text, and returns the id of model.requested and
// the request id.
func (g *gen) call(turn int, cause, text string) (requested, requestID string) {
	requested = g.emit(turn, cause, &contract.ModelRequested{
		Provider: provider, Model: model, MessageCount: 2*turn - 1, ToolNames: toolNames,
		EstimatedInputTokens: 3975 + 150*turn,
	})
	requestID = fmt.Sprintf("req_%024d", turn)
	g.emit(turn, requested, &contract.ModelStarted{Provider: provider, Model: model, RequestID: requestID})
	g.emit(turn, requested, &contract.ModelText{Text: text})
	return requested, requestID
}

// turn emits the eleven events of one tool turn and returns the id of its
// tool.observation, or "" once the consumer has stopped.
func (g *gen) turn(turn int, cause string) string {
	requested, requestID := g.call(turn, cause, fmt.Sprintf(
		"Turn %d: I'll run the test suite again to see whether the change to stats.go fixed TestMean.", turn))
	intentID := ident("int", uint64(turn))
	input := json.RawMessage(command)
	proposed := g.emit(turn, requested, &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ID: intentID, ProviderCallID: fmt.Sprintf("call_%024d", turn), ToolName: "bash",
		Input: input, RawInput: rawInput,
		Provider:      contract.ProviderRef{Name: provider, Model: model, RequestID: requestID},
		AssembledFrom: contract.Assembly{Fragments: 3, LastIndex: 2},
	}})
	g.emit(turn, requested, &contract.ModelUsage{InputTokens: int64(1180 + 350*turn), OutputTokens: 61, CacheReadTokens: 1024})
	g.emit(turn, requested, &contract.ModelFinished{Reason: contract.FinishToolUse})
	validation := g.emit(turn, proposed, &contract.ToolValidation{IntentID: intentID, OK: true})
	permission := g.emit(turn, validation, &contract.ToolPermission{
		IntentID: intentID, Decision: contract.Allow, By: "rule", Rule: "bash(go test:*)",
		Reason: "Allow rule bash(go test:*) allows every command of `go test ./...`.",
	})
	invocationID := ident("inv", uint64(turn))
	started := g.emit(turn, permission, &contract.InvocationStarted{
		IntentID: intentID, InvocationID: invocationID, ToolName: "bash", Input: input, Cwd: cwd, TimeoutMS: 120000,
	})
	completed := g.emit(turn, started, &contract.InvocationCompleted{
		IntentID: intentID, InvocationID: invocationID, Exit: contract.ExitError, ExitCode: 1,
		DurationMS: int64(500 + turn%100), OutputBytes: int64(len(testOutput)),
	})
	return g.emit(turn, completed, &contract.ToolObservation{Observation: contract.Observation{
		IntentID: intentID, ToolName: "bash", Phase: contract.PhaseExecution, Code: contract.CodeToolError,
		Text: testOutput, Untrusted: true,
	}})
}

// final emits the last model call, which answers and stops, and
// run.finished.
func (g *gen) final(turn int, cause string) {
	requested, _ := g.call(turn, cause,
		"The tests pass now: Mean divided by one sample too few, and the fix divides by len(xs).")
	g.emit(turn, requested, &contract.ModelUsage{InputTokens: int64(1180 + 350*turn), OutputTokens: 42, CacheReadTokens: 1024})
	finished := g.emit(turn, requested, &contract.ModelFinished{Reason: contract.FinishStop})
	g.emit(turn, finished, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
}

// crockford is the alphabet of rein's ids (package id).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ident returns the id "prefix_" followed by 26 characters of Crockford
// base32, as package id makes them: a fixed timestamp part, then n.
func ident(prefix string, n uint64) string {
	b := make([]byte, 0, len(prefix)+27)
	b = append(b, prefix...)
	b = append(b, "_01M8NN0F"...)
	var tail [18]byte
	for i := len(tail) - 1; i >= 0; i-- {
		tail[i] = crockford[n&31]
		n >>= 5
	}
	return string(append(b, tail[:]...))
}
