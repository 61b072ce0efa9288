package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Known reports whether this version of rein knows event type t.
func Known(t string) bool { return newEvent(t) != nil }

// samples has one fully populated value of every event type: every
// exported field non-zero, so that each JSON name is exercised.
func samples() []Event {
	raw := json.RawMessage(`{"command":"go test ./..."}`)
	return []Event{
		&SessionStarted{Cwd: "/w", Version: "v", Profile: "default", Provider: "openai", Model: "gpt", BaseURL: "http://127.0.0.1:11434/v1",
			Sandbox: &SandboxStatus{Available: true, Backend: "landlock+userns", Reason: "why not"}, System: "You are rein.",
			ModelInfo: &ModelInfo{ContextWindow: 200000, MaxOutput: 64000, Source: InfoCatalog,
				Prices: &Prices{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}},
			Parent: &ParentRef{Session: "ses_0", Seq: 9, IntentID: "int_0", Agent: "explore", Description: "find it", Depth: 1}},
		&UserMessage{Text: "帮我看看这个项目为什么测试失败，并把它修好。\n<120 pasted lines>", Display: "帮我看看这个项目为什么测试失败，并把它修好。\n[pasted 120 lines]"},
		&RunStarted{Goal: "fix"},
		&RunFinished{Outcome: OutcomeCompleted, Reason: "done", Usage: &Totals{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3,
			CacheWriteTokens: 4, ReasoningTokens: 5, Calls: 6, CostUSD: 0.25, Unpriced: 1}},
		&ModelRequested{Provider: "p", Model: "m", MessageCount: 3, ToolNames: []string{"bash"}, EstimatedInputTokens: 99,
			InputBytes: 396, Purpose: PurposeCompaction, ReasoningEffort: "low"},
		&ModelStarted{Provider: "p", Model: "m", RequestID: "req_1"},
		&TextDelta{Text: "t"},
		&ReasoningDelta{Text: "r"},
		&ModelText{Text: "text"},
		&ModelReasoning{Text: "why"},
		&ModelDiscarded{Reason: "retry"},
		&IntentDelta{Index: 1, ProviderCallID: "call_1", ToolName: "bash", RawInput: `{"comm`},
		&IntentProposed{ToolIntent: ToolIntent{
			ID: "int_1", ProviderCallID: "call_1", ToolName: "bash", Input: raw, RawInput: string(raw),
			Provider:      ProviderRef{Name: "p", Model: "m", RequestID: "req_1"},
			AssembledFrom: Assembly{Fragments: 3, FirstIndex: 1, LastIndex: 4, HadRepair: true},
			Origin:        OriginUser,
		}},
		&ModelUsage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4, ReasoningTokens: 5, CostUSD: new(0.0125)},
		&ModelFinished{Reason: FinishToolUse, ProviderState: json.RawMessage(`{"thought_signature":"abc"}`)},
		&ProviderError{Kind: KindRateLimit, Retryable: true, Provider: "p", Model: "m", RequestID: "req", HTTPStatus: 429, Message: "slow", RetryAfterMS: 11054, Err: errors.New("cause")},
		&RetryScheduled{Attempt: 2, MaxAttempts: 4, DelayMS: 1500, Kind: KindOverloaded},
		&FallbackSelected{From: "anthropic", To: "openai:gpt-4.1-mini", Reason: "overloaded"},
		&ToolValidation{IntentID: "int_1", OK: true, Code: "schema_invalid", Errors: []string{"command: required"}},
		&ToolPermission{IntentID: "int_1", Decision: Deny, By: "user", Rule: "bash(rm:*)", Reason: "dangerous", Message: "use git clean -n first"},
		&InvocationStarted{IntentID: "int_1", InvocationID: "inv_1", ToolName: "bash", Input: raw, Cwd: "/w", TimeoutMS: 120000,
			Sandbox: &SandboxSpec{Mode: "workspace-write", Writable: []string{"/w", "/tmp/rein"}, ReadOnly: []string{"/w/.git/hooks/"},
				DenyRead: []string{"/home/u/.ssh"}, Network: true}},
		&InvocationCompleted{IntentID: "int_1", InvocationID: "inv_1", Exit: ExitError, ExitCode: 1, DurationMS: 1234, OutputBytes: 4096},
		&ToolObservation{Observation: Observation{IntentID: "int_1", ToolName: "bash", OK: true, Phase: "execution", Code: "c", Text: "ok", Truncated: true, OmittedBytes: 10, ArtifactRef: "artifacts/inv_1.txt", Untrusted: true,
			Files: []FileStamp{{Path: "/w/calc.go", Size: 74, ModTime: time.Date(2026, 11, 30, 5, 1, 2, 345678901, time.UTC),
				SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", Op: FileRead}}}},
		&ContextProjected{Turn: 2, Window: 16000, Reserved: 2000, Budget: 13200, EstimatedTokens: 1000,
			Sources: []ContextSource{{Kind: SourceObservations, Decision: DecidedElided, Count: 2, Tokens: 40, Ref: "seq 3-9", Why: "older than the recent tail"}},
			Elided:  []string{"int_1"}, Withheld: "the request cannot fit"},
		&ContextCompacted{Turn: 3, Summary: "earlier: ran tests", Replaced: 12, FromSeq: 3, ToSeq: 40, TokensBefore: 12000, TokensAfter: 3000, By: CompactAuto, Focus: "tests", Calls: 2},
		&CompactionFailed{Turn: 3, Attempt: 1, By: CompactAuto, Reason: "the summary was empty"},
		&SessionResumed{FromSeq: 41, Gates: map[string]string{"workspace": "ok"}, Version: "0.1.0", System: "You are rein.",
			ModelInfo: &ModelInfo{ContextWindow: 40960, MaxOutput: 8192, Source: InfoServer, Prices: &Prices{Input: 1, Output: 1, CacheRead: 1, CacheWrite: 1}}},
		&SessionForked{ParentSession: "ses_1", ParentSeq: 12},
		&ModeChanged{From: "default", To: "accept-edits", By: "user"},
		&ModelSwitched{From: "anthropic:claude-sonnet-4-5", To: "openai:gpt-5", By: "user",
			Info: &ModelInfo{ContextWindow: 400000, MaxOutput: 128000, Source: InfoCatalog, Prices: &Prices{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25}}},
		&ToolOutputDelta{IntentID: "int_1", InvocationID: "inv_1", Text: "ok  \tpkg\n"},
		&ToolsChanged{Server: "github", Added: []string{"mcp__github__get_issue"}, Removed: []string{"mcp__github__old"}, Reason: "the server started"},
		&HookRan{Event: HookPreToolUse, Matcher: "Bash", Command: "./guard.sh", Source: "/w/.claude/settings.json", IntentID: "int_1", ToolName: "bash",
			Exit: ExitError, ExitCode: 2, DurationMS: 12, Decision: HookDeny, Reason: "no rm", Context: "note"},
		&TaskStarted{IntentID: "int_1", Agent: "explore", Description: "find the auth code", Child: "ses_2", Resumed: true},
		&TaskEvent{IntentID: "int_1", Child: "ses_2", Event: Envelope{Seq: 3, ID: "evt_9", Time: time.Date(2026, 11, 30, 5, 1, 2, 0, time.UTC),
			Session: "ses_2", Run: "run_2", Turn: 1, Cause: "evt_8", Data: &ModelText{Text: "found it"}}},
		&TaskFinished{IntentID: "int_1", Agent: "explore", Child: "ses_2", Outcome: TaskCompleted, Reason: "answered",
			Usage: &Totals{InputTokens: 10, OutputTokens: 2, CacheReadTokens: 1, CacheWriteTokens: 1, ReasoningTokens: 1, Calls: 1, CostUSD: 0.01, Unpriced: 1},
			Turns: 2, ToolCalls: 3, FilesRead: []string{"/w/a.go"}, FilesChanged: []string{"/w/b.go"}},
		&JobStarted{JobID: "job_1", IntentID: "int_1", Command: "npm run dev", Artifact: "job_1.txt"},
		&JobFinished{JobID: "job_1", Outcome: JobExited, ExitCode: 1, Bytes: 120},
		&CheckpointRecorded{ID: "ab12", IntentID: "int_1", When: CheckpointBefore, Files: 120, Bytes: 40960, New: 3, NewBytes: 900,
			Left: []LeftOut{{Path: "node_modules", Reason: "ignored dependency directory"}}, LeftCount: 1, LeftBytes: 1 << 20, DurationMS: 4, Error: "disk full"},
		&SessionRewound{To: 12, Scope: RewindBoth, Checkpoint: "ab12", Forced: []string{"/w/notes.md"},
			Files: []FileStamp{{Path: "/w/back.go", Size: 3, SHA256: "9f86", Op: FileCreated,
				ModTime: time.Date(2026, 11, 30, 5, 1, 2, 0, time.UTC)}, {Path: "/w/gone.go", Op: FileDeleted}}},
		&TodoUpdated{IntentID: "int_1", Todos: []Todo{{Content: "Run the tests", Status: TodoInProgress, ActiveForm: "Running the tests"}}},
	}
}

var snake = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// keys checks every object key of a decoded JSON value is snake_case.
func keys(t *testing.T, where string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if !snake.MatchString(k) && where != "gates" {
				t.Errorf("%s: JSON name %q is not snake_case", where, k)
			}
			keys(t, k, x)
		}
	case []any:
		for _, x := range v {
			keys(t, where, x)
		}
	}
}

func TestEveryEventRoundTrips(t *testing.T) {
	seen := map[string]bool{}
	at := time.Date(2026, 11, 30, 5, 1, 2, 345678901, time.UTC)
	for _, ev := range samples() {
		t.Run(ev.EventType(), func(t *testing.T) {
			seen[ev.EventType()] = true
			checkPopulated(t, reflect.ValueOf(ev).Elem(), ev.EventType())
			env := Envelope{Seq: 7, ID: "evt_1", Time: at, Session: "ses_1", Run: "run_1", Turn: 2, Cause: "evt_0", Data: ev}
			if IsDelta(ev.EventType()) {
				env.Seq = 0
			}
			b, err := json.Marshal(env)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "\n") {
				t.Errorf("envelope JSON spans lines: %s", b)
			}
			var generic any
			if err := json.Unmarshal(b, &generic); err != nil {
				t.Fatal(err)
			}
			keys(t, ev.EventType(), generic)
			var back Envelope
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			if d := cmp.Diff(env, back, cmpopts.IgnoreFields(ProviderError{}, "Err")); d != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", d)
			}
		})
	}
	for _, typ := range EventTypes {
		if !seen[typ] {
			t.Errorf("event type %s has no sample", typ)
		}
		if !Known(typ) {
			t.Errorf("event type %s is listed but does not decode", typ)
		}
	}
}

