package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/why"
)

// whyTouches is a fixed set of touches of /ws/src/parser.ts: an edit that
// ran, a denied command, a refused write and an interrupted command that
// ran as another command than proposed, in two sessions.
func whyTouches() []why.Touch {
	at := time.Date(2026, 11, 30, 7, 41, 2, 0, time.UTC)
	intent := func(id, tool, input string) contract.ToolIntent {
		return contract.ToolIntent{ID: id, ToolName: tool, Input: json.RawMessage(input)}
	}
	lines := make([]string, 12)
	for i := range lines {
		lines[i] = "line " + string(rune('a'+i))
	}
	edit := intent("int_1", "edit_file", `{"path":"src/parser.ts","old_string":"i < n - 1","new_string":"i < n"}`)
	denied := intent("int_2", "bash", `{"command":"rm src/parser.ts"}`)
	refused := intent("int_3", "write_file", `{"path":"src/parser.ts"}`)
	cut := intent("int_4", "bash", `{"command":"cat src/parser.ts"}`)
	return []why.Touch{
		{
			Session: "ses_A", Cwd: "/ws", Seq: 57, Time: at, Run: "run_A", Turn: 3, Intent: edit, Access: why.Write,
			Said:       "The parser drops the last token; I'll fix the loop bound.",
			Validation: &contract.ToolValidation{IntentID: "int_1", OK: true},
			Permission: &contract.ToolPermission{IntentID: "int_1", Decision: contract.Allow, By: "rule", Rule: "edit_file(src/**)", Reason: "Allow rule matches"},
			Started:    &contract.InvocationStarted{IntentID: "int_1", InvocationID: "inv_1", ToolName: "edit_file", Input: json.RawMessage(`{"path": "src/parser.ts", "old_string": "i < n - 1", "new_string": "i < n"}`), Cwd: "/ws"},
			Completed:  &contract.InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: contract.ExitOK, DurationMS: 12, OutputBytes: 1234},
			Observation: &contract.ToolObservation{Observation: contract.Observation{
				IntentID: "int_1", ToolName: "edit_file", OK: true, Phase: contract.PhaseExecution,
				Text: strings.Join(lines, "\n") + "\n", Truncated: true, ArtifactRef: "artifacts/inv_1.txt",
			}},
		},
		{
			Session: "ses_A", Cwd: "/ws", Seq: 64, Time: at.Add(time.Minute), Run: "run_A", Turn: 4, Intent: denied, Access: why.Command,
			Said:       "Start over:\n\x1b]0;pwned\x07remove it.",
			Validation: &contract.ToolValidation{IntentID: "int_2", OK: true},
			Permission: &contract.ToolPermission{IntentID: "int_2", Decision: contract.Deny, By: "headless", Reason: "no one to approve it"},
			Observation: &contract.ToolObservation{Observation: contract.Observation{
				IntentID: "int_2", ToolName: "bash", Phase: contract.PhasePermission, Code: "denied", Text: "denied: no one to approve it",
			}},
		},
		{
			Session: "ses_A", Cwd: "/ws", Seq: 70, Time: at.Add(2 * time.Minute), Run: "run_A", Turn: 5, Intent: refused, Access: why.Write,
			Validation: &contract.ToolValidation{IntentID: "int_3", Code: "schema_invalid", Errors: []string{`missing property "content"`}},
			Observation: &contract.ToolObservation{Observation: contract.Observation{
				IntentID: "int_3", ToolName: "write_file", Phase: contract.PhaseValidation, Code: "schema_invalid", Text: "refused",
			}},
		},
		{
			Session: "ses_B", Cwd: "/ws", Seq: 9, Time: at.Add(time.Hour), Run: "run_B", Turn: 1, Intent: cut, Access: why.Command,
			Said:       strings.Repeat("é", 300),
			Validation: &contract.ToolValidation{IntentID: "int_4", OK: true},
			Permission: &contract.ToolPermission{IntentID: "int_4", Decision: contract.Allow, By: "user"},
			Started:    &contract.InvocationStarted{IntentID: "int_4", InvocationID: "inv_4", ToolName: "bash", Input: json.RawMessage(`{"command":"cat src/parser.ts && true"}`), Cwd: "/ws"},
			Completed:  &contract.InvocationCompleted{IntentID: "int_4", InvocationID: "inv_4", Exit: contract.ExitInterrupted, DurationMS: 1500},
			Observation: &contract.ToolObservation{Observation: contract.Observation{
				IntentID: "int_4", ToolName: "bash", Phase: contract.PhaseKernel, Code: "interrupted", Text: "the session stopped while it ran",
			}},
		},
	}
}

func TestWriteWhy(t *testing.T) {
	var out bytes.Buffer
	if err := writeWhy(&out, "src/parser.ts", whyTouches(), false); err != nil {
		t.Fatal(err)
	}
	want := `src/parser.ts: 4 intents in 2 sessions

2026-11-30 07:41:02 UTC  write  session ses_A  run run_A  turn 3  (seq 57)
  the model said: "The parser drops the last token; I'll fix the loop bound."
  ● edit_file {"path":"src/parser.ts","old_string":"i < n - 1","new_string":"i < n"}
  allowed by rule edit_file(src/**)
  ran in /ws · exit 0 · 12ms · 1.2 KiB
  │ line a
  │ line b
  │ line c
  │ line d
  │ line e
  │ line f
  │ line g
  │ line h
  │ line i
  │ line j
  │ line k
  │ line l
  full output: artifacts/inv_1.txt

2026-11-30 07:42:02 UTC  command  session ses_A  run run_A  turn 4  (seq 64)
  the model said: "Start over:
    \x1b]0;pwned\x07remove it."
  ● bash {"command":"rm src/parser.ts"}
  ✗ deny by headless: no one to approve it

2026-11-30 07:43:02 UTC  write  session ses_A  run run_A  turn 5  (seq 70)
  (the model said nothing before it)
  ● write_file {"path":"src/parser.ts"}
  ✗ refused (schema_invalid): missing property "content"

2026-11-30 08:41:02 UTC  command  session ses_B  run run_B  turn 1  (seq 9)
  the model said: "` + strings.Repeat("é", 250) + `…"
  ● bash {"command":"cat src/parser.ts"}
  allowed by user
  ran: {"command":"cat src/parser.ts && true"} in /ws · interrupted, exit 0 · 1.5s · 0 B
  the session stopped while it ran
`
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("writeWhy() mismatch (-want +got):\n%s", d)
	}
}

