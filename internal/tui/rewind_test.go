package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
)

// rewindRuntime is a session of three messages: the first changed two
// files, the second none, the third (rewound once) one.
func rewindRuntime(h0 time.Time) *fakeRuntime {
	return &fakeRuntime{
		points: []kernel.RewindPoint{
			{Seq: 2, Time: h0.Add(-40 * time.Minute), Text: "add a notes file\nand a test", Files: 3},
			{Seq: 18, Time: h0.Add(-25 * time.Minute), Text: "explain the stats package", Files: 1, Rewound: true},
			{Seq: 30, Time: h0.Add(-3 * time.Minute), Text: "fix the failing test in stats.go", Files: 1},
		},
		changes: map[uint64]kernel.RewindPlan{
			2: {Changes: []kernel.RewindChange{{Path: "stats.go", Op: "changed"}, {Path: "notes.md", Op: "deleted"}, {Path: "old.txt", Op: "created"}},
				Conflicts: []string{"stats.go"}},
			30: {Changes: []kernel.RewindChange{{Path: "stats.go", Op: "changed"}}},
		},
	}
}

var harnessNow = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// /rewind opens the picker of the points, newest at the bottom and
// selected; Enter asks what to restore, listing the files (those changed
// by someone else flagged); a choice with such files asks before
// overwriting them; then one line says what was done, and the message is
// back in the composer.
func TestRewindPickerAndScope(t *testing.T) {
	rt := rewindRuntime(harnessNow)
	h := newHarness(t, 80, rt)
	h.typeText("/rewind")
	h.key("enter")
	if h.m.rewind == nil || h.m.rewind.at != 2 {
		t.Fatalf("/rewind did not open the picker on the latest point: %+v", h.m.rewind)
	}
	h.key("up")
	h.key("up")
	h.golden("rewind-picker")
	h.key("enter")
	h.golden("rewind-scope")
	h.key("down") // conversation only: the files stay
	if s := h.screenText(); !strings.Contains(s, "The files stay as they are (3 files changed since this message)") {
		t.Errorf("conversation only does not say the files stay:\n%s", s)
	}
	h.key("up")
	h.key("enter") // code and conversation: stats.go changed since
	if h.m.rewind == nil || h.m.rewind.stage != rewindConfirm {
		t.Fatalf("a rewind over a file changed since did not ask")
	}
	if s := h.screenText(); !strings.Contains(s, "1 file changed since rein last recorded it") || !strings.Contains(s, "[y] yes") {
		t.Errorf("the confirmation does not say what it overwrites:\n%s", s)
	}
	h.key("n") // back to the choices; nothing rewound
	if len(rt.rewinds) != 0 || h.m.rewind == nil || h.m.rewind.stage != rewindScope {
		t.Fatalf("n rewound %q or closed the dialog", rt.rewinds)
	}
	h.key("enter")
	h.key("y")
	if want := []string{"2 both true"}; strings.Join(rt.rewinds, "|") != strings.Join(want, "|") {
		t.Fatalf("rewinds %q, want %q", rt.rewinds, want)
	}
	if h.m.rewind != nil {
		t.Errorf("the dialog stays after the rewind")
	}
	back := flat(h.back...)
	if !strings.Contains(back, "code and conversation rewound to before “add a notes file” · 3 files restored: stats.go, notes.md, old.txt") {
		t.Errorf("the scrollback does not say what was rewound:\n%s", back)
	}
	if got := h.m.comp.Value(); got != "add a notes file\nand a test" {
		t.Errorf("the composer holds %q, not the message rewound", got)
	}
}

