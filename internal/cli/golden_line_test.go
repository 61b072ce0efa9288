package cli

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/permission"
	"github.com/rein-agent/rein/internal/session"
)

// lineScript reads greet.sh, fixes it with an edit and says so; then
// answers a message that begins with a slash; its summary answers a
// compaction.
const lineScript = `{"turns":[
 {"steps":[
  {"text":"Reading greet.sh."},
  {"tool":{"index":0,"id":"call_1","name":"read_file","input":{"path":"greet.sh"}}},
  {"usage":{"input_tokens":900,"output_tokens":20}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"read_file","ok":true,"contains":["$nmae"]}],
  "steps":[
  {"text":"Fixing the typo."},
  {"tool":{"index":0,"id":"call_2","name":"edit_file","input":{"path":"greet.sh","old_string":"$nmae","new_string":"$name"}}},
  {"usage":{"input_tokens":1100,"output_tokens":30}},{"finish":"tool_use"}]},
 {"expect":[{"tool":"edit_file","ok":true}],
  "steps":[{"text":"Fixed: greet.sh echoes $name."},{"usage":{"input_tokens":1200,"output_tokens":10}},{"finish":"stop"}]},
 {"steps":[{"text":"You wrote a path: /etc/hosts."},{"usage":{"input_tokens":1300,"output_tokens":10}},{"finish":"stop"}]},
 {"steps":[{"text":"greet.sh prints a greeting for its first argument."},{"finish":"stop"}]}],
 "summary":{"steps":[{"text":"The person asked to fix greet.sh; its echo used $nmae, now $name."},{"finish":"stop"}]}}`

// lineInput is what the person types: the UI's commands, their own
// command, two messages (one with a leading slash, doubled), a command
// that does not exist, and a new session.
const lineInput = `/help
/status
/mode
/mode sideways
/mode accept-edits
/model
/model other
!echo hi from the person
fix the greeting
//etc/hosts is what
/explain greet.sh
/nosuch thing
/cost
/diff
/compact keep the fix
/clear
/cost
/compact
/exit
never read
`

// The line mode (a pipe, --plain, TERM=dumb) is the same program as the
// UI: its commands are answered by rein through the kernel's facade and
// never sent to the model, //text sends a leading slash, an unknown
// command sends nothing, and its trace names each tool call as the UI
// does.
func TestGoldenLineMode(t *testing.T) {
	files := maps.Clone(greetFiles)
	files[".rein/commands/explain.md"] = "---\ndescription: explain a file in one line\nargument-hint: FILE\n---\nExplain $ARGUMENTS in one line.\n"
	s := newStage(t, scenario{
		name: "line", files: files, stdin: lineInput, mode: permission.Default,
		models: []goldenModel{{"scripted", "scripted-line", lineScript}},
	})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // none of the person's own commands
	t.Chdir(s.ws)
	out := s.rein()
	checkGolden(t, "render/line.piped.golden", out)
	list, _, err := s.store.List(nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions %v, %v; want one: /clear's new session recorded nothing", list, err)
	}
	// What reached the model: the two messages and the person's command,
	// never a command of rein's.
	var sent []string
	var modes []string
	if _, err := s.store.Read(list[0].ID, func(env contract.Envelope) error {
		switch e := env.Data.(type) {
		case *contract.UserMessage:
			sent = append(sent, e.Text)
			if e.Display != "" {
				sent = append(sent, "shown as "+e.Display)
			}
		case *contract.ModeChanged:
			modes = append(modes, e.From+" -> "+e.To)
		case *contract.IntentProposed:
			if e.Origin == contract.OriginUser {
				sent = append(sent, "!"+string(e.Input))
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{`!{"command":"echo hi from the person"}`, "fix the greeting", "/etc/hosts is what",
		"Explain greet.sh in one line.", "shown as /explain greet.sh"}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("what reached the model (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"default -> accept-edits"}, modes); d != "" {
		t.Errorf("mode changes (-want +got):\n%s", d)
	}
	for _, want := range []string{"● read_file greet.sh\n", "● edit_file greet.sh\n", "! echo hi from the person\n",
		"unknown command /nosuch: nothing was sent", "new session"} {
		if !strings.Contains(out, want) {
			t.Errorf("the session does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "never read") {
		t.Errorf("a line after /exit was read:\n%s", out)
	}
	if !slices.ContainsFunc(list, func(sum session.Summary) bool { return sum.FirstPrompt == "fix the greeting" }) {
		t.Errorf("the session's first prompt is not the first message: %+v", list)
	}
}

// Going on with a session in the line mode (resume -i, rein -c) shows
// its earlier conversation first, as the UI does: each message as the
// person saw it when they sent it, a long paste as its placeholder.
func TestGoldenLinePast(t *testing.T) {
	s := newStage(t, scenario{
		name: "past", stdin: "/exit\n", mode: permission.Default,
		models: []goldenModel{{"scripted", "scripted-past", `{"turns":[{"steps":[{"text":"unused"},{"finish":"stop"}]}]}`}},
	})
	pasted := "why does this fail?\n" + strings.Repeat("--- FAIL: TestMean (0.00s)\n", 120)
	intent := contract.ToolIntent{ID: "int_1", ProviderCallID: "call_1", ToolName: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	x, err := s.store.Create(id.New("ses"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range []contract.Event{
		&contract.SessionStarted{Cwd: s.ws, Version: testVersion, Provider: "scripted", Model: "scripted-past"},
		&contract.UserMessage{Text: pasted, Display: "why does this fail?\n[pasted 120 lines]"},
		&contract.RunStarted{Goal: pasted},
		&contract.ModelRequested{Provider: "scripted", Model: "scripted-past", MessageCount: 1},
		&contract.ModelText{Text: "Running the tests."},
		&contract.IntentProposed{ToolIntent: intent},
		&contract.ModelFinished{Reason: contract.FinishToolUse},
		&contract.ToolValidation{IntentID: "int_1", OK: true},
		&contract.ToolPermission{IntentID: "int_1", Decision: contract.Allow, By: "rule", Rule: "bash(go test:*)"},
		&contract.InvocationStarted{IntentID: "int_1", InvocationID: "inv_1", ToolName: "bash", Input: intent.Input, Cwd: s.ws},
		&contract.InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: contract.ExitError, ExitCode: 1, DurationMS: 300, OutputBytes: 27},
		&contract.ToolObservation{Observation: contract.Observation{IntentID: "int_1", ToolName: "bash", Phase: contract.PhaseExecution,
			Text: "--- FAIL: TestMean (0.00s)\nexit code: 1"}},
		&contract.ModelRequested{Provider: "scripted", Model: "scripted-past", MessageCount: 3},
		&contract.ModelText{Text: "Mean divides by len-1."},
		&contract.ModelFinished{Reason: contract.FinishStop},
		&contract.RunFinished{Outcome: contract.OutcomeCompleted},
	} {
		if _, err := x.Log.Append(contract.Envelope{ID: id.New("evt"), Time: epoch.Add(time.Duration(i) * time.Second), Session: x.ID, Run: "run_1", Turn: 1, Data: e}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	out := s.rein("resume", x.ID, "-i")
	checkGolden(t, "render/past.piped.golden", out)
	if !strings.Contains(out, "› why does this fail?\n  [pasted 120 lines]\nRunning the tests.\n● bash go test ./...\n") || strings.Count(out, "--- FAIL") > 1 {
		t.Errorf("the earlier conversation is not shown as it was typed:\n%s", out)
	}
}
