package gemini

import "encoding/json"

// The wire shapes of the stream: one GenerateContentResponse per SSE data
// line, decoded into these typed structs. Fields the adapter does not use
// (safetyRatings, citationMetadata, groundingMetadata, modelVersion...) are
// left out and ignored.

// chunk is one GenerateContentResponse.
type chunk struct {
	Candidates     []candidate     `json:"candidates"`
	PromptFeedback *promptFeedback `json:"promptFeedback"`
	UsageMetadata  *usageMetadata  `json:"usageMetadata"`
	// Error is set when the line is an error object instead of a response
	// ({"error": {...}}); "error": null is no error.
	Error json.RawMessage `json:"error"`
}

// candidate is one of the model's answers; rein reads the first only.
type candidate struct {
	Content *content `json:"content"`
	// FinishReason, once set, makes the chunk the terminal frame.
	FinishReason  string `json:"finishReason"`
	FinishMessage string `json:"finishMessage"`
}

// content is a candidate's content; its role is always "model".
type content struct {
	Parts []part `json:"parts"`
}

// part is one part of a candidate's content. Parts the adapter does not
// translate (executableCode, codeExecutionResult, inlineData...) decode
// with all these fields empty and are skipped.
type part struct {
	Text    string `json:"text"`
	Thought bool   `json:"thought"`
	// ThoughtSignature is opaque (base64) and must go back on the same
	// part next turn.
	ThoughtSignature string        `json:"thoughtSignature"`
	FunctionCall     *functionCall `json:"functionCall"`
}

// functionCall is a call the model proposes: whole, with Args, or streamed
// as PartialArgs over several parts while WillContinue is true.
type functionCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Args is the arguments object, verbatim; absent for a call without
	// arguments.
	Args         json.RawMessage `json:"args"`
	PartialArgs  []partialArg    `json:"partialArgs"`
	WillContinue bool            `json:"willContinue"`
}

// partialArg is one piece of a streamed argument: a value (or the next
// piece of a string) at a JSON path such as "$.files[0].path".
type partialArg struct {
	JSONPath    string          `json:"jsonPath"`
	StringValue *string         `json:"stringValue"`
	NumberValue json.RawMessage `json:"numberValue"`
	BoolValue   *bool           `json:"boolValue"`
	NullValue   json.RawMessage `json:"nullValue"`
	// WillContinue says more pieces of this string follow.
	WillContinue bool `json:"willContinue"`
}

// promptFeedback says why a prompt was blocked, when it was.
type promptFeedback struct {
	BlockReason string `json:"blockReason"`
}

// usageMetadata holds token counts, cumulative over the stream.
type usageMetadata struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
	ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	ToolUsePromptTokenCount int64 `json:"toolUsePromptTokenCount"`
	TotalTokenCount         int64 `json:"totalTokenCount"`
}
