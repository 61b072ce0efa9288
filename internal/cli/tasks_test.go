package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/session"
)

// logWriter appends hand-built events to a session's log, each 100 ms
// after the one before.
type logWriter struct {
	t   *testing.T
	x   *session.Session
	now time.Time
	run string
}

// create starts session sid in st at time at.
func create(t *testing.T, st *session.Store, sid string, at time.Time) *logWriter {
	t.Helper()
	x, err := st.Create(sid, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &logWriter{t: t, x: x, now: at, run: id.At("run", at)}
}

func (w *logWriter) add(evs ...contract.Event) {
	w.t.Helper()
	for _, e := range evs {
		w.now = w.now.Add(100 * time.Millisecond)
		if _, err := w.x.Log.Append(contract.Envelope{ID: id.At("evt", w.now), Time: w.now, Session: w.x.ID, Run: w.run, Turn: 1, Data: e}); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *logWriter) close() {
	w.t.Helper()
	if err := w.x.Close(); err != nil {
		w.t.Fatal(err)
	}
}

// costs is a priced model call's usage.
func costs(in, out int64, usd float64) *contract.ModelUsage {
	return &contract.ModelUsage{InputTokens: in, OutputTokens: out, CostUSD: &usd}
}

// call is the events of one tool call, allowed and run, that printed
// output; what runs between its start and its end is inside.
func call(cwd, intent, tool, input, output string, inside ...contract.Event) []contract.Event {
	in := json.RawMessage(input)
	evs := []contract.Event{
		&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: intent, ProviderCallID: "call_" + intent, ToolName: tool, Input: in}},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.ToolValidation{IntentID: intent, OK: true},
		&contract.ToolPermission{IntentID: intent, Decision: contract.Allow, By: "mode", Reason: "Accept-edits mode allows it."},
		&contract.InvocationStarted{IntentID: intent, InvocationID: "inv_" + intent, ToolName: tool, Input: in, Cwd: cwd, TimeoutMS: 120000},
	}
	evs = append(evs, inside...)
	return append(evs,
		&contract.InvocationCompleted{IntentID: intent, InvocationID: "inv_" + intent, Exit: contract.ExitOK, DurationMS: 3, OutputBytes: int64(len(output))},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: intent, ToolName: tool, OK: true, Phase: contract.PhaseExecution, Text: output}})
}

// taskTree is a session tree written by hand: a person's session whose
// task call ran a general child, which edited main.go and ran an explore
// grandchild of its own.
type taskTree struct {
	parent, child, grandchild string
}

