package responses

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/sse"
)

var tref = contract.ProviderRef{Name: "responses", Model: "gpt-5", RequestID: "req_1"}

// step is one frame given to the translator and what it must return.
type step struct {
	typ  string // the event type; "" decodes data as untyped
	data string
	want []contract.ModelEvent
	err  contract.ErrorKind // the terminal error's kind, if any
}

func proposed(callID, tool, input, raw string, fragments, first, last int, repair bool) *contract.IntentProposed {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: callID, ToolName: tool, Input: json.RawMessage(input), RawInput: raw,
		Provider: tref, AssembledFrom: contract.Assembly{Fragments: fragments, FirstIndex: first, LastIndex: last, HadRepair: repair},
	}}
}

func delta(index int, callID, tool, raw string) *contract.IntentDelta {
	return &contract.IntentDelta{Index: index, ProviderCallID: callID, ToolName: tool, RawInput: raw}
}

const (
	addedCall = `{"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"bash","arguments":""}}`
	doneCall  = `{"output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"bash","arguments":"{\"command\":\"ls\"}"}}`
	completed = `{"response":{"status":"completed","output":[],"usage":{"input_tokens":3,"output_tokens":4,"input_tokens_details":{"cached_tokens":1},"output_tokens_details":{"reasoning_tokens":2}}}}`
)

