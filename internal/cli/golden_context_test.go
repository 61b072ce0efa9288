package cli

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tool"
)

// The golden transcripts of the context engine as a person sees it: a
// run whose old observations are elided and whose conversation is
// compacted by a summary call, a run stopped by its budget, and rein
// compact. The runtime here is a fake that records a fixed list of events
// in a real session log (what the kernel records is the kernel's tests'
// business); the CLI renders it, replays it and lists it as it would a
// kernel's.

// playback is a Runtime that appends fixed events to a session's log and
// yields them, each a fixed time after the one before.
type playback struct {
	s  *stage
	x  *session.Session
	st state.State
	// send is what Send records after the user's message; compact what
	// Compact records.
	send, compact []contract.Event
	// turn is the turn of the events recorded.
	turn int
	// deltas are the text deltas shown before each model.text of send,
	// as a model streams it (the bus has them, the log does not).
	deltas bool
}

func (p *playback) State() state.State { return p.st }
func (p *playback) Session() string    { return p.x.ID }

// record appends e to the log, a fixed time after the event before.
func (p *playback) record(e contract.Event) (contract.Envelope, error) {
	p.s.clock.advance(100 * time.Millisecond)
	run := p.st.Run
	switch e := e.(type) {
	case *contract.RunStarted:
		run, p.turn = id.New("run"), 0
	case *contract.ModelRequested:
		if e.Purpose == "" {
			p.turn++
		}
	}
	env, err := p.x.Log.Append(contract.Envelope{ID: id.New("evt"), Time: p.s.clock.Now(), Session: p.x.ID, Run: run, Turn: p.turn, Data: e})
	if err == nil {
		p.st = state.Apply(p.st, env)
	}
	return env, err
}

// append records e and yields it, after its text as deltas; it reports
// whether to go on.
func (p *playback) append(e contract.Event, yield func(contract.Envelope, error) bool) bool {
	if t, ok := e.(*contract.ModelText); ok && p.deltas {
		if !yield(contract.Envelope{Session: p.x.ID, Time: p.s.clock.Now(), Data: &contract.TextDelta{Text: t.Text}}, nil) {
			return false
		}
	}
	env, err := p.record(e)
	if err != nil {
		yield(contract.Envelope{}, err)
		return false
	}
	return yield(env, nil)
}

func (p *playback) play(evs []contract.Event) iter.Seq2[contract.Envelope, error] {
	return p.s.tee(func(yield func(contract.Envelope, error) bool) {
		for _, e := range evs {
			if !p.append(e, yield) {
				return
			}
		}
	})
}

func (p *playback) Send(ctx context.Context, in kernel.Input) iter.Seq2[contract.Envelope, error] {
	return p.play(append([]contract.Event{&contract.UserMessage{Text: in.Text}, &contract.RunStarted{Goal: in.Text}}, p.send...))
}

func (p *playback) Resume(ctx context.Context, res kernel.Resume) iter.Seq2[contract.Envelope, error] {
	return p.play([]contract.Event{&contract.SessionResumed{FromSeq: p.st.LastSeq, Gates: res.Gates, Version: testVersion}})
}

// A playback keeps no checkpoints and is never rewound.
func (p *playback) RewindPoints() []kernel.RewindPoint { return nil }

func (p *playback) PlanRewind(uint64, string) (kernel.RewindPlan, error) {
	return kernel.RewindPlan{}, errors.New("a playback is not rewound")
}

func (p *playback) Rewind(context.Context, uint64, string, bool) (kernel.RewindPlan, error) {
	return kernel.RewindPlan{}, errors.New("a playback is not rewound")
}

func (p *playback) Compact(ctx context.Context, focus string) iter.Seq2[contract.Envelope, error] {
	evs := make([]contract.Event, len(p.compact))
	for i, e := range p.compact {
		if c, ok := e.(*contract.ContextCompacted); ok {
			copied := *c
			copied.Focus = focus
			e = &copied
		}
		evs[i] = e
	}
	return p.play(evs)
}

// usd is a known cost.
func usd(v float64) *float64 { return &v }

