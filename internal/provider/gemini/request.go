package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// skipSignature is the value the Gemini documentation gives for a function
// call that has no thought signature of its own (a call another provider
// proposed, or one from a model that signs nothing): it tells Gemini not to
// validate the signature, where Gemini 3 would otherwise refuse the request.
const skipSignature = "skip_thought_signature_validator"

// The request body of streamGenerateContent, in the order of the fields
// in the JSON: the system instruction, the tools and the settings, then
// the contents, last, so that a longer conversation only appends to the
// body. Gemini's implicit cache matches a prompt's prefix, which is the
// system instruction, the tools and the contents in that order.
type request struct {
	SystemInstruction *reqContent       `json:"systemInstruction,omitempty"`
	Tools             []reqTool         `json:"tools,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
	Contents          []reqContent      `json:"contents"`
}

type reqContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []reqPart `json:"parts"`
}

type reqPart struct {
	// Text is a pointer so that an empty text part, the bearer of a
	// signature, still says "text": "".
	Text             *string      `json:"text,omitempty"`
	Thought          bool         `json:"thought,omitempty"`
	FunctionCall     *reqCall     `json:"functionCall,omitempty"`
	FunctionResponse *reqResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string       `json:"thoughtSignature,omitempty"`
}

type reqCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type reqResponse struct {
	ID       string       `json:"id,omitempty"`
	Name     string       `json:"name"`
	Response toolResponse `json:"response"`
}

// toolResponse is a functionResponse's response: the keys the reference
// names for a function's output and for its failure.
type toolResponse struct {
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
}

type reqTool struct {
	FunctionDeclarations []declaration `json:"functionDeclarations"`
}

type declaration struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// ParametersJSONSchema takes the input schema as JSON Schema, verbatim;
	// absent for a tool that has none.
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool `json:"includeThoughts"`
	// ThinkingLevel (Gemini 3) or ThinkingBudget (Gemini 2.5) comes from
	// the request's reasoning effort; the API refuses both at once.
	ThinkingLevel  string `json:"thinkingLevel,omitempty"`
	ThinkingBudget *int   `json:"thinkingBudget,omitempty"`
}

// BuildRequest returns the JSON body of a streamGenerateContent request
// for req, to be sent to model (which goes in the URL, not the body; it
// decides whether thoughts are asked for and signatures required). It
// fails when req is nil or holds JSON that does not parse (a tool's input
// schema, a call's input). It does not modify req.
//
// The mapping is described in the package documentation.
func BuildRequest(req *contract.ModelRequest, model string) ([]byte, error) {
	if req == nil {
		return nil, errors.New("gemini: build request: no request")
	}
	caps := Capabilities(model)
	b := builder{signs: caps.Reasoning}
	out := request{Contents: []reqContent{}}
	var system []reqPart
	if req.System != "" {
		system = append(system, textPart(req.System))
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		switch m.Role {
		case contract.RoleSystem:
			// Gemini has no system turn: every system message joins the
			// system instruction.
			if m.Text != "" {
				system = append(system, textPart(m.Text))
			}
		case contract.RoleUser:
			if m.Text != "" {
				b.add("user", textPart(m.Text))
			}
		case contract.RoleAssistant:
			if err := b.assistant(m); err != nil {
				return nil, fmt.Errorf("gemini: build request: message %d: %w", i, err)
			}
		case contract.RoleTool:
			if m.Result != nil {
				b.add("user", b.result(m.Result))
			}
		default:
			return nil, fmt.Errorf("gemini: build request: message %d has role %q", i, m.Role)
		}
	}
	out.Contents = append(out.Contents, b.contents...)
	if len(system) > 0 {
		out.SystemInstruction = &reqContent{Parts: system}
	}
	if len(req.Tools) > 0 {
		decls := make([]declaration, 0, len(req.Tools))
		for _, t := range req.Tools {
			d := declaration{Name: t.Name, Description: t.Description}
			if s := bytes.TrimSpace(t.InputSchema); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
				if !json.Valid(s) {
					return nil, fmt.Errorf("gemini: build request: tool %q: input schema is not valid JSON", t.Name)
				}
				d.ParametersJSONSchema = s
			}
			decls = append(decls, d)
		}
		out.Tools = []reqTool{{FunctionDeclarations: decls}}
	}
	// ParallelToolCalls has no counterpart: Gemini has no switch for it.
	var gc generationConfig
	if req.MaxOutputTokens > 0 {
		gc.MaxOutputTokens = req.MaxOutputTokens
	}
	if caps.Reasoning || req.ReasoningEffort != "" {
		gc.ThinkingConfig = thinkingFor(model, req.ReasoningEffort, caps.Reasoning)
	}
	if gc != (generationConfig{}) {
		out.GenerationConfig = &gc
	}
	body, err := provider.EncodeJSON(out)
	if err != nil {
		return nil, fmt.Errorf("gemini: build request: %w", err)
	}
	return body, nil
}

// builder accumulates the contents of a request.
type builder struct {
	contents []reqContent
	// signs: the model takes thought signatures, so a call without one
	// gets skipSignature.
	signs bool
	// synthetic holds the call ids the adapter made up in the last
	// assistant message: the tool results that answer them leave them out,
	// as the calls do.
	synthetic map[string]bool
}

// add appends part to a content of role, merging it into the last content
// when that has the same role: Gemini wants the turns to alternate.
func (b *builder) add(role string, parts ...reqPart) {
	if n := len(b.contents); n > 0 && b.contents[n-1].Role == role {
		b.contents[n-1].Parts = append(b.contents[n-1].Parts, parts...)
		return
	}
	b.contents = append(b.contents, reqContent{Role: role, Parts: parts})
}

// assistant appends an assistant message as a "model" content, its
// signatures back on their parts.
func (b *builder) assistant(m *contract.ModelMessage) error {
	st, _ := provider.OwnState[state](m.ProviderState, providerName) // foreign or unreadable state has no parts
	var thoughtSigs, textSigs []string
	calls := map[string]statePart{}
	for _, p := range st.Parts {
		switch p.Kind {
		case kindThought:
			thoughtSigs = appendNonEmpty(thoughtSigs, p.Signature)
		case kindText:
			textSigs = appendNonEmpty(textSigs, p.Signature)
		case kindCall:
			calls[p.CallID] = p
		}
	}
	var parts []reqPart
	// Reasoning goes back only with its signature: Gemini does not read
	// thought summaries as input, the signature carries the thinking.
	for i, sig := range thoughtSigs {
		p := reqPart{Thought: true, ThoughtSignature: sig}
		text := ""
		if i == 0 {
			text = m.Reasoning
		}
		p.Text = &text
		parts = append(parts, p)
	}
	// The text goes back as one part with the first text signature; a
	// signature beyond it rides on an empty text part of its own.
	if m.Text != "" || len(textSigs) > 0 {
		p := textPart(m.Text)
		if len(textSigs) > 0 {
			p.ThoughtSignature = textSigs[0]
		}
		parts = append(parts, p)
		for _, sig := range textSigs[min(1, len(textSigs)):] {
			empty := ""
			parts = append(parts, reqPart{Text: &empty, ThoughtSignature: sig})
		}
	}
	b.synthetic = nil
	first, signed := len(parts), false
	for _, c := range m.ToolCalls {
		id := c.ProviderCallID
		if id == "" {
			id = c.IntentID // a call another provider proposed
		}
		rec := calls[id]
		args := bytes.TrimSpace(c.Input)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			args = []byte("{}")
		} else if !json.Valid(args) {
			return fmt.Errorf("tool call %q has input that is not valid JSON", c.ToolName)
		}
		call := &reqCall{ID: id, Name: c.ToolName, Args: args}
		if rec.Synthetic {
			call.ID = ""
			if b.synthetic == nil {
				b.synthetic = map[string]bool{}
			}
			b.synthetic[id] = true
		}
		signed = signed || rec.Signature != ""
		parts = append(parts, reqPart{FunctionCall: call, ThoughtSignature: rec.Signature})
	}
	if !signed && b.signs && first < len(parts) {
		parts[first].ThoughtSignature = skipSignature
	}
	if len(parts) > 0 {
		b.add("model", parts...)
	}
	return nil
}

// result returns the functionResponse part of a tool result.
func (b *builder) result(r *contract.ToolResult) reqPart {
	id := r.ProviderCallID
	if id == "" {
		id = r.IntentID
	}
	if b.synthetic[id] {
		id = ""
	}
	text := r.Text
	resp := toolResponse{Output: &text}
	if r.IsError {
		resp = toolResponse{Error: &text}
	}
	return reqPart{FunctionResponse: &reqResponse{ID: id, Name: r.ToolName, Response: resp}}
}

func textPart(s string) reqPart { return reqPart{Text: &s} }

func appendNonEmpty(list []string, s string) []string {
	if s == "" {
		return list
	}
	return append(list, s)
}