// Code only restores the files and leaves the composer alone; conversation
// only puts the message back, the files it attached left out.
func TestRewindScopes(t *testing.T) {
	rt := rewindRuntime(harnessNow)
	rt.points[2].Text = "look at @stats.go\n\n<file path=\"stats.go\">\npackage stats\n</file>"
	h := newHarness(t, 80, rt)
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("3")
	if got := rt.rewinds; len(got) != 1 || got[0] != "30 code false" {
		t.Fatalf("rewinds %q", got)
	}
	if !h.m.comp.Empty() {
		t.Errorf("a rewind of the code put %q in the composer", h.m.comp.Value())
	}
	if back := flat(h.back...); !strings.Contains(back, "code restored to before “look at @stats.go” · 1 file restored: stats.go") {
		t.Errorf("scrollback:\n%s", back)
	}
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("2")
	if got := rt.rewinds; len(got) != 2 || got[1] != "30 conversation false" {
		t.Fatalf("rewinds %q", got)
	}
	if got := h.m.comp.Value(); got != "look at @stats.go" {
		t.Errorf("the composer holds %q", got)
	}
	if back := flat(h.back...); !strings.Contains(back, "conversation rewound to before “look at @stats.go”; the files stay as they are; the message is back in the composer") {
		t.Errorf("scrollback:\n%s", back)
	}
	// Never mind, and Esc on the list, rewind nothing.
	h.m.comp.Reset()
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("4")
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("esc") // back to the list
	if h.m.rewind == nil || h.m.rewind.stage != rewindPoints {
		t.Fatalf("esc on the choices did not go back to the list")
	}
	h.key("esc")
	if h.m.rewind != nil || len(rt.rewinds) != 2 {
		t.Errorf("esc did not close the picker (%v), or rewound %q", h.m.rewind != nil, rt.rewinds)
	}
}

// flat is the texts joined, their runs of spaces and line breaks made
// one space: a note as the scrollback holds it, wrapped.
func flat(texts ...string) string {
	return strings.Join(strings.Fields(strings.Join(texts, "\n")), " ")
}

// altEsc is two Escs the terminal sent at once, as bubbletea reports
// them.
func altEsc() tea.KeyPressMsg { return tea.KeyPressMsg{Code: tea.KeyEscape, Mod: tea.ModAlt} }

// Esc twice within a second on an empty composer while nothing runs opens
// the picker; a single Esc, one a while after, Escs with a draft, or a
// key in between do not.
func TestEscEscOpensRewind(t *testing.T) {
	h := newHarness(t, 80, rewindRuntime(harnessNow))
	h.key("esc")
	if h.m.rewind != nil {
		t.Fatalf("one Esc opened the picker")
	}
	if !strings.Contains(h.screenText(), escNote) {
		t.Errorf("the first Esc says nothing:\n%s", h.screenText())
	}
	h.later(300 * time.Millisecond)
	h.key("esc")
	if h.m.rewind == nil {
		t.Fatalf("Esc Esc did not open the picker")
	}
	h.key("esc")
	if h.m.rewind != nil {
		t.Fatalf("Esc did not close the picker")
	}

	h.later(5 * time.Second)
	h.key("esc")
	h.later(2 * time.Second)
	h.key("esc") // too late: arms again
	if h.m.rewind != nil {
		t.Fatalf("two Escs two seconds apart opened the picker")
	}
	h.key("x")
	h.key("backspace")
	h.key("esc")
	if h.m.rewind != nil {
		t.Fatalf("Esc after another key opened the picker")
	}
	h.typeText("draft")
	h.key("esc")
	h.key("esc")
	if h.m.rewind != nil {
		t.Fatalf("Esc Esc with a draft opened the picker")
	}
	h.m.comp.Reset()
	h.m.running = true
	h.key("esc")
	h.key("esc")
	if h.m.rewind != nil {
		t.Fatalf("Esc Esc during a run opened the picker")
	}
	h.m.running = false
	h.send(keyMsg("esc"))
	h.send(altEsc())
	if h.m.rewind == nil {
		t.Fatalf("the terminal's Esc Esc at once (alt+esc) did not open the picker")
	}

	// A session with no message yet: Esc says nothing of rewinding.
	h = newHarness(t, 80, &fakeRuntime{})
	h.key("esc")
	if strings.Contains(h.screenText(), escNote) || !h.m.escAt.IsZero() {
		t.Errorf("Esc in an empty session armed the rewind:\n%s", h.screenText())
	}
}

