package openai

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// wireRequest is the body of POST /chat/completions. Field order is the
// order on the wire: the settings, the tools, then the conversation, last,
// so that a longer conversation only appends to the body and the server's
// prompt cache (OpenAI's caches the longest prefix it has seen) finds the
// previous request in the next one.
type wireRequest struct {
	Model               string         `json:"model"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	PromptCacheKey      string         `json:"prompt_cache_key,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	ParallelToolCalls   *bool          `json:"parallel_tool_calls,omitempty"`
	Tools               []wireTool     `json:"tools,omitempty"`
	Messages            []wireMessage  `json:"messages"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// wireMessage is one message of the conversation. Content is always
// present, "" for an assistant message that only calls tools: the API
// allows it to be left out there, but "" is what every compatible server
// accepts.
type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// ReasoningContent goes back only to servers that asked for it by
	// streaming reasoning_content (see providerState).
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// ReasoningDetails goes back verbatim to OpenRouter (see providerState).
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
	ToolCalls        []wireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

// wireFunction is a function call: its arguments are JSON text inside a
// JSON string.
type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireTool struct {
	Type     string      `json:"type"`
	Function wireToolDef `json:"function"`
}

type wireToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema stands for a tool whose registry entry has no input schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest returns the JSON body Stream sends for req, asking for
// model, in dialect d: see the package documentation. It fails when the
// conversation cannot be expressed: a tool message without a result, a
// role the API does not have, or a schema or state that is not valid JSON.
func buildRequest(req *contract.ModelRequest, model string, d dialect) ([]byte, error) {
	w := wireRequest{Model: model, Stream: true, Messages: make([]wireMessage, 0, len(req.Messages)+1)}
	// The kernel sets an effort only for models that reason, from the
	// levels the catalogue gives them, so it goes to every server as it
	// is: OpenAI, Mistral, vLLM, Ollama, OpenRouter and xAI all read this
	// name.
	w.ReasoningEffort = req.ReasoningEffort
	if d.promptCacheKey {
		w.PromptCacheKey = req.CacheKey
	}
	if d.streamOptions {
		w.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if req.MaxOutputTokens > 0 {
		if d.maxTokens == "max_completion_tokens" {
			w.MaxCompletionTokens = req.MaxOutputTokens
		} else {
			w.MaxTokens = req.MaxOutputTokens
		}
	}
	if req.System != "" {
		w.Messages = append(w.Messages, wireMessage{Role: "system", Content: req.System})
	}
	for i := range req.Messages {
		m, err := message(&req.Messages[i])
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		w.Messages = append(w.Messages, m)
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 {
			schema = emptySchema
		}
		w.Tools = append(w.Tools, wireTool{Type: "function", Function: wireToolDef{Name: t.Name, Description: t.Description, Parameters: schema}})
	}
	// The switch exists only next to tools (OpenAI rejects it alone), and
	// OpenAI's o-series rejects it even then.
	if len(w.Tools) > 0 && !rejectsParallelSwitch(model) {
		w.ParallelToolCalls = &req.ParallelToolCalls
	}
	body, err := provider.EncodeJSON(&w)
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	return body, nil
}

// message translates one message of the conversation.
func message(m *contract.ModelMessage) (wireMessage, error) {
	switch m.Role {
	case contract.RoleSystem, contract.RoleUser:
		return wireMessage{Role: string(m.Role), Content: m.Text}, nil
	case contract.RoleAssistant:
		w := wireMessage{Role: "assistant", Content: m.Text}
		for _, c := range m.ToolCalls {
			args := string(bytes.TrimSpace(c.Input))
			if args == "" {
				args = "{}"
			}
			w.ToolCalls = append(w.ToolCalls, wireToolCall{
				ID: callID(c.ProviderCallID, c.IntentID), Type: "function",
				Function: wireFunction{Name: c.ToolName, Arguments: args},
			})
		}
		if st, ok := provider.OwnState[providerState](m.ProviderState, stateName); ok {
			if st.ReasoningContent {
				w.ReasoningContent = m.Reasoning
			}
			w.ReasoningDetails = st.ReasoningDetails
		}
		// Reasoning is otherwise not sent back: the API has no field for
		// it, and most servers drop or reject one.
		return w, nil
	case contract.RoleTool:
		if m.Result == nil {
			return wireMessage{}, fmt.Errorf("a tool message without a result")
		}
		// The API has no error flag: the result's text says what failed.
		return wireMessage{Role: "tool", ToolCallID: callID(m.Result.ProviderCallID, m.Result.IntentID), Content: m.Result.Text}, nil
	}
	return wireMessage{}, fmt.Errorf("unknown role %q", m.Role)
}

// callID is the id a call goes by on the wire: the vendor's own, or rein's
// intent id for a call another provider proposed without one.
func callID(providerCallID, intentID string) string {
	if providerCallID != "" {
		return providerCallID
	}
	return intentID
}