// writeTree records a taskTree in st, working in ws, starting at epoch.
func writeTree(t *testing.T, st *session.Store, ws string) taskTree {
	t.Helper()
	tr := taskTree{parent: id.At("ses", epoch), child: id.At("ses", epoch.Add(time.Second)), grandchild: id.At("ses", epoch.Add(2*time.Second))}
	started := func(parent, agent, desc string, depth int) *contract.SessionStarted {
		return &contract.SessionStarted{Cwd: ws, Version: testVersion, Provider: "scripted", Model: "m",
			Parent: &contract.ParentRef{Session: parent, Seq: 10, IntentID: "int_task", Agent: agent, Description: desc, Depth: depth}}
	}
	p := create(t, st, tr.parent, epoch)
	p.add(&contract.SessionStarted{Cwd: ws, Version: testVersion, Provider: "scripted", Model: "m"},
		&contract.UserMessage{Text: "fix the build"}, &contract.RunStarted{Goal: "fix the build"},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1, ToolNames: []string{"task"}},
		&contract.ModelText{Text: "I'll hand this to a helper."}, costs(1000, 40, 0.01))
	taskCall := call(ws, "int_task", "task", `{"description":"fix main.go","prompt":"Make main.go build.","agent":"general"}`,
		"main.go builds now: Sum was misspelt.\n\n[task: completed · 2 turns · 2 tool calls · 1 file read, 1 changed]")
	p.add(taskCall[:5]...)
	p.add(&contract.TaskStarted{IntentID: "int_task", Agent: "general", Description: "fix main.go", Child: tr.child})

	c := create(t, st.Tasks(tr.parent), tr.child, p.now)
	c.add(started(tr.parent, "general", "fix main.go", 1),
		&contract.UserMessage{Text: "Make main.go build."}, &contract.RunStarted{Goal: "Make main.go build."},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1, ToolNames: []string{"read_file", "edit_file", "task"}},
		costs(500, 20, 0.004))
	gcall := call(ws, "int_look", "task", `{"description":"find Sum","prompt":"Where is Sum defined?","agent":"explore"}`, "Sum is in sum.go:3.")
	c.add(gcall[:5]...)
	c.add(&contract.TaskStarted{IntentID: "int_look", Agent: "explore", Description: "find Sum", Child: tr.grandchild})
	g := create(t, st.Tasks(tr.parent).Tasks(tr.child), tr.grandchild, c.now)
	g.add(started(tr.child, "explore", "find Sum", 2),
		&contract.UserMessage{Text: "Where is Sum defined?"}, &contract.RunStarted{Goal: "Where is Sum defined?"},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1, ToolNames: []string{"grep"}})
	g.add(call(ws, "int_grep", "grep", `{"pattern":"func Sum","path":"sum.go"}`, "sum.go:3:func Sum(a, b int) int {")...)
	g.add(costs(200, 10, 0.001), &contract.ModelText{Text: "Sum is in sum.go:3."}, costs(250, 8, 0.001),
		&contract.ModelFinished{Reason: contract.FinishStop}, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
	g.close()
	c.now = g.now
	c.add(&contract.TaskFinished{IntentID: "int_look", Agent: "explore", Child: tr.grandchild, Outcome: contract.TaskCompleted,
		Usage: &contract.Totals{InputTokens: 450, OutputTokens: 18, Calls: 2, CostUSD: 0.002}, Turns: 2, ToolCalls: 1, FilesRead: []string{filepath.Join(ws, "sum.go")}})
	c.add(gcall[5:]...)
	c.add(&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 3})
	c.add(call(ws, "int_edit", "edit_file", `{"path":"main.go","old_string":"Summ(","new_string":"Sum("}`, "edited main.go: 1 replacement")...)
	c.add(costs(700, 30, 0.005), &contract.ModelText{Text: "main.go builds now: Sum was misspelt."}, costs(800, 12, 0.005),
		&contract.ModelFinished{Reason: contract.FinishStop}, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
	c.close()

	p.now = c.now
	p.add(&contract.TaskFinished{IntentID: "int_task", Agent: "general", Child: tr.child, Outcome: contract.TaskCompleted,
		Usage: &contract.Totals{InputTokens: 2450, OutputTokens: 80, Calls: 5, CostUSD: 0.016}, Turns: 2, ToolCalls: 2,
		FilesRead: []string{filepath.Join(ws, "sum.go")}, FilesChanged: []string{filepath.Join(ws, "main.go")}})
	p.add(taskCall[5:]...)
	p.add(&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 3},
		&contract.ModelText{Text: "Fixed: main.go misspelt Sum."}, costs(1200, 15, 0.012),
		&contract.ModelFinished{Reason: contract.FinishStop}, &contract.RunFinished{Outcome: contract.OutcomeCompleted})
	p.close()
	return tr
}

// treeStage is a golden stage whose store holds a taskTree.
func treeStage(t *testing.T) (*stage, taskTree) {
	s := newStage(t, scenario{name: "tree"})
	return s, writeTree(t, s.store, s.ws)
}

// rein replay of a parent shows each child's transcript, read from its
// own log, nested under its task between the task's start and its end,
// recursively, and totals that are the tree's.
func TestReplayNestsChildrenUnderTheirTasks(t *testing.T) {
	s, tr := treeStage(t)
	out := s.rein("replay", tr.parent)
	checkGolden(t, "replay/tree.golden", out)
	start := strings.Index(out, "┌ task general")
	end := strings.Index(out, "\n[+5.5s] └ task completed") // the parent's, not indented
	if start < 0 || end < start {
		t.Fatalf("the replay lacks the task's start and end, in order:\n%s", out)
	}
	inside := out[start:end]
	for _, want := range []string{
		childIndent + "session <ses-2>", childIndent + "[+3.1s] ● edit_file main.go", childIndent + "main.go builds now",
		childIndent + childIndent + "session <ses-3>", childIndent + childIndent + "[+400ms] ● grep func Sum",
	} {
		if !strings.Contains(inside, want) {
			t.Errorf("the child's transcript lacks %q between its task's start and end:\n%s", want, out)
		}
	}
	// The parent's own calls, $0.022; its child's tree $0.016 (the
	// grandchild's $0.002 in it).
	for _, want := range []string{"its 2 child session(s):", "the whole tree: tokens 4,650 in, 135 out · $0.0380"} {
		if !strings.Contains(out, want) {
			t.Errorf("the replay's totals lack %q:\n%s", want, out)
		}
	}
}

// rein replay of a child, by a prefix of its id, replays it alone and
// says whose child it is.
func TestReplayOfAChildAlone(t *testing.T) {
	s, tr := treeStage(t)
	out := s.rein("replay", tr.child[:14])
	checkGolden(t, "replay/tree-child.golden", out)
	if !strings.Contains(out, fmt.Sprintf("a child session: the task %q (agent general) of session", "fix main.go")) {
		t.Errorf("the child's replay does not say whose child it is:\n%s", out)
	}
}

