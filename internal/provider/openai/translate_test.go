package openai

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rein-agent/rein/internal/contract"
)

var tref = contract.ProviderRef{Name: "openai", Model: "m", RequestID: "req_1"}

// run feeds frames to a fresh translator and, when the last frame leaves
// the stream open for it, closes it as [DONE] would. It returns every event
// and the terminal error.
func run(t *testing.T, frames []string, done bool) ([]contract.ModelEvent, *contract.ProviderError) {
	t.Helper()
	tr := newTranslator(tref)
	var out []contract.ModelEvent
	for _, f := range frames {
		var c chunk
		if err := json.Unmarshal([]byte(f), &c); err != nil {
			t.Fatalf("frame %s: %v", f, err)
		}
		events, err := tr.translate(&c, false)
		out = append(out, events...)
		if err != nil {
			return out, err
		}
	}
	if done {
		out = append(out, tr.end()...)
	}
	return out, nil
}

func intent(id, name, input, raw string, fragments, first, last int, repaired bool) *contract.IntentProposed {
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: id, ToolName: name, Input: json.RawMessage(input), RawInput: raw, Provider: tref,
		AssembledFrom: contract.Assembly{Fragments: fragments, FirstIndex: first, LastIndex: last, HadRepair: repaired},
	}}
}

func finished(r contract.FinishReason) *contract.ModelFinished {
	return &contract.ModelFinished{Reason: r}
}

