package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/session"
)

// greetFiles are a workspace whose test fails: greet.sh misspells a
// variable.
var greetFiles = map[string]string{
	"greet.sh": "#!/bin/sh\n# greet prints a greeting for its first argument.\nname=$1\necho \"Hello, $nmae!\"\n",
	"test.sh": "#!/bin/sh\ngot=$(sh greet.sh World)\nif [ \"$got\" != \"Hello, World!\" ]; then\n" +
		"  echo \"FAIL: greet.sh World printed \\\"$got\\\", want \\\"Hello, World!\\\"\"\n  exit 1\nfi\n" +
		"echo \"ok: greet.sh World printed \\\"$got\\\"\"\n",
}

// fixScript runs the failing test, reads the script, fixes it with an
// edit, and runs the test again; each turn checks the real observation.
const fixScript = `{"turns":[
 {"steps":[
  {"reasoning":"The user wants the failing test fixed. "},{"reasoning":"First see what fails."},
  {"text":"I'll run the test "},{"text":"to see what fails."},
  {"tool":{"index":0,"id":"call_1","name":"bash","args":"{\"command\":"}},{"tool":{"index":0,"args":"\"sh test.sh\"}"}},
  {"tool_end":{"index":0}},{"usage":{"input_tokens":812,"output_tokens":41}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":false,"contains":["FAIL: greet.sh World printed \"Hello, !\""]}],
  "steps":[
  {"text":"The greeting lacks the name. Let me read greet.sh."},
  {"tool":{"index":0,"id":"call_2","name":"read_file","input":{"path":"greet.sh"}}},
  {"usage":{"input_tokens":1020,"output_tokens":30,"cache_read_tokens":800}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"read_file","ok":true,"contains":["$nmae"]}],
  "steps":[
  {"reasoning":"echo uses $nmae, a typo for $name."},
  {"text":"The echo line uses ` + "`$nmae`" + `, a typo for ` + "`$name`" + `. Fixing it."},
  {"tool":{"index":0,"id":"call_3","name":"edit_file","input":{"path":"greet.sh","old_string":"$nmae","new_string":"$name"}}},
  {"usage":{"input_tokens":1240,"output_tokens":52,"cache_read_tokens":1000}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"edit_file","ok":true,"contains":["+echo \"Hello, $name!\""]}],
  "steps":[
  {"text":"Running the test again."},
  {"tool":{"index":0,"id":"call_4","name":"bash","input":{"command":"sh test.sh"}}},
  {"usage":{"input_tokens":1400,"output_tokens":20,"cache_read_tokens":1200}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":true,"contains":["ok: greet.sh World printed"]}],
  "steps":[
  {"text":"The test passes now.\n\n"},
  {"text":"**What was wrong:** greet.sh echoed ` + "`$nmae`" + `, which is unset.\n"},
  {"text":"**What I changed:** it echoes ` + "`$name`" + ` (one line)."},
  {"usage":{"input_tokens":1500,"output_tokens":48,"cache_read_tokens":1400}},{"finish":"stop"}]}]}`

// denyScript tries a command a deny rule forbids, then an edit that the
// default mode would ask about, in a headless run.
const denyScript = `{"turns":[
 {"steps":[
  {"text":"I'll clear the build directory first."},
  {"tool":{"index":0,"id":"call_1","name":"bash","input":{"command":"rm -rf build","description":"Remove the build output"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":false}],
  "steps":[
  {"text":"That is not allowed. I'll write a note instead."},
  {"tool":{"index":0,"id":"call_2","name":"write_file","input":{"path":"NOTES.md","content":"Clear build/ by hand.\n"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"write_file","ok":false}],
  "steps":[
  {"text":"I could not change anything: removing build/ is denied, and writing NOTES.md needs your approval."},
  {"finish":"stop"}]}]}`

// flakyScript is a primary model that is rate limited, then breaks off
// mid-answer overloaded, then is overloaded again: the run falls back.
const flakyScript = `{"turns":[
 {"fail":[
   {"kind":"rate_limit","http_status":429,"message":"rate limit reached for requests","retry_after_ms":1500},
   {"kind":"overloaded","http_status":529,"message":"overloaded","retry_after_ms":2000,"steps":[{"text":"The build fails because the"}]},
   {"kind":"overloaded","http_status":529,"message":"overloaded"}],
  "steps":[{"text":"never played"},{"finish":"stop"}]}]}`