// /undo rewinds the last turn at once when it changed no file; when it
// did, it lists them and asks first.
func TestUndo(t *testing.T) {
	rt := rewindRuntime(harnessNow)
	rt.changes[30] = kernel.RewindPlan{}
	h := newHarness(t, 80, rt)
	h.typeText("/undo")
	h.key("enter")
	if got := rt.rewinds; len(got) != 1 || got[0] != "30 both false" {
		t.Fatalf("rewinds %q", got)
	}
	if back := flat(h.back...); !strings.Contains(back, "· no file needed restoring") {
		t.Errorf("scrollback:\n%s", back)
	}
	if got := h.m.comp.Value(); got != "fix the failing test in stats.go" {
		t.Errorf("composer %q", got)
	}

	rt = rewindRuntime(harnessNow)
	rt.points = rt.points[:1]
	h = newHarness(t, 80, rt)
	h.typeText("/undo")
	h.key("enter")
	if len(rt.rewinds) != 0 || h.m.rewind == nil {
		t.Fatalf("/undo over files did not ask (rewinds %q)", rt.rewinds)
	}
	s := h.screenText()
	for _, want := range []string{"Undo the last turn, “add a notes file”?", "revert    stats.go  (changed since rein recorded it: overwritten)", "remove    notes.md", "restore   old.txt", "[y] yes"} {
		if !strings.Contains(s, want) {
			t.Errorf("the question lacks %q:\n%s", want, s)
		}
	}
	h.key("n")
	if len(rt.rewinds) != 0 || h.m.rewind != nil {
		t.Fatalf("n rewound %q or left the dialog", rt.rewinds)
	}
	h.typeText("/undo")
	h.key("enter")
	h.key("y")
	if got := rt.rewinds; len(got) != 1 || got[0] != "2 both true" {
		t.Fatalf("rewinds %q", got)
	}
}

// A rewind that fails says so and why; nothing is put in the composer.
func TestRewindRefused(t *testing.T) {
	rt := rewindRuntime(harnessNow)
	rt.rewindErr = &kernel.ControlError{Msg: "stats.go changed since rein last recorded it", Err: kernel.ErrConflict}
	h := newHarness(t, 80, rt)
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("enter")
	if back := flat(h.back...); !strings.Contains(back, "error: nothing was rewound: stats.go changed since rein last recorded it") {
		t.Errorf("scrollback:\n%s", back)
	}
	if !h.m.comp.Empty() {
		t.Errorf("a refused rewind put %q in the composer", h.m.comp.Value())
	}
	h = newHarness(t, 80, &fakeRuntime{})
	h.typeText("/rewind")
	h.key("enter")
	if h.m.rewind != nil || !strings.Contains(flat(h.back...), "nothing to rewind to") {
		t.Errorf("an empty session opened the picker")
	}
}

// After a rewind of the conversation the checklist is the task list as it
// was then.
func TestRewindTaskList(t *testing.T) {
	rt := rewindRuntime(harnessNow)
	h := newHarness(t, 80, rt)
	h.m.todos.set([]contract.Todo{{Content: "later step", Status: contract.TodoInProgress}})
	rt.todos = []contract.Todo{{Content: "earlier step", Status: contract.TodoPending}}
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("2")
	if s := h.screenText(); !strings.Contains(s, "earlier step") || strings.Contains(s, "later step") {
		t.Errorf("the checklist is not the rewound one:\n%s", s)
	}
}

// /help and the / completion list /rewind and /undo, and /help says what
// Esc Esc does.
func TestHelpListsRewind(t *testing.T) {
	h := newHarness(t, 100, &fakeRuntime{})
	h.typeText("/help")
	h.key("enter")
	back := flat(h.back...)
	for _, want := range []string{"/rewind pick an earlier message", "/undo rewind the last turn", "Esc Esc on an empty composer: rewind"} {
		if !strings.Contains(back, want) {
			t.Errorf("/help lacks %q:\n%s", want, back)
		}
	}
	h.typeText("/re")
	if s := h.screenText(); !strings.Contains(s, "/rewind") {
		t.Errorf("the completion of /re does not offer /rewind:\n%s", s)
	}
}

// A file changed between the plan shown and the rewind: the rewind asks
// whether to overwrite it, as a plan that showed it would have, and y
// rewinds with force.
func TestRewindConflictAfterThePlan(t *testing.T) {
	rt := rewindRuntime(harnessNow)
	rt.lateConflicts = []string{"stats.go"}
	h := newHarness(t, 80, rt)
	h.typeText("/rewind")
	h.key("enter")
	h.key("enter")
	h.key("enter")
	if h.m.rewind == nil || h.m.rewind.stage != rewindConfirm || !h.m.rewind.force {
		t.Fatalf("after a conflict found by the rewind: dialog %+v, want the confirmation to overwrite", h.m.rewind)
	}
	h.key("y")
	if got := rt.rewinds; len(got) != 2 || !strings.HasSuffix(got[1], " true") {
		t.Fatalf("rewinds %q, want the first without force, the second with", got)
	}
}