func TestTranslatorFrames(t *testing.T) {
	for _, tc := range []struct {
		name    string
		frames  []string
		done    bool
		want    []contract.ModelEvent
		wantErr contract.ErrorKind
	}{
		{
			name:   "role-only first chunk yields nothing",
			frames: []string{`{"choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"finish_reason":null}],"usage":null}`},
		},
		{
			name:   "content",
			frames: []string{`{"choices":[{"index":0,"delta":{"content":"Hi \"you\"\n"}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "Hi \"you\"\n"}},
		},
		{
			name:   "refusal is answer text",
			frames: []string{`{"choices":[{"index":0,"delta":{"refusal":"I can't help with that."}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "I can't help with that."}},
		},
		{
			name:   "reasoning_content",
			frames: []string{`{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"hmm"}}]}`},
			want:   []contract.ModelEvent{&contract.ReasoningDelta{Text: "hmm"}},
		},
		{
			name:   "reasoning",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning":"hmm"}}]}`},
			want:   []contract.ModelEvent{&contract.ReasoningDelta{Text: "hmm"}},
		},
		{
			name:   "reasoning and reasoning_content with the same text count once",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning":"hmm","reasoning_content":"hmm"}}]}`},
			want:   []contract.ModelEvent{&contract.ReasoningDelta{Text: "hmm"}},
		},
		{
			name:   "reasoning and reasoning_details count once",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning":"hmm","reasoning_details":[{"type":"reasoning.text","text":"hmm","index":0}]}}]}`},
			want:   []contract.ModelEvent{&contract.ReasoningDelta{Text: "hmm"}},
		},
		{
			name:   "reasoning_details alone",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.summary","summary":"**Plan**","index":0},{"type":"reasoning.encrypted","data":"xx","index":1}]}}]}`},
			want:   []contract.ModelEvent{&contract.ReasoningDelta{Text: "**Plan**"}},
		},
		{
			name:   "reasoning before text in one delta",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning_content":"so","content":"ok"}}]}`},
			want:   []contract.ModelEvent{&contract.ReasoningDelta{Text: "so"}, &contract.TextDelta{Text: "ok"}},
		},
		{
			name:   "a reasoning field of an unexpected type is ignored, not fatal",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning":{"effort":"low"},"content":"ok"}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "ok"}},
		},
		{
			name:   "first fragment, id and name",
			frames: []string{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":""}}]}}]}`},
			want:   []contract.ModelEvent{&contract.IntentDelta{Index: 0, ProviderCallID: "call_1", ToolName: "bash"}},
		},
		{
			name: "fragments, then finish_reason ends the call",
			frames: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"command\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []contract.ModelEvent{
				&contract.IntentDelta{ProviderCallID: "call_1", ToolName: "bash"},
				&contract.IntentDelta{ProviderCallID: "call_1", ToolName: "bash", RawInput: `{"command":`},
				&contract.IntentDelta{ProviderCallID: "call_1", ToolName: "bash", RawInput: `{"command":"ls"}`},
				intent("call_1", "bash", `{"command":"ls"}`, `{"command":"ls"}`, 3, 0, 2, false),
			},
		},
		{
			name:   "arguments sent as an object",
			frames: []string{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"bash","arguments":{"command":"ls"}}}]},"finish_reason":"tool_calls"}]}`},
			want: []contract.ModelEvent{
				&contract.IntentDelta{ProviderCallID: "c", ToolName: "bash", RawInput: `{"command":"ls"}`},
				intent("c", "bash", `{"command":"ls"}`, `{"command":"ls"}`, 1, 0, 0, false),
			},
		},
		{
			name: "parallel calls all at index 0, told apart by id",
			frames: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]},"finish_reason":"tool_calls"}]}`,
			},
			want: []contract.ModelEvent{
				&contract.IntentDelta{Index: 0, ProviderCallID: "a", ToolName: "read_file", RawInput: `{"path":"a"}`},
				&contract.IntentDelta{Index: 1, ProviderCallID: "b", ToolName: "read_file", RawInput: `{"path":"b"}`},
				intent("a", "read_file", `{"path":"a"}`, `{"path":"a"}`, 1, 0, 0, false),
				intent("b", "read_file", `{"path":"b"}`, `{"path":"b"}`, 1, 1, 1, false),
			},
		},
		{
			name: "a call of another type is skipped, fragments and all",
			frames: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","type":"custom","custom":{"name":"t","input":"1"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"more"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
		},
		{
			name:   "finish_reason on the chunk of a whole call, with usage",
			frames: []string{`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"list_dir","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}`},
			done:   true,
			want: []contract.ModelEvent{
				&contract.IntentDelta{ProviderCallID: "c", ToolName: "list_dir", RawInput: "{}"},
				intent("c", "list_dir", `{}`, `{}`, 1, 0, 0, false),
				&contract.ModelUsage{InputTokens: 5, OutputTokens: 2},
				finished(contract.FinishToolUse),
			},
		},
		{
			name:   "usage in a chunk without choices",
			frames: []string{`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":1}}}`},
			done:   true,
			want:   []contract.ModelEvent{&contract.ModelUsage{InputTokens: 7, OutputTokens: 3, CacheReadTokens: 4, ReasoningTokens: 1}, finished(contract.FinishStop)},
		},
		{
			name:   "usage in x_groq",
			frames: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"x_groq":{"id":"r","usage":{"prompt_tokens":7,"completion_tokens":3}}}`},
			done:   true,
			want:   []contract.ModelEvent{&contract.ModelUsage{InputTokens: 7, OutputTokens: 3}, finished(contract.FinishStop)},
		},
		{
			name:   "DeepSeek's cache hits",
			frames: []string{`{"choices":[],"usage":{"prompt_tokens":70,"completion_tokens":3,"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":6}}`},
			done:   true,
			want:   []contract.ModelEvent{&contract.ModelUsage{InputTokens: 70, OutputTokens: 3, CacheReadTokens: 64}, finished(contract.FinishStop)},
		},
		{
			name: "logprobs of any shape are ignored",
			frames: []string{
				`{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[{"token":"a","logprob":-0.1,"bytes":[97],"top_logprobs":[]}]}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"b"},"logprobs":[1,"x"]}]}`,
			},
			want: []contract.ModelEvent{&contract.TextDelta{Text: "a"}, &contract.TextDelta{Text: "b"}},
		},
		{
			name:   "x_groq that is no object is no extension",
			frames: []string{`{"choices":[{"index":0,"delta":{"content":"a"}}],"x_groq":"req_1"}`, `{"choices":[],"x_groq":["x"]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "a"}},
		},
		{
			name:   "a type that is no string",
			frames: []string{`{"type":{"kind":"chunk"},"choices":[{"index":0,"delta":{"content":"a"}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "a"}},
		},
		{
			name:   "content parts of unknown types, of any shape",
			frames: []string{`{"choices":[{"index":0,"delta":{"content":[{"type":{"v":2},"text":"no"},{"type":"image_url","image_url":{"url":"data:"}},{"type":"text","text":"yes"}]}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "yes"}},
		},
		{
			name: "reasoning_details of an unknown type, of any shape",
			frames: []string{`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.future","index":"zero","data":{"blob":true},"id":12,"signature":false},` +
				`{"type":"reasoning.text","text":"think","index":1}]}}]}`},
			want: []contract.ModelEvent{&contract.ReasoningDelta{Text: "think"}},
		},
		{
			name:   "Azure's prompt_filter_results chunk",
			frames: []string{`{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`},
		},
		{
			name:   "error null",
			frames: []string{`{"error":null,"choices":[{"index":0,"delta":{"content":"x"}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "x"}},
		},
		{
			name:    "error object",
			frames:  []string{`{"error":{"message":"boom","type":"server_error"}}`},
			wantErr: contract.KindServer,
		},
		{
			name:    "error text",
			frames:  []string{`{"error":"the model ran out of memory"}`},
			wantErr: contract.KindUnknown,
		},
		{
			name:    "vLLM's error object",
			frames:  []string{`{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}`},
			wantErr: contract.KindContextLength,
		},
		{
			name:    "Groq's tool_use_failed",
			frames:  []string{`{"error":{"message":"Failed to call a function.","type":"invalid_request_error","code":"tool_use_failed"}}`},
			wantErr: contract.KindMalformedToolCall,
		},
		{
			name: "choice 0 by its index, not its place; other choices ignored, their finish too",
			frames: []string{
				`{"choices":[{"index":1,"delta":{"content":"second"}},{"index":0,"delta":{"content":"first"}}]}`,
				`{"choices":[{"index":1,"delta":{"tool_calls":[{"index":0,"id":"c2","type":"function","function":{"name":"bash","arguments":"{}"}}]},"finish_reason":"length"}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			},
			done: true,
			want: []contract.ModelEvent{&contract.TextDelta{Text: "first"}, finished(contract.FinishStop)},
		},
		{
			name:   "a choice without an index, or with one that is no number, is choice 0",
			frames: []string{`{"choices":[{"delta":{"content":"a"}}]}`, `{"choices":[{"index":null,"delta":{"content":"b"}}]}`, `{"choices":[{"index":"0","delta":{"content":"c"}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "a"}, &contract.TextDelta{Text: "b"}, &contract.TextDelta{Text: "c"}},
		},
		{
			name:   "a second choice 0 in one chunk is ignored",
			frames: []string{`{"choices":[{"index":0,"delta":{"content":"a"}},{"index":0,"delta":{"content":"b"}}]}`},
			want:   []contract.ModelEvent{&contract.TextDelta{Text: "a"}},
		},
		{
			name: "a message beside the delta is never read (Writer repeats the delta, Perplexity sends the total)",
			frames: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hi"},"message":{"content":"Hi"}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]},"message":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"content":""},"message":{"content":"Hi there"},"finish_reason":"tool_calls"}]}`,
			},
			done: true,
			want: []contract.ModelEvent{
				&contract.TextDelta{Text: "Hi"},
				&contract.IntentDelta{ProviderCallID: "c", ToolName: "ls", RawInput: "{}"},
				intent("c", "ls", `{}`, `{}`, 1, 0, 0, false),
				finished(contract.FinishToolUse),
			},
		},
		{
			name: "a message in place of deltas is read once; an empty one does not count",
			frames: []string{
				`{"choices":[{"index":0,"message":{"role":"assistant","content":""}}]}`,
				`{"choices":[{"index":0,"message":{"content":"All","tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"message":{"content":"All done"},"finish_reason":"stop"}]}`,
			},
			done: true,
			want: []contract.ModelEvent{
				&contract.TextDelta{Text: "All"},
				&contract.IntentDelta{ProviderCallID: "c", ToolName: "ls", RawInput: "{}"},
				intent("c", "ls", `{}`, `{}`, 1, 0, 0, false),
				finished(contract.FinishToolUse),
			},
		},
		{
			name: "no message once deltas streamed",
			frames: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hi"}}]}`,
				`{"choices":[{"index":0,"message":{"content":"Hi"},"finish_reason":"stop"}]}`,
			},
			want: []contract.ModelEvent{&contract.TextDelta{Text: "Hi"}},
		},
		{
			name:    "finish_reason error",
			frames:  []string{`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"error"}]}`},
			want:    []contract.ModelEvent{&contract.TextDelta{Text: "a"}},
			wantErr: contract.KindServer,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := run(t, tc.frames, tc.done)
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("events mismatch (-want +got):\n%s", d)
			}
			var kind contract.ErrorKind
			if err != nil {
				kind = err.Kind
			}
			if kind != tc.wantErr {
				t.Errorf("error %v, want kind %q", err, tc.wantErr)
			}
		})
	}
}

