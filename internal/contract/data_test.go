package contract

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fastTypes are the event types whose data scanData reads: those that make
// up almost every log.
var fastTypes = []string{
	TypeUserMessage, TypeRunStarted, TypeRunFinished, TypeModelRequested, TypeModelStarted,
	TypeModelText, TypeModelReasoning, TypeIntentProposed, TypeModelUsage, TypeModelFinished,
	TypeToolValidation, TypeToolPermission, TypeInvocationStarted, TypeInvocationCompleted,
	TypeToolObservation,
}

// scanBoth decodes data as an event of type typ with scanData and with
// json.Unmarshal. Whenever scanData takes it, json.Unmarshal must accept
// it too and give exactly the same event, raw bytes included. It reports
// whether scanData took it.
func scanBoth(t *testing.T, typ string, data []byte) bool {
	t.Helper()
	fast := newEvent(typ)
	f, ok := fast.(fielder)
	if !ok {
		t.Fatalf("%s has no fast path", typ)
	}
	if !scanData(nil, f, data) {
		return false
	}
	slow := newEvent(typ)
	if err := json.Unmarshal(data, slow); err != nil {
		t.Fatalf("scanData took %s data %q, which encoding/json refuses: %v", typ, data, err)
	}
	if d := cmp.Diff(slow, fast, sameDecoding); d != "" {
		t.Fatalf("scanData(%s, %q) mismatch (-json +fast):\n%s", typ, data, d)
	}
	return true
}

// TestFieldTablesMatchTags checks every table of the fast path against the
// struct it reads: one entry for each JSON key, with the key of the
// field's tag and a pointer to that very field, nested structs included.
func TestFieldTablesMatchTags(t *testing.T) {
	for _, typ := range fastTypes {
		t.Run(typ, func(t *testing.T) {
			ev := newEvent(typ)
			f, ok := ev.(fielder)
			if !ok {
				t.Fatalf("%T is not a fielder", ev)
			}
			checkTable(t, f, reflect.ValueOf(ev).Elem())
		})
	}
}

// checkTable checks the table of f against v, the struct f points to.
func checkTable(t *testing.T, f fielder, v reflect.Value) {
	t.Helper()
	want := map[string]reflect.Value{}
	jsonFields(v, want)
	table := f.fields()
	for _, fl := range table {
		if fl.name == "" {
			continue
		}
		fv, ok := want[fl.name]
		if !ok {
			t.Errorf("%s: key %q is no field's, or is listed twice", v.Type(), fl.name)
			continue
		}
		delete(want, fl.name)
		if reflect.ValueOf(fl.to).Pointer() != fv.Addr().Pointer() {
			t.Errorf("%s: key %q points elsewhere than its field", v.Type(), fl.name)
		}
		if nested, ok := fl.to.(fielder); ok {
			checkTable(t, nested, fv)
		}
		if opt, ok := fl.to.(**SandboxSpec); ok {
			// The table of the object, against a fresh one.
			*opt = new(SandboxSpec)
			checkTable(t, *opt, fv.Elem())
			*opt = nil
		}
		if list, ok := fl.to.(*[]FileStamp); ok {
			// The table of an element, against a fresh element.
			*list = make([]FileStamp, 1)
			checkTable(t, &(*list)[0], fv.Index(0))
			*list = nil
		}
	}
	for name := range want {
		t.Errorf("%s: key %q is missing from the table", v.Type(), name)
	}
}

// jsonFields adds the fields of struct v to m by JSON key, those of its
// embedded structs included.
func jsonFields(v reflect.Value, m map[string]reflect.Value) {
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		if sf.Anonymous {
			jsonFields(v.Field(i), m)
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		m[name] = v.Field(i)
	}
}

