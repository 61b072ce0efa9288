package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/id"
	"github.com/rein-agent/rein/internal/provider"
)

// The request body, as the Messages API takes it. Field order is the order
// of the JSON sent (golden-tested): the settings first, then what the
// prompt cache reads in its own order (tools, system, messages), so that
// the conversation is the last key and a longer conversation only appends
// to the body.
type wireRequest struct {
	Model        string         `json:"model"`
	MaxTokens    int            `json:"max_tokens"`
	Thinking     *thinking      `json:"thinking,omitempty"`
	OutputConfig *outputConfig  `json:"output_config,omitempty"`
	ToolChoice   *toolChoice    `json:"tool_choice,omitempty"`
	Stream       bool           `json:"stream"`
	Tools        []wireTool     `json:"tools,omitempty"`
	System       []*textContent `json:"system,omitempty"`
	Messages     []wireMessage  `json:"messages"`
}

// cacheControl marks a prompt cache breakpoint: the API caches the prompt
// up to and including the block that carries it.
type cacheControl struct {
	Type string `json:"type"` // "ephemeral"
}

// ephemeral is the one breakpoint kind sent: the default five-minute cache.
var ephemeral = &cacheControl{Type: "ephemeral"}

type wireMessage struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // *textContent, *toolUseContent, *toolResultContent, json.RawMessage
}