// checkPopulated fails when a field of the sample is zero, so every field
// of every event is exercised by the round trip.
func checkPopulated(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if !sf.IsExported() || sf.Name == "Err" {
			continue
		}
		if sf.Anonymous || (f.Kind() == reflect.Struct && f.Type() != reflect.TypeFor[time.Time]()) {
			checkPopulated(t, f, path+"."+sf.Name)
			continue
		}
		if f.Kind() == reflect.Pointer && !f.IsNil() && f.Elem().Kind() == reflect.Struct {
			checkPopulated(t, f.Elem(), path+"."+sf.Name)
			continue
		}
		if f.IsZero() {
			t.Errorf("sample %s.%s is zero: give it a value", path, sf.Name)
		}
		if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && f.Len() > 0 {
			checkPopulated(t, f.Index(0), path+"."+sf.Name+"[0]")
		}
	}
}

func TestEnvelopeWireShape(t *testing.T) {
	env := Envelope{Seq: 3, ID: "evt_1", Time: time.Date(2026, 11, 30, 5, 1, 2, 5, time.UTC), Session: "ses_1", Run: "run_1", Turn: 1, Cause: "evt_0", Data: &UserMessage{Text: "hi"}}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"seq":3,"id":"evt_1","time":"2026-11-30T05:01:02.000000005Z","session":"ses_1","run":"run_1","turn":1,"type":"user.message","cause":"evt_0","data":{"text":"hi"}}`
	if string(b) != want {
		t.Errorf("wire shape:\n got %s\nwant %s", b, want)
	}
}

func TestMarshalKeepsShellOperators(t *testing.T) {
	b, err := Envelope{Seq: 1, Data: &UserMessage{Text: "go test && go vet > out <in"}}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"go test && go vet > out <in"`) {
		t.Errorf("MarshalJSON() = %s, want the text unescaped", b)
	}
}

