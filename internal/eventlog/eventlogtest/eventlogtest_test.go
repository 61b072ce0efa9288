package eventlogtest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/eventlog"
)

func TestWriteSession(t *testing.T) {
	const events = 1000
	dir := t.TempDir()
	if err := WriteSession(dir, "ses_1", events); err != nil {
		t.Fatal(err)
	}
	var got []contract.Envelope
	info, err := eventlog.ReadFile(dir, nil, func(env contract.Envelope) error {
		got = append(got, env)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if info.Events != Len(events) || info.LastSeq != uint64(Len(events)) || info.Torn != nil || info.Damaged != nil {
		t.Fatalf("ReadFile() = %+v, want %d events and no damage", info, Len(events))
	}
	if n := Len(events); n < events-6 || n > events+6 {
		t.Errorf("Len(%d) = %d, want within 6 of it", events, n)
	}
	checkSession(t, got)

	size := int64(len(mustRead(t, dir)))
	if perEvent := size / int64(len(got)); perEvent < 300 || perEvent > 500 {
		t.Errorf("%d bytes per event, want a realistic 300 to 500", perEvent)
	}
	again := t.TempDir()
	if err := WriteSession(again, "ses_1", events); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustRead(t, dir), mustRead(t, again)) {
		t.Error("two sessions written with the same arguments differ")
	}
}

// checkSession checks the shape of a session: how it starts and ends,
// fresh ids, causes that name earlier events, and observations that name
// the intent of their turn.
func checkSession(t *testing.T, envs []contract.Envelope) {
	t.Helper()
	types := func(envs []contract.Envelope) []string {
		var s []string
		for _, env := range envs {
			s = append(s, env.Type())
		}
		return s
	}
	if got, want := types(envs[:3]), []string{contract.TypeSessionStarted, contract.TypeUserMessage, contract.TypeRunStarted}; !slices.Equal(got, want) {
		t.Errorf("first events %v, want %v", got, want)
	}
	if f, ok := envs[len(envs)-2].Data.(*contract.ModelFinished); !ok || f.Reason != contract.FinishStop {
		t.Errorf("next to last event %+v, want model.finished stop", envs[len(envs)-2].Data)
	}
	if r, ok := envs[len(envs)-1].Data.(*contract.RunFinished); !ok || r.Outcome != contract.OutcomeCompleted {
		t.Errorf("last event %+v, want run.finished completed", envs[len(envs)-1].Data)
	}
	ids := map[string]bool{}
	intents := map[string]bool{}
	intent := ""
	for _, env := range envs {
		if ids[env.ID] {
			t.Fatalf("event id %s is used twice", env.ID)
		}
		if env.Cause != "" && !ids[env.Cause] {
			t.Fatalf("event %d has cause %s, which is no earlier event", env.Seq, env.Cause)
		}
		ids[env.ID] = true
		switch ev := env.Data.(type) {
		case *contract.IntentProposed:
			if intents[ev.ID] {
				t.Fatalf("intent id %s is used twice", ev.ID)
			}
			intent, intents[ev.ID] = ev.ID, true
		case *contract.ToolObservation:
			if ev.IntentID != intent {
				t.Fatalf("observation %d names intent %s, want %s", env.Seq, ev.IntentID, intent)
			}
		}
	}
	if turns := (len(envs) - 9) / 11; len(intents) != turns {
		t.Errorf("%d intents, want one per tool turn (%d)", len(intents), turns)
	}
}

func TestSessionLengths(t *testing.T) {
	for _, events := range []int{0, 9, 10, 20, 25, 100} {
		n := 0
		for range Session("s", events) {
			n++
		}
		if n != Len(events) || (n-9)%11 != 0 {
			t.Errorf("Session(%d) yielded %d events, Len says %d", events, n, Len(events))
		}
	}
	for range Session("s", 100) {
		break // stopping early must not panic
	}
}

func TestWriteSessionOverALog(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSession(dir, "s", 20); err != nil {
		t.Fatal(err)
	}
	if err := WriteSession(dir, "s", 20); err == nil {
		t.Error("WriteSession() over an existing log succeeded")
	}
}

// mustRead returns the log file of dir.
func mustRead(t *testing.T, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, eventlog.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
