package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rein-agent/rein/internal/contract"
)

var t0 = time.Date(2026, 11, 30, 5, 1, 2, 345678901, time.UTC)

// stamp returns a stamp of path with content version v.
func stamp(path string, v int, op contract.FileOp) contract.FileStamp {
	return contract.FileStamp{Path: path, Size: int64(10 + v), ModTime: t0.Add(time.Duration(v) * time.Second),
		SHA256: fmt.Sprintf("%064x", v), Op: op}
}

// sameLedger reports how l differs from want, the stamps it must hold by
// path, or nil.
func sameLedger(l Ledger, want map[string]contract.FileStamp) error {
	got := map[string]contract.FileStamp{}
	for s := range l.All() {
		if _, dup := got[s.Path]; dup {
			return fmt.Errorf("ledger: All yields %s twice", s.Path)
		}
		got[s.Path] = s
		if found, ok := l.Lookup(s.Path); !ok || !cmp.Equal(found, s) {
			return fmt.Errorf("ledger: Lookup(%s) = %+v, %v; All yields %+v", s.Path, found, ok, s)
		}
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		return fmt.Errorf("ledger mismatch (-want +got):\n%s", d)
	}
	if l.Len() != len(want) {
		return fmt.Errorf("ledger: Len() = %d, want %d", l.Len(), len(want))
	}
	return nil
}

func TestLedgerLastStampWins(t *testing.T) {
	var l Ledger
	if _, ok := l.Lookup("/w/a.go"); ok || l.Len() != 0 {
		t.Fatalf("the zero Ledger holds something")
	}
	l1 := l.With(stamp("/w/a.go", 1, contract.FileRead), stamp("/w/b.go", 1, contract.FileRead))
	l2 := l1.With(stamp("/w/a.go", 2, contract.FileWrite), contract.FileStamp{Size: 3}) // no path: ignored
	if err := sameLedger(l2, map[string]contract.FileStamp{
		"/w/a.go": stamp("/w/a.go", 2, contract.FileWrite), "/w/b.go": stamp("/w/b.go", 1, contract.FileRead),
	}); err != nil {
		t.Error(err)
	}
	// l1 is a value: what came later did not change it.
	if err := sameLedger(l1, map[string]contract.FileStamp{
		"/w/a.go": stamp("/w/a.go", 1, contract.FileRead), "/w/b.go": stamp("/w/b.go", 1, contract.FileRead),
	}); err != nil {
		t.Errorf("after a later With: %v", err)
	}
	if err := sameLedger(l, nil); err != nil {
		t.Errorf("the zero Ledger after With: %v", err)
	}
}

// TestLedgerManyPaths records enough paths to split leaves at several
// levels, each path several times, from one ledger and from branches of
// it, and checks every version against a map.
func TestLedgerManyPaths(t *testing.T) {
	const paths = 5000
	var l Ledger
	want := map[string]contract.FileStamp{}
	var versions []Ledger
	var wants []map[string]contract.FileStamp
	for round := range 3 {
		for i := range paths {
			if round > 0 && i%(round+1) != 0 {
				continue
			}
			s := stamp(fmt.Sprintf("/work/project/pkg%d/file%d.go", i%37, i), round, contract.FileRead)
			l = l.With(s)
			want[s.Path] = s
			if i%1000 == 0 {
				versions, wants = append(versions, l), append(wants, maps.Clone(want))
			}
		}
	}
	if err := sameLedger(l, want); err != nil {
		t.Fatal(err)
	}
	for i, v := range versions {
		if err := sameLedger(v, wants[i]); err != nil {
			t.Fatalf("version %d changed later: %v", i, err)
		}
		// Two branches of one version do not see each other.
		a := v.With(stamp("/branch", 1, contract.FileRead))
		b := v.With(stamp("/branch", 2, contract.FileWrite))
		if sa, _ := a.Lookup("/branch"); sa.Op != contract.FileRead {
			t.Fatalf("branch a sees %+v", sa)
		}
		if sb, _ := b.Lookup("/branch"); sb.Op != contract.FileWrite {
			t.Fatalf("branch b sees %+v", sb)
		}
		if err := sameLedger(v, wants[i]); err != nil {
			t.Fatalf("version %d changed by a branch: %v", i, err)
		}
	}
}

func TestLedgerEqual(t *testing.T) {
	a := Ledger{}.With(stamp("/a", 1, contract.FileRead), stamp("/b", 1, contract.FileRead))
	b := Ledger{}.With(stamp("/b", 1, contract.FileRead), stamp("/a", 0, contract.FileRead), stamp("/a", 1, contract.FileRead))
	if !a.Equal(b) || !cmp.Equal(State{Ledger: a}, State{Ledger: b}) {
		t.Error("ledgers of the same stamps built in another order are not equal")
	}
	moved := stamp("/a", 1, contract.FileRead)
	moved.ModTime = moved.ModTime.In(time.FixedZone("", 3600))
	if !a.Equal(a.With(moved)) {
		t.Error("a modification time in another zone, the same instant, makes ledgers differ")
	}
	for name, other := range map[string]Ledger{
		"fewer":     Ledger{}.With(stamp("/a", 1, contract.FileRead)),
		"more":      a.With(stamp("/c", 1, contract.FileRead)),
		"content":   a.With(stamp("/a", 2, contract.FileRead)),
		"op":        a.With(stamp("/a", 1, contract.FileWrite)),
		"other one": Ledger{}.With(stamp("/a", 1, contract.FileRead), stamp("/c", 1, contract.FileRead)),
	} {
		if a.Equal(other) || other.Equal(a) {
			t.Errorf("%s: ledgers are equal", name)
		}
	}
}

