package gemini

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

// The fixtures under testdata are raw response bodies written from the
// API reference and the recorded facts of issue 3 (CRLF line ends, usage
// on every chunk, calls without ids, STOP ending a turn of calls). Each is
// served by httptest and read through the real adapter.

func TestFixtures(t *testing.T) {
	const (
		sse  = "text/event-stream"
		json = "application/json"
	)
	for _, tc := range []struct {
		name, file, contentType string
		want                    []contract.ModelEvent
		err                     *contract.ProviderError
	}{
		{
			name: "text only, usage cumulative on every chunk", file: "text.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Hello"), text(", world"), text("!"), usage(12, 4, 0, 0), finished(contract.FinishStop, "")},
		},
		{
			name: "one call split over many fragments", file: "partial_args.sse", contentType: sse,
			want: []contract.ModelEvent{
				started(),
				delta(0, "fc_7", "write_file", ``),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go"`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n","options":{"mode":420,"create":true`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n","options":{"mode":420,"create":true,"owner":null},"tags":["go"`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n","options":{"mode":420,"create":true,"owner":null},"tags":["go","<main> & co"`),
				delta(0, "fc_7", "write_file", `{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n","options":{"mode":420,"create":true,"owner":null},"tags":["go","<main> & co"]}`),
				proposed("fc_7", "write_file",
					`{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n","options":{"mode":420,"create":true,"owner":null},"tags":["go","<main> & co"]}`,
					`{"path":"src/main.go","content":"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n","options":{"mode":420,"create":true,"owner":null},"tags":["go","<main> & co"]}`,
					from(9, 0, 8)),
				usage(50, 60, 0, 0),
				finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"fc_7","signature":"c2lnLXdyaXRl"}]}`),
			},
		},
		{
			name: "parallel calls, without ids and with one", file: "parallel.sse", contentType: sse,
			want: []contract.ModelEvent{
				started(),
				delta(0, "call_0", "read_file", `{"path": "a.go"}`),
				proposed("call_0", "read_file", `{"path":"a.go"}`, `{"path": "a.go"}`, from(1, 0, 0)),
				delta(1, "call_1", "read_file", `{"path": "b.go"}`),
				proposed("call_1", "read_file", `{"path":"b.go"}`, `{"path": "b.go"}`, from(1, 1, 1)),
				delta(2, "x9k2", "grep", `{"pattern": "func main","path": "."}`),
				proposed("x9k2", "grep", `{"pattern":"func main","path":"."}`, `{"pattern": "func main","path": "."}`, from(1, 2, 2)),
				usage(30, 25, 0, 0),
				finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true,"signature":"c2lnLXBhcg=="},{"kind":"call","call_id":"call_1","synthetic_id":true}]}`),
			},
		},
		{
			name: "no-arg tools", file: "noarg.sse", contentType: sse,
			want: []contract.ModelEvent{
				started(),
				delta(0, "call_0", "list_dir", `{}`),
				proposed("call_0", "list_dir", `{}`, `{}`, from(1, 0, 0)),
				delta(1, "call_1", "pwd", `{}`),
				proposed("call_1", "pwd", `{}`, `{}`, from(1, 1, 1)),
				usage(20, 8, 0, 0),
				finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true},{"kind":"call","call_id":"call_1","synthetic_id":true}]}`),
			},
		},
		{
			name: "reasoning, then text signed on an empty part", file: "reasoning.sse", contentType: sse,
			want: []contract.ModelEvent{
				started(),
				reasoning("**Checking the tests**\n\nThe user wants"), reasoning(" the failing test found."),
				text("The test fails because"), text(" sum is off by one."),
				usage(25, 130, 16, 120),
				finished(contract.FinishStop, `{"provider":"gemini","parts":[{"kind":"text","signature":"c2lnLXRleHQ="}]}`),
			},
		},
		{
			name: "usage only after the terminal frame", file: "usage_trailing.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Done."), usage(9, 2, 0, 0), finished(contract.FinishStop, "")},
		},
		{
			name: "no usage at all", file: "usage_none.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Done."), finished(contract.FinishStop, "")},
		},
		{
			name: "vendor-run code execution is not an intent", file: "vendor_tools.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Let me compute that."), text("It is 1024."), usage(15, 30, 0, 0), finished(contract.FinishStop, "")},
		},
		{
			name: "parts of kinds rein does not read, of any shape", file: "odd_parts.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Plotting it."), text(" The line goes up."), usage(20, 40, 0, 0), finished(contract.FinishStop, "")},
		},
		{
			name: "unknown fields, parts and frames tolerated", file: "unknown.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Hi"), text(" there"), usage(5, 2, 0, 0), finished(contract.FinishStop, "")},
		},
		{
			name: "blocked prompt", file: "blocked.sse", contentType: sse,
			want: []contract.ModelEvent{started(), usage(7, 0, 0, 0), finished(contract.FinishContentFilter, "")},
		},
		{
			name: "finish SAFETY", file: "safety.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("I can"), finished(contract.FinishContentFilter, "")},
		},
		{
			name: "finish MAX_TOKENS", file: "max_tokens.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("A very long"), text(" answer"), usage(5, 100, 0, 0), finished(contract.FinishLength, "")},
		},
		{
			name: "finish MALFORMED_FUNCTION_CALL", file: "malformed.sse", contentType: sse,
			want: []contract.ModelEvent{
				started(),
				providerError(testRef, contract.KindMalformedToolCall, "the model produced a function call Gemini could not parse (MALFORMED_FUNCTION_CALL): Malformed function call: print(default_api.bash(command='ls')"),
				usage(5, 9, 0, 0),
				finished(contract.FinishError, ""),
			},
		},
		{
			name: "mid-stream error after the SSE lines", file: "midstream_error.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Working")},
			err:  providerError(testRef, contract.KindOverloaded, "The model is overloaded. Please try again later."),
		},
		{
			name: "mid-stream error in a JSON array, with a retry delay", file: "midstream_array_error.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Working")},
			err: func() *contract.ProviderError {
				e := providerError(testRef, contract.KindRateLimit, "Resource has been exhausted (e.g. check quota).")
				e.RetryAfterMS = 7000
				return e
			}(),
		},
		{
			name: "mid-stream error as a data line", file: "data_error.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Working")},
			err:  providerError(testRef, contract.KindServer, "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"),
		},
		{
			name: "truncated inside a line", file: "truncated.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Hello"), delta(0, "call_0", "bash", ``), delta(0, "call_0", "bash", `{"command":"ls"`)},
			err:  providerError(testRef, contract.KindStreamInterrupted, "the stream ended without its terminal frame (the body stops in the middle of a line)"),
		},
		{
			name: "truncated between chunks", file: "truncated_clean.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Hello"), delta(0, "call_0", "bash", ``), delta(0, "call_0", "bash", `{"command":"ls"`)},
			err:  providerError(testRef, contract.KindStreamInterrupted, "the stream ended without a candidate with a finishReason"),
		},
		{
			name: "a data line that is not JSON", file: "non_json.sse", contentType: sse,
			want: []contract.ModelEvent{started(), text("Hello")},
			err:  providerError(testRef, contract.KindUnknown, "the stream sent a data line that is not a Gemini response: this is not json"),
		},
		{
			name: "a whole application/json response", file: "whole.json", contentType: json,
			want: []contract.ModelEvent{
				started(),
				text("Reading it."),
				delta(0, "call_0", "read_file", "{\n                \"path\": \"go.mod\"\n              }"),
				proposed("call_0", "read_file", `{"path":"go.mod"}`, "{\n                \"path\": \"go.mod\"\n              }", from(1, 0, 0)),
				usage(11, 6, 0, 0),
				finished(contract.FinishToolUse, `{"provider":"gemini","parts":[{"kind":"call","call_id":"call_0","synthetic_id":true,"signature":"c2lnLXdob2xl"}]}`),
			},
		},
		{
			name: "a JSON array of responses (alt=sse ignored)", file: "whole_array.json", contentType: json,
			want: []contract.ModelEvent{started(), text("Hel"), text("lo"), usage(3, 2, 0, 0), finished(contract.FinishStop, "")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := serve(t, http.StatusOK, tc.contentType, readFixture(t, tc.file))
			r := providertest.Collect(t, t.Context(), a, userRequest())
			if d := diffEvents(tc.want, r.Events); d != "" {
				t.Errorf("events mismatch (-want +got):\n%s", d)
			}
			if d := diffEvents([]contract.ModelEvent{tc.err}, []contract.ModelEvent{r.Err}); tc.err != nil && d != "" {
				t.Errorf("error mismatch (-want +got):\n%s", d)
			}
			if tc.err == nil && r.Err != nil {
				t.Errorf("unexpected error %v", r.Err)
			}
		})
	}
}

// TestFixturesThroughNormalize reads every SSE fixture through Normalize
// directly, as `rein debug normalize` does, and checks it yields what the
// adapter yields over HTTP: the same normalizer, with no network.
func TestFixturesThroughNormalize(t *testing.T) {
	for _, file := range []string{"text.sse", "tool_calls.sse", "partial_args.sse", "reasoning.sse", "midstream_error.sse", "truncated.sse", "whole.json"} {
		t.Run(file, func(t *testing.T) {
			body := readFixture(t, file)
			a := serve(t, http.StatusOK, "text/event-stream", body)
			want := providertest.Collect(t, t.Context(), a, userRequest())
			var got providertest.Result
			for ev, err := range Normalize(t.Context(), strings.NewReader(body), testRef) {
				if err != nil {
					pe, ok := errors.AsType[*contract.ProviderError](err)
					if !ok {
						t.Fatalf("error %v is a %T", err, err)
					}
					got.Err = pe
					continue
				}
				got.Events = append(got.Events, ev)
			}
			if d := diffEvents(want.Events, got.Events); d != "" {
				t.Errorf("Normalize differs from Stream (-stream +normalize):\n%s", d)
			}
			if d := diffEvents([]contract.ModelEvent{want.Err}, []contract.ModelEvent{got.Err}); d != "" {
				t.Errorf("Normalize's error differs from Stream's (-stream +normalize):\n%s", d)
			}
		})
	}
}
