package openai

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rein-agent/rein/internal/contract"
)

// collectNormalize runs Normalize over body.
func collectNormalize(t *testing.T, ctx context.Context, body io.Reader) ([]contract.ModelEvent, *contract.ProviderError) {
	t.Helper()
	var events []contract.ModelEvent
	for ev, err := range Normalize(ctx, body, tref) {
		if err != nil {
			pe, ok := errors.AsType[*contract.ProviderError](err)
			if !ok {
				t.Fatalf("error %T %v", err, err)
			}
			return events, pe
		}
		events = append(events, ev)
	}
	return events, nil
}

func TestNormalizeEnds(t *testing.T) {
	text := `{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}`
	finish := `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`
	usage := `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}`
	for _, tc := range []struct {
		name     string
		body     string
		wantKind contract.ErrorKind // "" for a complete stream
		usage    bool
	}{
		{"[DONE] alone ends it", "data: " + text + "\n\ndata: [DONE]\n\n", "", false},
		{"finish then end of body", "data: " + text + "\n\ndata: " + finish + "\n\n", "", false},
		{"finish, usage, end of body", "data: " + finish + "\n\ndata: " + usage + "\n\n", "", true},
		{"finish, usage, [DONE] without a blank line", "data: " + finish + "\n\ndata: " + usage + "\n\ndata: [DONE]", "", true},
		{"usage cut off after the finish is lost, not fatal", "data: " + finish + "\n\ndata: " + usage[:30], "", false},
		{"end of body without a finish", "data: " + text + "\n\n", contract.KindStreamInterrupted, false},
		{"cut inside a frame", "data: " + text[:40], contract.KindStreamInterrupted, false},
		{"cut inside a literal", `data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":nu`, contract.KindStreamInterrupted, false},
		{"cut inside [DONE]", "data: " + text + "\n\ndata: [DO", contract.KindStreamInterrupted, false},
		{"a frame that stops short, then more", "data: " + text[:40] + "\n\ndata: " + finish + "\n\n", contract.KindUnknown, false},
		{"empty body", "", contract.KindStreamInterrupted, false},
		{"only comments", ": keep-alive\n\n: keep-alive\n\n", contract.KindStreamInterrupted, false},
		{"whole JSON, cut", `{"choices":[{"index":0,"message":{"content":"hi"}`, contract.KindStreamInterrupted, false},
		{"whole JSON, garbage", `{"choices": nope}`, contract.KindUnknown, false},
		{"reasoning_details of a type rein reads are read strictly", "data: " + `{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","text":{"not":"text"}}]}}]}` + "\n\n", contract.KindUnknown, false},
		{"x_groq usage is read strictly", "data: " + `{"choices":[],"x_groq":{"usage":{"prompt_tokens":"many"}}}` + "\n\n", contract.KindUnknown, false},
		{"whole JSON without choices", `{"id":"x"}`, contract.KindUnknown, false},
		{"whole JSON after whitespace", "\n  " + `{"choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}]}` + "\n", "", false},
		{"an HTML page", "<!doctype html>\n<html><body>Welcome to nginx</body></html>", contract.KindUnknown, false},
		{"a server that sends an SSE error body as plain JSON lines", "data: " + text + "\n\n{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n", contract.KindServer, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events, err := collectNormalize(t, t.Context(), strings.NewReader(tc.body))
			if _, ok := events[0].(*contract.ModelStarted); !ok {
				t.Errorf("first event %T, want model.started", events[0])
			}
			var kind contract.ErrorKind
			if err != nil {
				kind = err.Kind
			}
			if kind != tc.wantKind {
				t.Fatalf("error %v, want kind %q", err, tc.wantKind)
			}
			last := events[len(events)-1]
			_, fin := last.(*contract.ModelFinished)
			if fin != (tc.wantKind == "") {
				t.Errorf("last event %s, finished %v", last.EventType(), fin)
			}
			gotUsage := false
			for _, ev := range events {
				_, u := ev.(*contract.ModelUsage)
				gotUsage = gotUsage || u
			}
			if gotUsage != tc.usage {
				t.Errorf("usage %v, want %v", gotUsage, tc.usage)
			}
		})
	}
}

func TestNormalizeReadErrors(t *testing.T) {
	t.Run("a read error mid-stream is an interruption", func(t *testing.T) {
		body := io.MultiReader(strings.NewReader("data: {\"choices\":[]}\n\n"), iotest.ErrReader(io.ErrUnexpectedEOF))
		_, err := collectNormalize(t, t.Context(), body)
		if err == nil || err.Kind != contract.KindStreamInterrupted || !err.Retryable {
			t.Errorf("error %v, want retryable stream_interrupted", err)
		}
	})
	t.Run("a cancelled context aborts", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := collectNormalize(t, ctx, strings.NewReader("data: {\"choices\":[]}\n\ndata: [DONE]\n\n"))
		if err == nil || err.Kind != contract.KindAborted {
			t.Errorf("error %v, want aborted", err)
		}
	})
	t.Run("one byte at a time", func(t *testing.T) {
		body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
		events, err := collectNormalize(t, t.Context(), iotest.OneByteReader(strings.NewReader(body)))
		if err != nil || len(events) != 3 {
			t.Errorf("events %d error %v, want started, text, finished", len(events), err)
		}
	})
	t.Run("a consumer that stops early", func(t *testing.T) {
		n := 0
		for range Normalize(t.Context(), strings.NewReader(strings.Repeat("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n", 10)), tref) {
			n++
			if n == 3 {
				break
			}
		}
		if n != 3 {
			t.Errorf("%d events after break", n)
		}
	})
}

// Mistral sends no index: fragments are keyed by id, and a fragment with
// neither index nor id continues the call that started last.
func TestCallsWithoutIndexSplitOverFragments(t *testing.T) {
	frames := []string{
		`{"choices":[{"delta":{"tool_calls":[{"id":"a1","type":"function","function":{"name":"read_file","arguments":"{\"path\":"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"a.go\"}"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"id":"b2","type":"function","function":{"name":"bash","arguments":"{\"comm"}}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"and\":\"go test\"}"}}]}}]}`,
		`{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	var body strings.Builder
	for _, f := range frames {
		body.WriteString("data: " + f + "\n\n")
	}
	body.WriteString("data: [DONE]\n\n")
	events, perr := collectNormalize(t, t.Context(), strings.NewReader(body.String()))
	if perr != nil {
		t.Fatal(perr)
	}
	var got []string
	for _, ev := range events {
		if p, ok := ev.(*contract.IntentProposed); ok {
			got = append(got, p.ProviderCallID+" "+p.ToolName+" "+string(p.Input))
		}
	}
	want := []string{`a1 read_file {"path":"a.go"}`, `b2 bash {"command":"go test"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("proposed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
