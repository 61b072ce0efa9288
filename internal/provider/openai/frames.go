package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// chunk is one "data:" frame of the stream, a chat.completion.chunk, and
// also the shape of a whole chat.completion answered without streaming
// (its choices carry message instead of delta). Fields that some server
// adds and rein has no use for (Azure's prompt_filter_results, llama.cpp's
// timings, system_fingerprint...) are ignored.
type chunk struct {
	// Object is true for {"object": "error"}: whatever the value, it is
	// read without keeping a string for every frame.
	Object  isError    `json:"object"`
	Choices []choice   `json:"choices"`
	Usage   *wireUsage `json:"usage"`
	// XGroq carries Groq's usage on the last chunk.
	XGroq groqExtension `json:"x_groq"`
	// Error is a mid-stream error, {"error": {...}} or {"error": "text"};
	// "error": null is no error.
	Error json.RawMessage `json:"error"`
	// Message, Type and Code are vLLM's and Mistral's error shape,
	// {"object": "error", "message": ..., "type": ..., "code": ...}.
	Message json.RawMessage `json:"message"`
	Type    looseString     `json:"type"`
	Code    json.RawMessage `json:"code"`
}

// groqExtension is Groq's x_groq: its id on the first chunk, its usage on
// the last. Any other shape (another server's x_groq) is no extension.
type groqExtension struct {
	Usage *wireUsage `json:"usage"`
}

func (g *groqExtension) UnmarshalJSON(b []byte) error {
	*g = groqExtension{}
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	type plain groqExtension // the same fields, without this method
	return json.Unmarshal(b, (*plain)(g))
}

// choice is one of a chunk's choices. rein asks for one (n is left at 1)
// and reads choice 0 only, known by its index, never by its place in the
// list: a server that sends others (n > 1) interleaves them.
type choice struct {
	Index choiceIndex `json:"index"`
	// Delta is a value, not a pointer: a choice without one is an empty
	// delta, and every frame saves an allocation.
	Delta wireDelta `json:"delta"`
	// Message is the whole message of a non-streamed response. Inside a
	// stream some servers send it too, beside the delta: Writer repeats
	// each delta there, Perplexity puts the running total there. It is
	// read in a stream only from a server that streams no delta (see
	// translator.chunk).
	Message *wireDelta `json:"message"`
	// FinishReason is "" while the message goes on (null on the wire).
	FinishReason looseString `json:"finish_reason"`
}

// choiceIndex is a choice's index. A server that sends none (or null, or
// something that is no number) sends one choice: its index is 0.
type choiceIndex int

func (i *choiceIndex) UnmarshalJSON(b []byte) error {
	n, err := strconv.Atoi(string(bytes.Trim(b, `"`)))
	if err != nil {
		n = 0
	}
	*i = choiceIndex(n)
	return nil
}

// wireDelta is a streamed delta, or a whole message: the fields are the
// same.
type wireDelta struct {
	Content content     `json:"content"`
	Refusal looseString `json:"refusal"`
	// ReasoningContent is DeepSeek's, vLLM's, llama.cpp's and xAI's field;
	// Reasoning is OpenRouter's, Ollama's and Groq's. Some servers send
	// both with the same text.
	ReasoningContent looseString `json:"reasoning_content"`
	Reasoning        looseString `json:"reasoning"`
	// ReasoningDetails is OpenRouter's structured reasoning, which repeats
	// the text of Reasoning and adds what must be sent back.
	ReasoningDetails []reasoningDetail `json:"reasoning_details"`
	ToolCalls        []wireCallDelta   `json:"tool_calls"`
	// FunctionCall is the legacy single function call.
	FunctionCall *wireFunctionDelta `json:"function_call"`
}

// empty reports whether the delta carries nothing: no text, reasoning or
// tool call (a role alone is nothing).
func (d *wireDelta) empty() bool {
	return d.Content.text == "" && d.Content.thinking == "" && d.Refusal == "" && d.ReasoningContent == "" &&
		d.Reasoning == "" && len(d.ReasoningDetails) == 0 && len(d.ToolCalls) == 0 && d.FunctionCall == nil
}

// wireCallDelta is one fragment of a tool call. Index is nil when the
// server gives none (Mistral).
type wireCallDelta struct {
	Index    *int              `json:"index"`
	ID       looseString       `json:"id"`
	Type     looseString       `json:"type"`
	Function wireFunctionDelta `json:"function"`
}

type wireFunctionDelta struct {
	Name      looseString `json:"name"`
	Arguments arguments   `json:"arguments"`
}

// reasoningDetail is one entry of OpenRouter's reasoning_details, or a
// piece of one while it streams: entries of the same type and index are
// one entry. Only Text and Summary are reasoning a person can read; Data is
// encrypted, Signature verifies Text.
type reasoningDetail struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Data      string `json:"data,omitempty"`
	ID        string `json:"id,omitempty"`
	Format    string `json:"format,omitempty"`
	Signature string `json:"signature,omitempty"`
	Index     int    `json:"index"`
}

