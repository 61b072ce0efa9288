package anthropic

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

var ignoreErr = cmpopts.IgnoreFields(contract.ProviderError{}, "Err")

func i64(n int64) *int64 { return &n }

func tref() contract.ProviderRef {
	return contract.ProviderRef{Name: "anthropic", Model: "m", RequestID: "req_1"}
}

func delta(index int, id, name, raw string) *contract.IntentDelta {
	return &contract.IntentDelta{Index: index, ProviderCallID: id, ToolName: name, RawInput: raw}
}

func intent(id, name, input, raw string, from contract.Assembly) *contract.IntentProposed {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: id, ToolName: name, Input: json.RawMessage(input), RawInput: raw, Provider: tref(), AssembledFrom: from,
	}}
}

func textStart(index int) *blockStartFrame {
	return &blockStartFrame{Index: index, Block: &textBlock{}}
}

func toolStart(index int, id, name, input string) *blockStartFrame {
	return &blockStartFrame{Index: index, Block: &toolUseBlock{ID: id, Name: name, Input: json.RawMessage(input)}}
}

func deltaFrame(index int, typ, text string) *blockDeltaFrame {
	d := wireDelta{Type: typ}
	switch typ {
	case "text_delta":
		d.Text = text
	case "input_json_delta":
		d.PartialJSON = text
	case "thinking_delta":
		d.Thinking = text
	case "signature_delta":
		d.Signature = text
	}
	return &blockDeltaFrame{Index: index, Delta: d}
}

func stopReason(reason string) *messageDeltaFrame {
	f := &messageDeltaFrame{}
	f.Delta.StopReason = reason
	return f
}

// errBadDelta stands for the error of a known delta that did not decode.
var errBadDelta = errors.New("anthropic: decode content_block_delta event: bad shape")

func finish(reason contract.FinishReason) *contract.ModelFinished {
	return &contract.ModelFinished{Reason: reason}
}

