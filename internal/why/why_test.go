package why

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// Said is the text of the model call that proposed the intent, up to the
// intent: not an earlier call's, not reasoning, not a discarded attempt's.
func TestSaid(t *testing.T) {
	r := newRecorder("ses_1", ws, t0)
	r.call("I'll read the tests first.")
	first, _ := r.propose("int_a", "read_file", `{"path":"src/parser_test.ts"}`)
	r.runs(first, ws)

	r.call()
	r.add(&contract.ModelReasoning{Text: "the loop stops one early"})
	r.add(&contract.ModelText{Text: "The parser drops the last token."})
	r.add(&contract.ModelText{Text: "I'll fix the loop bound."})
	edit, editEnv := r.propose("int_b", "edit_file", `{"path":"src/parser.ts","old_string":"<","new_string":"<="}`)
	r.add(&contract.ModelText{Text: "Then read it back."})
	read, readEnv := r.propose("int_c", "read_file", `{"path":"src/parser.ts"}`)
	editOut := r.runs(edit, ws)
	readOut := r.runs(read, ws)

	r.call("Running the tests.")
	test, testEnv := r.propose("int_d", "bash", `{"command":"go test ./... && cat src/parser.ts"}`)
	testOut := r.runs(test, ws)

	r.call("A partial answer")
	r.add(&contract.ModelDiscarded{Reason: "stream_interrupted"})
	r.add(&contract.ModelText{Text: "Retried."})
	again, againEnv := r.propose("int_e", "read_file", `{"path":"/ws/src/parser.ts"}`)
	againOut := r.runs(again, ws)

	r.call("Nothing to say about the next one.")
	r.call()
	quiet, quietEnv := r.propose("int_f", "read_file", `{"path":"src/parser.ts"}`)
	quietOut := r.runs(quiet, ws)

	said := "The parser drops the last token.\n\nI'll fix the loop bound."
	want := []Touch{
		r.touch(edit, editEnv, ws, Write, said, editOut),
		r.touch(read, readEnv, ws, Read, said+"\n\nThen read it back.", readOut),
		r.touch(test, testEnv, ws, Command, "Running the tests.", testOut),
		r.touch(again, againEnv, ws, Read, "Retried.", againOut),
		r.touch(quiet, quietEnv, ws, Read, "", quietOut),
	}
	if d := cmp.Diff(want, find(target, r)); d != "" {
		t.Errorf("Touches() mismatch (-want +got):\n%s", d)
	}
}

// What happened to an intent after its proposal is whatever the log holds:
// a refusal, a denial, an interruption, or nothing at all.
func TestOutcomes(t *testing.T) {
	r := newRecorder("ses_1", ws, t0)
	r.call("Let me rewrite it.")

	refused, refusedEnv := r.propose("int_v", "write_file", `{"path":"src/parser.ts"}`)
	refusedOut := outcome{
		validation: event(r, &contract.ToolValidation{
			IntentID: refused.ID, Code: "schema_invalid", Errors: []string{"missing property \"content\""},
		}),
		observation: event(r, &contract.ToolObservation{Observation: contract.Observation{
			IntentID: refused.ID, ToolName: "write_file", Phase: contract.PhaseValidation, Code: "schema_invalid", Text: "refused",
		}}),
	}

	denied, deniedEnv := r.propose("int_d", "bash", `{"command":"rm src/parser.ts"}`)
	deniedOut := outcome{
		validation: event(r, &contract.ToolValidation{IntentID: denied.ID, OK: true}),
		permission: event(r, &contract.ToolPermission{
			IntentID: denied.ID, Decision: contract.Deny, By: "headless", Reason: "no one to ask",
		}),
		observation: event(r, &contract.ToolObservation{Observation: contract.Observation{
			IntentID: denied.ID, ToolName: "bash", Phase: contract.PhasePermission, Code: "denied", Text: "denied",
		}}),
	}

	cut, cutEnv := r.propose("int_i", "edit_file", `{"path":"src/parser.ts","old_string":"a","new_string":"b"}`)
	cutOut := outcome{
		validation: event(r, &contract.ToolValidation{IntentID: cut.ID, OK: true}),
		permission: event(r, &contract.ToolPermission{IntentID: cut.ID, Decision: contract.Allow, By: "rule", Rule: "edit_file(src/**)"}),
		started: event(r, &contract.InvocationStarted{
			IntentID: cut.ID, InvocationID: "inv_i", ToolName: "edit_file", Input: cut.Input, Cwd: ws,
		}),
	}
	r.add(&contract.SessionResumed{FromSeq: r.seq})
	cutOut.completed = event(r, &contract.InvocationCompleted{IntentID: cut.ID, InvocationID: "inv_i", Exit: contract.ExitInterrupted})

	// The effective command, not the proposed one, names the file.
	rewritten, rewrittenEnv := r.propose("int_r", "bash", `{"command":"cat parser.ts"}`)
	rewrittenOut := outcome{
		validation: event(r, &contract.ToolValidation{IntentID: rewritten.ID, OK: true}),
		permission: event(r, &contract.ToolPermission{IntentID: rewritten.ID, Decision: contract.Allow, By: "user"}),
		started: event(r, &contract.InvocationStarted{
			IntentID: rewritten.ID, InvocationID: "inv_r", ToolName: "bash",
			Input: json.RawMessage(`{"command":"cat src/parser.ts"}`), Cwd: ws,
		}),
	}

	// The session stopped before this one ran.
	lost, lostEnv := r.propose("int_l", "bash", `{"command":"cat src/parser.ts"}`)
	lostOut := outcome{validation: event(r, &contract.ToolValidation{IntentID: lost.ID, OK: true})}

	said := "Let me rewrite it."
	want := []Touch{
		r.touch(refused, refusedEnv, ws, Write, said, refusedOut),
		// rm writes its operands: a Write, as shell.Parse reads it.
		r.touch(denied, deniedEnv, ws, Write, said, deniedOut),
		r.touch(cut, cutEnv, ws, Write, said, cutOut),
		r.touch(rewritten, rewrittenEnv, ws, Command, said, rewrittenOut),
		r.touch(lost, lostEnv, ws, Command, said, lostOut),
	}
	if d := cmp.Diff(want, find(target, r)); d != "" {
		t.Errorf("Touches() mismatch (-want +got):\n%s", d)
	}
}