// readCall is a model call that reads a file, and its execution.
func readCall(turn int, id, path, out string, usage *contract.ModelUsage) []contract.Event {
	intent := contract.ToolIntent{ID: id, ProviderCallID: "call_" + id, ToolName: "read_file", Input: json.RawMessage(`{"path":"` + path + `"}`)}
	return []contract.Event{
		&contract.ModelRequested{Provider: "anthropic", Model: "claude-test", MessageCount: 2*turn - 1, ToolNames: []string{"read_file"}, EstimatedInputTokens: 3000 * turn},
		&contract.ModelText{Text: "Reading " + path + "."},
		&contract.IntentProposed{ToolIntent: intent},
		usage,
		&contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.ToolValidation{IntentID: id, OK: true},
		&contract.ToolPermission{IntentID: id, Decision: contract.Allow, By: "mode", Reason: "Default mode allows reads."},
		&contract.InvocationCompleted{IntentID: id, InvocationID: "inv_" + id, Exit: contract.ExitOK, DurationMS: 3, OutputBytes: int64(len(out))},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: "read_file", Phase: contract.PhaseExecution, OK: true, Text: out}},
	}
}

// contextRun reads two files, elides the first one's output, compacts
// after a failed attempt, and answers; one call's price is unknown.
func contextRun() []contract.Event {
	summary := "## Goal\nRefactor the parser.\n## Done\nRead parse.go and lex.go.\n## Next\nSplit parse.go."
	evs := []contract.Event{&contract.ContextProjected{Turn: 1, Window: 16000, Reserved: 4096, Budget: 11104, EstimatedTokens: 3000,
		Sources: []contract.ContextSource{{Kind: contract.SourceSystem, Decision: contract.DecidedIncluded, Tokens: 2600}}}}
	evs = append(evs, readCall(1, "int_1", "parse.go", "package parse\n", &contract.ModelUsage{InputTokens: 3000, OutputTokens: 40, CacheWriteTokens: 2600, CostUSD: usd(0.0123)})...)
	evs = append(evs, readCall(2, "int_2", "lex.go", "package lex\n", &contract.ModelUsage{InputTokens: 6000, OutputTokens: 35, CacheReadTokens: 2600, CostUSD: usd(0.0101)})...)
	return append(evs,
		&contract.ContextProjected{Turn: 3, Window: 16000, Reserved: 4096, Budget: 11104, EstimatedTokens: 10400, Elided: []string{"int_1"},
			Sources: []contract.ContextSource{{Kind: contract.SourceObservations, Decision: contract.DecidedElided, Count: 1, Tokens: 60, Ref: "seq 13"}}},
		&contract.ModelRequested{Provider: "anthropic", Model: "claude-test", MessageCount: 5, ToolNames: []string{}, EstimatedInputTokens: 9800, Purpose: contract.PurposeCompaction},
		&contract.ProviderError{Provider: "anthropic", Kind: contract.KindOverloaded, Message: "overloaded"},
		&contract.CompactionFailed{Turn: 3, Attempt: 1, By: contract.CompactAuto, Reason: "the summary call failed: overloaded"},
		&contract.ModelRequested{Provider: "anthropic", Model: "claude-test", MessageCount: 5, ToolNames: []string{}, EstimatedInputTokens: 9800, Purpose: contract.PurposeCompaction},
		&contract.ModelUsage{InputTokens: 9800, OutputTokens: 300, CacheReadTokens: 2600, CostUSD: usd(0.0094)},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.ContextCompacted{Turn: 3, Summary: summary, Replaced: 4, FromSeq: 2, ToSeq: 21, TokensBefore: 10400, TokensAfter: 3100, By: contract.CompactAuto, Calls: 1},
		&contract.ModelRequested{Provider: "anthropic", Model: "claude-test", MessageCount: 2, ToolNames: []string{"read_file"}, EstimatedInputTokens: 3100},
		&contract.ModelText{Text: "parse.go and lex.go can be split at the token type."},
		&contract.ModelUsage{InputTokens: 3100, OutputTokens: 14000, CacheReadTokens: 2600},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted, Usage: &contract.Totals{InputTokens: 21900, OutputTokens: 14375,
			CacheReadTokens: 7800, CacheWriteTokens: 2600, Calls: 4, CostUSD: 0.0318, Unpriced: 1}},
	)
}

// budgetRun reads a file and stops: its first call took the run past
// --max-cost.
func budgetRun() []contract.Event {
	usage := &contract.ModelUsage{InputTokens: 90000, OutputTokens: 2000, CostUSD: usd(0.30)}
	evs := readCall(1, "int_1", "parse.go", "package parse\n", usage)
	return append(evs, &contract.RunFinished{Outcome: contract.OutcomeBudget,
		Reason: "the run cost $0.3000, which reached its budget of $0.2500 (max_cost, --max-cost); raise it to go on (rein resume)",
		Usage:  &contract.Totals{InputTokens: 90000, OutputTokens: 2000, Calls: 1, CostUSD: 0.30}})
}

