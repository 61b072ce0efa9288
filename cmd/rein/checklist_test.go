package main

import (
	"strings"
	"testing"
)

// checklistScript keeps a task list over two messages: the first writes
// it with one item in progress, the second marks that done and starts
// the next; the list is left unfinished, so it stays above the composer.
const checklistScript = `{"turns":[
 {"steps":[{"tool":{"index":0,"id":"t1","name":"todo_write","input":{"todos":[
   {"content":"read the notes","status":"in_progress","activeForm":"Reading the notes"},
   {"content":"fix the typo","status":"pending"},{"content":"run the tests","status":"pending"}]}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Started."},{"finish":"stop"}]},
 {"steps":[{"tool":{"index":0,"id":"t2","name":"todo_write","input":{"todos":[
   {"content":"read the notes","status":"completed"},
   {"content":"fix the typo","status":"in_progress","activeForm":"Fixing the typo"},{"content":"run the tests","status":"pending"}]}}},{"finish":"tool_use"}]},
 {"steps":[{"text":"Going on."},{"finish":"stop"}]}]}`

// The task list is a checklist above the composer, changed in place by
// each todo_write call, never printed into the scrollback: one copy on
// the screen, with the item in progress in its active form.
func TestUIChecklist(t *testing.T) {
	s := newScreen(t, 90, 30, nil, append(scriptFlags(t, checklistScript), "--permission-mode", "yolo")...)
	s.ready()
	s.text("plan the work")
	s.keys("Enter")
	s.waitFor("Started.")
	v := s.waitVisible("0 of 3 done")
	for _, want := range []string{"Reading the notes", "fix the typo", "run the tests"} {
		if !strings.Contains(v, want) {
			t.Errorf("the checklist lacks %q:\n%s", want, v)
		}
	}
	s.text("go on")
	s.keys("Enter")
	s.waitFor("Going on.")
	v = s.waitVisible("1 of 3 done")
	if !strings.Contains(v, "Fixing the typo") || strings.Contains(v, "Reading the notes") {
		t.Errorf("the checklist was not changed in place:\n%s", v)
	}
	if n := strings.Count(v, "run the tests"); n != 1 {
		t.Errorf("the list shows %d times on the screen, want once (in place, not printed):\n%s", n, v)
	}
}