// Sessions are kept apart: each resolves relative paths against its own
// workspace, the same intent id in two sessions is two touches, and the
// touches come in time order whatever the order the sessions were read in.
func TestSessions(t *testing.T) {
	later := newRecorder("ses_later", ws, t0.Add(time.Hour))
	later.call("Fixing the parser.")
	edit, editEnv := later.propose("int_1", "edit_file", `{"path":"src/parser.ts","old_string":"a","new_string":"b"}`)
	editOut := later.runs(edit, ws)

	earlier := newRecorder("ses_earlier", "/other", t0)
	earlier.call("Comparing.")
	rel, _ := earlier.propose("int_0", "read_file", `{"path":"src/parser.ts"}`)
	earlier.runs(rel, "/other")
	earlier.add(&contract.Unknown{Type: "tool.future", Data: json.RawMessage(`{"intent_id":"int_1"}`)})
	abs, absEnv := earlier.propose("int_1", "read_file", `{"path":"/ws/src/parser.ts"}`)
	absOut := earlier.runs(abs, "/other")

	want := []Touch{
		earlier.touch(abs, absEnv, "/other", Read, "Comparing.", absOut),
		later.touch(edit, editEnv, ws, Write, "Fixing the parser.", editOut),
	}
	if d := cmp.Diff(want, find(target, later, earlier)); d != "" {
		t.Errorf("Touches() mismatch (-want +got):\n%s", d)
	}
}

// Touches may be called while events still come: it judges a bash intent
// not yet started by the session's cwd, and changes nothing.
func TestTouchesMidway(t *testing.T) {
	r := newRecorder("ses_1", ws, t0)
	r.call()
	in, env := r.propose("int_1", "bash", `{"command":"cat parser.ts"}`)
	f := New(target)
	for _, e := range r.out {
		f.Add(e)
	}
	if got := f.Touches(); len(got) != 0 {
		t.Fatalf("Touches() before the start = %d touches, want none (parser.ts in the root is another file)", len(got))
	}
	n := len(r.out)
	out := r.runs(in, "/ws/src")
	for _, e := range r.out[n:] {
		f.Add(e)
	}
	want := []Touch{r.touch(in, env, ws, Command, "", out)}
	if d := cmp.Diff(want, f.Touches()); d != "" {
		t.Errorf("Touches() mismatch (-want +got):\n%s", d)
	}
}

// A log without its session.started still matches absolute paths.
func TestNoSessionStarted(t *testing.T) {
	r := newRecorder("ses_1", ws, t0)
	r.out = r.out[1:]
	r.call()
	rel, _ := r.propose("int_1", "read_file", `{"path":"src/parser.ts"}`)
	r.runs(rel, ws)
	abs, absEnv := r.propose("int_2", "bash", `{"command":"cat /ws/src/parser.ts"}`)
	absOut := r.runs(abs, "")
	want := []Touch{r.touch(abs, absEnv, "", Command, "", absOut)}
	if d := cmp.Diff(want, find(target, r)); d != "" {
		t.Errorf("Touches() mismatch (-want +got):\n%s", d)
	}
}

// A child session's touch is found as its parent's is, in its own log,
// and names the task it worked for.
func TestChildSessionsTouch(t *testing.T) {
	parent := newRecorder("ses_p", ws, t0)
	parent.call("I'll hand the fix to a helper.")
	task, _ := parent.propose("int_task", "task", `{"description":"fix the parser","prompt":"Fix src/parser.ts."}`)
	parent.runs(task, ws)

	ref := &contract.ParentRef{Session: "ses_p", Seq: 8, IntentID: "int_task", Agent: "general", Description: "fix the parser", Depth: 1}
	child := &recorder{session: "ses_c", clock: t0.Add(5 * time.Second)}
	child.add(&contract.SessionStarted{Cwd: ws, Version: "test", Provider: "scripted", Parent: ref})
	child.run = "run_ses_c"
	child.add(&contract.RunStarted{Goal: "Fix src/parser.ts."})
	child.call("Fixing the bound.")
	edit, env := child.propose("int_edit", "edit_file", `{"path":"src/parser.ts","old_string":"<","new_string":"<="}`)
	out := child.runs(edit, ws)

	want := child.touch(edit, env, ws, Write, "Fixing the bound.", out)
	want.Parent = ref
	if d := cmp.Diff([]Touch{want}, find(target, parent, child)); d != "" {
		t.Errorf("Touches() mismatch (-want +got):\n%s", d)
	}
}
