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
// with all these fields empty and are skipped, whatever their shape (see
// decodeChunk).
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

// decodeChunk decodes one GenerateContentResponse into c. A part's kind is
// its data field: text and functionCall are rein's, and decode strictly (so
// does a part with no data field, the bearer of a signature). A part of any
// other kind (executableCode, codeExecutionResult, inlineData, fileData, a
// kind not invented yet) never fails the chunk, whatever the shape of its
// fields, the ones rein reads on its own parts included: when the chunk
// does not decode, such parts are cut down to their thoughtSignature (when
// it is a string) and the chunk is decoded again. The common chunk decodes
// once, as fast as it ever did.
func decodeChunk(data []byte, c *chunk) error {
	err := json.Unmarshal(data, c)
	if err == nil {
		return nil
	}
	if cut, ok := cutOtherParts(data); ok {
		*c = chunk{}
		if json.Unmarshal(cut, c) == nil {
			return nil
		}
	}
	return err
}

// object is a JSON object, its values left undecoded.
type object = map[string]json.RawMessage

// cutOtherParts returns data with every part of a kind rein does not read
// replaced by its signature alone; ok is false when there is no such part.
func cutOtherParts(data []byte) (out []byte, ok bool) {
	var resp object
	var cands []object
	if json.Unmarshal(data, &resp) != nil || json.Unmarshal(resp["candidates"], &cands) != nil {
		return nil, false
	}
	for _, cand := range cands {
		var content object
		var parts []object
		if json.Unmarshal(cand["content"], &content) != nil || json.Unmarshal(content["parts"], &parts) != nil {
			continue
		}
		cut := false
		for i, p := range parts {
			if otherKind(p) {
				parts[i], cut = object{}, true
				if sig := p["thoughtSignature"]; len(sig) > 0 && sig[0] == '"' {
					parts[i]["thoughtSignature"] = sig
				}
			}
		}
		if !cut {
			continue
		}
		// Values decoded from valid JSON always encode again.
		content["parts"], _ = json.Marshal(parts)
		cand["content"], _ = json.Marshal(content)
		ok = true
	}
	if !ok {
		return nil, false
	}
	resp["candidates"], _ = json.Marshal(cands)
	out, err := json.Marshal(resp)
	return out, err == nil
}

// partMetadata names the fields of a part that are not its data: they may
// come with a part of any kind.
var partMetadata = map[string]bool{"thought": true, "thoughtSignature": true, "partMetadata": true, "videoMetadata": true, "mediaResolution": true}

// otherKind reports whether a part is of a kind rein does not read: it has
// no functionCall, and a data field other than text.
func otherKind(p object) bool {
	if fc, ok := p["functionCall"]; ok && string(fc) != "null" {
		return false
	}
	for k := range p {
		if k != "text" && !partMetadata[k] {
			return true
		}
	}
	return false
}