// backupScript is the fallback model: it reads the log and answers.
const backupScript = `{"turns":[
 {"steps":[
  {"text":"Let me read the build log."},
  {"tool":{"index":0,"id":"call_1","name":"read_file","input":{"path":"build.log"}}},
  {"usage":{"input_tokens":300,"output_tokens":22}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"read_file","ok":true,"contains":["undefined: Sum"]}],
  "steps":[
  {"text":"The build fails because ` + "`Sum`" + ` is undefined in main.go, line 12."},
  {"usage":{"input_tokens":380,"output_tokens":25}},{"finish":"stop"}]}]}`

// longScript prints more than an observation holds.
const longScript = `{"turns":[
 {"steps":[
  {"text":"Printing the numbers."},
  {"tool":{"index":0,"id":"call_1","name":"bash","input":{"command":"seq 1 30000"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":true,"contains":["1\n2\n3\n","29999\n30000","artifact"]}],
  "steps":[
  {"text":"It printed 30000 lines; the whole output is kept in the session's artifact."},
  {"finish":"stop"}]}]}`

// resumeScript runs a command, and then, resumed after rein stopped
// inside it, is told it was interrupted.
const resumeScript = `{"turns":[
 {"steps":[
  {"text":"Running the migration."},
  {"tool":{"index":0,"id":"call_1","name":"bash","input":{"command":"echo migrated >> marks.txt"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":false,"contains":["was not run again"]}],
  "steps":[
  {"text":"The migration was interrupted and is not run again; check marks.txt before you rerun it."},
  {"finish":"stop"}]}]}`

// todoScript keeps a task list while it runs a test: the list is shown
// when it changes, and not again when the model writes it unchanged.
const todoScript = `{"turns":[
 {"steps":[
  {"text":"Two steps; I'll keep a list."},
  {"tool":{"index":0,"id":"call_1","name":"todo_write","input":{"todos":[{"content":"Run the test","status":"in_progress","activeForm":"Running the test"},{"content":"Report the result","status":"pending"}]}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"todo_write","ok":true,"contains":["0 of 2 done; in progress: Run the test"]}],
  "steps":[
  {"tool":{"index":0,"id":"call_2","name":"bash","input":{"command":"sh test.sh"}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"bash","ok":true,"contains":["ok"]}],
  "steps":[
  {"tool":{"index":0,"id":"call_3","name":"todo_write","input":{"todos":[{"content":"Run the test","status":"completed"},{"content":"Report the result","status":"in_progress"}]}}},
  {"tool":{"index":1,"id":"call_4","name":"todo_write","input":{"todos":[{"content":"Run the test","status":"completed"},{"content":"Report the result","status":"in_progress"}]}}},
  {"finish":"tool_use"}]},
 {"expect":[{"tool":"todo_write","ok":true,"contains":["1 of 2 done"]},{"tool":"todo_write","ok":true,"contains":["1 of 2 done"]}],
  "steps":[
  {"tool":{"index":0,"id":"call_5","name":"todo_write","input":{"todos":[{"content":"Run the test","status":"completed"},{"content":"Report the result","status":"completed"}]}}},
  {"finish":"tool_use"}]},
 {"steps":[
  {"text":"The test passes."},
  {"finish":"stop"}]}]}`

var scenarios = []scenario{
	{
		name: "fix", files: greetFiles, prompt: "fix the failing test",
		models: []goldenModel{{"scripted", "scripted-fix", fixScript}},
		mode:   permission.AcceptEdits, allow: []string{"bash(sh test.sh)"},
	},
	{
		name: "denial", files: map[string]string{"build/out.bin": "x"}, prompt: "clean up the build",
		models: []goldenModel{{"scripted", "scripted-deny", denyScript}},
		mode:   permission.Default, deny: []string{"bash(rm:*)"},
	},
	{
		name: "fallback", files: map[string]string{"build.log": "# example\n./main.go:12:9: undefined: Sum\n"},
		prompt: "why does the build fail?", attempts: 3,
		models: []goldenModel{{"scripted", "primary", flakyScript}, {"backup", "backup-large", backupScript}},
		mode:   permission.Default,
	},
	{
		name: "todos", files: map[string]string{"test.sh": "echo ok\n"}, prompt: "run the test and tell me",
		models: []goldenModel{{"scripted", "scripted-todos", todoScript}},
		mode:   permission.Default, allow: []string{"bash(sh test.sh)"},
	},
	{
		name: "long-output", prompt: "print the numbers to 30000",
		models: []goldenModel{{"scripted", "scripted-long", longScript}},
		mode:   permission.Yolo,
	},
}