// playbackStage is a stage whose sessions run on a playback of send and
// compact.
func playbackStage(t *testing.T, send, compact []contract.Event) *stage {
	s := newStage(t, scenario{})
	s.open = func(x *session.Session, _ tool.Approver) (*Session, error) {
		p := &playback{s: s, x: x, st: x.State, send: send, compact: compact, deltas: true}
		if x.State.Session == "" {
			started := &contract.SessionStarted{Cwd: s.ws, Version: testVersion, Provider: "anthropic", Model: "claude-test"}
			if _, err := p.record(started); err != nil {
				return nil, err
			}
		}
		return &Session{Runtime: p, Dir: x.Dir, Close: x.Close}, nil
	}
	return s
}

// A run whose context the engine manages: an elision, a failed
// compaction, a compaction by a summary call, and a price unknown.
func TestGoldenContext(t *testing.T) {
	s := playbackStage(t, contextRun(), nil)
	piped := s.rein("exec", "refactor the parser")
	checkGolden(t, "render/context.tty.golden", s.screen())
	checkGolden(t, "render/context.piped.golden", piped)
	id := s.sessionID()
	checkGolden(t, "replay/context.golden", s.rein("replay", id))
	checkGolden(t, "log/context.golden", s.rein("log", id, "--type", "context.*"))
	checkCost(t, s, "unknown") // one call's price is unknown
}

// checkCost checks the cost column of rein sessions for the one session
// of s.
func checkCost(t *testing.T, s *stage, want string) {
	t.Helper()
	out := s.rein("sessions", "--all")
	lines := strings.Split(out, "\n")
	if len(lines) < 5 || !strings.Contains(lines[3], "COST") || !strings.Contains(lines[4], "  "+want+"  ") {
		t.Errorf("rein sessions: want the cost %s:\n%s", want, out)
	}
	if out := s.rein("sessions", "--all", "--json"); !strings.Contains(out, `"usage":{"input_tokens":`) {
		t.Errorf("rein sessions --json: want the usage:\n%s", out)
	}
}

// A run stopped by --max-cost.
func TestGoldenBudget(t *testing.T) {
	s := playbackStage(t, budgetRun(), nil)
	piped := s.rein("exec", "--max-cost", "0.25", "refactor the parser")
	checkGolden(t, "render/budget.tty.golden", s.screen())
	checkGolden(t, "render/budget.piped.golden", piped)
	checkCost(t, s, "$0.3000")
}

// rein compact: a compaction, one that changes nothing, and sessions it
// cannot compact.
func TestGoldenCompact(t *testing.T) {
	summary := "## Goal\nRefactor the parser.\n## Next\nSplit parse.go at the token type."
	done := []contract.Event{
		&contract.ModelRequested{Provider: "anthropic", Model: "claude-test", MessageCount: 4, ToolNames: []string{}, EstimatedInputTokens: 6400, Purpose: contract.PurposeCompaction},
		&contract.ModelUsage{InputTokens: 6400, OutputTokens: 120, CostUSD: usd(0.0061)},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.ContextCompacted{Summary: summary, Replaced: 3, FromSeq: 2, ToSeq: 17, TokensBefore: 6400, TokensAfter: 2900, By: contract.CompactUser, Calls: 1},
	}
	failed := []contract.Event{&contract.CompactionFailed{By: contract.CompactUser,
		Reason: "nothing to compact: the conversation is only its latest turn, which is kept verbatim"}}
	for _, c := range []struct {
		name string

		run     []contract.Event
		compact []contract.Event
		args    []string
	}{
		{"compacted", budgetRun(), done, []string{"--focus", "the parser"}},
		{"unchanged", budgetRun(), failed, nil},
		{"unfinished", budgetRun()[:9], done, nil}, // rein was killed mid-run
	} {
		t.Run(c.name, func(t *testing.T) {
			s := playbackStage(t, c.run, c.compact)
			s.rein("exec", "refactor the parser")
			id := s.sessionID()
			checkGolden(t, "compact/"+c.name+".golden", s.rein(append([]string{"compact", id}, c.args...)...))
			if c.name == "compacted" {
				checkGolden(t, "compact/compacted.replay.golden", s.rein("replay", id))
			}
		})
	}
	s := playbackStage(t, nil, done)
	checkGolden(t, "compact/unknown.golden", s.rein("compact", "ses_01NOSUCHSESSION0000000000"))
}