func TestUnknownTypeIsKeptVerbatim(t *testing.T) {
	line := `{"seq":9,"id":"e","time":"2026-11-30T05:01:02Z","session":"s","turn":0,"type":"tool.sandboxed","data":{"profile":"strict","n":[1,2]}}`
	var env Envelope
	if err := json.Unmarshal([]byte(line), &env); err != nil {
		t.Fatal(err)
	}
	u, ok := env.Data.(*Unknown)
	if !ok || u.Type != "tool.sandboxed" || env.Type() != "tool.sandboxed" {
		t.Fatalf("Data = %#v, want *Unknown tool.sandboxed", env.Data)
	}
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != line {
		t.Errorf("re-encoded:\n got %s\nwant %s", b, line)
	}
}

func TestDecodeErrors(t *testing.T) {
	for name, line := range map[string]string{
		"not json":       `{"seq":`,
		"no type":        `{"seq":1,"data":{}}`,
		"bad known data": `{"seq":1,"type":"user.message","data":{"text":5}}`,
	} {
		t.Run(name, func(t *testing.T) {
			var env Envelope
			if err := json.Unmarshal([]byte(line), &env); err == nil {
				t.Errorf("Unmarshal(%s) = nil error", line)
			}
		})
	}
	if _, err := json.Marshal(Envelope{}); err == nil {
		t.Error("marshalling an envelope without data succeeded")
	}
}

