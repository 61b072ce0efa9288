package projection

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
)

func TestNewBudget(t *testing.T) {
	tests := []struct {
		name string
		info *contract.ModelInfo
		want Budget
	}{
		{"unknown", nil, Budget{CompactAt: 0.9}},
		{"no window", &contract.ModelInfo{}, Budget{CompactAt: 0.9}},
		{"a large model", &contract.ModelInfo{ContextWindow: 200000, MaxOutput: 64000},
			Budget{Window: 200000, Reserved: 32000, Margin: 4000, CompactAt: 0.9}},
		{"a small output", &contract.ModelInfo{ContextWindow: 128000, MaxOutput: 4096},
			Budget{Window: 128000, Reserved: 4096, Margin: 2560, CompactAt: 0.9}},
		{"a small window", &contract.ModelInfo{ContextWindow: 8192, MaxOutput: 8192},
			Budget{Window: 8192, Reserved: 2048, Margin: 256, CompactAt: 0.9}},
		{"an unknown output", &contract.ModelInfo{ContextWindow: 131072},
			Budget{Window: 131072, Reserved: 8192, Margin: 2621, CompactAt: 0.9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, NewBudget(tc.info, 0.9)); d != "" {
				t.Errorf("NewBudget() mismatch (-want +got):\n%s", d)
			}
		})
	}
	b := NewBudget(&contract.ModelInfo{ContextWindow: 16000}, 0)
	if b.Input() != 16000-4000-320 || b.Threshold() != int(0.85*float64(b.Input())) || b.tail() != b.Input()/4 {
		t.Errorf("Input %d, Threshold %d, tail %d", b.Input(), b.Threshold(), b.tail())
	}
}

// An unknown window applies no policy: everything is sent, nothing is
// elided, no compaction is asked for, whatever the size.
func TestNoPolicyWithoutAWindow(t *testing.T) {
	b := newSim(t, "sys", 0)
	b.user("go")
	for i := range 30 {
		b.call(fmt.Sprintf("cmd %d", i), output("x", 20000), true)
	}
	p := Project(&b.s, testRegistry(t), &Options{System: "sys", MaxOutputTokens: 1000})
	if p.Compact || p.TooBig || len(p.Ledger.Elided) > 0 || p.Request.MaxOutputTokens != 1000 {
		t.Errorf("Compact %v, TooBig %v, elided %d, max output %d", p.Compact, p.TooBig, len(p.Ledger.Elided), p.Request.MaxOutputTokens)
	}
	if d := cmp.Diff(b.s.Messages, p.Request.Messages); d != "" {
		t.Errorf("messages mismatch (-state +request):\n%s", d)
	}
	if p.Bytes != Size(p.Request) || p.Tokens != EstimateTokens(p.Request) {
		t.Errorf("Bytes %d, Tokens %d; Size %d, EstimateTokens %d", p.Bytes, p.Tokens, Size(p.Request), EstimateTokens(p.Request))
	}
}

func TestElisionStubs(t *testing.T) {
	b := newSim(t, "sys", 16000)
	b.user("fix the tests")
	old := b.call("go test ./...", output("a", 12000), true)
	plain := b.call("cat notes.txt", strings.Repeat("a line of notes\n", 100), false)
	small := b.call("wc -l notes.txt", "100 notes.txt\n", true)
	for i := range 4 {
		b.call(fmt.Sprintf("go vet ./pkg%d", i), output("b", 8000), true)
	}
	opts := &Options{System: "sys", SessionDir: "/home/u/.rein/sessions/s1", Budget: NewBudget(b.s.ModelInfo, 0)}
	p := b.project(testRegistry(t), opts)
	if len(p.Ledger.Elided) == 0 || p.Ledger.Elided[0] != old || !slices.Contains(p.Ledger.Elided, plain) {
		t.Fatalf("Elided = %v, want the oldest results %s and %s", p.Ledger.Elided, old, plain)
	}
	stubs := map[string]string{}
	for _, m := range p.Request.Messages {
		if m.Result != nil && slices.Contains(p.Ledger.Elided, m.Result.IntentID) {
			stubs[m.Result.IntentID] = m.Result.Text
		}
	}
	want := map[string]string{
		old: "[rein: `go test ./...` (bash, seq 8): 231 lines, 12,000 bytes, elided from the context; " +
			"the whole output is /home/u/.rein/sessions/s1/artifacts/inv_int_1.txt: read it with read_file]",
		plain: "[rein: `cat notes.txt` (bash, seq 13): 100 lines, 1,600 bytes, elided from the context; run it again if you need it]",
	}
	if slices.Contains(p.Ledger.Elided, small) {
		t.Errorf("a result smaller than its stub would be was elided")
	}
	for id, text := range want {
		if stubs[id] != text {
			t.Errorf("stub of %s:\n got %s\nwant %s", id, stubs[id], text)
		}
	}
	// The latest turn is protected; the request is now under the threshold.
	last := p.Request.Messages[len(p.Request.Messages)-1]
	if slices.Contains(p.Ledger.Elided, last.Result.IntentID) || p.Compact || p.Tokens > opts.Budget.Threshold() {
		t.Errorf("latest result elided: %v; Compact %v at %d tokens", slices.Contains(p.Ledger.Elided, last.Result.IntentID), p.Compact, p.Tokens)
	}
	// The state's messages are untouched, and the next request elides
	// nothing more, with the same stubs.
	if b.s.Messages[2].Result.Text != output("a", 12000) {
		t.Error("eliding changed the state")
	}
	next := Project(&b.s, testRegistry(t), opts)
	if len(next.Ledger.Elided) != 0 {
		t.Errorf("the next request elided %v again", next.Ledger.Elided)
	}
	if d := cmp.Diff(p.Request.Messages, next.Request.Messages); d != "" {
		t.Errorf("the next request differs (-first +next):\n%s", d)
	}
}