// TestTranslate feeds frames one by one and checks the events each one
// yields: every frame kind the translator handles.
func TestTranslate(t *testing.T) {
	ignoreErr := cmpopts.IgnoreFields(contract.ProviderError{}, "Err")
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"lifecycle frames say nothing", []step{
			{typ: typeCreated, data: `{"response":{"id":"resp_1","status":"in_progress","output":[],"usage":null,"error":null}}`},
			{typ: typeInProgress, data: `{"response":{"id":"resp_1","status":"in_progress"}}`},
			{typ: typeQueued, data: `{"response":{"id":"resp_1","status":"queued"}}`},
		}},
		{"text delta", []step{
			{typ: typeTextDelta, data: `{"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`, want: []contract.ModelEvent{&contract.TextDelta{Text: "Hi"}}},
			{typ: typeTextDelta, data: `{"output_index":0,"delta":""}`},
		}},
		{"refusal delta is answer text", []step{
			{typ: typeRefusalDelta, data: `{"output_index":0,"delta":"I can't help with that."}`, want: []contract.ModelEvent{&contract.TextDelta{Text: "I can't help with that."}}},
		}},
		{"reasoning summary parts are separated", []step{
			{typ: typeSummaryDelta, data: `{"output_index":0,"summary_index":0,"delta":"**A**"}`, want: []contract.ModelEvent{&contract.ReasoningDelta{Text: "**A**"}}},
			{typ: typeSummaryDelta, data: `{"output_index":0,"summary_index":0,"delta":" more"}`, want: []contract.ModelEvent{&contract.ReasoningDelta{Text: " more"}}},
			{typ: typeSummaryDelta, data: `{"output_index":0,"summary_index":1,"delta":"**B**"}`, want: []contract.ModelEvent{&contract.ReasoningDelta{Text: "\n\n**B**"}}},
		}},
		{"reasoning text delta", []step{
			{typ: typeReasoningDelta, data: `{"output_index":0,"content_index":0,"delta":"think"}`, want: []contract.ModelEvent{&contract.ReasoningDelta{Text: "think"}}},
		}},
		{"call: added, deltas, done, item done", []step{
			{typ: typeItemAdded, data: addedCall, want: []contract.ModelEvent{delta(0, "call_1", "bash", "")}},
			{typ: typeArgsDelta, data: `{"item_id":"fc_1","output_index":0,"delta":"{\"command\":"}`, want: []contract.ModelEvent{delta(0, "call_1", "bash", `{"command":`)}},
			{typ: typeArgsDelta, data: `{"item_id":"fc_rotated","output_index":0,"delta":"\"ls\"}"}`, want: []contract.ModelEvent{delta(0, "call_1", "bash", `{"command":"ls"}`)}},
			{typ: typeArgsDone, data: `{"item_id":"fc_1","output_index":0,"arguments":"{\"command\":\"ls\"}"}`},
			{typ: typeItemDone, data: doneCall, want: []contract.ModelEvent{proposed("call_1", "bash", `{"command":"ls"}`, `{"command":"ls"}`, 3, 0, 2, false)}},
			{typ: typeCompleted, data: completed, want: []contract.ModelEvent{
				&contract.ModelUsage{InputTokens: 3, OutputTokens: 4, CacheReadTokens: 1, ReasoningTokens: 2},
				&contract.ModelFinished{Reason: contract.FinishToolUse},
			}},
		}},
		{"arguments only in .done", []step{
			{typ: typeItemAdded, data: addedCall, want: []contract.ModelEvent{delta(0, "call_1", "bash", "")}},
			{typ: typeArgsDone, data: `{"output_index":0,"arguments":"{\"command\":\"ls\"}"}`, want: []contract.ModelEvent{delta(0, "call_1", "bash", `{"command":"ls"}`)}},
			{typ: typeItemDone, data: doneCall, want: []contract.ModelEvent{proposed("call_1", "bash", `{"command":"ls"}`, `{"command":"ls"}`, 2, 0, 1, false)}},
		}},
		{"deltas that stop short are completed by .done", []step{
			{typ: typeItemAdded, data: addedCall, want: []contract.ModelEvent{delta(0, "call_1", "bash", "")}},
			{typ: typeArgsDelta, data: `{"output_index":0,"delta":"{\"comm"}`, want: []contract.ModelEvent{delta(0, "call_1", "bash", `{"comm`)}},
			{typ: typeArgsDone, data: `{"output_index":0,"arguments":"{\"command\":\"ls\"}"}`, want: []contract.ModelEvent{delta(0, "call_1", "bash", `{"command":"ls"}`)}},
		}},
		{"an item done with no added frame is a whole call", []step{
			{typ: typeItemDone, data: doneCall, want: []contract.ModelEvent{
				delta(0, "call_1", "bash", `{"command":"ls"}`),
				proposed("call_1", "bash", `{"command":"ls"}`, `{"command":"ls"}`, 1, 0, 0, false),
			}},
			{typ: typeItemDone, data: doneCall}, // a repeated end marker says nothing
		}},
		{"malformed arguments", []step{
			{typ: typeItemDone, data: `{"output_index":2,"item":{"type":"function_call","call_id":"call_x","name":"bash","arguments":"{\"command\":"}}`, want: []contract.ModelEvent{
				delta(0, "call_x", "bash", `{"command":`),
				&contract.ProviderError{Kind: contract.KindMalformedToolCall, Provider: "responses", Model: "gpt-5", RequestID: "req_1",
					Message: `tool call "bash" (id call_x) arguments (11 bytes) are not valid JSON: unexpected end of JSON input`},
			}},
			{typ: typeCompleted, data: `{"response":{"status":"completed"}}`, want: []contract.ModelEvent{&contract.ModelFinished{Reason: contract.FinishStop}}},
		}},
		{"a call with no end marker ends with the response", []step{
			{typ: typeItemAdded, data: addedCall, want: []contract.ModelEvent{delta(0, "call_1", "bash", "")}},
			{typ: typeArgsDelta, data: `{"output_index":0,"delta":"{}"}`, want: []contract.ModelEvent{delta(0, "call_1", "bash", `{}`)}},
			{typ: typeCompleted, data: `{"response":{"status":"completed","usage":null}}`, want: []contract.ModelEvent{
				proposed("call_1", "bash", `{}`, `{}`, 2, 0, 1, false),
				&contract.ModelFinished{Reason: contract.FinishToolUse},
			}},
		}},
		{"calls without an output index, one after the other", []step{
			{typ: typeItemAdded, data: `{"item":{"type":"function_call","call_id":"call_a","name":"glob"}}`, want: []contract.ModelEvent{delta(0, "call_a", "glob", "")}},
			{typ: typeArgsDelta, data: `{"delta":"{\"pattern\":\"*\"}"}`, want: []contract.ModelEvent{delta(0, "call_a", "glob", `{"pattern":"*"}`)}},
			{typ: typeItemDone, data: `{"item":{"type":"function_call","call_id":"call_a","name":"glob","arguments":"{\"pattern\":\"*\"}"}}`, want: []contract.ModelEvent{
				proposed("call_a", "glob", `{"pattern":"*"}`, `{"pattern":"*"}`, 2, 0, 1, false)}},
			{typ: typeItemAdded, data: `{"item":{"type":"function_call","call_id":"call_b","name":"pwd"}}`, want: []contract.ModelEvent{delta(1, "call_b", "pwd", "")}},
			{typ: typeItemDone, data: `{"item":{"type":"function_call","call_id":"call_b","name":"pwd","arguments":"{}"}}`, want: []contract.ModelEvent{
				delta(1, "call_b", "pwd", "{}"),
				proposed("call_b", "pwd", `{}`, `{}`, 2, 2, 3, false)}},
		}},
		{"vendor-run tool items are skipped", []step{
			{typ: typeItemAdded, data: `{"output_index":0,"item":{"id":"lsh_1","type":"local_shell_call","call_id":"call_sh","action":{"type":"exec","command":["ls"]}}}`},
			{typ: typeItemDone, data: `{"output_index":0,"item":{"id":"lsh_1","type":"local_shell_call","call_id":"call_sh","status":"completed"}}`},
			{typ: typeItemDone, data: `{"output_index":1,"item":{"id":"ws_1","type":"web_search_call","status":"completed"}}`},
			{typ: "response.web_search_call.searching", data: `{"output_index":1,"item_id":"ws_1"}`},
			{typ: typeCompleted, data: `{"response":{"status":"completed"}}`, want: []contract.ModelEvent{&contract.ModelFinished{Reason: contract.FinishStop}}},
		}},
		{"built-in and unknown items are skipped whatever their shape", []step{
			{typ: typeItemAdded, data: `{"output_index":0,"item":{"id":"tsc_1","type":"tool_search_call","status":"in_progress","call_id":null,"execution":"server","arguments":{}}}`},
			{typ: typeItemDone, data: `{"output_index":0,"item":{"id":"tsc_1","type":"tool_search_call","status":"completed","execution":"server","arguments":{"query":"run tests"}}}`},
			{typ: typeItemDone, data: `{"output_index":1,"item":{"id":"ig_1","type":"image_generation_call","status":{"phase":"done"},"result":"iVBORw0KGgo="}}`},
			{typ: typeItemDone, data: `{"output_index":2,"item":{"id":7,"type":"future_call","call_id":42,"name":["x"],"arguments":1.5,"content":"text","summary":{},"encrypted_content":[]}}`},
			{typ: typeItemDone, data: `{"output_index":3,"item":{"type":{"nested":"type"},"content":7}}`},
			{typ: typeCompleted, data: `{"response":{"status":"completed","output":[{"type":"tool_search_call","arguments":{"query":"x"}}]}}`, want: []contract.ModelEvent{&contract.ModelFinished{Reason: contract.FinishStop}}},
		}},
		{"output only in response.completed, with items of any shape", []step{
			{typ: typeCompleted, data: `{"response":{"status":"completed","output":[{"type":"tool_search_call","arguments":{"query":"x"}},{"type":"web_search_call","status":{"a":1}},{"type":"message","content":[{"type":"output_text","text":"Found it."}]}]}}`, want: []contract.ModelEvent{
				&contract.TextDelta{Text: "Found it."},
				&contract.ModelFinished{Reason: contract.FinishStop},
			}},
		}},
		{"content parts of unknown types are skipped", []step{
			{typ: typeItemDone, data: `{"output_index":0,"item":{"type":"message","content":[{"type":"output_image","image":{"url":"data:"},"text":{"alt":"x"}},{"type":"output_audio","refusal":[1]},{"type":"output_text","text":"Hi","annotations":[{"type":"url_citation"}]}]}}`,
				want: []contract.ModelEvent{&contract.TextDelta{Text: "Hi"}}},
		}},
		{"a message that did not stream its text", []step{
			{typ: typeItemDone, data: `{"output_index":0,"item":{"type":"message","content":[{"type":"output_text","text":"Hello"},{"type":"refusal","refusal":" no"}]}}`,
				want: []contract.ModelEvent{&contract.TextDelta{Text: "Hello no"}}},
		}},
		{"a message that streamed is not repeated", []step{
			{typ: typeTextDelta, data: `{"output_index":0,"delta":"Hello"}`, want: []contract.ModelEvent{&contract.TextDelta{Text: "Hello"}}},
			{typ: typeItemDone, data: `{"output_index":0,"item":{"type":"message","content":[{"type":"output_text","text":"Hello"}]}}`},
		}},
		{"reasoning item kept for the next turn", []step{
			{typ: typeSummaryDelta, data: `{"output_index":0,"summary_index":0,"delta":"S"}`, want: []contract.ModelEvent{&contract.ReasoningDelta{Text: "S"}}},
			{typ: typeItemDone, data: `{"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"S"}],"encrypted_content":"ENC"}}`},
			{typ: typeItemDone, data: `{"output_index":1,"item":{"id":"rs_2","type":"reasoning","summary":[],"encrypted_content":null}}`},
			{typ: typeCompleted, data: `{"response":{"status":"completed"}}`, want: []contract.ModelEvent{&contract.ModelFinished{Reason: contract.FinishStop,
				ProviderState: json.RawMessage(`{"provider":"responses","reasoning":[{"type":"reasoning","summary":[{"type":"summary_text","text":"S"}],"encrypted_content":"ENC"}]}`)}}},
		}},
		{"incomplete: max_output_tokens", []step{
			{typ: typeIncomplete, data: `{"response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"output_tokens":2}}}`, want: []contract.ModelEvent{
				&contract.ModelUsage{InputTokens: 1, OutputTokens: 2},
				&contract.ModelFinished{Reason: contract.FinishLength},
			}},
		}},
		{"incomplete: content_filter", []step{
			{typ: typeIncomplete, data: `{"response":{"status":"incomplete","incomplete_details":{"reason":"content_filter"}}}`, want: []contract.ModelEvent{
				&contract.ModelFinished{Reason: contract.FinishContentFilter},
			}},
		}},
		{"failed: context length", []step{
			{typ: typeFailed, data: `{"response":{"status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window of this model."}}}`, err: contract.KindContextLength},
		}},
		{"failed without an error object", []step{
			{typ: typeFailed, data: `{"response":{"status":"failed","error":null}}`, err: contract.KindUnknown},
		}},
		{"error event, flat", []step{
			{typ: typeError, data: `{"type":"error","code":"server_error","message":"boom","param":null}`, err: contract.KindServer},
		}},
		{"error event, nested", []step{
			{typ: typeError, data: `{"type":"error","error":{"type":"invalid_request_error","code":"context_length_exceeded","message":"too long"}}`, err: contract.KindContextLength},
		}},
		{"untyped error data", []step{
			{data: `{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}`, err: contract.KindRateLimit},
		}},
		{"untyped data with error null is tolerated", []step{
			{data: `{"error":null,"note":"keepalive"}`},
		}},
		{"unknown frames are tolerated", []step{
			{typ: "response.content_part.added", data: `{"output_index":0,"part":{"type":"output_text","text":""}}`},
			{typ: "response.output_text.done", data: `{"output_index":0,"text":"Hi"}`},
			{typ: "response.something_new", data: `{"x":[1,{"y":null}]}`},
		}},
		{"nothing after the terminal frame", []step{
			{typ: typeCompleted, data: `{"response":{"status":"completed"}}`, want: []contract.ModelEvent{&contract.ModelFinished{Reason: contract.FinishStop}}},
			{typ: typeTextDelta, data: `{"output_index":0,"delta":"late"}`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranslator(tref)
			for i, s := range tc.steps {
				var f frame
				var err error
				if s.typ == "" {
					f, err = decodeUntyped([]byte(s.data))
				} else {
					f, err = decodeFrame(s.typ, []byte(s.data))
				}
				if err != nil {
					t.Fatalf("step %d: decode: %v", i, err)
				}
				got, perr := tr.translate(f)
				if d := cmp.Diff(s.want, got, ignoreErr, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("step %d (%s) events mismatch (-want +got):\n%s", i, s.typ, d)
				}
				switch {
				case s.err == "" && perr != nil:
					t.Errorf("step %d: unexpected error %v", i, perr)
				case s.err != "" && (perr == nil || perr.Kind != s.err || perr.Retryable != s.err.Retryable() || perr.Message == ""):
					t.Errorf("step %d: error %+v, want kind %s", i, perr, s.err)
				case s.err != "" && !tr.done:
					t.Errorf("step %d: a terminal error did not end the stream", i)
				}
			}
		})
	}
}

