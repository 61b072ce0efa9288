package responses

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// conversation is a turn after the model reasoned, said something and
// called two tools (the second proposed by another provider before a
// fallback, so it has no provider call id), and both results came back,
// one of them a failure.
func conversation() *contract.ModelRequest {
	return &contract.ModelRequest{
		Model:  "gpt-5",
		System: "You are rein, a coding agent. Use <tools> & be brief.",
		Messages: []contract.ModelMessage{
			{Role: contract.RoleUser, Text: "Why do the tests fail? Fix them."},
			{
				Role:      contract.RoleAssistant,
				Reasoning: "**Checking tests**\n\nI should run the tests first.",
				Text:      "I will run the tests and read the source.",
				ToolCalls: []contract.ToolCall{
					{IntentID: "in_01", ProviderCallID: "call_Ab12", ToolName: "bash", Input: json.RawMessage(`{"command":"npm test"}`)},
					{IntentID: "in_02", ToolName: "read_file", Input: json.RawMessage(`{"path":"src/sum.ts"}`)},
				},
				ProviderState: json.RawMessage(`{"provider":"responses","reasoning":[{"type":"reasoning","summary":[{"type":"summary_text","text":"**Checking tests**\n\nI should run the tests first."}],"encrypted_content":"gAAAAABo_enc1=="}]}`),
			},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_01", ProviderCallID: "call_Ab12", ToolName: "bash",
				Text: "npm test failed with exit code 1\nexpected 3, got 4", IsError: true}},
			{Role: contract.RoleTool, Result: &contract.ToolResult{IntentID: "in_02", ToolName: "read_file",
				Text: "export const sum = (a, b) => a + b + 1;"}},
		},
		Tools: []contract.ToolSpec{
			{Name: "bash", Description: "Run a shell command.", InputSchema: json.RawMessage(`{"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}`)},
			{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "list_dir", Description: "List a directory."},
		},
		MaxOutputTokens:   4096,
		ParallelToolCalls: true,
	}
}

// TestBuildRequestGolden fixes the exact body sent for a conversation with
// tool results: as it is, to OpenAI with the session's prompt_cache_key
// and a reasoning effort, and to a compatible server, which gets the
// effort but no cache key. The golden files hold them indented; the bytes
// sent are their compact form.
func TestBuildRequestGolden(t *testing.T) {
	for _, tc := range []struct {
		file, model, effort, cacheKey string
		promptCacheKey                bool
	}{
		{"request.json", "gpt-5", "", "", true},
		{"request_openai.json", "gpt-5", "high", "ses_01", true},
		{"request_compatible.json", "gpt-oss-120b", "low", "ses_01", false},
	} {
		t.Run(tc.file, func(t *testing.T) {
			req := conversation()
			req.ReasoningEffort, req.CacheKey = tc.effort, tc.cacheKey
			body, err := buildRequest(req, tc.model, tc.promptCacheKey)
			if err != nil {
				t.Fatal(err)
			}
			goldenBody(t, tc.file, body)
		})
	}
}

func goldenBody(t *testing.T, file string, body []byte) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		t.Fatalf("the body is not JSON: %v", err)
	}
	if !bytes.Equal(compact.Bytes(), body) {
		t.Errorf("the body is not compact")
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	golden(t, file, indented.String())
}

// wireInput decodes the input items of a body, for checks on their shape.
func wireInput(t *testing.T, body []byte) (map[string]json.RawMessage, []map[string]any) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	var input []map[string]any
	if err := json.Unmarshal(top["input"], &input); err != nil {
		t.Fatal(err)
	}
	return top, input
}