// TestTranslator feeds frames, one kind after another, and checks the events
// each sequence yields, in order.
func TestTranslator(t *testing.T) {
	for _, tc := range []struct {
		name    string
		frames  []frame
		want    []contract.ModelEvent
		wantErr *contract.ProviderError
	}{
		{
			name:   "message_start with usage only says nothing yet",
			frames: []frame{&messageStartFrame{Message: message{Usage: wireUsage{InputTokens: i64(10), OutputTokens: i64(1)}}}},
		},
		{
			name:   "text block: start with text, deltas, empty delta skipped",
			frames: []frame{&blockStartFrame{Index: 0, Block: &textBlock{Text: "He"}}, deltaFrame(0, "text_delta", "llo"), deltaFrame(0, "text_delta", ""), &blockStopFrame{Index: 0}},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "He"}, &contract.TextDelta{Text: "llo"}},
		},
		{
			name:   "text for a block never started is still shown",
			frames: []frame{deltaFrame(4, "text_delta", "orphan")},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "orphan"}},
		},
		{
			name:   "citations_delta and unknown deltas are ignored",
			frames: []frame{textStart(0), deltaFrame(0, "citations_delta", ""), deltaFrame(0, "future_delta", "x"), deltaFrame(0, "text_delta", "ok")},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "ok"}},
		},
		{
			name: "tool_use: start, empty first delta, fragments, stop",
			frames: []frame{
				toolStart(1, "toolu_1", "read_file", `{}`),
				deltaFrame(1, "input_json_delta", ""),
				deltaFrame(1, "input_json_delta", `{"path": `),
				deltaFrame(1, "input_json_delta", `"go.mod"}`),
				&blockStopFrame{Index: 1},
			},
			want: []contract.ModelEvent{
				delta(0, "toolu_1", "read_file", ""),
				delta(0, "toolu_1", "read_file", ""),
				delta(0, "toolu_1", "read_file", `{"path": `),
				delta(0, "toolu_1", "read_file", `{"path": "go.mod"}`),
				intent("toolu_1", "read_file", `{"path":"go.mod"}`, `{"path": "go.mod"}`, contract.Assembly{Fragments: 4, FirstIndex: 0, LastIndex: 3}),
			},
		},
		{
			name:   "tool_use without arguments: {} by the one unambiguous repair",
			frames: []frame{toolStart(0, "toolu_2", "list_dir", `{}`), deltaFrame(0, "input_json_delta", ""), &blockStopFrame{Index: 0}},
			want: []contract.ModelEvent{
				delta(0, "toolu_2", "list_dir", ""),
				delta(0, "toolu_2", "list_dir", ""),
				intent("toolu_2", "list_dir", `{}`, "", contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1, HadRepair: true}),
			},
		},
		{
			name:   "tool_use whose start carries its input and no delta",
			frames: []frame{toolStart(0, "toolu_3", "glob", `{"pattern": "*.go"}`), &blockStopFrame{Index: 0}},
			want: []contract.ModelEvent{
				delta(0, "toolu_3", "glob", ""),
				delta(0, "toolu_3", "glob", `{"pattern": "*.go"}`),
				intent("toolu_3", "glob", `{"pattern":"*.go"}`, `{"pattern": "*.go"}`, contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1}),
			},
		},
		{
			name:   "tool_use whose deltas win over a start input",
			frames: []frame{toolStart(0, "toolu_4", "glob", `{"pattern": "old"}`), deltaFrame(0, "input_json_delta", `{"pattern":"new"}`), &blockStopFrame{Index: 0}},
			want: []contract.ModelEvent{
				delta(0, "toolu_4", "glob", ""),
				delta(0, "toolu_4", "glob", `{"pattern":"new"}`),
				intent("toolu_4", "glob", `{"pattern":"new"}`, `{"pattern":"new"}`, contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1}),
			},
		},
		{
			name:   "malformed input is a malformed_tool_call event, not an intent",
			frames: []frame{toolStart(0, "toolu_5", "bash", `{}`), deltaFrame(0, "input_json_delta", `{"command": `), &blockStopFrame{Index: 0}},
			want: []contract.ModelEvent{
				delta(0, "toolu_5", "bash", ""),
				delta(0, "toolu_5", "bash", `{"command": `),
				&contract.ProviderError{Kind: contract.KindMalformedToolCall, Provider: "anthropic", Model: "m", RequestID: "req_1",
					Message: `tool call "bash" (id toolu_5) arguments (12 bytes) are not valid JSON: unexpected end of JSON input`},
			},
		},
		{
			name: "vendor-run tools are never intents",
			frames: []frame{
				&blockStartFrame{Index: 0, Block: &otherBlock{Type: "server_tool_use"}},
				deltaFrame(0, "input_json_delta", `{"query":"x"}`),
				&blockStopFrame{Index: 0},
				&blockStartFrame{Index: 1, Block: &otherBlock{Type: "web_search_tool_result"}},
				&blockStopFrame{Index: 1},
				&messageStopFrame{},
			},
			want: []contract.ModelEvent{finish(contract.FinishStop)},
		},
		{
			name: "a vendor-run tool's delta of any shape is skipped",
			frames: []frame{
				&blockStartFrame{Index: 0, Block: &otherBlock{Type: "server_tool_use"}},
				&blockDeltaFrame{Index: 0, Delta: wireDelta{Type: "input_json_delta"}, Err: errBadDelta},
				&blockStopFrame{Index: 0},
				textStart(1), deltaFrame(1, "text_delta", "ok"),
				&messageStopFrame{},
			},
			want: []contract.ModelEvent{&contract.TextDelta{Text: "ok"}, finish(contract.FinishStop)},
		},
		{
			name:    "a delta that did not decode is an error for a block rein reads",
			frames:  []frame{textStart(0), &blockDeltaFrame{Index: 0, Delta: wireDelta{Type: "text_delta"}, Err: errBadDelta}},
			wantErr: &contract.ProviderError{Kind: contract.KindUnknown, Provider: "anthropic", Model: "m", RequestID: "req_1", Message: errBadDelta.Error()},
		},
		{
			name:    "and for a block never started",
			frames:  []frame{&blockDeltaFrame{Index: 3, Delta: wireDelta{Type: "input_json_delta"}, Err: errBadDelta}},
			wantErr: &contract.ProviderError{Kind: contract.KindUnknown, Provider: "anthropic", Model: "m", RequestID: "req_1", Message: errBadDelta.Error()},
		},
		{
			name:   "input_json_delta or stop for a block never started is ignored",
			frames: []frame{deltaFrame(7, "input_json_delta", `{}`), &blockStopFrame{Index: 7}},
		},
		{
			name: "thinking: deltas, signature, then redacted thinking, kept as provider state",
			frames: []frame{
				&blockStartFrame{Index: 0, Block: &thinkingBlock{}},
				deltaFrame(0, "thinking_delta", "Let me "),
				deltaFrame(0, "thinking_delta", "think."),
				deltaFrame(0, "signature_delta", "sig=="),
				&blockStopFrame{Index: 0},
				&blockStartFrame{Index: 1, Block: &redactedThinkingBlock{Data: "enc=="}},
				&blockStopFrame{Index: 1},
				&messageStopFrame{},
			},
			want: []contract.ModelEvent{
				&contract.ReasoningDelta{Text: "Let me "},
				&contract.ReasoningDelta{Text: "think."},
				&contract.ModelFinished{Reason: contract.FinishStop, ProviderState: json.RawMessage(
					`{"provider":"anthropic","blocks":[{"type":"thinking","thinking":"Let me think.","signature":"sig=="},{"type":"redacted_thinking","data":"enc=="}]}`)},
			},
		},
		{
			name: "thinking without a signature is shown but not sent back",
			frames: []frame{
				&blockStartFrame{Index: 0, Block: &thinkingBlock{Thinking: "hmm"}},
				&blockStopFrame{Index: 0},
				&messageStopFrame{},
			},
			want: []contract.ModelEvent{&contract.ReasoningDelta{Text: "hmm"}, finish(contract.FinishStop)},
		},
		{
			name: "message_start carrying a whole tool_use: an intent, not repeated by its block",
			frames: []frame{
				&messageStartFrame{Message: message{Content: []block{&toolUseBlock{ID: "toolu_6", Name: "glob", Input: json.RawMessage(`{"pattern":"*"}`)}}}},
				toolStart(0, "toolu_6", "glob", `{"pattern":"*"}`),
				&blockStopFrame{Index: 0},
			},
			want: []contract.ModelEvent{
				delta(0, "toolu_6", "glob", `{"pattern":"*"}`),
				intent("toolu_6", "glob", `{"pattern":"*"}`, `{"pattern":"*"}`, contract.Assembly{Fragments: 1}),
			},
		},
		{
			name: "message_delta usage is cumulative and revises input; reported once at message_stop",
			frames: []frame{
				&messageStartFrame{Message: message{Usage: wireUsage{InputTokens: i64(12), OutputTokens: i64(1), CacheReadInputTokens: i64(5)}}},
				&messageDeltaFrame{Usage: wireUsage{OutputTokens: i64(30)}},
				&messageDeltaFrame{Usage: wireUsage{InputTokens: i64(3000), OutputTokens: i64(42), CacheCreationInputTokens: i64(7)}},
				&messageStopFrame{},
			},
			want: []contract.ModelEvent{
				&contract.ModelUsage{InputTokens: 3012, OutputTokens: 42, CacheReadTokens: 5, CacheWriteTokens: 7},
				finish(contract.FinishStop),
			},
		},
		{
			name: "message_stop ends the calls whose blocks never stopped, before usage",
			frames: []frame{
				toolStart(0, "toolu_7", "bash", `{}`),
				deltaFrame(0, "input_json_delta", `{"command":"ls"}`),
				toolStart(1, "toolu_8", "glob", `{"pattern":"x"}`),
				&messageDeltaFrame{Usage: wireUsage{OutputTokens: i64(9)}},
				&messageStopFrame{},
			},
			want: []contract.ModelEvent{
				delta(0, "toolu_7", "bash", ""),
				delta(0, "toolu_7", "bash", `{"command":"ls"}`),
				delta(1, "toolu_8", "glob", ""),
				delta(1, "toolu_8", "glob", `{"pattern":"x"}`),
				intent("toolu_7", "bash", `{"command":"ls"}`, `{"command":"ls"}`, contract.Assembly{Fragments: 2, FirstIndex: 0, LastIndex: 1}),
				intent("toolu_8", "glob", `{"pattern":"x"}`, `{"pattern":"x"}`, contract.Assembly{Fragments: 2, FirstIndex: 2, LastIndex: 3}),
				&contract.ModelUsage{OutputTokens: 9},
				finish(contract.FinishToolUse),
			},
		},
		{
			name:   "ping and unknown events say nothing",
			frames: []frame{&pingFrame{}, &unknownFrame{Type: "telemetry"}, nil},
		},
		{
			name:    "error event: the terminal error",
			frames:  []frame{&errorFrame{Detail: provider.ErrorDetail{Type: "overloaded_error", Message: "Overloaded"}, RequestID: "req_body"}},
			wantErr: &contract.ProviderError{Kind: contract.KindOverloaded, Retryable: true, Provider: "anthropic", Model: "m", RequestID: "req_1", Message: "Overloaded"},
		},
		{
			name: "whole message: blocks, usage and finish at once",
			frames: []frame{&wholeFrame{Message: message{
				Content:    []block{&textBlock{Text: "Hi"}, &otherBlock{Type: "server_tool_use"}, &toolUseBlock{ID: "toolu_9", Name: "list_dir", Input: json.RawMessage(`{}`)}},
				StopReason: "tool_use",
				Usage:      wireUsage{InputTokens: i64(3), OutputTokens: i64(4)},
			}}},
			want: []contract.ModelEvent{
				&contract.TextDelta{Text: "Hi"},
				delta(0, "toolu_9", "list_dir", `{}`),
				intent("toolu_9", "list_dir", `{}`, `{}`, contract.Assembly{Fragments: 1}),
				&contract.ModelUsage{InputTokens: 3, OutputTokens: 4},
				finish(contract.FinishToolUse),
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranslator(tref())
			var got []contract.ModelEvent
			var gotErr *contract.ProviderError
			for _, f := range tc.frames {
				events, err := tr.translate(f)
				got = append(got, slices.Clone(events)...)
				if err != nil {
					gotErr = err
				}
			}
			if d := cmp.Diff(tc.want, got, ignoreErr); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantErr, gotErr, ignoreErr); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

func TestFinishReason(t *testing.T) {
	for _, tc := range []struct {
		stop  string
		calls int
		want  contract.FinishReason
	}{
		{"end_turn", 0, contract.FinishStop},
		{"stop_sequence", 0, contract.FinishStop},
		{"pause_turn", 0, contract.FinishStop},
		{"tool_use", 2, contract.FinishToolUse},
		{"max_tokens", 0, contract.FinishLength},
		{"model_context_window_exceeded", 0, contract.FinishLength},
		{"refusal", 0, contract.FinishContentFilter},
		{"", 0, contract.FinishStop},
		{"", 1, contract.FinishToolUse},
		{"something_new", 0, contract.FinishStop},
	} {
		t.Run(tc.stop, func(t *testing.T) {
			if got := finishReason(tc.stop, tc.calls); got != tc.want {
				t.Errorf("finishReason(%q, %d) = %q, want %q", tc.stop, tc.calls, got, tc.want)
			}
		})
	}
}

func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		d      provider.ErrorDetail
		want   contract.ErrorKind
	}{
		{"overloaded mid-stream", 0, provider.ErrorDetail{Type: "overloaded_error"}, contract.KindOverloaded},
		{"rate limit", 429, provider.ErrorDetail{Type: "rate_limit_error"}, contract.KindRateLimit},
		{"prompt too long", 400, provider.ErrorDetail{Type: "invalid_request_error", Message: "prompt is too long: 208310 tokens > 200000 maximum"}, contract.KindContextLength},
		{"prompt too long mid-stream", 0, provider.ErrorDetail{Type: "invalid_request_error", Message: "prompt is too long: 9 tokens > 8 maximum"}, contract.KindContextLength},
		{"invalid request mid-stream", 0, provider.ErrorDetail{Type: "invalid_request_error", Message: "bad"}, contract.KindBadRequest},
		{"authentication", 401, provider.ErrorDetail{Type: "authentication_error"}, contract.KindAuth},
		{"permission", 403, provider.ErrorDetail{Type: "permission_error"}, contract.KindPermission},
		{"billing", 402, provider.ErrorDetail{Type: "billing_error"}, contract.KindQuota},
		{"api error", 500, provider.ErrorDetail{Type: "api_error"}, contract.KindServer},
		{"api error mid-stream", 0, provider.ErrorDetail{Type: "api_error"}, contract.KindServer},
		{"api error with 529", 529, provider.ErrorDetail{Type: "api_error"}, contract.KindOverloaded},
		{"timeout", 504, provider.ErrorDetail{Type: "timeout_error"}, contract.KindTimeout},
		{"not found", 404, provider.ErrorDetail{Type: "not_found_error"}, contract.KindBadRequest},
		{"too large", 413, provider.ErrorDetail{Type: "request_too_large"}, contract.KindContextLength},
		{"unknown type, status decides", 503, provider.ErrorDetail{Type: "mystery"}, contract.KindOverloaded},
		{"nothing known mid-stream", 0, provider.ErrorDetail{Message: "oops"}, contract.KindUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errorKind(tc.status, tc.d); got != tc.want {
				t.Errorf("errorKind(%d, %+v) = %s, want %s", tc.status, tc.d, got, tc.want)
			}
		})
	}
}