func TestDecodeEvent(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ev         sse.Event
		data, stry string // the frames' types, "" for none
		fails      bool
	}{
		{"named", sse.Event{Name: typeTextDelta, Data: []byte(`{"delta":"x"}`)}, "*responses.textDeltaFrame", "", false},
		{"type only in the data", sse.Event{Data: []byte(`{"type":"response.output_text.delta","delta":"x"}`)}, "*responses.textDeltaFrame", "", false},
		{"event: message", sse.Event{Name: "message", Data: []byte(`{"type":"response.completed","response":{}}`)}, "*responses.completedFrame", "", false},
		{"[DONE]", sse.Event{Data: []byte("[DONE]")}, "", "", false},
		{"name without data", sse.Event{Name: "ping"}, "", "", false},
		{"not JSON", sse.Event{Data: []byte("<html>")}, "", "", true},
		{"not JSON, named", sse.Event{Name: typeItemDone, Data: []byte("{")}, "", "", true},
		{"not JSON, unknown type", sse.Event{Name: "response.new", Data: []byte("{")}, "", "", true},
		{"wrong field type", sse.Event{Name: typeTextDelta, Data: []byte(`{"delta":7}`)}, "", "", true},
		{"a function call rein reads is decoded strictly", sse.Event{Name: typeItemDone, Data: []byte(`{"item":{"type":"function_call","name":"bash","arguments":{"command":"ls"}}}`)}, "", "", true},
		{"a message rein reads is decoded strictly", sse.Event{Name: typeItemDone, Data: []byte(`{"item":{"type":"message","content":[{"type":"output_text","text":7}]}}`)}, "", "", true},
		{"an item that is no object", sse.Event{Name: typeItemDone, Data: []byte(`{"item":"message"}`)}, "", "", true},
		{"a built-in item of any shape", sse.Event{Name: typeItemDone, Data: []byte(`{"item":{"type":"tool_search_call","arguments":{"query":"x"},"status":{}}}`)}, "*responses.itemDoneFrame", "", false},
		{"stray error body", sse.Event{Stray: []byte(`{"error":{"message":"overloaded"}}`)}, "", "*responses.errorFrame", false},
		{"stray vLLM error", sse.Event{Stray: []byte(`{"object":"error","message":"bad","code":400}`)}, "", "*responses.errorFrame", false},
		{"stray whole response", sse.Event{Stray: []byte(`{"object":"response","status":"completed","output":[]}`)}, "", "*responses.wholeFrame", false},
		{"stray text", sse.Event{Stray: []byte("upstream connect error")}, "", "", false},
		{"stray JSON of no interest", sse.Event{Stray: []byte(`{"hello":1}`)}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, stray, err := decodeEvent(tc.ev)
			if tc.fails {
				var df *decodeFailure
				if !errors.As(err, &df) {
					t.Fatalf("error %v, want a decode failure", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := typeName(data); got != tc.data {
				t.Errorf("data frame %s, want %s", got, tc.data)
			}
			if got := typeName(stray); got != tc.stry {
				t.Errorf("stray frame %s, want %s", got, tc.stry)
			}
		})
	}
}

func typeName(f frame) string {
	if f == nil {
		return ""
	}
	return fmt.Sprintf("%T", f)
}