func TestBuildRequest(t *testing.T) {
	t.Run("conversation mapping", func(t *testing.T) {
		body, err := BuildRequest(conversation(), "gpt-5")
		if err != nil {
			t.Fatal(err)
		}
		top, input := wireInput(t, body)
		var types []string
		for _, it := range input {
			types = append(types, it["type"].(string))
		}
		want := []string{"message", "reasoning", "message", "function_call", "function_call", "function_call_output", "function_call_output"}
		if d := cmp.Diff(want, types); d != "" {
			t.Errorf("input item types (-want +got):\n%s", d)
		}
		if string(top["instructions"]) != `"You are rein, a coding agent. Use <tools> & be brief."` {
			t.Errorf("instructions %s", top["instructions"])
		}
		if input[3]["call_id"] != "call_Ab12" || input[4]["call_id"] != "in_02" || input[4]["arguments"] != `{"path":"src/sum.ts"}` {
			t.Errorf("function calls %v %v", input[3], input[4])
		}
		if input[5]["call_id"] != "call_Ab12" || input[6]["call_id"] != "in_02" {
			t.Errorf("results not tied to their calls: %v %v", input[5], input[6])
		}
		if _, ok := input[1]["id"]; ok {
			t.Errorf("a reasoning item was sent with an id the stateless server cannot resolve: %v", input[1])
		}
	})
	for _, tc := range []struct {
		name  string
		req   *contract.ModelRequest
		model string
		check func(t *testing.T, top map[string]json.RawMessage, input []map[string]any)
	}{
		{"no tools: no parallel switch", &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleUser, Text: "hi"}}}, "gpt-5",
			func(t *testing.T, top map[string]json.RawMessage, _ []map[string]any) {
				for _, k := range []string{"tools", "parallel_tool_calls", "instructions", "max_output_tokens"} {
					if _, ok := top[k]; ok {
						t.Errorf("%s sent: %s", k, top[k])
					}
				}
				if string(top["stream"]) != "true" || string(top["store"]) != "false" {
					t.Errorf("stream %s, store %s", top["stream"], top["store"])
				}
			}},
		{"parallel off asks for one call", &contract.ModelRequest{Tools: []contract.ToolSpec{{Name: "bash"}}}, "gpt-5",
			func(t *testing.T, top map[string]json.RawMessage, _ []map[string]any) {
				if string(top["parallel_tool_calls"]) != "false" {
					t.Errorf("parallel_tool_calls %s", top["parallel_tool_calls"])
				}
				if string(top["tools"]) != `[{"type":"function","name":"bash","parameters":{"type":"object","properties":{}},"strict":false}]` {
					t.Errorf("tools %s", top["tools"])
				}
			}},
		{"no encrypted reasoning for a model without it", &contract.ModelRequest{}, "gpt-4.1-mini",
			func(t *testing.T, top map[string]json.RawMessage, _ []map[string]any) {
				if _, ok := top["include"]; ok {
					t.Errorf("include sent to a model that rejects it: %s", top["include"])
				}
				if string(top["model"]) != `"gpt-4.1-mini"` || string(top["input"]) != "[]" {
					t.Errorf("model %s, input %s", top["model"], top["input"])
				}
			}},
		{"model passed through as given", &contract.ModelRequest{}, "hf.co/Qwen/Qwen3-Coder:Q4_K_M",
			func(t *testing.T, top map[string]json.RawMessage, _ []map[string]any) {
				if string(top["model"]) != `"hf.co/Qwen/Qwen3-Coder:Q4_K_M"` {
					t.Errorf("model %s", top["model"])
				}
			}},
		{"another provider's state is left out", &contract.ModelRequest{Messages: []contract.ModelMessage{
			{Role: contract.RoleAssistant, Text: "x", ProviderState: json.RawMessage(`{"provider":"anthropic","signature":"sig"}`)},
			{Role: contract.RoleAssistant, Text: "y", ProviderState: json.RawMessage(`not json`)},
		}}, "gpt-5",
			func(t *testing.T, _ map[string]json.RawMessage, input []map[string]any) {
				if len(input) != 2 || input[0]["type"] != "message" || input[1]["type"] != "message" {
					t.Errorf("input %v", input)
				}
			}},
		{"reasoning without a following item is left out", &contract.ModelRequest{Messages: []contract.ModelMessage{
			{Role: contract.RoleAssistant, ProviderState: json.RawMessage(`{"provider":"responses","reasoning":[{"type":"reasoning","summary":[],"encrypted_content":"e"}]}`)},
		}}, "gpt-5",
			func(t *testing.T, _ map[string]json.RawMessage, input []map[string]any) {
				if len(input) != 0 {
					t.Errorf("input %v", input)
				}
			}},
		{"a call without input sends {}", &contract.ModelRequest{Messages: []contract.ModelMessage{
			{Role: contract.RoleAssistant, ToolCalls: []contract.ToolCall{{IntentID: "in_1", ToolName: "pwd"}}},
			{Role: contract.RoleTool},
		}}, "gpt-5",
			func(t *testing.T, _ map[string]json.RawMessage, input []map[string]any) {
				if len(input) != 1 || input[0]["arguments"] != "{}" || input[0]["call_id"] != "in_1" {
					t.Errorf("input %v", input)
				}
			}},
		{"a system message mid-conversation", &contract.ModelRequest{Messages: []contract.ModelMessage{{Role: contract.RoleSystem, Text: "be careful"}}}, "gpt-5",
			func(t *testing.T, _ map[string]json.RawMessage, input []map[string]any) {
				if len(input) != 1 || input[0]["role"] != "system" {
					t.Errorf("input %v", input)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := BuildRequest(tc.req, tc.model)
			if err != nil {
				t.Fatal(err)
			}
			top, input := wireInput(t, body)
			tc.check(t, top, input)
		})
	}
	t.Run("invalid schema", func(t *testing.T) {
		_, err := BuildRequest(&contract.ModelRequest{Tools: []contract.ToolSpec{{Name: "x", InputSchema: json.RawMessage(`{"type":`)}}}, "gpt-5")
		if err == nil {
			t.Error("no error for a schema that is not JSON")
		}
	})
	t.Run("does not modify the request", func(t *testing.T) {
		req, want := conversation(), conversation()
		if _, err := BuildRequest(req, "gpt-5"); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, req); d != "" {
			t.Errorf("request modified (-before +after):\n%s", d)
		}
	})
}

// TestStateRoundTrip: the state a stream yields goes back verbatim in the
// next request.
func TestStateRoundTrip(t *testing.T) {
	r := serve(t, 200, "text/event-stream", fixture(t, "reasoning.sse"))
	f := finish(r.Events)
	if f == nil {
		t.Fatalf("no model.finished: %v", r.Err)
	}
	req := &contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: contract.RoleUser, Text: "go"},
		{Role: contract.RoleAssistant, Text: "I will run the tests.", ProviderState: f.ProviderState},
		{Role: contract.RoleUser, Text: "and?"},
	}}
	body, err := BuildRequest(req, "gpt-5")
	if err != nil {
		t.Fatal(err)
	}
	var s state
	if err := json.Unmarshal(f.ProviderState, &s); err != nil || len(s.Reasoning) != 1 {
		t.Fatalf("state %s: %v", f.ProviderState, err)
	}
	if !bytes.Contains(body, s.Reasoning[0]) {
		t.Errorf("the reasoning item\n%s\nis not in the request verbatim:\n%s", s.Reasoning[0], body)
	}
	if !bytes.Contains(body, []byte(`"include":["reasoning.encrypted_content"]`)) {
		t.Errorf("the request does not ask for the encrypted reasoning: %s", body)
	}
}
