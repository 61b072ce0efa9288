package state

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

// turnEvents are the events of one tool call of the conversation: the
// model proposes intent id and the tool answers text.
func turnEvents(id, text string) []contract.Event {
	return []contract.Event{
		&contract.ModelRequested{Model: "m", InputBytes: 400},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`)}},
		&contract.ModelUsage{InputTokens: 100, OutputTokens: 5},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: id, OK: true, Text: text, ArtifactRef: "artifacts/" + id + ".txt"}},
	}
}

func session(extra ...[]contract.Event) []contract.Envelope {
	events := []contract.Event{
		&contract.SessionStarted{Cwd: "/w", Provider: "p", Model: "m", System: "sys",
			ModelInfo: &contract.ModelInfo{ContextWindow: 16000, Source: contract.InfoCatalog}},
		&contract.UserMessage{Text: "fix it"},
		&contract.RunStarted{Goal: "fix it"},
	}
	for _, e := range extra {
		events = append(events, e...)
	}
	return envs(events...)
}

func TestConversationRecordsSeqsAndArtifacts(t *testing.T) {
	s := reduceSlice(session(turnEvents("i1", "out1"), turnEvents("i2", "out2")))
	// seq 1 session.started, 2 user.message, 3 run.started, then five
	// events a turn: model.finished at 7 and 12, observations at 8 and 13.
	if d := cmp.Diff([]uint64{2, 7, 8, 12, 13}, s.Seqs); d != "" {
		t.Errorf("Seqs mismatch (-want +got):\n%s", d)
	}
	if len(s.Seqs) != len(s.Messages) {
		t.Fatalf("%d seqs for %d messages", len(s.Seqs), len(s.Messages))
	}
	if got := s.Messages[2].Result.ArtifactRef; got != "artifacts/i1.txt" {
		t.Errorf("ArtifactRef = %q", got)
	}
	if s.System != "sys" || s.ModelInfo == nil || s.ModelInfo.ContextWindow != 16000 || s.LastUser != "fix it" {
		t.Errorf("System %q, ModelInfo %+v, LastUser %q", s.System, s.ModelInfo, s.LastUser)
	}
}

func TestSessionResumedReplacesSystemAndInfo(t *testing.T) {
	info := &contract.ModelInfo{ContextWindow: 200000, Source: contract.InfoConfig}
	tests := []struct {
		name    string
		resumed *contract.SessionResumed
		system  string
		window  int
	}{
		{"nothing new", &contract.SessionResumed{FromSeq: 3}, "sys", 16000},
		{"a new system prompt", &contract.SessionResumed{System: "new"}, "new", 16000},
		{"new model info", &contract.SessionResumed{ModelInfo: info}, "sys", 200000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := reduceSlice(session([]contract.Event{tc.resumed}))
			if s.System != tc.system || s.ModelInfo.ContextWindow != tc.window {
				t.Errorf("System %q, window %d; want %q, %d", s.System, s.ModelInfo.ContextWindow, tc.system, tc.window)
			}
		})
	}
}

func TestUsageSumsSessionAndRun(t *testing.T) {
	cost := 0.5
	s := reduceSlice(session(
		[]contract.Event{&contract.ModelRequested{}, &contract.ModelUsage{InputTokens: 10, OutputTokens: 1, CostUSD: &cost},
			&contract.ModelFinished{}, &contract.RunFinished{Outcome: contract.OutcomeCompleted},
			&contract.UserMessage{Text: "more"}, &contract.RunStarted{},
			&contract.ModelRequested{}, &contract.ModelUsage{InputTokens: 20, OutputTokens: 2}, &contract.ModelFinished{}},
	))
	if want := (contract.Totals{InputTokens: 30, OutputTokens: 3, Calls: 2, CostUSD: 0.5, Unpriced: 1}); s.Usage != want {
		t.Errorf("Usage = %+v, want %+v", s.Usage, want)
	}
	if want := (contract.Totals{InputTokens: 20, OutputTokens: 2, Calls: 1, Unpriced: 1}); s.RunUsage != want {
		t.Errorf("RunUsage = %+v, want %+v", s.RunUsage, want)
	}
	if s.LastUser != "more" {
		t.Errorf("LastUser = %q, want the latest message", s.LastUser)
	}
}

// A side call's output (a summary) is not part of the conversation, even
// its provider state; its usage counts.
func TestSideCallStaysOutOfTheConversation(t *testing.T) {
	before := reduceSlice(session(turnEvents("i1", "out")))
	side := []contract.Event{
		&contract.ModelRequested{Model: "m", Purpose: contract.PurposeCompaction, InputBytes: 800},
		&contract.ModelReasoning{Text: "thinking about the summary"},
		&contract.ModelText{Text: "## Goals ..."},
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: "stray", ToolName: "bash"}},
		&contract.ModelUsage{InputTokens: 200, OutputTokens: 50},
		&contract.ModelFinished{Reason: contract.FinishStop, ProviderState: json.RawMessage(`{"sig":1}`)},
	}
	s := reduceSlice(session(turnEvents("i1", "out"), side))
	if d := cmp.Diff(before.Messages, s.Messages); d != "" {
		t.Errorf("the side call changed the conversation (-before +after):\n%s", d)
	}
	if len(s.Pending) != 0 || s.Draft.Role != "" || s.Status != before.Status || s.Side != contract.PurposeCompaction {
		t.Errorf("pending %v, draft %+v, status %q, side %q", s.Pending, s.Draft, s.Status, s.Side)
	}
	if s.Usage.Calls != 2 || s.Usage.InputTokens != 300 {
		t.Errorf("Usage = %+v, want the side call counted", s.Usage)
	}
	// The next call of the conversation ends the side call.
	s = reduceSlice(session(turnEvents("i1", "out"), side, []contract.Event{&contract.ModelRequested{Model: "m"}, &contract.ModelText{Text: "back"}}))
	if s.Side != "" || s.Draft.Text != "back" {
		t.Errorf("after the side call: side %q, draft %+v", s.Side, s.Draft)
	}
}

func TestElidedIsAppendedWithoutSharing(t *testing.T) {
	events := session(turnEvents("i1", "a"), turnEvents("i2", "b"),
		[]contract.Event{&contract.ContextProjected{Elided: []string{"i1"}}})
	var s State
	for _, env := range events {
		s = Apply(s, env)
	}
	a := Apply(s, contract.Envelope{Seq: s.LastSeq + 1, Data: &contract.ContextProjected{Elided: []string{"i2"}}})
	b := Apply(s, contract.Envelope{Seq: s.LastSeq + 1, Data: &contract.ContextProjected{}})
	if d := cmp.Diff([]string{"i1"}, s.Elided); d != "" {
		t.Errorf("a later state changed an earlier one's Elided (-want +got):\n%s", d)
	}
	if !slices.Equal(a.Elided, []string{"i1", "i2"}) || !slices.Equal(b.Elided, []string{"i1"}) {
		t.Errorf("Elided: %v and %v", a.Elided, b.Elided)
	}
}

func TestCompactionKeepsTheTail(t *testing.T) {
	events := session(turnEvents("i1", "a"), turnEvents("i2", "b"), turnEvents("i3", "c"),
		[]contract.Event{&contract.ContextProjected{Elided: []string{"i1", "i2"}}})
	s := reduceSlice(events)
	// Messages: user, (assistant, result) x3: keep the last turn.
	compacted := &contract.ContextCompacted{Summary: "the summary", Replaced: 5, FromSeq: 2, ToSeq: 13}
	seq := s.LastSeq + 1
	after := Apply(s, contract.Envelope{Seq: seq, Data: compacted})
	if d := cmp.Diff(s.Messages[5:], after.Messages); d != "" {
		t.Errorf("kept messages mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff(s.Seqs[5:], after.Seqs); d != "" {
		t.Errorf("kept seqs mismatch (-want +got):\n%s", d)
	}
	if after.SummaryUser != "fix it" {
		t.Errorf("SummaryUser = %q, want the replaced latest user message", after.SummaryUser)
	}
	if after.Summary != "the summary" || after.SummarySeq != seq || after.Compactions != 1 || after.Summarised != 2 {
		t.Errorf("Summary %q at %d, %d compactions of %d model turns", after.Summary, after.SummarySeq, after.Compactions, after.Summarised)
	}
	if len(after.Elided) != 0 {
		t.Errorf("Elided = %v, want the replaced intents dropped", after.Elided)
	}
	if len(s.Messages) != 7 || s.Messages[0].Text != "fix it" {
		t.Error("the compaction changed the state before it")
	}
	// Later messages are appended to the kept ones, not to the old slice.
	more := Apply(after, contract.Envelope{Seq: seq + 1, Data: &contract.UserMessage{Text: "next"}})
	if len(more.Messages) != 3 || len(s.Messages) != 7 || more.LastUser != "next" {
		t.Errorf("%d messages after, %d before", len(more.Messages), len(s.Messages))
	}
	all := Apply(s, contract.Envelope{Seq: seq, Data: &contract.ContextCompacted{Summary: "all", Replaced: 99}})
	if len(all.Messages) != 0 || len(all.Seqs) != 0 {
		t.Errorf("a compaction of more than there is left %d messages", len(all.Messages))
	}
}

func TestCalibration(t *testing.T) {
	req := func(bytes int) contract.Event { return &contract.ModelRequested{Model: "m", InputBytes: bytes} }
	use := func(tokens int64) contract.Event { return &contract.ModelUsage{InputTokens: tokens} }
	lowered := 3.0
	lowered *= contextLengthFactor
	tests := []struct {
		name   string
		events []contract.Event
		want   Calib
	}{
		{"no usage yet", []contract.Event{req(3000)},
			Calib{Model: "m", Awaiting: Request{Bytes: 3000}}},
		{"one sample", []contract.Event{req(3000), use(1000)},
			Calib{Model: "m", BytesPerToken: 3, Samples: 1, Last: Exact{3000, 1000}}},
		{"a running mean", []contract.Event{req(3000), use(1000), req(5000), use(1000)},
			Calib{Model: "m", BytesPerToken: 4, Samples: 2, Last: Exact{5000, 1000}}},
		{"a side call calibrates, but is no prefix", []contract.Event{req(3000), use(1000),
			&contract.ModelRequested{Model: "m", InputBytes: 5000, Purpose: contract.PurposeCompaction}, use(1000)},
			Calib{Model: "m", BytesPerToken: 4, Samples: 2, Last: Exact{3000, 1000}}},
		{"a context_length error lowers the ratio", []contract.Event{req(3000), use(1000), req(9000),
			&contract.ProviderError{Kind: contract.KindContextLength, Message: "too long"}},
			Calib{Model: "m", BytesPerToken: lowered, Samples: 1, Last: Exact{3000, 1000}}},
		{"another error does not", []contract.Event{req(3000), use(1000), req(9000),
			&contract.ProviderError{Kind: contract.KindOverloaded}},
			Calib{Model: "m", BytesPerToken: 3, Samples: 1, Last: Exact{3000, 1000}, Awaiting: Request{Bytes: 9000}}},
		{"a fallback starts afresh", []contract.Event{req(3000), use(1000), &contract.FallbackSelected{From: "p:m", To: "q:n"}},
			Calib{Model: "n"}},
		{"a compaction clears the exact figure", []contract.Event{req(3000), use(1000), &contract.ContextCompacted{Summary: "s", Replaced: 1}},
			Calib{Model: "m", BytesPerToken: 3, Samples: 1}},
		{"an elision clears it", []contract.Event{req(3000), use(1000), &contract.ContextProjected{Elided: []string{"x"}}},
			Calib{Model: "m", BytesPerToken: 3, Samples: 1}},
		{"the estimate's miss", []contract.Event{&contract.ModelRequested{Model: "m", InputBytes: 3000, EstimatedInputTokens: 750}, use(1000)},
			Calib{Model: "m", BytesPerToken: 3, Samples: 1, Last: Exact{3000, 1000}, Miss: -0.25}},
		{"an odd sample is clamped", []contract.Event{req(100), use(1000)},
			Calib{Model: "m", BytesPerToken: minBytesPerToken, Samples: 1, Last: Exact{100, 1000}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := reduceSlice(session(tc.events))
			if d := cmp.Diff(tc.want, s.Calib); d != "" {
				t.Errorf("Calib mismatch (-want +got):\n%s", d)
			}
		})
	}
}

func TestCalibEstimate(t *testing.T) {
	c := Calib{BytesPerToken: 3, Samples: 1, Last: Exact{Bytes: 3000, Tokens: 1100}}
	tests := []struct {
		name    string
		bytes   int
		extends bool
		want    int
	}{
		{"exact up to the last request, estimated since", 3300, true, 1100 + 100},
		{"a request that does not extend the last", 3300, false, 1100},
		{"a smaller request cannot extend it", 2700, true, 900},
	}
	for _, tc := range tests {
		if got := c.Estimate(tc.bytes, tc.extends); got != tc.want {
			t.Errorf("%s: Estimate(%d, %v) = %d, want %d", tc.name, tc.bytes, tc.extends, got, tc.want)
		}
	}
	var zero Calib
	if got := zero.Estimate(4001, true); got != 1001 {
		t.Errorf("uncalibrated Estimate(4001) = %d, want 1001 (four bytes a token, rounded up)", got)
	}
}
