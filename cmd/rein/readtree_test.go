package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/session"
)

// treeLog appends hand-built events to x, one 100 ms after the other
// from at, and returns the time of the last.
func treeLog(t *testing.T, x *session.Session, at time.Time, evs ...contract.Event) time.Time {
	t.Helper()
	for _, e := range evs {
		at = at.Add(100 * time.Millisecond)
		if _, err := x.Log.Append(contract.Envelope{ID: id.At("evt", at), Time: at, Session: x.ID, Run: "run_1", Turn: 1, Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	return at
}

// toolCall is the events of a tool call that ran, split where a task's
// child runs: before (proposed to started) and after (completed,
// observed).
func toolCall(cwd, intent, tool, input, output string) (before, after []contract.Event) {
	in := json.RawMessage(input)
	return []contract.Event{
			&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: intent, ToolName: tool, Input: in}},
			&contract.ModelFinished{Reason: contract.FinishToolUse},
			&contract.ToolValidation{IntentID: intent, OK: true},
			&contract.ToolPermission{IntentID: intent, Decision: contract.Allow, By: "mode"},
			&contract.InvocationStarted{IntentID: intent, InvocationID: "inv_" + intent, ToolName: tool, Input: in, Cwd: cwd, TimeoutMS: 1000},
		}, []contract.Event{
			&contract.InvocationCompleted{IntentID: intent, InvocationID: "inv_" + intent, Exit: contract.ExitOK, DurationMS: 3},
			&contract.ToolObservation{Observation: contract.Observation{IntentID: intent, ToolName: tool, OK: true, Phase: contract.PhaseExecution, Text: output}},
		}
}

// The read-only commands over a session whose task ran a child, which
// ran a child of its own: replay, log --children, sessions and why show
// the tree, and nothing at all changes on disk (no file written, created,
// or even read for its access time), with no program to be found on PATH
// and no model to ask.
func TestReadCommandsOverATreeChangeNothing(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	sessions := filepath.Join(state, "rein", "sessions")
	store := session.NewStore(sessions, nil)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Second)
	parent, child, grandchild := id.At("ses", t0), id.At("ses", t0.Add(time.Second)), id.At("ses", t0.Add(2*time.Second))
	ref := func(of, agent, desc string, depth int) *contract.ParentRef {
		return &contract.ParentRef{Session: of, Seq: 9, IntentID: "int_task", Agent: agent, Description: desc, Depth: depth}
	}
	usd := 0.01
	usage := &contract.ModelUsage{InputTokens: 100, OutputTokens: 10, CostUSD: &usd}

	px, err := store.Create(parent, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := treeLog(t, px, t0, &contract.SessionStarted{Cwd: ws, Version: "test", Provider: "scripted"},
		&contract.UserMessage{Text: "fix it"}, &contract.RunStarted{Goal: "fix it"},
		&contract.ModelRequested{Provider: "scripted", MessageCount: 1}, usage)
	taskBefore, taskAfter := toolCall(ws, "int_task", "task", `{"description":"fix effects","prompt":"Fix effects.txt."}`, "fixed")
	at = treeLog(t, px, at, append(taskBefore, &contract.TaskStarted{IntentID: "int_task", Agent: "general", Description: "fix effects", Child: child})...)

	cx, err := store.Tasks(parent).Create(child, nil)
	if err != nil {
		t.Fatal(err)
	}
	at = treeLog(t, cx, at, &contract.SessionStarted{Cwd: ws, Version: "test", Provider: "scripted", Parent: ref(parent, "general", "fix effects", 1)},
		&contract.UserMessage{Text: "Fix effects.txt."}, &contract.RunStarted{Goal: "Fix effects.txt."},
		&contract.ModelRequested{Provider: "scripted", MessageCount: 1}, usage)
	editBefore, editAfter := toolCall(ws, "int_edit", "write_file", `{"path":"effects.txt","content":"fixed\n"}`, "wrote effects.txt")
	at = treeLog(t, cx, at, append(append(editBefore, editAfter...), usage)...)
	lookBefore, lookAfter := toolCall(ws, "int_look", "task", `{"description":"check it","prompt":"Read effects.txt.","agent":"explore"}`, "it says fixed")
	at = treeLog(t, cx, at, append(lookBefore, &contract.TaskStarted{IntentID: "int_look", Agent: "explore", Description: "check it", Child: grandchild})...)
	gx, err := store.Tasks(parent).Tasks(child).Create(grandchild, nil)
	if err != nil {
		t.Fatal(err)
	}
	readBefore, readAfter := toolCall(ws, "int_read", "bash", `{"command":"cat effects.txt"}`, "fixed")
	at = treeLog(t, gx, at, append(append(append([]contract.Event{
		&contract.SessionStarted{Cwd: ws, Version: "test", Provider: "scripted", Parent: ref(child, "explore", "check it", 2)},
		&contract.UserMessage{Text: "Read effects.txt."}, &contract.RunStarted{Goal: "Read effects.txt."},
		&contract.ModelRequested{Provider: "scripted", MessageCount: 1}}, readBefore...), readAfter...),
		usage, &contract.RunFinished{Outcome: contract.OutcomeCompleted})...)
	if err := gx.Close(); err != nil {
		t.Fatal(err)
	}
	at = treeLog(t, cx, at, append([]contract.Event{&contract.TaskFinished{IntentID: "int_look", Agent: "explore", Child: grandchild, Outcome: contract.TaskCompleted,
		Usage: &contract.Totals{InputTokens: 100, OutputTokens: 10, Calls: 1, CostUSD: 0.01}}}, append(lookAfter, &contract.RunFinished{Outcome: contract.OutcomeCompleted})...)...)
	if err := cx.Close(); err != nil {
		t.Fatal(err)
	}
	treeLog(t, px, at, append([]contract.Event{&contract.TaskFinished{IntentID: "int_task", Agent: "general", Child: child, Outcome: contract.TaskCompleted,
		Usage: &contract.Totals{InputTokens: 300, OutputTokens: 30, Calls: 3, CostUSD: 0.03}}}, append(taskAfter, &contract.RunFinished{Outcome: contract.OutcomeCompleted})...)...)
	if err := px.Close(); err != nil {
		t.Fatal(err)
	}

	before := world(t, sessions, ws)
	env := []string{"XDG_STATE_HOME=" + state, "XDG_CONFIG_HOME=" + t.TempDir(), "PATH=" + t.TempDir()}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"replay", parent}, []string{"┌ task general: \"fix effects\"", "  ┆   ┆ [+", "● bash cat effects.txt", "the whole tree: tokens 400 in, 40 out · $0.0400"}},
		{[]string{"replay", child[:14]}, []string{"a child session: the task \"fix effects\" (agent general) of session " + parent}},
		{[]string{"replay", "--json", parent}, []string{`"type":"task.started"`}},
		{[]string{"log", "--children", parent}, []string{"  ┆   ┆ ── child session " + grandchild}},
		{[]string{"log", "--children", "--json", grandchild}, []string{`"session":"` + grandchild + `"`}},
		{[]string{"sessions", "--all"}, []string{"└ " + child, "  └ " + grandchild, "$0.0400"}},
		{[]string{"sessions", "--all", "--json"}, []string{`"children":[{"id":"` + child}},
		{[]string{"why", "effects.txt"}, []string{"in a child session: the task \"fix effects\" (agent general) of session " + parent,
			"in a child session: the task \"check it\" (agent explore) of session " + child}},
	} {
		r := reinIn(t, ws, env, c.args...)
		if r.code != 0 {
			t.Errorf("rein %s: exit %d\n%s", strings.Join(c.args, " "), r.code, r.stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("rein %s lacks %q:\n%s", strings.Join(c.args, " "), w, r.stdout)
			}
		}
	}
	if r := reinIn(t, ws, env, "resume", child, "go on"); r.code != 2 || !strings.Contains(r.stderr, "rein resume "+parent) {
		t.Errorf("rein resume CHILD: exit %d, %s; want a refusal naming its parent", r.code, r.stderr)
	}
	if diff := cmp.Diff(before, world(t, sessions, ws)); diff != "" {
		t.Errorf("replay, log, sessions, why or a refused resume changed the disk (-before +after):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(ws, "effects.txt")); !os.IsNotExist(err) {
		t.Errorf("effects.txt exists (%v): a recorded write was run again", err)
	}
}
