package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/state/statetest"
)

// t0 is the clock of the test sessions.
var t0 = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// events is a small session: a run with one tool call that wrote an
// artifact, finished.
func events(cwd string) []contract.Event {
	intent := contract.ToolIntent{ID: "int_1", ProviderCallID: "call_1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	return []contract.Event{
		&contract.SessionStarted{Cwd: cwd, Version: "0.1.0", Provider: "scripted", Model: "m"},
		&contract.UserMessage{Text: "fix the tests"},
		&contract.RunStarted{Goal: "fix the tests"},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1},
		&contract.ModelText{Text: "Running the tests."},
		&contract.IntentProposed{ToolIntent: intent},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.ToolValidation{IntentID: "int_1", OK: true},
		&contract.ToolPermission{IntentID: "int_1", Decision: contract.Allow, By: "mode"},
		&contract.InvocationStarted{IntentID: "int_1", InvocationID: "inv_1", ToolName: "bash", Input: intent.Input, Cwd: cwd},
		&contract.InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: contract.ExitError, ExitCode: 1},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "int_1", ToolName: "bash", Phase: contract.PhaseExecution,
			Text: "FAIL", Truncated: true, ArtifactRef: "artifacts/inv_1.txt"}},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 3},
		&contract.ModelText{Text: "Fixed."},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted},
	}
}