// ledgerSession is a session in which the model reads a file, edits it,
// reads another, and reads the first again after it changed on disk; a
// failed read and an observation of validation record nothing.
func ledgerSession() []contract.Envelope {
	intent := func(id, tool string) *contract.IntentProposed {
		return &contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ToolName: tool, Input: json.RawMessage(`{}`)}}
	}
	obs := func(id, tool string, files ...contract.FileStamp) *contract.ToolObservation {
		return &contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: tool, OK: true, Phase: contract.PhaseExecution, Text: "ok", Files: files}}
	}
	return envs(
		&contract.SessionStarted{Cwd: "/w", Provider: "p"},
		&contract.UserMessage{Text: "fix calc"},
		&contract.RunStarted{Goal: "fix calc"},
		&contract.ModelRequested{}, intent("i1", "read_file"), &contract.ModelFinished{Reason: contract.FinishToolUse},
		obs("i1", "read_file", stamp("/w/calc.go", 1, contract.FileRead)), // seq 7
		&contract.ModelRequested{}, intent("i2", "edit_file"), intent("i3", "read_file"), &contract.ModelFinished{Reason: contract.FinishToolUse},
		obs("i2", "edit_file", stamp("/w/calc.go", 2, contract.FileWrite)), // seq 12
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "i3", ToolName: "read_file", Phase: contract.PhaseExecution, Code: "tool_error", Text: "no such file"}},
		&contract.ModelRequested{}, intent("i4", "read_file"), intent("i5", "read_file"), &contract.ModelFinished{Reason: contract.FinishToolUse},
		obs("i4", "read_file", stamp("/w/calc_test.go", 1, contract.FileRead)), // seq 18
		obs("i5", "read_file", stamp("/w/calc.go", 3, contract.FileRead)),      // seq 19
		&contract.ModelRequested{}, &contract.ModelText{Text: "done"}, &contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted},
	)
}

// TestLedgerFold checks the ledger the fold rebuilds from the log, after
// every prefix: a fork at SEQ, whose state is the fold of events 1 to
// SEQ, knows exactly the reads and writes recorded up to SEQ, the last
// stamp of each path winning.
func TestLedgerFold(t *testing.T) {
	events := ledgerSession()
	calc := func(v int, op contract.FileOp) map[string]contract.FileStamp {
		return map[string]contract.FileStamp{"/w/calc.go": stamp("/w/calc.go", v, op)}
	}
	wantAt := map[uint64]map[string]contract.FileStamp{
		6:  nil,
		7:  calc(1, contract.FileRead),
		11: calc(1, contract.FileRead),
		12: calc(2, contract.FileWrite),
		17: calc(2, contract.FileWrite),
		18: {"/w/calc.go": stamp("/w/calc.go", 2, contract.FileWrite), "/w/calc_test.go": stamp("/w/calc_test.go", 1, contract.FileRead)},
		19: {"/w/calc.go": stamp("/w/calc.go", 3, contract.FileRead), "/w/calc_test.go": stamp("/w/calc_test.go", 1, contract.FileRead)},
	}
	wantAt[uint64(len(events))] = wantAt[19]
	seqs := slices.Sorted(maps.Keys(wantAt))
	for _, seq := range seqs {
		t.Run(fmt.Sprint("at ", seq), func(t *testing.T) {
			prefix := events[:seq]
			if prefix[len(prefix)-1].Seq != seq {
				t.Fatalf("event %d has seq %d", seq, prefix[len(prefix)-1].Seq)
			}
			if err := sameLedger(reduceSlice(prefix).Ledger, wantAt[seq]); err != nil {
				t.Error(err)
			}
		})
	}
	// The same from the log's JSON lines, as resume and fork read them.
	var decoded []contract.Envelope
	for _, env := range events {
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back contract.Envelope
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		decoded = append(decoded, back)
	}
	if err := sameLedger(reduceSlice(decoded).Ledger, wantAt[19]); err != nil {
		t.Errorf("fold of the JSON log: %v", err)
	}
}

// BenchmarkLedgerWith records one stamp in a ledger of 2,000 paths, as a
// tool observation of a read does.
func BenchmarkLedgerWith(b *testing.B) {
	const paths = 2000
	var l Ledger
	for i := range paths {
		l = l.With(stamp(fmt.Sprintf("/work/project/pkg%d/file%d.go", i%37, i), 0, contract.FileRead))
	}
	stamps := make([]contract.FileStamp, paths)
	for i := range stamps {
		stamps[i] = stamp(fmt.Sprintf("/work/project/pkg%d/file%d.go", i%37, i), 1, contract.FileWrite)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		l = l.With(stamps[i%paths])
		i++
	}
}

// BenchmarkReduceWithReads folds a session of 1,000,000 events in which
// every tenth event is a tool observation that read or wrote one of 2,000
// files, from memory: the ledger's share of folding a long session.
func BenchmarkReduceWithReads(b *testing.B) {
	const n, paths = 1_000_000, 2000
	events := make([]contract.Envelope, 0, n)
	for i := range n {
		var ev contract.Event = &contract.ModelUsage{InputTokens: 10, OutputTokens: 1}
		if i%10 == 0 {
			ev = &contract.ToolObservation{Observation: contract.Observation{IntentID: "i", OK: true, Phase: contract.PhaseExecution, Text: "ok",
				Files: []contract.FileStamp{stamp(fmt.Sprintf("/work/project/pkg%d/file%d.go", i/10%paths%37, i/10%paths), i, contract.FileRead)}}}
		}
		events = append(events, contract.Envelope{Seq: uint64(i + 1), Data: ev})
	}
	b.ReportAllocs()
	for b.Loop() {
		s := reduceSlice(events)
		if s.Ledger.Len() != paths {
			b.Fatalf("ledger of %d paths, want %d", s.Ledger.Len(), paths)
		}
	}
}
