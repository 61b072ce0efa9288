package openai

import (
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with the golden file at path, or rewrites it under
// -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

// serveFixture serves a fixture file through the real adapter and collects
// what it yields.
func serveFixture(t *testing.T, name string) providertest.Result {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	ct := "text/event-stream"
	if strings.HasSuffix(name, ".json") {
		ct = "application/json"
	}
	srv := providertest.Serve(t, http.StatusOK, http.Header{"Content-Type": {ct}, "X-Request-Id": {"req_fixture"}}, string(body))
	a := New(&Options{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "fixture-model"})
	return providertest.Collect(t, t.Context(), a, conversation())
}

// summary is what a stream said, reduced to what a reader checks first.
type summary struct {
	Text      string
	Reasoning string
	Intents   []string // "name input (provider call id)"
	Malformed int
	Usage     *contract.ModelUsage
	Reason    contract.FinishReason
	State     string
	ErrKind   contract.ErrorKind
	Retryable bool
	RetryMS   int64
}

func summarize(r providertest.Result) summary {
	var s summary
	for _, ev := range r.Events {
		switch e := ev.(type) {
		case *contract.TextDelta:
			s.Text += e.Text
		case *contract.ReasoningDelta:
			s.Reasoning += e.Text
		case *contract.IntentProposed:
			s.Intents = append(s.Intents, e.ToolName+" "+string(e.Input)+" ("+e.ProviderCallID+")")
		case *contract.ProviderError:
			s.Malformed++
		case *contract.ModelUsage:
			s.Usage = e
		case *contract.ModelFinished:
			s.Reason, s.State = e.Reason, string(e.ProviderState)
		}
	}
	if r.Err != nil {
		s.ErrKind, s.Retryable, s.RetryMS = r.Err.Kind, r.Err.Retryable, r.Err.RetryAfterMS
	}
	return s
}

func TestFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want summary
	}{
		{"text.sse", summary{
			Text:   "I'll run the tests <first> & \"see\"\nwhat fails été.",
			Usage:  &contract.ModelUsage{InputTokens: 1117, OutputTokens: 46, CacheReadTokens: 1024},
			Reason: contract.FinishStop,
		}},
		{"parallel_calls.sse", summary{
			Intents: []string{`bash {"command":"go test ./..."} (call_bash1)`, `list_dir {"path":"src"} (call_list2)`},
			Usage:   &contract.ModelUsage{InputTokens: 310, OutputTokens: 52},
			Reason:  contract.FinishToolUse,
		}},
		{"one_call_many_fragments.sse", summary{
			Intents: []string{`write_file {"path":"a.go","content":"package a\n"} (call_w)`},
			Reason:  contract.FinishToolUse,
		}},
		{"groq_whole_call.sse", summary{
			Intents: []string{`list_dir {} (call_g7)`},
			Usage:   &contract.ModelUsage{InputTokens: 240, OutputTokens: 12},
			Reason:  contract.FinishToolUse,
		}},
		{"no_arg_empty.sse", summary{Intents: []string{`list_dir {} (call_e)`}, Reason: contract.FinishToolUse}},
		{"deepseek_reasoning.sse", summary{
			Text: "Running them.", Reasoning: "The tests fail; run them.",
			Usage:  &contract.ModelUsage{InputTokens: 64, OutputTokens: 30, ReasoningTokens: 20},
			Reason: contract.FinishStop, State: `{"provider":"openai","reasoning_content":true}`,
		}},
		{"openrouter_reasoning.sse", summary{
			Text: "Looking.", Reasoning: "Let me look.",
			Usage:  &contract.ModelUsage{InputTokens: 120, OutputTokens: 40, CacheReadTokens: 100, CacheWriteTokens: 12, ReasoningTokens: 25},
			Reason: contract.FinishStop,
			State:  `{"provider":"openai","reasoning_details":[{"type":"reasoning.text","text":"Let me look.","format":"anthropic-claude-v1","signature":"EqQBCkgIBxABGAIqQH","index":0}]}`,
		}},
		{"openrouter_encrypted.sse", summary{
			Reasoning: "**Planning**",
			Intents:   []string{`bash {"command":"go vet ./..."} (tool_bash_1)`},
			Usage:     &contract.ModelUsage{InputTokens: 500, OutputTokens: 60, ReasoningTokens: 44},
			Reason:    contract.FinishToolUse,
			State:     `{"provider":"openai","reasoning_details":[{"type":"reasoning.text","text":"**Planning**","format":"google-gemini-v1","index":0},{"type":"reasoning.encrypted","data":"CiQBjz1rX","id":"tool_bash_1","format":"google-gemini-v1","index":1}]}`,
		}},
		{"think_inline.sse", summary{
			Text: "Yes: a < b, see <think> tags.", Reasoning: "\nOkay, the user wants a < b.\n",
			Reason: contract.FinishStop,
		}},
		{"magistral_parts.sse", summary{
			Text: "The logs say so.", Reasoning: "Check the logs.",
			Usage:  &contract.ModelUsage{InputTokens: 10, OutputTokens: 20},
			Reason: contract.FinishStop,
		}},
		{"usage_on_finish_no_done.sse", summary{
			Text: "Done.", Usage: &contract.ModelUsage{InputTokens: 20, OutputTokens: 3}, Reason: contract.FinishStop,
		}},
		{"usage_every_chunk.sse", summary{
			Text: "Hi!", Usage: &contract.ModelUsage{InputTokens: 50, OutputTokens: 2}, Reason: contract.FinishLength,
		}},
		{"finish_twice.sse", summary{
			Intents: []string{`bash {"command":"ls"} (call_f)`},
			Usage:   &contract.ModelUsage{InputTokens: 9, OutputTokens: 7},
			Reason:  contract.FinishToolUse,
		}},
		{"ollama_stop_with_call.sse", summary{
			Intents: []string{`read_file {"path":"go.mod"} (call_8f2k)`},
			Reason:  contract.FinishToolUse,
		}},
		{"mistral_no_index.sse", summary{
			Intents: []string{`bash {"command":"go test ./..."} (D681PevKs)`, `list_dir {"path":"."} (Xz9QbLm2a)`},
			Usage:   &contract.ModelUsage{InputTokens: 300, OutputTokens: 40},
			Reason:  contract.FinishToolUse,
		}},
		{"proxy_index_from_one.sse", summary{
			Intents: []string{`grep {"pattern":"TODO"} (call_p1)`, `glob {"pattern":"*.go"} (call_p2)`},
			Reason:  contract.FinishToolUse,
		}},
		{"malformed_call.sse", summary{
			Intents: []string{`list_dir {} (call_ok)`}, Malformed: 1, Reason: contract.FinishLength,
		}},
		{"legacy_function_call.sse", summary{Intents: []string{`bash {"command":"pwd"} ()`}, Reason: contract.FinishToolUse}},
		{"vendor_tools.sse", summary{Intents: []string{`bash {"command":"go test -v"} (call_fn)`}, Reason: contract.FinishToolUse}},
		{"azure_unknown_fields.sse", summary{Text: "Filtered", Reason: contract.FinishContentFilter}},
		{"writer_message_echo.sse", summary{
			Text:    "I will run the tests.",
			Intents: []string{`bash {"command":"go test ./..."} (chatcmpl-tool-4f1e9d7e)`},
			Usage:   &contract.ModelUsage{InputTokens: 310, OutputTokens: 32},
			Reason:  contract.FinishToolUse,
		}},
		{"perplexity_running_total.sse", summary{
			Text: "Go tests run with go test.", Usage: &contract.ModelUsage{InputTokens: 12, OutputTokens: 6}, Reason: contract.FinishStop,
		}},
		{"n2_choices.sse", summary{
			Text: "First answer, only.", Usage: &contract.ModelUsage{InputTokens: 20, OutputTokens: 14}, Reason: contract.FinishStop,
		}},
		{"message_only.sse", summary{
			Text: "All tests pass.", Usage: &contract.ModelUsage{InputTokens: 9, OutputTokens: 4}, Reason: contract.FinishStop,
		}},
		{"odd_extensions.sse", summary{
			Text: "Checking the tests.", Usage: &contract.ModelUsage{InputTokens: 40, OutputTokens: 4}, Reason: contract.FinishStop,
		}},
		{"error_null.sse", summary{Text: "Fine.", Reason: contract.FinishStop}},
		{"whole_response.json", summary{
			Text:    "Running both.",
			Intents: []string{`bash {"command":"go test ./..."} (call_w1)`, `list_dir {} (call_w2)`},
			Usage:   &contract.ModelUsage{InputTokens: 82, OutputTokens: 17},
			Reason:  contract.FinishToolUse,
		}},

		// Each way a stream fails.
		{"error_midstream.sse", summary{Text: "Partial", ErrKind: contract.KindServer, Retryable: true}},
		{"groq_tool_use_failed.sse", summary{ErrKind: contract.KindMalformedToolCall}},
		{"openrouter_error.sse", summary{Text: "Hel", ErrKind: contract.KindServer, Retryable: true}},
		{"error_event.sse", summary{ErrKind: contract.KindRateLimit, Retryable: true, RetryMS: 1500}},
		{"vllm_error_stray.sse", summary{ErrKind: contract.KindContextLength}},
		{"truncated.sse", summary{ErrKind: contract.KindStreamInterrupted, Retryable: true}},
		{"not_json.sse", summary{Text: "Hi", ErrKind: contract.KindUnknown}},
		{"whole_error.json", summary{ErrKind: contract.KindUnknown}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := serveFixture(t, tc.file)
			if d := cmp.Diff(tc.want, summarize(r)); d != "" {
				t.Errorf("summary mismatch (-want +got):\n%s", d)
			}
			lines := providertest.JSON(r.Events)
			if r.Err != nil {
				b, _ := json.Marshal(r.Err)
				lines = append(lines, "error "+string(b))
			}
			golden(t, filepath.Join("testdata", "fixtures", tc.file+".events"), []byte(strings.Join(lines, "\n")+"\n"))
		})
	}
}

