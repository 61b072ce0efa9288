package gemini

import (
	"testing"

	"github.com/rein-agent/rein/internal/contract"
)

// TestTranslator feeds chunks, one decoded frame at a time, to a
// translator and checks the events each yields, then the events that close
// the stream (when its terminal frame came) or the terminal error.
func TestTranslator(t *testing.T) {
	ref := contract.ProviderRef{Name: "gemini", Model: "m", RequestID: "r"}
	mal := func(msg string) contract.ModelEvent {
		return providerError(ref, contract.KindMalformedToolCall, msg)
	}
	prop := func(id, name, input, raw string, f contract.Assembly) contract.ModelEvent {
		return proposedBy(ref, id, name, input, raw, f)
	}
	type step struct {
		frame string
		want  []contract.ModelEvent
	}
	for _, tc := range []struct {
		name  string
		steps []step
		// end is what finishEvents yields; nil when the stream never
		// reached its terminal frame.
		end      []contract.ModelEvent
		terminal bool
		err      *contract.ProviderError
	}{
		{
			name: "text parts, several in one chunk, empty ones skipped",
			steps: []step{
				{`{"candidates":[{"content":{"role":"model","parts":[{"text":"a"},{"text":""},{"text":"b"}]}}]}`, []contract.ModelEvent{text("a"), text("b")}},
				{`{"candidates":[{"content":{"role":"model","parts":[{"text":"c"}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{text("c")}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, "")},
		},
		{
			name: "thought parts are reasoning; their signatures are kept",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"text":"hmm","thought":true}]}}]}`, []contract.ModelEvent{reasoning("hmm")}},
				{`{"candidates":[{"content":{"parts":[{"text":"","thought":true,"thoughtSignature":"dA=="},{"text":"ok","thoughtSignature":"eA=="}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{text("ok")}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, `{"provider":"gemini","parts":[{"kind":"thought","signature":"dA=="},{"kind":"text","signature":"eA=="}]}`)},
		},
		{
			name: "a whole call with an id, signed",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"bash","args":{"command":"ls"}},"thoughtSignature":"cw=="}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{
					delta(0, "c1", "bash", `{"command":"ls"}`),
					prop("c1", "bash", `{"command":"ls"}`, `{"command":"ls"}`, from(1, 0, 0)),
				}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"c1","signature":"cw=="}]}`)},
		},
		{
			name: "whole calls without ids get call_<n>, across chunks",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","args":{}}},{"functionCall":{"name":"b"}}]}}]}`, []contract.ModelEvent{
					delta(0, "call_0", "a", `{}`), prop("call_0", "a", `{}`, `{}`, from(1, 0, 0)),
					delta(1, "call_1", "b", `{}`), prop("call_1", "b", `{}`, `{}`, from(1, 1, 1)),
				}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"c","args":null}}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{
					delta(2, "call_2", "c", `{}`), prop("call_2", "c", `{}`, `{}`, from(1, 2, 2)),
				}},
			},
			terminal: true,
			end: []contract.ModelEvent{finished(contract.FinishToolUse,
				`{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true},{"kind":"call","call_id":"call_1","synthetic_id":true},{"kind":"call","call_id":"call_2","synthetic_id":true}]}`)},
		},
		{
			name: "a whole call whose args are not an object is malformed, the stream goes on",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"bash","args":[1]}}]}}]}`, []contract.ModelEvent{
					delta(0, "c1", "bash", `[1]`), mal(`tool call "bash" (id c1) arguments are a JSON array, not an object`),
				}},
				{`{"candidates":[{"content":{"parts":[{"text":"sorry"}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{text("sorry")}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, "")},
		},
		{
			name: "a call without a name is malformed",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","args":{}}}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{
					delta(0, "c1", "", `{}`), mal(`tool call #0 (id c1) has no tool name`),
				}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, "")},
		},
		{
			name: "partialArgs: start, pieces, empty end marker",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"edit","willContinue":true},"thoughtSignature":"cQ=="}]}}]}`, []contract.ModelEvent{delta(0, "call_0", "edit", ``)}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.old","stringValue":"a\"b","willContinue":true}],"willContinue":true}}]}}]}`, []contract.ModelEvent{delta(0, "call_0", "edit", `{"old":"a\"b`)}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.old","stringValue":"c"},{"jsonPath":"$.n","numberValue":3}],"willContinue":true}}]}}]}`, []contract.ModelEvent{delta(0, "call_0", "edit", `{"old":"a\"bc","n":3`)}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{}}]}}]}`, []contract.ModelEvent{
					delta(0, "call_0", "edit", `{"old":"a\"bc","n":3}`),
					prop("call_0", "edit", `{"old":"a\"bc","n":3}`, `{"old":"a\"bc","n":3}`, from(4, 0, 3)),
				}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{}}]},"finishReason":"STOP"}]}`, nil},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true,"signature":"cQ=="}]}`)},
		},
		{
			name: "partialArgs: a signature on a later part of the call",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"k","name":"bash","willContinue":true}}]}}]}`, []contract.ModelEvent{delta(0, "k", "bash", ``)}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.command","stringValue":"ls"}]},"thoughtSignature":"cg=="}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{
					delta(0, "k", "bash", `{"command":"ls"}`),
					prop("k", "bash", `{"command":"ls"}`, `{"command":"ls"}`, from(2, 0, 1)),
				}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"k","signature":"cg=="}]}`)},
		},
		{
			name: "partialArgs: a new call ends the one streaming",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a","partialArgs":[{"jsonPath":"$.x","boolValue":false}],"willContinue":true}}]}}]}`, []contract.ModelEvent{delta(0, "call_0", "a", `{"x":false`)}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"b","args":{"y":1}}}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{
					delta(0, "call_0", "a", `{"x":false}`),
					prop("call_0", "a", `{"x":false}`, `{"x":false}`, from(2, 0, 1)),
					delta(1, "call_1", "b", `{"y":1}`),
					prop("call_1", "b", `{"y":1}`, `{"y":1}`, from(1, 2, 2)),
				}},
			},
			terminal: true,
			end: []contract.ModelEvent{finished(contract.FinishToolUse,
				`{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true},{"kind":"call","call_id":"call_1","synthetic_id":true}]}`)},
		},
		{
			name: "partialArgs: the finish ends the call still streaming",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"z","name":"a","partialArgs":[{"jsonPath":"$.s","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}`, []contract.ModelEvent{delta(0, "z", "a", `{"s":"x`)}},
				{`{"candidates":[{"finishReason":"STOP"}]}`, []contract.ModelEvent{
					delta(0, "z", "a", `{"s":"x"}`),
					prop("z", "a", `{"s":"x"}`, `{"s":"x"}`, from(2, 0, 1)),
				}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishToolUse, "")},
		},
		{
			name: "partialArgs out of order make the call malformed",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"z","name":"a","partialArgs":[{"jsonPath":"$.a.b","numberValue":1},{"jsonPath":"$.c","numberValue":2}],"willContinue":true}}]}}]}`, []contract.ModelEvent{delta(0, "z", "a", `{"a":{"b":1},"c":2`)}},
				{`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a.d","numberValue":3}]}}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{
					mal(`tool call "a" (id z) streamed arguments that cannot be assembled: path $.a.d: member "a" written twice`),
				}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, "")},
		},
		{
			name: "usage is cumulative: the last figures, once, before finished",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"totalTokenCount":11}}`, []contract.ModelEvent{text("a")}},
				{`{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":2,"thoughtsTokenCount":5,"cachedContentTokenCount":4,"toolUsePromptTokenCount":1}}`, []contract.ModelEvent{text("b")}},
				{`{"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"thoughtsTokenCount":5,"cachedContentTokenCount":4,"toolUsePromptTokenCount":1}}`, nil},
			},
			terminal: true,
			end:      []contract.ModelEvent{usage(11, 8, 4, 5), finished(contract.FinishStop, "")},
		},
		{
			name:     "a blocked prompt is terminal: content_filter",
			steps:    []step{{`{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}`, nil}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishContentFilter, "")},
		},
		{
			name:  "prompt feedback without a block reason is not",
			steps: []step{{`{"promptFeedback":{"safetyRatings":[]},"candidates":[{"content":{"parts":[{"text":"x"}]}}]}`, []contract.ModelEvent{text("x")}}},
		},
		{
			name:     "finish MAX_TOKENS",
			steps:    []step{{`{"candidates":[{"finishReason":"MAX_TOKENS"}]}`, nil}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishLength, "")},
		},
		{
			name:     "finish RECITATION",
			steps:    []step{{`{"candidates":[{"finishReason":"RECITATION"}]}`, nil}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishContentFilter, "")},
		},
		{
			name:     "finish SPII",
			steps:    []step{{`{"candidates":[{"finishReason":"SPII"}]}`, nil}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishContentFilter, "")},
		},
		{
			name:     "finish BLOCKLIST",
			steps:    []step{{`{"candidates":[{"finishReason":"BLOCKLIST"}]}`, nil}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishContentFilter, "")},
		},
		{
			name: "finish UNEXPECTED_TOOL_CALL",
			steps: []step{{`{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL"}]}`, []contract.ModelEvent{
				mal("the model produced a function call Gemini could not parse (UNEXPECTED_TOOL_CALL)"),
			}}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishError, "")},
		},
		{
			name:     "a finish reason newer than the adapter",
			steps:    []step{{`{"candidates":[{"finishReason":"SOMETHING_NEW"}]}`, nil}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishError, "")},
		},
		{
			name: "only the first candidate is read",
			steps: []step{{`{"candidates":[{"content":{"parts":[{"text":"one"}]},"finishReason":"STOP"},{"content":{"parts":[{"text":"two"}]},"index":1}]}`,
				[]contract.ModelEvent{text("one")}}},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, "")},
		},
		{
			name:  "code execution parts are skipped",
			steps: []step{{`{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"1"}},{"codeExecutionResult":{"outcome":"OUTCOME_OK"}}]}}]}`, nil}},
		},
		{
			name: "parts of other kinds are skipped whatever their shape; a string signature is kept",
			steps: []step{
				{`{"candidates":[{"content":{"parts":[{"executableCode":{"language":"PYTHON","code":"1"},"thought":"false"},{"codeExecutionResult":{"outcome":"OUTCOME_OK"},"thoughtSignature":{"v":1}}]}}]}`, nil},
				{`{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBO"},"text":{"caption":"chart"}},{"inlineData":"no object"},{"futurePart":[1],"thought":{},"thoughtSignature":"cw=="},{"text":"done"}]},"finishReason":"STOP"}]}`, []contract.ModelEvent{text("done")}},
			},
			terminal: true,
			end:      []contract.ModelEvent{finished(contract.FinishStop, `{"provider":"gemini","parts":[{"kind":"text","signature":"cw=="}]}`)},
		},
		{
			name:  `"error": null is not an error`,
			steps: []step{{`{"error":null,"candidates":[{"content":{"parts":[{"text":"x"}]}}]}`, []contract.ModelEvent{text("x")}}},
		},
		{
			name:  "an error object ends the stream",
			steps: []step{{`{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}`, nil}},
			err:   providerError(ref, contract.KindOverloaded, "The model is overloaded."),
		},
		{
			name:  "an error given as text",
			steps: []step{{`{"error":"upstream went away"}`, nil}},
			err:   providerError(ref, contract.KindUnknown, "upstream went away"),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranslator(ref)
			var perr *contract.ProviderError
			for i, st := range tc.steps {
				var c chunk
				if err := decodeChunk([]byte(st.frame), &c); err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				var got []contract.ModelEvent
				got, perr = tr.translate(&c)
				if d := diffEvents(st.want, got); d != "" {
					t.Errorf("frame %d events mismatch (-want +got):\n%s", i, d)
				}
				if perr != nil && i != len(tc.steps)-1 {
					t.Fatalf("frame %d ended the stream: %v", i, perr)
				}
			}
			if d := diffEvents([]contract.ModelEvent{tc.err}, []contract.ModelEvent{perr}); d != "" {
				t.Errorf("terminal error mismatch (-want +got):\n%s", d)
			}
			if tr.terminal() != tc.terminal {
				t.Fatalf("terminal() = %v, want %v", tr.terminal(), tc.terminal)
			}
			if tc.terminal {
				if d := diffEvents(tc.end, tr.finishEvents()); d != "" {
					t.Errorf("closing events mismatch (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestDecodeChunks checks that a part of a kind rein does not read never
// fails a chunk, alone or in a JSON array, while a part rein reads still
// must have its shape.
func TestDecodeChunks(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		texts      int // text parts decoded, over all chunks
		fails      bool
	}{
		{"one chunk", `{"candidates":[{"content":{"parts":[{"executableCode":{"code":1},"thought":"no"},{"text":"a"}]}}]}`, 1, false},
		{"an array", `[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]},{"candidates":[{"content":{"parts":[{"inlineData":[],"text":{}},{"text":"b"}]}}]}]`, 2, false},
		{"a second candidate", `{"candidates":[{"content":{"parts":[{"text":"a"}]}},{"content":{"parts":[{"codeExecutionResult":"x","thoughtSignature":7}]}}]}`, 1, false},
		{"a text part of the wrong shape", `{"candidates":[{"content":{"parts":[{"text":"a","thought":"yes"}]}}]}`, 0, true},
		{"in an array too", `[{"candidates":[]},{"candidates":[{"content":{"parts":[{"text":5}]}}]}]`, 0, true},
		{"a call of the wrong shape", `{"candidates":[{"content":{"parts":[{"functionCall":{"args":{},"name":5}}]}}]}`, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks, err := decodeChunks([]byte(tc.data))
			if (err != nil) != tc.fails {
				t.Fatalf("decodeChunks() error %v, want failure %v", err, tc.fails)
			}
			texts := 0
			for _, c := range chunks {
				for _, cand := range c.Candidates {
					if cand.Content == nil {
						continue
					}
					for _, p := range cand.Content.Parts {
						if p.Text != "" {
							texts++
						}
					}
				}
			}
			if !tc.fails && texts != tc.texts {
				t.Errorf("%d text parts, want %d", texts, tc.texts)
			}
		})
	}
}
