package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

func TestCostAndTokensRead(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{thousands(0), "0"},
		{thousands(999), "999"},
		{thousands(1000), "1,000"},
		{thousands(int64(14000)), "14,000"},
		{thousands(1234567), "1,234,567"},
		{thousands(-2100), "-2,100"},
		{dollars(0), "$0"},
		{dollars(0.00004), "<$0.0001"},
		{dollars(0.0123), "$0.0123"},
		{dollars(12.345), "$12.35"},
		{callCost(&contract.ModelUsage{}), "cost unknown"},
		{callCost(&contract.ModelUsage{CostUSD: usd(0.5)}), "$0.5000"},
		{totals(&contract.Totals{}), "no usage reported"},
		{totals(&contract.Totals{InputTokens: 1500, OutputTokens: 48, Calls: 1, CostUSD: 0.0123}), "tokens 1,500 in, 48 out · $0.0123"},
		{totals(&contract.Totals{InputTokens: 1500, OutputTokens: 48, CacheReadTokens: 1400, CacheWriteTokens: 100, Calls: 2, CostUSD: 0.01, Unpriced: 1}),
			"tokens 1,500 in (1,400 cache read, 100 cache write), 48 out · cost unknown"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// The run's usage is run.finished's when the kernel recorded it, else
// the sum of its calls' model.usage; a new run starts from nothing.
func TestTallyPrefersTheRecordedTotals(t *testing.T) {
	var tl tally
	if _, ok := tl.total(); ok {
		t.Error("a tally of nothing reports usage")
	}
	tl.see(&contract.RunStarted{})
	tl.see(&contract.ModelUsage{InputTokens: 10, OutputTokens: 2, CostUSD: usd(0.01)})
	tl.see(&contract.ModelUsage{InputTokens: 5})
	if u, ok := tl.total(); !ok || u.InputTokens != 15 || u.Calls != 2 || u.CostKnown() {
		t.Errorf("summed = %+v, %v", u, ok)
	}
	tl.see(&contract.RunFinished{Usage: &contract.Totals{InputTokens: 99, Calls: 3, CostUSD: 1}})
	if u, _ := tl.total(); u.InputTokens != 99 || !u.CostKnown() {
		t.Errorf("recorded = %+v", u)
	}
	tl.see(&contract.RunStarted{})
	if _, ok := tl.total(); ok {
		t.Error("a new run starts with the last run's usage")
	}
}

// A summary call's text is the summary, never the answer: even streamed,
// it reaches neither stdout nor the live stream.
func TestSummaryTextIsNotTheAnswer(t *testing.T) {
	var out, errw bytes.Buffer
	term := &terminal{out: &out, errw: &errw, live: &out}
	for _, e := range []contract.Event{
		&contract.ModelRequested{Provider: "p", Model: "m", MessageCount: 40, EstimatedInputTokens: 14000, Purpose: contract.PurposeCompaction},
		&contract.TextDelta{Text: "## Goal\nsecret summary"},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.ContextCompacted{Summary: "## Goal\nsecret summary", Replaced: 120, TokensBefore: 14000, TokensAfter: 2100, By: contract.CompactAuto},
		&contract.TextDelta{Text: "The answer."},
		&contract.ModelFinished{Reason: contract.FinishStop},
	} {
		if err := term.event(contract.Envelope{Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	term.end()
	if got := out.String(); got != "The answer.\n" {
		t.Errorf("stdout = %q, want only the answer", got)
	}
	for _, want := range []string{"summarising the conversation to compact it (p m, 40 messages, ~14,000 tokens in)",
		"rein: context compacted: 120 messages → summary, 14,000 → 2,100 tokens (auto)"} {
		if !strings.Contains(errw.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errw.String())
		}
	}
	if strings.Contains(errw.String(), "secret") {
		t.Errorf("stderr shows the summary:\n%s", errw.String())
	}
}