// The reasoning_details types rein reads.
var knownDetails = map[string]bool{"reasoning.text": true, "reasoning.summary": true, "reasoning.encrypted": true}

// UnmarshalJSON decodes an entry strictly when it is of a type rein reads;
// an entry of another type whose fields have other shapes keeps only its
// type and index (the parts of them that read), since it is nothing rein
// shows or needs to send back.
func (d *reasoningDetail) UnmarshalJSON(b []byte) error {
	type plain reasoningDetail // the same fields, without this method
	err := json.Unmarshal(b, (*plain)(d))
	if err == nil {
		return nil
	}
	var w struct {
		Type  looseString     `json:"type"`
		Index json.RawMessage `json:"index"`
	}
	if json.Unmarshal(b, &w) != nil || knownDetails[string(w.Type)] {
		return err
	}
	*d = reasoningDetail{Type: string(w.Type)}
	_ = json.Unmarshal(w.Index, &d.Index) // an index that is no number is index 0
	return nil
}

// wireUsage is the token count of one call.
type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"` // OpenRouter
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// PromptCacheHitTokens is DeepSeek's count of cached prompt tokens.
	PromptCacheHitTokens int64 `json:"prompt_cache_hit_tokens"`
}

// isError reads the "object" field: true for "error".
type isError bool

func (e *isError) UnmarshalJSON(b []byte) error {
	*e = string(b) == `"error"`
	return nil
}

// frameDecoder decodes the frames of one stream with one json.Decoder,
// whose state (and allocations) carries over from frame to frame, where
// json.Unmarshal would start afresh each time. The zero value is ready to
// use.
type frameDecoder struct {
	src bytes.Reader
	dec *json.Decoder
	fed int64 // bytes given to dec so far
}

// errTrailing is the error for a frame with more than one JSON value.
var errTrailing = errors.New("data after the JSON value")

// decode decodes data, one whole JSON value, into c. A value cut short is
// io.ErrUnexpectedEOF.
func (f *frameDecoder) decode(data []byte, c *chunk) error {
	if f.dec == nil {
		f.dec, f.fed = json.NewDecoder(&f.src), 0
	}
	f.src.Reset(data)
	f.fed += int64(len(data))
	err := f.dec.Decode(c)
	if err == nil && f.dec.InputOffset() != f.fed {
		err = errTrailing
	}
	if err != nil {
		f.dec = nil // a decoder that failed is not reused
	}
	return err
}

// looseString is a string field that tolerates other JSON values (null, or an
// object where a server put one) by reading them as "": a field rein does
// not depend on never fails the whole frame.
type looseString string

func (t *looseString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		s, err := unquote(b)
		*t = looseString(s)
		return err
	}
	*t = ""
	return nil
}

// unquote decodes a JSON string, without a second pass through the decoder
// when it has no escapes (the common case, on every delta).
func unquote(b []byte) (string, error) {
	if bytes.IndexByte(b, '\\') < 0 && len(b) >= 2 {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// content is a message's content: a string, or a list of parts (Mistral's
// Magistral streams {"type": "thinking"} parts before its text).
type content struct {
	text     string
	thinking string
}

type contentPart struct {
	Type     looseString     `json:"type"`
	Text     looseString     `json:"text"`
	Thinking json.RawMessage `json:"thinking"`
}

func (c *content) UnmarshalJSON(b []byte) error {
	*c = content{}
	switch {
	case len(b) == 0:
		return nil
	case b[0] == '"':
		s, err := unquote(b)
		c.text = s
		return err
	case b[0] == '[':
		var parts []contentPart
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		for _, p := range parts {
			switch p.Type {
			case "text", "output_text":
				c.text += string(p.Text)
			case "thinking", "reasoning":
				c.thinking += thinkingText(p.Thinking) + string(p.Text)
			}
		}
	}
	return nil // null, or a shape rein cannot read: no content
}

// thinkingText reads a thinking part's text: a string, or a list of text
// parts.
func thinkingText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s looseString
	if raw[0] == '"' {
		_ = s.UnmarshalJSON(raw) // a bad string is no text
		return string(s)
	}
	var parts []contentPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out string
	for _, p := range parts {
		out += string(p.Text)
	}
	return out
}

// arguments is a call's argument text. The API sends it as a JSON string;
// some servers send the object itself, whose text is then the arguments.
type arguments string

func (a *arguments) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || string(b) == "null":
		*a = ""
	case b[0] == '"':
		s, err := unquote(b)
		*a = arguments(s)
		return err
	default:
		*a = arguments(b)
	}
	return nil
}