func TestWriteWhyNothing(t *testing.T) {
	var out bytes.Buffer
	if err := writeWhy(&out, "src/\x1b[2Jparser.ts", nil, true); err != nil {
		t.Fatal(err)
	}
	if want := "src/\\x1b[2Jparser.ts: no recorded intent read or changed it\n"; out.String() != want {
		t.Errorf("writeWhy(no touches) = %q, want %q", out.String(), want)
	}
}

// With colour, the styles are the only escape sequences: the model's own
// stay escaped.
func TestWriteWhyColor(t *testing.T) {
	var plain, color bytes.Buffer
	touches := whyTouches()
	if err := writeWhy(&plain, "src/parser.ts", touches, false); err != nil {
		t.Fatal(err)
	}
	if err := writeWhy(&color, "src/parser.ts", touches, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("plain output holds an escape sequence:\n%q", plain.String())
	}
	for _, s := range []string{"\x1b[1m● edit_file\x1b[0m", "\x1b[31m  ✗ deny by headless", "\x1b[2m  the model said:"} {
		if !strings.Contains(color.String(), s) {
			t.Errorf("coloured output lacks %q:\n%s", s, color.String())
		}
	}
	stripped := color.String()
	for _, code := range []string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m"} {
		stripped = strings.ReplaceAll(stripped, code, "")
	}
	if d := cmp.Diff(plain.String(), stripped); d != "" {
		t.Errorf("coloured output without its styles differs from the plain one (-plain +coloured):\n%s", d)
	}
}

func TestWriteWhyJSON(t *testing.T) {
	var out bytes.Buffer
	if err := writeWhyJSON(&out, whyTouches()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"session":"ses_A","seq":57,"time":"2026-11-30T07:41:02Z","run":"run_A","turn":3,"intent_id":"int_1","tool_name":"edit_file",` +
			`"input":{"path":"src/parser.ts","old_string":"i < n - 1","new_string":"i < n"},"access":"write",` +
			`"said":"The parser drops the last token; I'll fix the loop bound.","validation":{"ok":true},` +
			`"permission":{"decision":"allow","by":"rule","rule":"edit_file(src/**)","reason":"Allow rule matches"},` +
			`"effective_input":{"path":"src/parser.ts","old_string":"i < n - 1","new_string":"i < n"},"cwd":"/ws",` +
			`"exit":"ok","exit_code":0,"duration_ms":12,` +
			`"observation":{"ok":true,"text":"line a\nline b\nline c\nline d\nline e\nline f\nline g\nline h\nline i\nline j\nline k\nline l\n","truncated":true,"artifact_ref":"artifacts/inv_1.txt"}}`,
		`{"session":"ses_A","seq":64,"time":"2026-11-30T07:42:02Z","run":"run_A","turn":4,"intent_id":"int_2","tool_name":"bash",` +
			`"input":{"command":"rm src/parser.ts"},"access":"command","said":"Start over:\n\u001b]0;pwned\u0007remove it.",` +
			`"validation":{"ok":true},"permission":{"decision":"deny","by":"headless","reason":"no one to approve it"},"cwd":"/ws",` +
			`"observation":{"ok":false,"code":"denied","text":"denied: no one to approve it","truncated":false}}`,
		`{"session":"ses_A","seq":70,"time":"2026-11-30T07:43:02Z","run":"run_A","turn":5,"intent_id":"int_3","tool_name":"write_file",` +
			`"input":{"path":"src/parser.ts"},"access":"write","validation":{"ok":false,"code":"schema_invalid","errors":["missing property \"content\""]},"cwd":"/ws",` +
			`"observation":{"ok":false,"code":"schema_invalid","text":"refused","truncated":false}}`,
		`{"session":"ses_B","seq":9,"time":"2026-11-30T08:41:02Z","run":"run_B","turn":1,"intent_id":"int_4","tool_name":"bash",` +
			`"input":{"command":"cat src/parser.ts"},"access":"command","said":"` + strings.Repeat("é", 300) + `",` +
			`"validation":{"ok":true},"permission":{"decision":"allow","by":"user"},` +
			`"effective_input":{"command":"cat src/parser.ts && true"},"cwd":"/ws","exit":"interrupted","exit_code":0,"duration_ms":1500,` +
			`"observation":{"ok":false,"code":"interrupted","text":"the session stopped while it ran","truncated":false}}`,
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("writeWhyJSON() mismatch (-want +got):\n%s", d)
	}
	for _, l := range got {
		if !json.Valid([]byte(l)) {
			t.Errorf("not a JSON line: %s", l)
		}
	}
}

// No touch is no line at all.
func TestWriteWhyJSONNothing(t *testing.T) {
	var out bytes.Buffer
	if err := writeWhyJSON(&out, nil); err != nil || out.Len() != 0 {
		t.Errorf("writeWhyJSON(nil) = %q, %v; want nothing", out.String(), err)
	}
}