// records is a slog handler that keeps what it is given, for tests.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.list = append(h.list, r)
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

// TestOtherChoicesToldOnce streams an n=2 body through the real adapter:
// the second choice is ignored, and the adapter's logger hears of it once,
// at warning level, with the provider, model and request id; a body of
// one choice tells it nothing.
func TestOtherChoicesToldOnce(t *testing.T) {
	for _, tc := range []struct {
		file string
		told int
	}{
		{"n2_choices.sse", 1},
		{"text.sse", 0},
		{"writer_message_echo.sse", 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("testdata", "fixtures", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			srv := providertest.Serve(t, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}, "X-Request-Id": {"req_n2"}}, string(body))
			h := &records{}
			a := New(&Options{BaseURL: srv.URL + "/v1", Model: "fixture-model", Logger: slog.New(h)})
			if r := providertest.Collect(t, t.Context(), a, conversation()); r.Err != nil {
				t.Fatal(r.Err)
			}
			if len(h.list) != tc.told {
				t.Fatalf("%d records, want %d", len(h.list), tc.told)
			}
			if tc.told == 0 {
				return
			}
			rec := h.list[0]
			attrs := map[string]string{}
			rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
			if rec.Level != slog.LevelWarn || !strings.Contains(rec.Message, "choice 0") ||
				attrs["provider"] != "openai" || attrs["model"] != "fixture-model" || attrs["request_id"] != "req_n2" {
				t.Errorf("record %v %q %v", rec.Level, rec.Message, attrs)
			}
		})
	}
}
