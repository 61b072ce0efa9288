package session

import (
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
)

// priced is a model call's usage that cost usd.
func priced(in int64, usd float64) *contract.ModelUsage {
	return &contract.ModelUsage{InputTokens: in, OutputTokens: 10, CostUSD: &usd}
}

// taskEvents is a parent's run with task calls: each child in children
// started, and those in finished finished with the usage given.
func taskEvents(cwd string, children []string, finished map[string]*contract.Totals) []contract.Event {
	evs := []contract.Event{
		&contract.SessionStarted{Cwd: cwd, Version: "0.1.0", Provider: "scripted", Model: "m"},
		&contract.UserMessage{Text: "look into it"},
		&contract.RunStarted{Goal: "look into it"},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1},
		priced(100, 0.01),
	}
	for i, c := range children {
		intent := fmt.Sprintf("int_%d", i+1)
		evs = append(evs, &contract.TaskStarted{IntentID: intent, Agent: "explore", Description: "look " + c, Child: c})
		if u, ok := finished[c]; ok {
			evs = append(evs, &contract.TaskFinished{IntentID: intent, Agent: "explore", Child: c, Outcome: contract.TaskCompleted, Usage: u, Turns: 1})
		}
	}
	return append(evs, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
}

// childEvents is a child's log: its run, with one priced call, finished
// or not.
func childEvents(cwd, parent, description string, depth int, usd float64, done bool) []contract.Event {
	evs := []contract.Event{
		&contract.SessionStarted{Cwd: cwd, Version: "0.1.0", Provider: "scripted", Model: "m",
			Parent: &contract.ParentRef{Session: parent, Seq: 6, IntentID: "int_1", Agent: "explore", Description: description, Depth: depth}},
		&contract.UserMessage{Text: "the brief: " + description},
		&contract.RunStarted{Goal: "the brief"},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 2},
		priced(50, usd),
	}
	if done {
		evs = append(evs, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
	}
	return evs
}

// tree records a person's session ses_P0 with two children: ses_P1C1,
// whose task finished (it cost $0.02 with its own child ses_P1C1G, $0.005
// of it), and ses_P1C2, killed with its parent (no task.finished; its
// log says $0.003). ses_Q is a person's session beside it.
func tree(t *testing.T, s *Store) (cwd string) {
	t.Helper()
	cwd = t.TempDir()
	record(t, s, "ses_Q", events(cwd))
	record(t, s, "ses_P0", taskEvents(cwd, []string{"ses_P1C1", "ses_P1C2"},
		map[string]*contract.Totals{"ses_P1C1": {InputTokens: 100, OutputTokens: 20, Calls: 2, CostUSD: 0.02}}))
	c := s.Tasks("ses_P0")
	record(t, c, "ses_P1C1", append(childEvents(cwd, "ses_P0", "look ses_P1C1", 1, 0.015, false),
		&contract.TaskStarted{IntentID: "int_9", Agent: "explore", Description: "deeper", Child: "ses_P1C1G"},
		&contract.TaskFinished{IntentID: "int_9", Agent: "explore", Child: "ses_P1C1G", Outcome: contract.TaskCompleted,
			Usage: &contract.Totals{InputTokens: 50, OutputTokens: 10, Calls: 1, CostUSD: 0.005}},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted}))
	record(t, c.Tasks("ses_P1C1"), "ses_P1C1G", childEvents(cwd, "ses_P1C1", "deeper", 2, 0.005, true))
	record(t, c, "ses_P1C2", childEvents(cwd, "ses_P0", "look ses_P1C2", 1, 0.003, false))
	s.remember("ses_P0") // as the parent's Close, which comes after its children's
	return cwd
}