// Request N+1's messages begin with request N's, byte for byte, whenever
// nothing was elided or compacted in between; elision happens rarely, in
// large steps.
func TestRequestsAreStable(t *testing.T) {
	b := newSim(t, "sys", 32000)
	b.user("go")
	reg := testRegistry(t)
	opts := &Options{System: "sys", SessionDir: "/s", Budget: NewBudget(b.s.ModelInfo, 0)}
	var prev []string
	elisions := 0
	const turns = 120
	for i := range turns {
		p := b.project(reg, opts)
		cur := marshalled(t, p.Request.Messages)
		if len(p.Ledger.Elided) > 0 {
			elisions++
		} else if prev != nil {
			if len(cur) < len(prev) || !slices.Equal(prev, cur[:len(prev)]) {
				t.Fatalf("turn %d: request does not begin with the previous one", i)
			}
		}
		if p.Compact || p.TooBig {
			t.Fatalf("turn %d: Compact %v TooBig %v at %d tokens", i, p.Compact, p.TooBig, p.Tokens)
		}
		prev = cur
		b.call(fmt.Sprintf("step %d", i), output("s", 1500+i%7*300), i%2 == 0)
	}
	if elisions == 0 || elisions > turns/10 {
		t.Errorf("%d elisions in %d turns, want a few, each a large step", elisions, turns)
	}
	if got, want := len(b.folded().Elided), len(b.s.Elided); got != want {
		t.Errorf("fold of the log: %d elided, live %d", got, want)
	}
}

func TestLedger(t *testing.T) {
	b := newSim(t, "sys", 16000)
	b.user("go")
	for i := range 8 {
		b.call(fmt.Sprintf("step %d", i), output("s", 5000), true)
	}
	opts := &Options{System: "sys", Budget: NewBudget(b.s.ModelInfo, 0)}
	first := b.project(testRegistry(t), opts)
	b.call("step 8", output("s", 100), true)
	p := Project(&b.s, testRegistry(t), opts)
	type entry struct{ kind, decision, ref string }
	var got []entry
	count := 0
	for _, src := range p.Ledger.Sources {
		got = append(got, entry{src.Kind, src.Decision, src.Ref})
		if src.Kind == contract.SourceMessages || src.Kind == contract.SourceObservations {
			count += src.Count
		}
		if src.Tokens <= 0 {
			t.Errorf("%s %s: %d tokens", src.Kind, src.Decision, src.Tokens)
		}
	}
	n := len(first.Ledger.Elided)
	lastElided := b.s.Seqs[2*n] // the n-th result: user, then (assistant, result) pairs
	want := []entry{
		{contract.SourceSystem, contract.DecidedIncluded, ""},
		{contract.SourceTools, contract.DecidedIncluded, ""},
		{contract.SourceMessages, contract.DecidedIncluded, fmt.Sprintf("seq 2-%d", b.s.LastSeq)},
		{contract.SourceObservations, contract.DecidedElided, fmt.Sprintf("seq 8-%d", lastElided)},
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(entry{})); d != "" {
		t.Errorf("sources mismatch (-want +got):\n%s", d)
	}
	if count != len(p.Request.Messages) {
		t.Errorf("the sources count %d messages, the request has %d", count, len(p.Request.Messages))
	}
	if p.Ledger.Window != 16000 || p.Ledger.Budget != opts.Budget.Input() || p.Ledger.EstimatedTokens != p.Tokens {
		t.Errorf("ledger %+v", p.Ledger)
	}
	if why := first.Ledger.Sources[len(first.Ledger.Sources)-1].Why; !strings.Contains(why, "over the threshold") {
		t.Errorf("the first elision says why %q", why)
	}
}