func TestProviderErrorIsAnError(t *testing.T) {
	cause := errors.New("connection reset")
	var err error = &ProviderError{Kind: KindStreamInterrupted, Retryable: true, Provider: "openai", HTTPStatus: 200, RequestID: "req_9", Message: "unexpected EOF", Err: cause}
	if got := err.Error(); got != "openai: stream_interrupted: unexpected EOF (http 200, request req_9)" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(err, cause) {
		t.Error("errors.Is does not reach the cause")
	}
	pe, ok := errors.AsType[*ProviderError](err)
	if !ok || pe.Kind != KindStreamInterrupted {
		t.Error("errors.AsType fails")
	}
	phrases := map[string]ErrorKind{}
	for _, k := range ErrorKinds {
		if other, ok := phrases[k.Phrase()]; ok {
			t.Errorf("%s and %s are both %q", k, other, k.Phrase())
		}
		phrases[k.Phrase()] = k
	}
	for _, k := range ErrorKinds {
		want := k == KindRateLimit || k == KindTimeout || k == KindNetwork || k == KindOverloaded || k == KindServer || k == KindStreamInterrupted
		if k.Retryable() != want {
			t.Errorf("%s.Retryable() = %v", k, !want)
		}
	}
}

func TestRetryStatus(t *testing.T) {
	for _, tc := range []struct {
		e    RetryScheduled
		want string
	}{
		{RetryScheduled{Attempt: 2, MaxAttempts: 4, DelayMS: 1500, Kind: KindRateLimit}, "retrying in 1.5s (rate limited, attempt 2 of 4)"},
		{RetryScheduled{Attempt: 3, DelayMS: 90000, Kind: KindTimeout}, "retrying in 90.0s (no response in time, attempt 3)"},
	} {
		if got := tc.e.Status(); got != tc.want {
			t.Errorf("Status() = %q, want %q", got, tc.want)
		}
	}
}

// FuzzEnvelope feeds arbitrary lines to the envelope decoder, which reads
// log files that may be damaged: it must never panic, and whatever it
// accepts must encode and decode again to the same envelope.
func FuzzEnvelope(f *testing.F) {
	for _, ev := range samples() {
		b, err := json.Marshal(Envelope{Seq: 1, ID: "e", Session: "s", Data: ev})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"seq":1,"type":"future.thing","data":{"x":[1,2,{}]}}`))
	f.Add([]byte(`{"seq":1,"type":"user.message","data":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var env Envelope
		if err := json.Unmarshal(line, &env); err != nil {
			return
		}
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatalf("re-encoding an accepted envelope: %v", err)
		}
		var back Envelope
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("decoding a re-encoded envelope %s: %v", b, err)
		}
		// An empty list or map may come back nil (omitempty).
		emptyIsNil := cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().Type() != reflect.TypeFor[json.RawMessage]()
		}, cmpopts.EquateEmpty())
		// Unknown data is kept as JSON, compacted; compare it as such.
		sameJSON := cmp.Comparer(func(a, b json.RawMessage) bool {
			// A nil RawMessage encodes as null.
			if len(a) == 0 {
				a = json.RawMessage("null")
			}
			if len(b) == 0 {
				b = json.RawMessage("null")
			}
			var ca, cb bytes.Buffer
			return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
		})
		if d := cmp.Diff(env, back, cmpopts.IgnoreFields(ProviderError{}, "Err"), sameJSON, emptyIsNil); d != "" {
			t.Errorf("round trip of an accepted envelope changed it (-first +second):\n%s", d)
		}
	})
}

// TestErrorKindsInCatalogueOrder pins the taxonomy to DESIGN.md section 3,
// in its order: a kind added there is added here and in ErrorKinds.
func TestErrorKindsInCatalogueOrder(t *testing.T) {
	want := []ErrorKind{"auth", "permission", "rate_limit", "quota", "timeout", "network", "overloaded", "server",
		"bad_request", "context_length", "stream_interrupted", "unsupported_feature", "malformed_tool_call", "aborted", "unknown"}
	if d := cmp.Diff(want, ErrorKinds); d != "" {
		t.Errorf("ErrorKinds mismatch (-want +got):\n%s", d)
	}
}