// Each golden session runs headless (rein exec), then is shown three
// ways: on a terminal, piped, and by rein replay from its log.
func TestGoldenSessions(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			s := newStage(t, sc)
			piped := s.rein("exec", sc.prompt)
			checkGolden(t, "render/"+sc.name+".tty.golden", s.screen())
			checkGolden(t, "render/"+sc.name+".redirected.golden", s.redirected())
			checkGolden(t, "render/"+sc.name+".piped.golden", piped)
			checkGolden(t, "replay/"+sc.name+".golden", s.rein("replay", s.sessionID()))
		})
	}
}

// A session cut between a tool's start and its end, as rein killed
// inside the tool leaves it, is resumed: the tool is recorded as
// interrupted, never run again, and the model is told.
func TestGoldenInterruptedTool(t *testing.T) {
	s := newStage(t, scenario{
		name: "interrupted", prompt: "run the migration",
		models: []goldenModel{{"scripted", "scripted-resume", resumeScript}},
		mode:   permission.Yolo,
	})
	s.rein("exec", "run the migration")
	sid := s.sessionID()
	cutAfter(t, s.store.LogPath(sid), contract.TypeInvocationStarted)
	s.envs = nil
	piped := s.rein("resume", sid)
	checkGolden(t, "render/interrupted.tty.golden", s.screen())
	checkGolden(t, "render/interrupted.redirected.golden", s.redirected())
	checkGolden(t, "render/interrupted.piped.golden", piped)
	checkGolden(t, "replay/interrupted.golden", s.rein("replay", sid))
}

// cutAfter truncates the log at path after the first event of type typ,
// as a crash right after it would leave it.
func cutAfter(t *testing.T, path, typ string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(`"type":"`+typ+`"`))
	if at < 0 {
		t.Fatalf("%s holds no %s", path, typ)
	}
	end := bytes.IndexByte(b[at:], '\n')
	if end < 0 {
		t.Fatalf("%s: the %s line does not end", path, typ)
	}
	if err := os.WriteFile(path, b[:at+end+1], 0o600); err != nil {
		t.Fatal(err)
	}
}

// A fork's replay tells its own time from its parent's: the header says
// which events were copied from the parent (with the parent's times),
// the fork's events are timed from when it was made, and its totals are
// its own, the copied ones apart.
func TestGoldenForkReplay(t *testing.T) {
	s := newStage(t, scenarios[0]) // fix
	s.rein("exec", "fix the failing test")
	parent := s.sessionID()
	var at uint64
	if _, err := s.store.Read(parent, func(env contract.Envelope) error {
		if _, ok := env.Data.(*contract.ToolObservation); ok && at == 0 {
			at = env.Seq
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.clock.advance(time.Hour) // the fork is made an hour later
	s.rein("fork", parent, "--at", fmt.Sprint(at))
	list, _, err := s.store.List(func(sum *session.Summary) bool { return sum.ID != parent })
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v; want the fork", list, err)
	}
	fork := list[0].ID
	// The fork goes another way from the same start: the file as it was.
	if err := os.WriteFile(filepath.Join(s.ws, "greet.sh"), []byte(greetFiles["greet.sh"]), 0o644); err != nil {
		t.Fatal(err)
	}
	s.rein("resume", fork) // finishes the run the fork's copy left unfinished
	out := s.rein("replay", fork)
	checkGolden(t, "replay/fork.golden", out)
	for _, want := range []string{" at seq " + fmt.Sprint(at) + " on 2026-03-14 10:26:", "— this fork, since it was made: 0 run(s) · 4 model call(s) · 3 tool call(s), 0 failed or refused",
		"copied from its parent: 1 run(s) · 1 model call(s) · 1 tool call(s), 1 failed or refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("the fork's replay lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "1h0m") {
		t.Errorf("the fork's replay counts the hour before it was made as its own:\n%s", out)
	}
}