// record writes evs as session id of s, with an artifact for inv_1, and
// returns the state folded while writing.
func record(t testing.TB, s *Store, id string, evs []contract.Event) state.State {
	t.Helper()
	x, err := s.Create(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	var st state.State
	for i, e := range evs {
		env, err := x.Log.Append(contract.Envelope{
			ID: fmt.Sprintf("evt_%d", i+1), Time: t0.Add(time.Duration(i) * time.Second),
			Session: id, Run: "run_1", Turn: 1, Data: e,
		})
		if err != nil {
			t.Fatal(err)
		}
		st = state.Apply(st, env)
	}
	if err := os.MkdirAll(filepath.Join(x.Dir, "artifacts"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(x.Dir, "artifacts", "inv_1.txt"), []byte("FAIL\n...\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestOpenFoldsWhatWasRecorded(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	cwd := t.TempDir()
	want := record(t, s, "ses_a", events(cwd))
	x, err := s.Open("ses_a", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if diff := cmp.Diff(want, x.State, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Open().State mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Facts{Versions: []string{"0.1.0"}, Artifacts: []string{"artifacts/inv_1.txt"}}, x.Facts); diff != "" {
		t.Errorf("Facts mismatch (-want +got):\n%s", diff)
	}
	gates, err := x.Gate("0.1.0")
	if err != nil {
		t.Fatalf("Gate() = %v", err)
	}
	if gates["artifacts"] != "1 of 1 present" || !strings.Contains(gates["workspace"], cwd) {
		t.Errorf("Gate() = %v", gates)
	}
}

func TestOneWriterAtATime(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	record(t, s, "ses_a", events(t.TempDir()))
	x, err := s.Open("ses_a", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Open("ses_a", nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second Open() = %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	sum, err := s.Summarize("ses_a")
	if err != nil || sum.Outcome != "completed" {
		t.Errorf("Summarize() while locked = %+v, %v", sum, err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	y, err := s.Open("ses_a", nil)
	if err != nil {
		t.Fatalf("Open() after Close = %v", err)
	}
	y.Close()
}

func TestLocate(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	for _, id := range []string{"ses_01AA", "ses_01AB", "ses_02CC"} {
		record(t, s, id, events(t.TempDir()))
	}
	for _, tc := range []struct{ ref, want, err string }{
		{ref: "ses_01AA", want: "ses_01AA"},
		{ref: "ses_02", want: "ses_02CC"},
		{ref: "ses_01", err: `"ses_01" names 2 sessions (ses_01AA, ses_01AB)`},
		{ref: "ses_9", err: "no session ses_9 in"},
		{ref: "../etc", err: "is not a session id"},
		{ref: "", err: "is not a session id"},
	} {
		got, err := s.Locate(tc.ref)
		if tc.err != "" {
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Locate(%q) = %q, %v; want ErrNotFound containing %q", tc.ref, got.ID, err, tc.err)
			}
			continue
		}
		if err != nil || got.ID != tc.want || got.Store != s || len(got.Parents) != 0 {
			t.Errorf("Locate(%q) = %+v, %v; want %q in the root", tc.ref, got, err, tc.want)
		}
	}
}

func TestForkAtSeqHasTheParentsStateAtSeq(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	evs := events(t.TempDir())
	record(t, s, "ses_p", evs)
	parentLog, err := os.ReadFile(filepath.Join(s.Dir("ses_p"), logName))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []uint64{1, 6, 10, 12, 16, 0} {
		t.Run(fmt.Sprint("at ", at), func(t *testing.T) {
			var parent []contract.Envelope
			if _, err := s.Read("ses_p", func(env contract.Envelope) error {
				if at == 0 || env.Seq <= at {
					parent = append(parent, env)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			id, kept, err := s.Fork("ses_p", at, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if want := uint64(len(parent)); kept != want {
				t.Errorf("Fork() kept %d events, want %d", kept, want)
			}
			x, err := s.Open(id, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			var fork []contract.Envelope
			for env, err := range x.Log.Events(1) {
				if err != nil {
					t.Fatal(err)
				}
				fork = append(fork, env)
			}
			last := fork[len(fork)-1]
			if f, ok := last.Data.(*contract.SessionForked); !ok || f.ParentSession != "ses_p" || f.ParentSeq != kept {
				t.Errorf("last event of the fork = %s %+v, want session.forked of ses_p at %d", last.Type(), last.Data, kept)
			}
			want := statetest.Reduce(parent)
			got := statetest.Reduce(fork[:len(fork)-1])
			if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(state.State{}, "Session")); diff != "" {
				t.Errorf("state of the fork at %d mismatch (-parent +fork):\n%s", at, diff)
			}
			if got.Session != id {
				t.Errorf("fork's state names session %q, want %q", got.Session, id)
			}
			if at == 0 || at >= 12 {
				if _, err := x.Gate("0.1.0"); err != nil {
					t.Errorf("Gate() of the fork = %v (its artifact should have come along)", err)
				}
			}
			after, err := os.ReadFile(filepath.Join(s.Dir("ses_p"), logName))
			if err != nil || string(after) != string(parentLog) {
				t.Errorf("the parent's log changed (err %v)", err)
			}
		})
	}
	if _, _, err := s.Fork("ses_p", 99, t0); err == nil || !strings.Contains(err.Error(), "ends at seq 16") {
		t.Errorf("Fork(--at 99) = %v, want the log's end named", err)
	}
}

func TestGateRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir, cwd string)
		extra contract.Event
		want  error
		msg   string
	}{
		{name: "workspace gone", spoil: func(t *testing.T, _, cwd string) { os.RemoveAll(cwd) }, want: ErrGate, msg: "is not a directory any more"},
		{name: "artifact gone", spoil: func(t *testing.T, dir, _ string) { os.Remove(filepath.Join(dir, "artifacts", "inv_1.txt")) }, want: ErrGate, msg: "artifacts/inv_1.txt"},
		{name: "newer events", extra: &contract.Unknown{Type: "tool.sandboxed", Data: json.RawMessage(`{"x":1}`)}, want: ErrNewer, msg: "tool.sandboxed at seq 17"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore(t.TempDir(), nil)
			cwd := t.TempDir()
			evs := events(cwd)
			if tc.extra != nil {
				evs = append(evs, &contract.SessionResumed{FromSeq: 16, Version: "0.9.0"}, tc.extra)
				evs[len(evs)-2], evs[len(evs)-1] = tc.extra, evs[len(evs)-2]
			}
			record(t, s, "ses_a", evs)
			if tc.spoil != nil {
				tc.spoil(t, s.Dir("ses_a"), cwd)
			}
			x, err := s.Open("ses_a", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			_, err = x.Gate("0.1.0")
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("Gate() = %v, want %v containing %q", err, tc.want, tc.msg)
			}
			if tc.want == ErrNewer && !strings.Contains(err.Error(), "rein 0.9.0") {
				t.Errorf("Gate() = %v, want the newer version named", err)
			}
		})
	}
}

// A link inside the sessions directory is never followed: rein truncates
// and appends to logs, and must not do that to the file a link points to.
func TestLinksAreRefused(t *testing.T) {
	root := t.TempDir()
	s := NewStore(root, nil)
	victim := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(victim, []byte("notes, no newline"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "ses_file"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(root, "ses_file", logName)); err != nil {
		t.Fatal(err)
	}
	record(t, s, "ses_real", events(t.TempDir()))
	if err := os.Symlink(s.Dir("ses_real"), filepath.Join(root, "ses_dir")); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"ses_file", "ses_dir"} {
		if _, err := s.Open(id, nil); err == nil || !strings.Contains(err.Error(), "does not follow links") {
			t.Errorf("Open(%s) = %v, want a refusal", id, err)
		}
		if _, err := s.Read(id, func(contract.Envelope) error { return nil }); err == nil {
			t.Errorf("Read(%s) followed a link", id)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "notes, no newline" {
		t.Errorf("the file a link points to changed: %q", b)
	}
}

func TestLastSkipsASessionBeingWritten(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	cwd := t.TempDir()
	record(t, s, "ses_1", events(cwd)[:12])
	x := func() *Session {
		record(t, s, "ses_2", events(cwd)[:12])
		x, err := s.Open("ses_2", nil)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}()
	defer x.Close()
	if got, err := s.Last(cwd); err != nil || got != "ses_1" {
		t.Errorf("Last() = %q, %v; want ses_1 (ses_2 is being written)", got, err)
	}
}

// Forked finds what made a session a fork, and when: for a fork of a
// fork, its own session.forked, not its parent's copied one.
func TestForked(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	record(t, s, "ses_p", events(t.TempDir()))
	if f, err := s.Forked("ses_p"); err != nil || f != nil {
		t.Errorf("Forked(parent) = %v, %v; want nil", f, err)
	}
	child, _, err := s.Fork("ses_p", 6, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	grandchild, _, err := s.Fork(child, 0, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id, parent string
		seq        uint64
		at         time.Time
	}{{child, "ses_p", 6, t0.Add(time.Hour)}, {grandchild, child, 7, t0.Add(2 * time.Hour)}} {
		env, err := s.Forked(tc.id)
		if err != nil || env == nil {
			t.Fatalf("Forked(%s) = %v, %v", tc.id, env, err)
		}
		f := env.Data.(*contract.SessionForked)
		if f.ParentSession != tc.parent || f.ParentSeq != tc.seq || !env.Time.Equal(tc.at) || env.Seq != tc.seq+1 {
			t.Errorf("Forked(%s) = seq %d at %s, %+v; want %s at %d, made %s", tc.id, env.Seq, env.Time, f, tc.parent, tc.seq, tc.at)
		}
	}
	if _, err := s.Forked("ses_nosuch"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Forked(unknown) = %v, want ErrNotFound", err)
	}
}