// rein log --children adds each child's events after its task.started,
// recursively: indented under a line naming the child, and with --json
// each line exactly as the child's own log holds it.
func TestLogWithChildren(t *testing.T) {
	s, tr := treeStage(t)
	checkGolden(t, "log/tree.golden", s.rein("log", "--children", "--type", "user.message", "--type", "task.started", tr.parent))

	var out, errw bytes.Buffer
	if code := Execute(t.Context(), []string{"log", "--children", "--json", tr.parent}, s.deps(&out, &errw)); code != 0 {
		t.Fatalf("rein log --children --json: exit %d\n%s", code, errw.String())
	}
	logOf := func(st *session.Store, sid string) []string {
		b, err := os.ReadFile(st.LogPath(sid))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		return lines[:len(lines)-1] // after the last newline: nothing
	}
	// Each child's lines follow its task.started line.
	after := func(lines []string, typ string, inner []string) []string {
		i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"type":"`+typ+`"`) })
		return slices.Concat(lines[:i+1], inner, lines[i+1:])
	}
	tasks := s.store.Tasks(tr.parent)
	child := after(logOf(tasks, tr.child), contract.TypeTaskStarted, logOf(tasks.Tasks(tr.child), tr.grandchild))
	want := strings.Join(after(logOf(s.store, tr.parent), contract.TypeTaskStarted, child), "")
	if d := cmp.Diff(strings.Split(want, "\n"), strings.Split(out.String(), "\n")); d != "" {
		t.Errorf("log --children --json mismatch (-want +got):\n%s", d)
	}

	// Without --children, the session's own log only.
	out.Reset()
	if code := Execute(t.Context(), []string{"log", "--json", tr.parent}, s.deps(&out, &errw)); code != 0 || out.String() != strings.Join(logOf(s.store, tr.parent), "") {
		t.Errorf("rein log --json: exit %d, not the parent's log line for line:\n%s", code, out.String())
	}
}

// rein why finds what a child changed, in the child's own log, and names
// the child and its task.
func TestWhyFindsAChildsChange(t *testing.T) {
	s, tr := treeStage(t)
	out := s.rein("why", filepath.Join(s.ws, "main.go"))
	for _, want := range []string{"1 intent in 1 session", "write  session <ses-1>", `in a child session: the task "fix main.go" (agent general) of session <ses-2>`, "● edit_file"} {
		if !strings.Contains(out, want) {
			t.Errorf("rein why main.go lacks %q:\n%s", want, out)
		}
	}
	// The grandchild's read, two levels down.
	var b, errw bytes.Buffer
	if code := Execute(t.Context(), []string{"why", "--json", filepath.Join(s.ws, "sum.go")}, s.deps(&b, &errw)); code != 0 {
		t.Fatalf("rein why --json: exit %d\n%s", code, errw.String())
	}
	var line whyLine
	if err := json.Unmarshal(b.Bytes(), &line); err != nil || line.Session != tr.grandchild || line.Parent == nil ||
		line.Parent.Session != tr.child || line.Parent.Description != "find Sum" {
		t.Errorf("rein why --json sum.go = %+v, %v; want the grandchild's grep, naming its task\n%s", line, err, b.String())
	}
}

// rein sessions lists the children under their parent, indented, with
// their agent, task, outcome and cost; the parent's cost is its tree's.
// A child is never a session of its own in the list.
func TestSessionsListsChildrenUnderTheirParent(t *testing.T) {
	s, tr := treeStage(t)
	var out, errw bytes.Buffer
	if code := Execute(t.Context(), []string{"sessions", "--all"}, s.deps(&out, &errw)); code != 0 {
		t.Fatalf("rein sessions: exit %d\n%s", code, errw.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("rein sessions --all printed %d lines, want the header and 3 rows:\n%s", len(lines), out.String())
	}
	for i, want := range [][]string{
		{tr.parent + " ", "completed", "$0.0380", "fix the build"},
		{"└ " + tr.child + " ", "completed", "$0.0160", "general: fix main.go"},
		{"  └ " + tr.grandchild + " ", "completed", "$0.0020", "explore: find Sum"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("row %d lacks %q:\n%s", i+1, w, out.String())
			}
		}
	}

	out.Reset()
	if code := Execute(t.Context(), []string{"sessions", "--all", "--json"}, s.deps(&out, &errw)); code != 0 {
		t.Fatalf("rein sessions --json: exit %d\n%s", code, errw.String())
	}
	var sum session.Summary
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil || sum.ID != tr.parent || len(sum.Children) != 1 ||
		sum.Children[0].ID != tr.child || sum.Children[0].Task != contract.TaskCompleted || len(sum.Children[0].Children) != 1 {
		t.Errorf("rein sessions --json = %+v, %v; want the parent with its child and grandchild\n%s", sum, err, out.String())
	}
}

// A child goes on only with the session it belongs to: resume, compact
// and fork of a child alone are refused, naming that session, and write
// nothing.
func TestAChildIsNotResumedAlone(t *testing.T) {
	s, tr := treeStage(t)
	before, err := os.ReadFile(s.store.Tasks(tr.parent).LogPath(tr.child))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"resume", tr.child, "go on"}, {"resume", tr.grandchild[:14]}, {"fork", tr.child}, {"compact", tr.child}} {
		var out, errw bytes.Buffer
		code := Execute(t.Context(), args, s.deps(&out, &errw))
		if code != ExitUsage || !strings.Contains(errw.String(), "works on the session it belongs to: rein "+args[0]+" "+tr.parent) {
			t.Errorf("rein %s: exit %d, %s; want a refusal naming %s", strings.Join(args, " "), code, errw.String(), tr.parent)
		}
	}
	after, err := os.ReadFile(s.store.Tasks(tr.parent).LogPath(tr.child))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("a refused command changed the child's log (%v)", err)
	}
	if list, _, err := s.store.List(nil); err != nil || len(list) != 1 {
		t.Errorf("sessions after the refusals: %d, %v; want the parent alone (no fork)", len(list), err)
	}
}

// A child killed with its parent (no task.finished) counts in the
// tree's cost by what its own log says, in replay and in sessions.
func TestAKilledChildCountsInTheTree(t *testing.T) {
	s := newStage(t, scenario{name: "killed"})
	parent, child := id.At("ses", epoch), id.At("ses", epoch.Add(time.Second))
	p := create(t, s.store, parent, epoch)
	p.add(&contract.SessionStarted{Cwd: s.ws, Version: testVersion, Provider: "scripted", Model: "m"},
		&contract.UserMessage{Text: "look around"}, &contract.RunStarted{Goal: "look around"},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1}, costs(1000, 40, 0.01))
	p.add(call(s.ws, "int_task", "task", `{"description":"look","prompt":"Look around."}`, "")[:5]...)
	p.add(&contract.TaskStarted{IntentID: "int_task", Agent: "explore", Description: "look", Child: child})
	c := create(t, s.store.Tasks(parent), child, p.now)
	c.add(&contract.SessionStarted{Cwd: s.ws, Version: testVersion, Provider: "scripted", Model: "m",
		Parent: &contract.ParentRef{Session: parent, Seq: 10, IntentID: "int_task", Agent: "explore", Description: "look", Depth: 1}},
		&contract.UserMessage{Text: "Look around."}, &contract.RunStarted{Goal: "Look around."},
		&contract.ModelRequested{Provider: "scripted", Model: "m", MessageCount: 1}, costs(300, 5, 0.004))
	c.close() // kill -9: neither finished
	p.close()

	out := s.rein("replay", parent)
	if !strings.Contains(out, "its 1 child session(s): 1 run(s) · 1 model call(s)") || !strings.Contains(out, "the whole tree: tokens 1,300 in, 45 out · $0.0140") {
		t.Errorf("the replay's totals leave out the killed child:\n%s", out)
	}
	if out := s.rein("sessions", "--all"); !strings.Contains(out, "$0.0140") || !strings.Contains(out, "└ <ses-") || !strings.Contains(out, "unfinished") {
		t.Errorf("rein sessions leaves out the killed child or its cost:\n%s", out)
	}
}

// A fork of a parent holds its log, not its children; its replay still
// shows them, from where the parent keeps them.
func TestAForksReplayShowsTheParentsChildren(t *testing.T) {
	s, tr := treeStage(t)
	s.rein("fork", tr.parent)
	list, _, err := s.store.List(func(sum *session.Summary) bool { return sum.ID != tr.parent })
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v; want the fork", list, err)
	}
	if _, err := os.Stat(s.store.Tasks(list[0].ID).Root()); !os.IsNotExist(err) {
		t.Errorf("the fork has a tasks directory (%v): children are not copied", err)
	}
	out := s.rein("replay", list[0].ID)
	if !strings.Contains(out, childIndent+"[+3.1s] ● edit_file main.go") || !strings.Contains(out, childIndent+childIndent+"[+400ms] ● grep func Sum") {
		t.Errorf("the fork's replay does not show the children its copied tasks ran:\n%s", out)
	}
}
