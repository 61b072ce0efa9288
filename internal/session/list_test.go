package session

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/workspace"
)

func TestListIsTheLogsAndTheIndexOnlyHelps(t *testing.T) {
	root := t.TempDir()
	s := NewStore(root, nil)
	a, b := t.TempDir(), t.TempDir()
	record(t, s, "ses_1", events(a))
	unfinished := events(b)[:12] // the process died after an observation
	record(t, s, "ses_2", unfinished)
	record(t, s, "ses_3", events(a)[:1]) // started, nothing asked

	want := []Summary{
		{ID: "ses_1", Cwd: a, Started: t0, LastActivity: t0.Add(15 * time.Second), Outcome: "completed", FirstPrompt: "fix the tests", Events: 16, Usage: &contract.Totals{}},
		{ID: "ses_2", Cwd: b, Started: t0, LastActivity: t0.Add(11 * time.Second), Outcome: OutcomeUnfinished, FirstPrompt: "fix the tests", Events: 12, Usage: &contract.Totals{}},
		{ID: "ses_3", Cwd: a, Started: t0, LastActivity: t0, Outcome: OutcomeIdle, Events: 1, Usage: &contract.Totals{}},
	}
	ignore := cmpopts.IgnoreFields(Summary{}, "Size", "ModTime")
	check := func(what string) {
		t.Helper()
		got, problems, err := s.List(nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: List() = %v, %v", what, problems, err)
		}
		if diff := cmp.Diff(want, got, ignore, cmpopts.EquateApproxTime(0)); diff != "" {
			t.Errorf("%s: List() mismatch (-want +got):\n%s", what, diff)
		}
	}
	check("index written at close")

	// A stale index entry (the log grew behind its back) loses to the log.
	x, err := s.Open("ses_3", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Log.Append(contract.Envelope{ID: "e", Time: t0.Add(time.Hour), Session: "ses_3", Data: &contract.UserMessage{Text: "hello"}}); err != nil {
		t.Fatal(err)
	}
	if err := x.Log.Close(); err != nil { // no index update: as if killed
		t.Fatal(err)
	}
	if err := x.unlock(); err != nil {
		t.Fatal(err)
	}
	want[2].FirstPrompt, want[2].Events, want[2].LastActivity = "hello", 2, t0.Add(time.Hour)
	want[0], want[1], want[2] = want[2], want[0], want[1]
	check("stale entry")

	// A broken index is ignored; reindex rebuilds it.
	if err := os.WriteFile(filepath.Join(root, indexName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("broken index")
	n, problems, err := s.Reindex()
	if n != 3 || len(problems) > 0 || err != nil {
		t.Fatalf("Reindex() = %d, %v, %v", n, problems, err)
	}
	if idx := s.readIndex(); len(idx) != 3 || idx["ses_3"].FirstPrompt != "hello" {
		t.Errorf("index after Reindex = %+v", idx)
	}
	check("reindexed")

	last, err := s.Last(a)
	if err != nil || last != "ses_3" {
		t.Errorf("Last(a) = %q, %v; want ses_3", last, err)
	}
	if _, err := s.Last(t.TempDir()); err == nil {
		t.Error("Last(elsewhere) = nil error, want not found")
	}
}

func TestListWritesNothing(t *testing.T) {
	root := t.TempDir()
	s := NewStore(root, nil)
	record(t, s, "ses_1", events(t.TempDir()))
	record(t, s, "ses_2", events(t.TempDir())[:5])
	if err := os.Remove(filepath.Join(root, indexName)); err != nil {
		t.Fatal(err)
	}
	before := listing(t, root)
	if _, _, err := s.List(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("ses_2", func(contract.Envelope) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, listing(t, root)); diff != "" {
		t.Errorf("reading changed the store (-before +after):\n%s", diff)
	}
}

// listing returns every file under root with its size and times.
func listing(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().String() + " " + string(rune(fi.Size()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A session is on disk once it records its first event: Create writes
// nothing, and a session closed without an event leaves nothing behind.
func TestCreateWritesNothingUntilTheFirstEvent(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	s := NewStore(root, nil)
	x, err := s.Create("ses_lazy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(x.Dir); !os.IsNotExist(err) {
		t.Errorf("Create made %s before any event: %v", x.Dir, err)
	}
	if err := x.Log.Sync(); err != nil {
		t.Errorf("Sync() of a session with no event = %v", err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
		t.Errorf("a session closed without an event left %v in %s (%v)", entries, root, err)
	}
	// A sessions directory rein cannot write in is said at once.
	if _, err := NewStore("/proc/no-sessions-here", nil).Create("ses_x", nil); err == nil {
		t.Error("Create() under /proc succeeded")
	}

	y, err := s.Create("ses_lazy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := y.Log.Append(contract.Envelope{ID: "evt_1", Time: t0, Session: "ses_lazy", Data: &contract.SessionStarted{Cwd: "/w"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"events.jsonl", "lock"} {
		if _, err := os.Lstat(filepath.Join(root, "ses_lazy", name)); err != nil {
			t.Errorf("after the first event: %v", err)
		}
	}
	if _, err := s.Open("ses_lazy", nil); !errors.Is(err, ErrLocked) {
		t.Errorf("Open() while the creator writes = %v, want ErrLocked", err)
	}
	if err := y.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create("ses_lazy", nil); err == nil {
		t.Error("Create() over an existing session succeeded")
	}
}

// rein sessions lists only sessions with a readable log: a directory
// without events.jsonl, with an empty one, or with one no line of which
// can be read is a problem named, never a blank row.
func TestListSkipsDirectoriesWithoutAReadableLog(t *testing.T) {
	root := t.TempDir()
	s := NewStore(root, nil)
	record(t, s, "ses_ok", events(t.TempDir()))
	for id, log := range map[string]*string{"ses_nolog": nil, "ses_empty": new(string), "ses_garbage": ptr("not json\n{\"seq\":\n")} {
		if err := os.Mkdir(filepath.Join(root, id), 0o700); err != nil {
			t.Fatal(err)
		}
		if log != nil {
			if err := os.WriteFile(filepath.Join(root, id, "events.jsonl"), []byte(*log), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	list, problems, err := s.List(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "ses_ok" {
		t.Errorf("List() = %+v, want only ses_ok", list)
	}
	var said []string
	for _, p := range problems {
		said = append(said, p.Error())
	}
	for _, want := range []string{"ses_nolog has no events.jsonl", "ses_empty/events.jsonl is empty", "ses_garbage/events.jsonl holds no event that can be read"} {
		if !strings.Contains(strings.Join(said, "\n"), want) {
			t.Errorf("problems %q lack %q", said, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// A summary sums the cost of the session's own model calls: a call whose
// price is unknown makes the whole cost unknown, and a fork counts only
// what was spent after it forked (its copy of the parent's log is the
// parent's spending). A usage line quoted in a tool's output is no call,
// and a line longer than the reader's buffer does not hide the next.
func TestListSumsTheSessionsOwnUsage(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	cwd := t.TempDir()
	evs := events(cwd)
	priced := &contract.ModelUsage{InputTokens: 1000, OutputTokens: 50, CacheReadTokens: 800, CostUSD: new(0.0125)}
	unpriced := &contract.ModelUsage{InputTokens: 200, OutputTokens: 10, CacheWriteTokens: 100}
	quoted := &contract.ToolObservation{Observation: contract.Observation{IntentID: "int_1", ToolName: "bash",
		Phase: contract.PhaseExecution, Text: `{"type":"model.usage","data":{"input_tokens":99999}}`}}
	long := &contract.ToolObservation{Observation: contract.Observation{IntentID: "int_1", ToolName: "bash",
		Phase: contract.PhaseExecution, Text: strings.Repeat("a line longer than the reader's buffer ", 2000)}}
	withUsage := append(append([]contract.Event{}, evs[:4]...), long, priced, quoted)
	withUsage = append(withUsage, evs[4:]...)
	record(t, s, "ses_p", withUsage)
	fork, _, err := s.Fork("ses_p", 0, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	record(t, s, "ses_u", append(append([]contract.Event{}, evs[:4]...), priced, unpriced))

	list, problems, err := s.List(nil)
	if err != nil || len(problems) > 0 {
		t.Fatalf("List() = %v, %v", problems, err)
	}
	got := map[string]*contract.Totals{}
	for _, sum := range list {
		got[sum.ID] = sum.Usage
	}
	want := map[string]*contract.Totals{
		"ses_p": {InputTokens: 1000, OutputTokens: 50, CacheReadTokens: 800, Calls: 1, CostUSD: 0.0125},
		"ses_u": {InputTokens: 1200, OutputTokens: 60, CacheReadTokens: 800, CacheWriteTokens: 100, Calls: 2, CostUSD: 0.0125, Unpriced: 1},
		fork:    {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage by session (-want +got):\n%s", diff)
	}
}

// The sessions of a repository are found from any of its directories;
// outside a repository, only the directory's own.
func TestHereAndLastInARepository(t *testing.T) {
	top := t.TempDir()
	if _, ok := workspace.Repository(top); ok {
		t.Skip("the temporary directory is inside a git repository")
	}
	repo, plain := filepath.Join(top, "repo"), filepath.Join(top, "plain")
	sub := filepath.Join(repo, "cmd", "tool")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, filepath.Join(plain, "below")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := NewStore(t.TempDir(), nil)
	record(t, s, "ses_root", events(repo))
	record(t, s, "ses_sub", events(sub)[:5]) // its last event is earlier than the root's
	record(t, s, "ses_plain", events(plain))
	record(t, s, "ses_below", events(filepath.Join(plain, "below")))
	record(t, s, "ses_near", events(repo+"-other")) // a sibling whose name starts alike
	for _, tc := range []struct {
		cwd   string
		want  []string
		where string
	}{
		{repo, []string{"ses_root", "ses_sub"}, repo},
		{sub, []string{"ses_root", "ses_sub"}, repo},
		{plain, []string{"ses_plain"}, plain},
		{filepath.Join(plain, "below"), []string{"ses_below"}, filepath.Join(plain, "below")},
	} {
		keep, where := Here(tc.cwd)
		list, _, err := s.List(keep)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sum := range list {
			got = append(got, sum.ID)
		}
		slices.Sort(got)
		if d := cmp.Diff(tc.want, got); d != "" || where != tc.where {
			t.Errorf("Here(%s): where %s, sessions (-want +got):\n%s", tc.cwd, where, d)
		}
	}
	// The root's session ends last (its log's last event is the latest).
	if last, err := s.Last(sub); err != nil || last != "ses_root" {
		t.Errorf("Last(sub) = %q, %v; want ses_root, the repository's most recently active", last, err)
	}
	if _, err := s.Last(filepath.Join(top, "nothing")); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no session to go on with in "+filepath.Join(top, "nothing")) {
		t.Errorf("Last(nowhere) = %v", err)
	}
}
