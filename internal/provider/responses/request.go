package responses

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// stateProvider names this package in the opaque state it writes, so that
// state written by another adapter (after a fallback) is recognised and
// left out.
const stateProvider = "responses"

// state is the opaque ProviderState of an assistant message: the
// reasoning items of that turn, each exactly as it is sent back.
type state struct {
	provider.State
	Reasoning []json.RawMessage `json:"reasoning,omitempty"`
}

// requestBody is the body of POST /responses. Field order is the order on
// the wire: the settings, the instructions and the tools, then the input,
// last, so that a longer conversation only appends to the body.
type requestBody struct {
	Model           string     `json:"model"`
	MaxOutputTokens int        `json:"max_output_tokens,omitempty"`
	Reasoning       *reasoning `json:"reasoning,omitempty"`
	PromptCacheKey  string     `json:"prompt_cache_key,omitempty"`
	Store           bool       `json:"store"`
	Stream          bool       `json:"stream"`
	Include         []string   `json:"include,omitempty"`
	// ParallelToolCalls is sent only with tools.
	ParallelToolCalls *bool  `json:"parallel_tool_calls,omitempty"`
	Instructions      string `json:"instructions,omitempty"`
	Tools             []tool `json:"tools,omitempty"`
	Input             []any  `json:"input"`
}

// reasoning is the request's reasoning settings: the effort, and a summary
// of the reasoning streamed as it goes ("auto": the most detailed the
// model offers).
type reasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// The input items of a request, one type per item type.
type (
	// messageInput is a user, system or assistant message.
	messageInput struct {
		Type    string         `json:"type"`
		Role    string         `json:"role"`
		Content []contentInput `json:"content"`
	}
	// contentInput is one part of a message: input_text for what the
	// user or the system said, output_text for what the model said.
	contentInput struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	// functionCallInput is a tool call the model made in an earlier turn.
	functionCallInput struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	// functionCallOutputInput is the result of a tool call, tied to it by
	// its call_id.
	functionCallOutputInput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
)

// tool is a function tool the model may call.
type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is false: strict mode would require every schema to list all
	// its properties as required and forbid additional ones, which rein's
	// tool schemas do not promise.
	Strict bool `json:"strict"`
}

// emptySchema is the schema of a tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildRequest returns the exact JSON body sent to POST {base}/responses
// for req, asking model (passed through as given). It
// fails only when req holds JSON that is not valid (a tool's input
// schema).
//
// The system prompt goes in "instructions"; user messages become input_text
// messages; an assistant message becomes its reasoning items (from its
// ProviderState, when this package wrote it), an output_text message and
// function_call items; a tool message becomes a function_call_output tied
// to the call's call_id. Each call's id is its ProviderCallID, or its
// IntentID when another provider proposed it. The request is stateless
// (store: false), so reasoning models are asked for their encrypted
// reasoning, which the next request sends back.
//
// A reasoning effort asks for "reasoning": {"effort", "summary": "auto"}
// (the kernel sets one only for a model that reasons); none leaves the
// server's default. The cache key goes as prompt_cache_key to a server
// that takes it (promptCacheKey): only OpenAI's own API and Azure OpenAI
// document it, and a strict compatible server refuses a field it does not
// know.
func buildRequest(req *contract.ModelRequest, model string, promptCacheKey bool) ([]byte, error) {
	body := requestBody{
		Model:        model,
		Instructions: req.System,
		Input:        make([]any, 0, len(req.Messages)),
		Store:        false,
		Stream:       true,
	}
	for i := range req.Messages {
		body.Input = appendMessage(body.Input, &req.Messages[i])
	}
	for _, spec := range req.Tools {
		params := spec.InputSchema
		if len(bytes.TrimSpace(params)) == 0 {
			params = emptySchema
		}
		body.Tools = append(body.Tools, tool{Type: "function", Name: spec.Name, Description: spec.Description, Parameters: params})
	}
	if len(body.Tools) > 0 {
		parallel := req.ParallelToolCalls
		body.ParallelToolCalls = &parallel
	}
	if req.MaxOutputTokens > 0 {
		body.MaxOutputTokens = req.MaxOutputTokens
	}
	if req.ReasoningEffort != "" {
		body.Reasoning = &reasoning{Effort: req.ReasoningEffort, Summary: "auto"}
	}
	if promptCacheKey {
		body.PromptCacheKey = req.CacheKey
	}
	if encryptedReasoning(model) {
		body.Include = []string{"reasoning.encrypted_content"}
	}
	b, err := provider.EncodeJSON(body)
	if err != nil {
		return nil, fmt.Errorf("responses: encode the request: %w", err)
	}
	return b, nil
}

// appendMessage appends the input items of one message.
func appendMessage(input []any, m *contract.ModelMessage) []any {
	switch m.Role {
	case contract.RoleUser:
		return append(input, messageInput{Type: "message", Role: "user", Content: []contentInput{{Type: "input_text", Text: m.Text}}})
	case contract.RoleSystem:
		return append(input, messageInput{Type: "message", Role: "system", Content: []contentInput{{Type: "input_text", Text: m.Text}}})
	case contract.RoleAssistant:
		// Reasoning items go first, as the model produced them, and only
		// with something after them: the API rejects a reasoning item
		// without its following item. An assistant message's Reasoning
		// text is not sent: the API takes reasoning back only as the
		// encrypted items of its own state, and a reasoning text from
		// another provider is not this model's.
		if m.Text != "" || len(m.ToolCalls) > 0 {
			for _, item := range reasoningItems(m.ProviderState) {
				input = append(input, item)
			}
		}
		if m.Text != "" {
			input = append(input, messageInput{Type: "message", Role: "assistant", Content: []contentInput{{Type: "output_text", Text: m.Text}}})
		}
		for _, c := range m.ToolCalls {
			args := string(c.Input)
			if len(bytes.TrimSpace(c.Input)) == 0 {
				args = "{}"
			}
			input = append(input, functionCallInput{Type: "function_call", CallID: callID(c.ProviderCallID, c.IntentID), Name: c.ToolName, Arguments: args})
		}
		return input
	case contract.RoleTool:
		if m.Result == nil {
			return input
		}
		// The Responses API has no error flag on a function_call_output:
		// a failed result is told by its text, which the tool runtime
		// writes for the model to read.
		r := m.Result
		return append(input, functionCallOutputInput{Type: "function_call_output", CallID: callID(r.ProviderCallID, r.IntentID), Output: r.Text})
	}
	return input
}

// callID is the id a call and its result share: the vendor's call id, or
// rein's intent id when another provider proposed the call.
func callID(providerCallID, intentID string) string {
	if providerCallID != "" {
		return providerCallID
	}
	return intentID
}

// reasoningItems returns the reasoning items of an assistant message's
// state, verbatim, or nil when the state is not this package's (another
// adapter wrote it, or it does not parse).
func reasoningItems(raw json.RawMessage) []json.RawMessage {
	s, _ := provider.OwnState[state](raw, stateProvider) // the zero state has no items
	return s.Reasoning
}