type textContent struct {
	Type         string        `json:"type"` // "text"
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type toolUseContent struct {
	Type         string          `json:"type"` // "tool_use"
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolResultContent struct {
	Type         string        `json:"type"` // "tool_result"
	ToolUseID    string        `json:"tool_use_id"`
	Content      string        `json:"content,omitempty"`
	IsError      bool          `json:"is_error,omitempty"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type toolChoice struct {
	Type                   string `json:"type"` // "auto"
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

// providerState is the opaque state a turn leaves on model.finished: the
// thinking and redacted_thinking blocks of the message, in order, exactly
// as the API sent them, which the API wants back with that message.
type providerState struct {
	provider.State                   // always "anthropic"
	Blocks         []json.RawMessage `json:"blocks"`
}

// BuildRequest returns the JSON body of a streaming Messages API request
// for req, asking model. It does not modify req.
//
// The system prompt, and the text of any system message, go to the
// top-level "system", one text block each. Messages alternate user and
// assistant, as the API requires: consecutive messages of the same role
// are merged, so the results of several tool calls (tool messages) become
// one user message of tool_result blocks, which come first in it, before
// any user text that follows them. An assistant message is its thinking
// blocks (from its provider state, when that state is this package's), its
// text, then its tool_use blocks. Reasoning text alone is never sent:
// without the API's signature it would be refused. Empty text is dropped,
// since the API refuses empty text blocks.
//
// max_tokens is req.MaxOutputTokens, or a default for the model, raised
// when a thinking budget needs room (see thinkingFor). When
// req.ParallelToolCalls is false and there are tools, the model is asked
// for at most one tool call per turn. The prompt cache breakpoints are
// described at markCache.
//
// It fails when a message cannot be expressed: a tool message without a
// result, a tool call whose input is not a JSON object.
func BuildRequest(req *contract.ModelRequest, model string) ([]byte, error) {
	w := wireRequest{
		Model:     model,
		MaxTokens: req.MaxOutputTokens,
		Messages:  []wireMessage{},
		Stream:    true,
	}
	if w.MaxTokens <= 0 {
		w.MaxTokens = defaultMaxTokens(model)
	}
	w.Thinking, w.OutputConfig, w.MaxTokens = thinkingFor(model, req.ReasoningEffort, w.MaxTokens)
	if strings.TrimSpace(req.System) != "" {
		w.System = append(w.System, &textContent{Type: "text", Text: req.System})
	}
	if err := w.addMessages(req.Messages); err != nil {
		return nil, err
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
			schema = json.RawMessage(`{"type":"object"}`) // the API requires a schema
		}
		w.Tools = append(w.Tools, wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if len(w.Tools) > 0 && !req.ParallelToolCalls {
		w.ToolChoice = &toolChoice{Type: "auto", DisableParallelToolUse: true}
	}
	w.markCache()
	body, err := provider.EncodeJSON(&w)
	if err != nil {
		return nil, fmt.Errorf("anthropic: encode request: %w", err)
	}
	return body, nil
}

// addMessages translates the conversation into w's messages, and the text
// of its system messages into w's system blocks.
func (w *wireRequest) addMessages(messages []contract.ModelMessage) error {
	for i := range messages {
		m := &messages[i]
		switch m.Role {
		case contract.RoleSystem:
			// The API has no system role inside the conversation.
			if strings.TrimSpace(m.Text) != "" {
				w.System = append(w.System, &textContent{Type: "text", Text: m.Text})
			}
		case contract.RoleUser:
			w.add("user", userContent(m)...)
		case contract.RoleAssistant:
			content, err := assistantContent(m)
			if err != nil {
				return fmt.Errorf("anthropic: message %d: %w", i, err)
			}
			w.add("assistant", content...)
		case contract.RoleTool:
			if m.Result == nil {
				return fmt.Errorf("anthropic: message %d: a tool message without a result", i)
			}
			w.add("user", &toolResultContent{
				Type:      "tool_result",
				ToolUseID: toolUseID(m.Result.ProviderCallID, m.Result.IntentID),
				Content:   m.Result.Text,
				IsError:   m.Result.IsError,
			})
		default:
			return fmt.Errorf("anthropic: message %d: unknown role %q", i, m.Role)
		}
	}
	for _, m := range w.Messages {
		if m.Role == "user" {
			toolResultsFirst(m.Content)
		}
	}
	return nil
}

// markCache sets the prompt cache breakpoints, at most three of the four
// the API allows. The API reads the prompt as tools, then system, then
// messages, and caches it up to each breakpoint:
//
//   - on the last system block, which caches the tools with the system
//     prompt; with no system prompt, on the last tool;
//   - on the first system block as well when there are several (the
//     conversation's own messages of role system follow the system
//     prompt), so that the tools and the session's system prompt stay
//     cached when those change;
//   - on the last block of the last message that can carry one (not a
//     thinking block), which caches the whole conversation.
//
// The first two never move while the system prompt and tools stay the
// same. The last one moves forward every turn, and the block it leaves is
// serialised without it in the next request: those few bytes are the only
// ones of an earlier request that a later one writes differently, which
// is why there is one moving breakpoint and not two. The API looks for an
// earlier cache entry up to 20 blocks back from a breakpoint, which covers
// a turn's new blocks (its thinking, text and tool calls, and the results)
// unless one turn adds more than that.
func (w *wireRequest) markCache() {
	switch {
	case len(w.System) > 0:
		w.System[len(w.System)-1].CacheControl = ephemeral
		if len(w.System) > 1 {
			w.System[0].CacheControl = ephemeral
		}
	case len(w.Tools) > 0:
		w.Tools[len(w.Tools)-1].CacheControl = ephemeral
	}
	if n := len(w.Messages); n > 0 {
		content := w.Messages[n-1].Content
		for i := len(content) - 1; i >= 0; i-- {
			if setCache(content[i]) {
				break
			}
		}
	}
}

// setCache puts a breakpoint on block and reports whether it could: a
// thinking block, kept verbatim from the provider state, cannot carry one.
func setCache(block any) bool {
	switch b := block.(type) {
	case *textContent:
		b.CacheControl = ephemeral
	case *toolUseContent:
		b.CacheControl = ephemeral
	case *toolResultContent:
		b.CacheControl = ephemeral
	default:
		return false
	}
	return true
}

// add appends content as a message of role, merged into the last message
// when it has the same role. Empty content adds nothing.
func (w *wireRequest) add(role string, content ...any) {
	if len(content) == 0 {
		return
	}
	if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
		w.Messages[n-1].Content = append(w.Messages[n-1].Content, content...)
		return
	}
	w.Messages = append(w.Messages, wireMessage{Role: role, Content: content})
}

func userContent(m *contract.ModelMessage) []any {
	if strings.TrimSpace(m.Text) == "" {
		return nil
	}
	return []any{&textContent{Type: "text", Text: m.Text}}
}

func assistantContent(m *contract.ModelMessage) ([]any, error) {
	var content []any
	for _, b := range stateBlocks(m.ProviderState) {
		content = append(content, b)
	}
	if strings.TrimSpace(m.Text) != "" {
		content = append(content, &textContent{Type: "text", Text: m.Text})
	}
	for _, c := range m.ToolCalls {
		input := bytes.TrimSpace(c.Input)
		if len(input) == 0 || string(input) == "null" {
			input = []byte("{}")
		}
		if !json.Valid(input) || input[0] != '{' {
			return nil, fmt.Errorf("tool call %q (%s): input is not a JSON object", c.ToolName, c.IntentID)
		}
		content = append(content, &toolUseContent{
			Type:  "tool_use",
			ID:    toolUseID(c.ProviderCallID, c.IntentID),
			Name:  c.ToolName,
			Input: json.RawMessage(input),
		})
	}
	return content, nil
}

// stateBlocks returns the content blocks a message's provider state holds,
// verbatim, or nil when the state is not this package's (the conversation
// may have switched provider after a fallback) or does not decode.
func stateBlocks(state json.RawMessage) []json.RawMessage {
	s, ok := provider.OwnState[providerState](state, stateProvider)
	if !ok {
		return nil
	}
	blocks := s.Blocks[:0]
	for _, b := range s.Blocks {
		if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// toolResultsFirst moves the tool_result blocks of a user message before
// its other blocks, keeping the order within each group: the API wants a
// message answering tool calls to start with their results.
func toolResultsFirst(content []any) {
	results := make([]any, 0, len(content))
	var others []any
	for _, c := range content {
		if _, ok := c.(*toolResultContent); ok {
			results = append(results, c)
		} else {
			others = append(others, c)
		}
	}
	copy(content, append(results, others...))
}

// toolUseID returns the id a call goes by in the API: the vendor's id, or
// rein's intent id for a call another provider proposed without one. The
// API accepts only [a-zA-Z0-9_-] in ids, so any other character becomes
// '_'; a call and its result map to the same id.
func toolUseID(providerCallID, intentID string) string {
	switch {
	case providerCallID != "":
		return id.SafeName(providerCallID)
	case intentID != "":
		return id.SafeName(intentID)
	}
	return "call"
}