func TestMustStay(t *testing.T) {
	tests := []struct {
		name   string
		system string
		last   int // bytes of the latest result
		tooBig bool
	}{
		{"fits", "sys", 4000, false},
		{"a system prompt larger than the window", strings.Repeat("rule\n", 20000), 10, true},
		{"a latest result larger than the budget", "sys", 60000, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSim(t, tc.system, 16000)
			b.user("go")
			for i := range 5 {
				b.call(fmt.Sprintf("step %d", i), output("s", 3000), true)
			}
			b.call("the last", output("l", tc.last), true)
			opts := &Options{System: tc.system, Budget: NewBudget(b.s.ModelInfo, 0)}
			p := Project(&b.s, testRegistry(t), opts)
			if p.TooBig != tc.tooBig {
				t.Errorf("TooBig = %v with MustStay %d of %d", p.TooBig, p.MustStay, opts.Budget.Input())
			}
			// What must stay: the system prompt, the tools, the user's
			// message, the latest assistant message and its result.
			msgs := b.s.Messages
			must := len(tc.system) + toolsSize(p.Request.Tools) + messageSize(&msgs[0]) +
				messageSize(&msgs[len(msgs)-2]) + messageSize(&msgs[len(msgs)-1])
			if p.MustStay != EstimateTokens(&contract.ModelRequest{System: strings.Repeat("x", must)}) {
				t.Errorf("MustStay = %d, want the tokens of %d bytes", p.MustStay, must)
			}
		})
	}
}

// The token estimate uses the session's calibration: the last request's
// tokens as the provider counted them, and the calibrated ratio for what
// was added since.
func TestProjectUsesTheCalibration(t *testing.T) {
	b := newSim(t, "sys", 0)
	b.user("go")
	p := Project(&b.s, nil, &Options{System: "sys"})
	b.add(&contract.ModelRequested{Model: "m", InputBytes: p.Bytes})
	b.add(&contract.ModelUsage{InputTokens: 1000})
	b.add(&contract.ModelText{Text: "ok"})
	b.add(&contract.ModelFinished{Reason: contract.FinishStop})
	ratio := b.s.Calib.Ratio()
	b.user(strings.Repeat("y", 600))
	next := Project(&b.s, nil, &Options{System: "sys"})
	added := next.Bytes - p.Bytes
	if want := 1000 + int(float64(added)/ratio+0.999999); next.Tokens != want {
		t.Errorf("Tokens = %d, want 1000 exact plus %d bytes at %.3f bytes a token = %d", next.Tokens, added, ratio, want)
	}
}

// An elision step goes down to the low water, oldest first, into the
// protected tail if it must, but never into the latest turn; when the
// latest turn alone is over the low water it elides all the rest.
func TestElisionStepGoesDownToTheLowWater(t *testing.T) {
	tests := []struct {
		name  string
		calls int
		size  int // bytes of each result
		last  int // bytes of the latest result
		low   bool
	}{
		{"the tail gives way", 20, 4500, 4500, true},
		{"the latest turn is over the low water", 6, 4500, 56000, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newSim(t, "sys", 32000)
			b.user("fix the tests")
			var ids []string
			for i := range tc.calls {
				ids = append(ids, b.call(fmt.Sprintf("go test ./pkg%d", i), output("a", tc.size), true))
			}
			latest := b.call("go test ./...", output("z", tc.last), true)
			budget := NewBudget(b.s.ModelInfo, 0)
			budget.Tail = budget.Input() * 3 / 4 // protects more than the low water leaves
			opts := &Options{System: "sys", Budget: budget}
			p := b.project(testRegistry(t), opts)
			if slices.Contains(p.Ledger.Elided, latest) || len(p.Ledger.Elided) == 0 {
				t.Fatalf("Elided = %v: want some, and never the latest result %s", p.Ledger.Elided, latest)
			}
			if !slices.Equal(p.Ledger.Elided, ids[:len(p.Ledger.Elided)]) {
				t.Errorf("Elided = %v, want the oldest first", p.Ledger.Elided)
			}
			if tc.low != (p.Tokens <= budget.lowWater()) || !tc.low && len(p.Ledger.Elided) != len(ids) {
				t.Errorf("%d tokens after the step, low water %d: %d of %d older results elided",
					p.Tokens, budget.lowWater(), len(p.Ledger.Elided), len(ids))
			}
			if p.Compact != (p.Tokens > budget.Threshold()) {
				t.Errorf("Compact = %v at %d tokens, threshold %d", p.Compact, p.Tokens, budget.Threshold())
			}
			t.Logf("%d tokens after the step (low water %d, threshold %d), %d of %d older results elided",
				p.Tokens, budget.lowWater(), budget.Threshold(), len(p.Ledger.Elided), len(ids))
		})
	}
}

func TestLowWater(t *testing.T) {
	b := NewBudget(&contract.ModelInfo{ContextWindow: 100_000, MaxOutput: 10_000}, 0)
	if b.lowWater() != int(LowWater*float64(b.Input())) || b.lowWater() >= b.Threshold() {
		t.Errorf("low water %d, threshold %d, input %d", b.lowWater(), b.Threshold(), b.Input())
	}
	b.CompactAt = 0.5
	if b.lowWater() >= b.Threshold() || b.Threshold()-b.lowWater() < b.Input()/6 {
		t.Errorf("with compact_at 0.5: low water %d, threshold %d", b.lowWater(), b.Threshold())
	}
}