// writtenEvents returns realistic events of every fast type, as the
// kernel and the tools make them: text with newlines, tabs, quotes,
// backslashes, shell operators, terminal colours, line separators, text
// that is not ASCII or not even UTF-8, lists empty and nil, raw input
// with nested objects, a negative exit code.
func writtenEvents() []Event {
	output := "--- FAIL: TestMean (0.00s)\n\tstats_test.go:15: got \"+Inf\", want 4\n" +
		"\x1b[31mFAIL\x1b[0m\tC:\\work\\stats\t0.005s\r\nhé 帮我 🙂 \u2028 \xff end"
	input := json.RawMessage(`{"command":"go test ./... && echo \"ok\"","env":{"A":["1",2,null,true]},"timeout_ms":1000}`)
	events := []Event{
		&UserMessage{Text: "帮我看看这个项目为什么测试失败，并把它修好。\n\nRun `go test ./...` & fix <it>."},
		&UserMessage{Text: "why does this fail?\n--- FAIL: TestMean\n\tstats_test.go:15\n", Display: "why does this fail?\n[pasted 120 lines]"},
		&RunStarted{Goal: "fix the \"stats\" tests"},
		&RunFinished{Outcome: OutcomeCompleted},
		&ModelRequested{Provider: "openai", Model: "gpt-4.1", MessageCount: 1, ToolNames: []string{"read_file", "bash"}},
		&ModelRequested{Provider: "ollama", ToolNames: []string{}},
		&ModelRequested{Provider: "ollama", ToolNames: nil},
		&ModelRequested{Provider: "p", ToolNames: []string{"a\"b", "é", ""}},
		&ModelStarted{Provider: "anthropic", Model: "claude", RequestID: "req_011CZ"},
		&ModelText{Text: "I'll run the tests:\n```sh\ngo test ./...\n```\n"},
		&ModelReasoning{Text: "The user wants… \"Mean\" divides by n-1?\tCheck."},
		&IntentProposed{ToolIntent: ToolIntent{
			ID: "int_1", ProviderCallID: "call_1", ToolName: "bash", Input: input,
			RawInput: `{"command": "go test ./... && echo \"ok\""}`,
			Provider: ProviderRef{Name: "openai", Model: "gpt-4.1"}, AssembledFrom: Assembly{Fragments: 3, LastIndex: 2},
		}},
		&IntentProposed{ToolIntent: ToolIntent{ID: "int_2", ToolName: "read_file", Input: json.RawMessage(`{}`)}},
		&ModelUsage{InputTokens: 1180, OutputTokens: 61, CacheReadTokens: 1024},
		&ModelUsage{InputTokens: 1180, OutputTokens: 61, CacheReadTokens: 1024, CostUSD: new(0.001234)},
		&ModelUsage{InputTokens: 10, CostUSD: new(0.0)},
		&RunFinished{Outcome: OutcomeBudget, Reason: "over", Usage: &Totals{InputTokens: 5, Calls: 2, CostUSD: 1.5e-7, Unpriced: 1}},
		&ModelRequested{Provider: "anthropic", MessageCount: 3, ToolNames: []string{}, EstimatedInputTokens: 900, InputBytes: 3600,
			Purpose: PurposeCompaction, ReasoningEffort: "high"},
		&ModelFinished{Reason: FinishToolUse, ProviderState: json.RawMessage(`{"thought_signature":"abc","parts":[{"n":1.5e3}]}`)},
		&ModelFinished{Reason: FinishStop},
		&ToolValidation{IntentID: "int_1", OK: true},
		&ToolValidation{IntentID: "int_1", Code: "schema_invalid", Errors: []string{`command: "rm -rf" is not allowed`, "path: required"}},
		&ToolPermission{IntentID: "int_1", Decision: Allow, By: "rule", Rule: "bash(go test:*)", Reason: "Allow rule `bash(go test:*)`."},
		&ToolPermission{IntentID: "int_1", Decision: Deny, By: "user", Reason: "The user said no.", Message: "use the \"testutil\" helper\nand run it twice"},
		&InvocationStarted{IntentID: "int_1", InvocationID: "inv_1", ToolName: "bash", Input: input, Cwd: "/work/проект", TimeoutMS: 120000},
		&InvocationStarted{IntentID: "int_2", InvocationID: "inv_2", ToolName: "bash", Input: input, Cwd: "/w", TimeoutMS: 1000,
			Sandbox: &SandboxSpec{Mode: "read-only", Writable: []string{"/tmp/rein-ses_1"}, DenyRead: []string{}}},
		&InvocationStarted{IntentID: "int_3", InvocationID: "inv_3", ToolName: "bash", Input: input, Cwd: "/w", Sandbox: &SandboxSpec{Mode: "off"}},
		&InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: ExitError, ExitCode: 1, DurationMS: 503, OutputBytes: 201},
		&InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: ExitTimeout, ExitCode: -1, DurationMS: 120000},
		&ToolObservation{Observation: Observation{IntentID: "int_1", ToolName: "bash", Phase: PhaseExecution, Code: "tool_error", Text: output, Untrusted: true}},
		&ToolObservation{Observation: Observation{IntentID: "int_1", OK: true, Phase: PhaseExecution, Text: output, Truncated: true, OmittedBytes: 90210, ArtifactRef: "artifacts/inv_1.txt"}},
		&ToolObservation{Observation: Observation{IntentID: "int_2", ToolName: "edit_file", OK: true, Phase: PhaseExecution,
			Text: "edited calc.go: 1 replacement\n--- a/calc.go\n+++ b/calc.go\n", Untrusted: true, Files: []FileStamp{{
				Path: "/work/проект/calc.go", Size: 74, ModTime: time.Date(2026, 11, 30, 5, 1, 2, 345678901, time.UTC),
				SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Op: FileWrite,
			}}}},
		&ToolObservation{Observation: Observation{IntentID: "int_3", ToolName: "read_file", Phase: PhaseExecution, Text: "x", Files: []FileStamp{
			{Path: "/w/a b.go", ModTime: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 3600)), Op: FileRead},
			{Path: "/w/empty", Op: FileRead},
		}}},
	}
	for _, ev := range samples() {
		if _, ok := ev.(fielder); ok {
			events = append(events, ev)
		}
	}
	return events
}