func TestListShowsChildrenUnderTheirParent(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	cwd := tree(t, s)
	check := func(what string) {
		t.Helper()
		list, problems, err := s.List(nil)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: List() = %v, %v", what, problems, err)
		}
		var top []string
		for _, sum := range list {
			top = append(top, sum.ID)
		}
		if diff := cmp.Diff([]string{"ses_Q", "ses_P0"}, top, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Fatalf("%s: List()'s sessions mismatch (-want +got):\n%s", what, diff)
		}
		p := list[0]
		if p.ID != "ses_P0" {
			p = list[1]
		}
		// Its own call, C1's task (which holds G's), C2 from its log.
		if want := 0.01 + 0.02 + 0.003; p.Usage == nil || fmt.Sprintf("%.4f", p.Usage.CostUSD) != fmt.Sprintf("%.4f", want) || p.Usage.Calls != 4 {
			t.Errorf("%s: the parent's usage = %+v, want the tree's, $%.4f in 4 calls", what, p.Usage, want)
		}
		type child struct {
			ID, Agent, Description, Task, Outcome string
			Depth, Children                       int
			Cost                                  string
		}
		var got []child
		var walk func(list []Summary)
		walk = func(list []Summary) {
			for _, c := range list {
				got = append(got, child{c.ID, c.Parent.Agent, c.Parent.Description, c.Task, c.Outcome, c.Parent.Depth, len(c.Children), fmt.Sprintf("%.4f", c.Usage.CostUSD)})
				walk(c.Children)
			}
		}
		walk(p.Children)
		want := []child{
			{"ses_P1C1", "explore", "look ses_P1C1", contract.TaskCompleted, "completed", 1, 1, "0.0200"},
			{"ses_P1C1G", "explore", "deeper", contract.TaskCompleted, "completed", 2, 0, "0.0050"},
			{"ses_P1C2", "explore", "look ses_P1C2", "", OutcomeUnfinished, 1, 0, "0.0030"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the children mismatch (-want +got):\n%s", what, diff)
		}
	}
	check("indexed")

	// A child's log grows (it is being resumed) while its parent's does
	// not: the parent's entry is stale.
	x, err := s.Tasks("ses_P0").Open("ses_P1C2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Log.Append(contract.Envelope{ID: "e", Time: t0.Add(time.Hour), Session: "ses_P1C2", Data: priced(10, 0.001)}); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	list, _, err := s.List(func(sum *Summary) bool { return sum.ID == "ses_P0" })
	if err != nil || len(list) != 1 {
		t.Fatalf("List() = %v, %v", list, err)
	}
	if got := fmt.Sprintf("%.4f", list[0].Usage.CostUSD); got != "0.0340" {
		t.Errorf("after a child's log grew, the parent's cost = %s, want 0.0340", got)
	}

	if err := os.Remove(filepath.Join(s.Root(), indexName)); err != nil {
		t.Fatal(err)
	}
	list, _, err = s.List(func(sum *Summary) bool { return sum.ID == "ses_P0" })
	if err != nil || len(list) != 1 || len(list[0].Children) != 2 {
		t.Fatalf("List() without an index = %+v, %v; want ses_P0 with its 2 children", list, err)
	}

	// resume --last picks a person's session, never a child, whichever
	// is the latest.
	if last, err := s.Last(cwd); err != nil || (last != "ses_P0" && last != "ses_Q") {
		t.Errorf("Last() = %q, %v; want a person's session", last, err)
	}
}

func TestLocateFindsChildrenAtAnyDepth(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	tree(t, s)
	for _, indexed := range []bool{true, false} {
		if !indexed {
			if err := os.Remove(filepath.Join(s.Root(), indexName)); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			ref, want string
			parents   []string
			err       string
		}{
			{ref: "ses_P0", want: "ses_P0"},
			{ref: "ses_P1C1", want: "ses_P1C1", parents: []string{"ses_P0"}},
			{ref: "ses_P1C2", want: "ses_P1C2", parents: []string{"ses_P0"}},
			{ref: "ses_P1C1G", want: "ses_P1C1G", parents: []string{"ses_P0", "ses_P1C1"}},
			{ref: "ses_P1C1", want: "ses_P1C1", parents: []string{"ses_P0"}}, // an exact id is not a prefix of its child's
			{ref: "ses_P1C", err: `"ses_P1C" names 3 sessions`},
			{ref: "ses_P1C1G", want: "ses_P1C1G", parents: []string{"ses_P0", "ses_P1C1"}},
			{ref: "ses_P9", err: "no session ses_P9"},
		} {
			name := fmt.Sprintf("%s indexed=%v", tc.ref, indexed)
			got, err := s.Locate(tc.ref)
			if tc.err != "" {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s: Locate() = %+v, %v; want an error containing %q", name, got, err, tc.err)
				}
				continue
			}
			if err != nil || got.ID != tc.want || !cmp.Equal(got.Parents, tc.parents, cmpopts.EquateEmpty()) {
				t.Errorf("%s: Locate() = %q %v, %v; want %q %v", name, got.ID, got.Parents, err, tc.want, tc.parents)
				continue
			}
			// The place reads the session's own log.
			var first contract.Envelope
			if _, err := got.Store.Read(got.ID, func(env contract.Envelope) error {
				if first.Seq == 0 {
					first = env
				}
				return nil
			}); err != nil || first.Session != tc.want {
				t.Errorf("%s: reading the place gave %q, %v", name, first.Session, err)
			}
			if err := got.ChildOf("resume"); (err != nil) != (len(tc.parents) > 0) || (err != nil && !errors.Is(err, ErrChild)) {
				t.Errorf("%s: ChildOf() = %v", name, err)
			} else if err != nil && !strings.Contains(err.Error(), "rein resume ses_P0") {
				t.Errorf("%s: ChildOf() = %v; want it to name the person's session", name, err)
			}
		}
	}
}

func TestLocateAndListOfATreeWriteNothing(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	tree(t, s)
	if err := os.Remove(filepath.Join(s.Root(), indexName)); err != nil {
		t.Fatal(err)
	}
	before := listing(t, s.Root())
	if _, _, err := s.List(nil); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"ses_P1C1G", "ses_P1C2", "ses_P9"} {
		_, _ = s.Locate(ref) // what it finds is another test's
	}
	if diff := cmp.Diff(before, listing(t, s.Root())); diff != "" {
		t.Errorf("reading a tree changed the store (-before +after):\n%s", diff)
	}
}

// A fork of a parent copies its log, not its children: their logs stay
// where they are (the parent's task events, copied, still name them).
func TestForkLeavesTheChildrenWithTheParent(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	tree(t, s)
	id, _, err := s.Fork("ses_P0", 0, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(id), tasksName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the fork has a tasks directory (%v); children are not copied", err)
	}
	sum, err := s.Summarize(id)
	if err != nil || len(sum.Children) != 0 || sum.Usage.Calls != 0 {
		t.Errorf("the fork's summary = %+v, %v; want no children and none of the parent's cost", sum, err)
	}
}

// A session whose session.started names a parent is a child wherever it
// lies: resume --last never picks it, even as the latest at the top.
func TestLastNeverPicksAChild(t *testing.T) {
	s := NewStore(t.TempDir(), nil)
	cwd := t.TempDir()
	record(t, s, "ses_A", events(cwd)[:3])
	x, err := s.Create("ses_B", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range childEvents(cwd, "ses_A", "stray", 1, 0.001, true) {
		if _, err := x.Log.Append(contract.Envelope{ID: fmt.Sprint("e", i), Time: t0.Add(time.Hour), Session: "ses_B", Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if last, err := s.Last(cwd); err != nil || last != "ses_A" {
		t.Errorf("Last() = %q, %v; want ses_A, the person's session", last, err)
	}
}