// TestDecodeFrame decodes server-sent events into typed frames.
func TestDecodeFrame(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ev      sse.Event
		want    frame
		wantErr bool
	}{
		{"text delta", sse.Event{Name: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"hi"}}`)},
			&blockDeltaFrame{Index: 2, Delta: wireDelta{Type: "text_delta", Text: "hi"}}, false},
		{"type from the data when the event has no name", sse.Event{Data: []byte(`{"type":"content_block_stop","index":3}`)},
			&blockStopFrame{Index: 3}, false},
		{"the default event name counts as none", sse.Event{Name: "message", Data: []byte(`{"type":"ping"}`)},
			&pingFrame{}, false},
		{"tool_use start", sse.Event{Name: "content_block_start", Data: []byte(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}`)},
			&blockStartFrame{Index: 1, Block: &toolUseBlock{ID: "toolu_1", Name: "bash", Input: json.RawMessage(`{}`)}}, false},
		{"unknown block with fields of other shapes", sse.Event{Name: "content_block_start", Data: []byte(`{"type":"content_block_start","index":0,"content_block":{"type":"compaction","text":{"a":1}}}`)},
			&blockStartFrame{Index: 0, Block: &otherBlock{Type: "compaction"}}, false},
		{"unknown delta with fields of other shapes", sse.Event{Name: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","text":[1]}}`)},
			&blockDeltaFrame{Index: 0, Delta: wireDelta{Type: "compaction_delta"}}, false},
		{"known delta of the wrong shape: its error is carried, for the translator to judge", sse.Event{Name: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":{"a":1}}}`)},
			&blockDeltaFrame{Index: 1, Delta: wireDelta{Type: "input_json_delta"}, Err: errCarried}, false},
		{"a delta of no block", sse.Event{Name: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":"one","delta":{"type":"text_delta","text":"x"}}`)},
			nil, true},
		{"message_start with content", sse.Event{Name: "message_start", Data: []byte(`{"type":"message_start","message":{"content":[{"type":"text","text":"a"}],"stop_reason":null,"usage":{"input_tokens":5}}}`)},
			&messageStartFrame{Message: message{Content: []block{&textBlock{Text: "a"}}, Usage: wireUsage{InputTokens: i64(5)}}}, false},
		{"message_delta", sse.Event{Name: "message_delta", Data: []byte(`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`)},
			func() frame { f := stopReason("end_turn"); f.Usage.OutputTokens = i64(3); return f }(), false},
		{"message_stop", sse.Event{Name: "message_stop", Data: []byte(`{"type":"message_stop"}`)}, &messageStopFrame{}, false},
		{"message_stop without data", sse.Event{Name: "message_stop"}, nil, true},
		{"ping without data", sse.Event{Name: "ping"}, &pingFrame{}, false},
		{"error event", sse.Event{Name: "error", Data: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_x"}`)},
			&errorFrame{Detail: provider.ErrorDetail{Type: "overloaded_error", Message: "Overloaded"}, RequestID: "req_x"}, false},
		{"error event in plain text", sse.Event{Name: "error", Data: []byte(`upstream connect error`)},
			&errorFrame{Detail: provider.ErrorDetail{Message: "upstream connect error"}}, false},
		{"an error object without a type", sse.Event{Data: []byte(`{"error":{"type":"api_error","message":"boom"}}`)},
			&errorFrame{Detail: provider.ErrorDetail{Type: "api_error", Message: "boom"}}, false},
		{"error: null is not an error", sse.Event{Data: []byte(`{"type":"ping","error":null}`)}, &pingFrame{}, false},
		{"unknown event name", sse.Event{Name: "telemetry", Data: []byte(`not even json`)}, &unknownFrame{Type: "telemetry"}, false},
		{"stray error body", sse.Event{Stray: []byte(`{"type":"error","error":{"type":"api_error","message":"boom"}}`)},
			&errorFrame{Detail: provider.ErrorDetail{Type: "api_error", Message: "boom"}}, false},
		{"stray lines that are not an error", sse.Event{Stray: []byte(`x-unknown-field: 1`)}, nil, false},
		{"non-JSON data", sse.Event{Data: []byte(`this is not json`)}, nil, true},
		{"truncated JSON", sse.Event{Name: "message_start", Data: []byte(`{"type":`)}, nil, true},
		{"known event without data", sse.Event{Name: "content_block_delta"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeFrame(&tc.ev)
			if (err != nil) != tc.wantErr {
				t.Fatalf("decodeFrame() error %v, want error %v", err, tc.wantErr)
			}
			if d := cmp.Diff(tc.want, got, cmp.Comparer(sameErrorness)); d != "" {
				t.Errorf("decodeFrame() (-want +got):\n%s", d)
			}
		})
	}
}

// errCarried stands for any error a decoded frame carries.
var errCarried = errors.New("an error")

// sameErrorness compares errors by their presence only.
func sameErrorness(a, b error) bool { return (a == nil) == (b == nil) }