// TestFastPathTakesWrittenData checks that the data of every event as
// MarshalJSON writes it takes the fast path, whole lines included, and
// that every fast type is among them.
func TestFastPathTakesWrittenData(t *testing.T) {
	seen := map[string]bool{}
	for i, ev := range writtenEvents() {
		t.Run(fmt.Sprint(i, ev.EventType()), func(t *testing.T) {
			seen[ev.EventType()] = true
			line, err := Envelope{Seq: 1, ID: "evt_1", Session: "ses_1", Data: ev}.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			_, typ, data, ok := scanEnvelope(nil, line)
			if !ok || string(typ) != ev.EventType() {
				t.Fatalf("scanEnvelope(%s) = %q, %v", line, typ, ok)
			}
			if !scanBoth(t, ev.EventType(), data) {
				t.Errorf("scanData(%s) fell back to encoding/json", data)
			}
			decodeBoth(t, line)
		})
	}
	for _, typ := range fastTypes {
		if !seen[typ] {
			t.Errorf("no written event of type %s", typ)
		}
	}
}

// TestScanDataTakes checks data that is not as MarshalJSON writes it but
// plain enough for the fast path.
func TestScanDataTakes(t *testing.T) {
	tests := []struct{ name, typ, data string }{
		{"empty object", TypeModelRequested, `{}`},
		{"whitespace", TypeModelRequested, " {\n\t\"provider\" : \"p\" ,\r\"tool_names\" : [ \"a\" , \"b\" ] , \"message_count\" : 0 } \n"},
		{"keys in another order", TypeRunFinished, `{"reason":"r","outcome":"failed"}`},
		{"null list", TypeToolValidation, `{"errors":null}`},
		{"empty list", TypeToolValidation, `{"errors":[ ]}`},
		{"escaped list", TypeToolValidation, `{"errors":["a","\"b\"","\u00e9"]}`},
		{"escapes", TypeModelText, `{"text":"\"\\\/\b\f\n\r\t\u0000\u001b\u00e9\u20AC\uffff"}`},
		{"surrogate pair", TypeModelText, `{"text":"\ud83d\ude00"}`},
		{"lone surrogate", TypeModelText, `{"text":"a\ud83d b"}`},
		{"invalid UTF-8", TypeModelText, "{\"text\":\"a\xffb\"}"},
		{"invalid UTF-8 with an escape", TypeModelText, "{\"text\":\"a\xff\\nb\"}"},
		{"negative integers", TypeModelUsage, `{"input_tokens":-9223372036854775808,"output_tokens":-0}`},
		{"largest integer", TypeModelUsage, `{"input_tokens":9223372036854775807}`},
		{"raw null", TypeModelFinished, `{"provider_state":null}`},
		{"raw string", TypeModelFinished, `{"provider_state":"a\"}b"}`},
		{"raw number", TypeModelFinished, `{"provider_state":-1.5e+3 }`},
		{"raw array", TypeModelFinished, `{"provider_state":[{"a":[]},"]"]}`},
		{"raw object with space", TypeInvocationStarted, `{"input": { "a" : [ 1 , {"b":"}"} ] } ,"cwd":"/"}`},
		{"empty nested objects", TypeIntentProposed, `{"provider":{},"assembled_from":{}}`},
		{"bools", TypeToolObservation, `{"ok":true,"truncated":false,"untrusted":true}`},
		{"null files", TypeToolObservation, `{"files":null}`},
		{"empty files", TypeToolObservation, `{"files":[ ]}`},
		{"empty stamp", TypeToolObservation, `{"files":[{}]}`},
		{"stamps with space", TypeToolObservation, `{"files": [ {"op":"read" , "path":"/a"} , { "size" : 3 , "mtime" : "2026-11-30T05:01:02.5+01:00" } ] }`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !scanBoth(t, tc.typ, []byte(tc.data)) {
				t.Errorf("scanData(%s, %s) fell back to encoding/json", tc.typ, tc.data)
			}
		})
	}
}