func TestFinishReasons(t *testing.T) {
	for _, tc := range []struct {
		reason string
		call   bool
		want   contract.FinishReason
	}{
		{"stop", false, contract.FinishStop},
		{"stop", true, contract.FinishToolUse},
		{"tool_calls", true, contract.FinishToolUse},
		{"function_call", true, contract.FinishToolUse},
		{"length", false, contract.FinishLength},
		{"length", true, contract.FinishLength},
		{"content_filter", false, contract.FinishContentFilter},
		{"eos", false, contract.FinishStop},
		{"", false, contract.FinishStop},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			var frames []string
			if tc.call {
				frames = append(frames, `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`)
			}
			if tc.reason != "" {
				frames = append(frames, `{"choices":[{"index":0,"delta":{},"finish_reason":"`+tc.reason+`"}]}`)
			}
			got, _ := run(t, frames, true)
			if f, ok := got[len(got)-1].(*contract.ModelFinished); !ok || f.Reason != tc.want {
				t.Errorf("ended with %v, want model.finished %s", got[len(got)-1], tc.want)
			}
		})
	}
}

func TestThinkSplitter(t *testing.T) {
	for _, tc := range []struct {
		name            string
		pieces          []string
		text, reasoning string
	}{
		{"no tags", []string{"Hello ", "world"}, "Hello world", ""},
		{"whole tags", []string{"<think>plan</think>\n\nAnswer"}, "Answer", "plan"},
		{"leading whitespace", []string{"\n\n", "<think>", "plan", "</think>", "Answer"}, "Answer", "plan"},
		{"tags split one byte at a time", []string{"<", "t", "h", "i", "n", "k", ">", "a<b", "<", "/", "t", "hink", ">", " ", "x"}, "x", "a<b"},
		{"a lookalike of the closing tag", []string{"<think>a</thinker> b</think>c"}, "c", "a</thinker> b"},
		{"a tag not at the start is text", []string{"Use <think> tags"}, "Use <think> tags", ""},
		{"something that starts like a tag", []string{"<thi", "s is html>"}, "<this is html>", ""},
		{"only whitespace", []string{"  ", "\n"}, "  \n", ""},
		{"unclosed think", []string{"<think>still thinking </thi"}, "", "still thinking </thi"},
		{"a partial opening tag at the end", []string{"<thi"}, "<thi", ""},
		{"empty think", []string{"<think></think>", "ok"}, "ok", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sp thinkSplitter
			var text, reasoning string
			for _, p := range tc.pieces {
				tx, r := sp.split(p)
				text += tx
				reasoning += r
			}
			tx, r := sp.flush()
			text += tx
			reasoning += r
			if text != tc.text || reasoning != tc.reasoning {
				t.Errorf("text %q reasoning %q, want %q and %q", text, reasoning, tc.text, tc.reasoning)
			}
		})
	}
}

func TestReasoningDetailsMerge(t *testing.T) {
	var d details
	d.add([]reasoningDetail{{Type: "reasoning.text", Text: "a", Format: "f", Index: 0}})
	d.add([]reasoningDetail{{Type: "reasoning.text", Text: "b", Index: 0}, {Type: "reasoning.encrypted", Data: "x", Index: 1}})
	d.add([]reasoningDetail{{Type: "reasoning.text", Signature: "sig", Index: 0}, {Type: "reasoning.encrypted", Data: "y", ID: "id1", Index: 1}})
	want := []reasoningDetail{
		{Type: "reasoning.text", Text: "ab", Format: "f", Signature: "sig", Index: 0},
		{Type: "reasoning.encrypted", Data: "xy", ID: "id1", Index: 1},
	}
	if diff := cmp.Diff(want, d.entries); diff != "" {
		t.Errorf("merged entries mismatch (-want +got):\n%s", diff)
	}
	if !d.needed() {
		t.Error("needed() = false with a signature and encrypted data")
	}
	var plain details
	plain.add([]reasoningDetail{{Type: "reasoning.text", Text: "a"}})
	if plain.needed() {
		t.Error("needed() = true for plain text, which the message's reasoning already holds")
	}
}