// TestScanDataFallsBack checks that scanData leaves what is unusual to
// encoding/json, and that decodeData then gives what encoding/json gives,
// errors included.
func TestScanDataFallsBack(t *testing.T) {
	tests := []struct{ name, typ, data string }{
		{"unknown key", TypeUserMessage, `{"text":"a","extra":1}`},
		{"key in another case", TypeUserMessage, `{"Text":"a"}`},
		{"escaped key", TypeUserMessage, `{"t\u0065xt":"a"}`},
		{"duplicate key", TypeUserMessage, `{"text":"a","text":"b"}`},
		{"duplicate nested key", TypeIntentProposed, `{"provider":{"name":"a","name":"b"}}`},
		{"unknown nested key", TypeIntentProposed, `{"provider":{"vendor":"a"}}`},
		{"null string", TypeUserMessage, `{"text":null}`},
		{"null integer", TypeModelUsage, `{"input_tokens":null}`},
		{"null bool", TypeToolValidation, `{"ok":null}`},
		{"null nested object", TypeIntentProposed, `{"provider":null}`},
		{"null in a list", TypeToolValidation, `{"errors":["a",null]}`},
		{"float", TypeModelUsage, `{"input_tokens":1.0}`},
		{"exponent", TypeModelUsage, `{"input_tokens":1e3}`},
		{"plus sign", TypeModelUsage, `{"input_tokens":+1}`},
		{"space after a minus", TypeModelUsage, `{"input_tokens":- 1}`},
		{"leading zero", TypeModelUsage, `{"input_tokens":01}`},
		{"integer out of range", TypeModelUsage, `{"input_tokens":9223372036854775808}`},
		{"negative out of range", TypeModelUsage, `{"input_tokens":-9223372036854775809}`},
		{"string for an integer", TypeModelUsage, `{"input_tokens":"1"}`},
		{"integer for a string", TypeUserMessage, `{"text":1}`},
		{"bool for a string", TypeUserMessage, `{"text":true}`},
		{"object for a string", TypeUserMessage, `{"text":{"a":1}}`},
		{"string for a list", TypeToolValidation, `{"errors":"a"}`},
		{"number in a list", TypeToolValidation, `{"errors":[1]}`},
		{"truncated list", TypeToolValidation, `{"errors":["a",]}`},
		{"invalid raw", TypeInvocationStarted, `{"input":{"a":}}`},
		{"raw with trailing bytes", TypeInvocationStarted, `{"input":{}x}`},
		{"raw torn", TypeInvocationStarted, `{"input":{"a":"}`},
		{"control character", TypeUserMessage, "{\"text\":\"a\tb\"}"},
		{"bad escape", TypeUserMessage, `{"text":"a\x"}`},
		{"short unicode escape", TypeUserMessage, `{"text":"\u12"}`},
		{"trailing comma", TypeUserMessage, `{"text":"a",}`},
		{"trailing bytes", TypeUserMessage, `{"text":"a"} x`},
		{"two objects", TypeUserMessage, `{"text":"a"}{"text":"b"}`},
		{"not an object", TypeUserMessage, `["a"]`},
		{"truncated", TypeUserMessage, `{"text":"a"`},
		{"word prefix", TypeToolValidation, `{"ok":truex}`},
		{"null stamp", TypeToolObservation, `{"files":[null]}`},
		{"duplicate stamp key", TypeToolObservation, `{"files":[{"path":"/a","path":"/b"}]}`},
		{"unknown stamp key", TypeToolObservation, `{"files":[{"path":"/a","mode":420}]}`},
		{"object for files", TypeToolObservation, `{"files":{"path":"/a"}}`},
		{"null mtime", TypeToolObservation, `{"files":[{"mtime":null}]}`},
		{"mtime not RFC 3339", TypeToolObservation, `{"files":[{"mtime":"2026-11-30 05:01:02Z"}]}`},
		{"mtime hour out of range", TypeToolObservation, `{"files":[{"mtime":"2026-11-30T25:01:02Z"}]}`},
		{"mtime escaped", TypeToolObservation, `{"files":[{"mtime":"2026-11-30T05:01:02\u005a"}]}`},
		{"mtime number", TypeToolObservation, `{"files":[{"mtime":1764478862}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if scanBoth(t, tc.typ, []byte(tc.data)) {
				t.Errorf("scanData(%s, %s) took data it must leave to encoding/json", tc.typ, tc.data)
			}
			want := newEvent(tc.typ)
			wantErr := json.Unmarshal([]byte(tc.data), want)
			got := decodeData(nil, newEvent(tc.typ), []byte(tc.data))
			switch {
			case (got == nil) != (wantErr != nil):
				t.Errorf("decodeData() = %v, json.Unmarshal error %v", got, wantErr)
			case got != nil:
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("decodeData() mismatch (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestDecodeDataAfterGivingUp checks that data the fast path reads in part
// before giving up decodes into a fresh event: json.Unmarshal would keep
// what scanData had set for keys that the data has not.
func TestDecodeDataAfterGivingUp(t *testing.T) {
	data := []byte(`{"intent_id":"int_1","ok":true,"Code":"c"}`)
	got := decodeData(nil, newEvent(TypeToolValidation), data)
	want := &ToolValidation{IntentID: "int_1", OK: true, Code: "c"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("decodeData() mismatch (-want +got):\n%s", d)
	}
}

// FuzzDataFast checks scanData against encoding/json for every fast type:
// whenever scanData takes some data, json.Unmarshal must accept it too and
// give exactly the same event. Each input is tried as the data of every
// fast type.
func FuzzDataFast(f *testing.F) {
	for _, ev := range writtenEvents() {
		b, err := Envelope{Data: ev}.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		_, _, data, _ := scanEnvelope(nil, b)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typ := range fastTypes {
			scanBoth(t, typ, data)
		}
	})
}
