package responses

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// The stream event types this package translates. Every other type is
// tolerated and ignored (content_part.*, output_text.done, annotations,
// the progress events of vendor-run tools, types not invented yet).
const (
	typeCreated        = "response.created"
	typeInProgress     = "response.in_progress"
	typeQueued         = "response.queued"
	typeCompleted      = "response.completed"
	typeIncomplete     = "response.incomplete"
	typeFailed         = "response.failed"
	typeItemAdded      = "response.output_item.added"
	typeItemDone       = "response.output_item.done"
	typeTextDelta      = "response.output_text.delta"
	typeRefusalDelta   = "response.refusal.delta"
	typeSummaryDelta   = "response.reasoning_summary_text.delta"
	typeReasoningDelta = "response.reasoning_text.delta"
	typeArgsDelta      = "response.function_call_arguments.delta"
	typeArgsDone       = "response.function_call_arguments.done"
	typeError          = "error"
)

// frame is one decoded stream event. It is a sealed sum type: the variants
// are the pointer types below, one per event type the translator reads.
type frame interface{ isFrame() }

// noIndex stands for an output_index the server did not send; decoders
// preset it so that a missing field is told apart from index 0.
const noIndex = -1

// lifecycleFrame is response.created, response.in_progress or
// response.queued: the response exists and nothing is to be said yet.
type lifecycleFrame struct{}

// completedFrame is response.completed, the terminal frame.
type completedFrame struct {
	Response response `json:"response"`
}

// incompleteFrame is response.incomplete: the response ended early, for
// the reason in its incomplete_details.
type incompleteFrame struct {
	Response response `json:"response"`
}

// failedFrame is response.failed: the response ended in an error, even
// inside an HTTP 200 (context length overflows arrive this way).
type failedFrame struct {
	Response response `json:"response"`
}

// wholeFrame is a whole response object read at once: the body of a server
// that ignored stream: true.
type wholeFrame struct {
	Response response
}

// itemAddedFrame is response.output_item.added: an output item starts.
type itemAddedFrame struct {
	OutputIndex int        `json:"output_index"`
	Item        outputItem `json:"item"`
}

// itemDoneFrame is response.output_item.done: an output item is complete,
// with all its content. It is a function call's own end marker.
type itemDoneFrame struct {
	OutputIndex int        `json:"output_index"`
	Item        outputItem `json:"item"`
}

// textDeltaFrame is response.output_text.delta or response.refusal.delta:
// answer text (a refusal is what the model answers).
type textDeltaFrame struct {
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
}

// reasoningDeltaFrame is response.reasoning_summary_text.delta (Summary
// set, the part is summary_index) or response.reasoning_text.delta (the
// part is content_index).
type reasoningDeltaFrame struct {
	OutputIndex  int    `json:"output_index"`
	SummaryIndex int    `json:"summary_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
	Summary      bool   `json:"-"`
}

// argsDeltaFrame is response.function_call_arguments.delta: the next piece
// of a call's argument text. Its item_id is not used: servers rotate it.
type argsDeltaFrame struct {
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
}

// argsDoneFrame is response.function_call_arguments.done: a call's whole
// argument text.
type argsDoneFrame struct {
	OutputIndex int    `json:"output_index"`
	Name        string `json:"name"`
	Arguments   string `json:"arguments"`
}

// errorFrame is the "error" event, or an error body found in the stream:
// the terminal error.
type errorFrame struct {
	Detail provider.ErrorDetail
}

// ignoredFrame is an event this package tolerates and does not translate.
type ignoredFrame struct {
	Type string
}

func (*lifecycleFrame) isFrame()      {}
func (*completedFrame) isFrame()      {}
func (*incompleteFrame) isFrame()     {}
func (*failedFrame) isFrame()         {}
func (*wholeFrame) isFrame()          {}
func (*itemAddedFrame) isFrame()      {}
func (*itemDoneFrame) isFrame()       {}
func (*textDeltaFrame) isFrame()      {}
func (*reasoningDeltaFrame) isFrame() {}
func (*argsDeltaFrame) isFrame()      {}
func (*argsDoneFrame) isFrame()       {}
func (*errorFrame) isFrame()          {}
func (*ignoredFrame) isFrame()        {}

// response is the Response object of the lifecycle events and of a whole
// JSON answer.
type response struct {
	ID     string `json:"id"`
	Object string `json:"object"`
	// Status is completed, incomplete, failed, cancelled, in_progress or
	// queued; compatible servers may leave it out.
	Status string       `json:"status"`
	Output []outputItem `json:"output"`
	Usage  *usage       `json:"usage"`
	// Error is null unless the response failed; kept raw so that every
	// shape of error (object, string) reads.
	Error             json.RawMessage `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
}

// failed reports whether the response carries an error: "error": null is
// not one.
func (r *response) failed() bool {
	return len(r.Error) > 0 && string(r.Error) != "null"
}

// errorDetail reads the response's error in any shape.
func (r *response) errorDetail() provider.ErrorDetail {
	if !r.failed() {
		return provider.ErrorDetail{}
	}
	body := make([]byte, 0, len(r.Error)+10)
	body = append(append(append(body, `{"error":`...), r.Error...), '}')
	return provider.ParseErrorBody(body)
}

// outputItem is one item of a response's output, reduced to what rein
// reads of its type: a function call's id, name and arguments, a message's
// content, a reasoning item's summary, content and encrypted content. An
// item of any other type (a tool the vendor runs itself: web_search_call,
// tool_search_call, image_generation_call...; a type not invented yet)
// keeps only its Type, whatever the shape of its other fields: an item
// rein does not use never fails a stream. None of them is sent back: the
// requests are stateless (store: false), so the server could not resolve
// their ids, and what they found is in the message that follows them.
type outputItem struct {
	Type string

	// function_call
	CallID    string
	Name      string
	Arguments string

	// message (output_text, refusal) and reasoning (reasoning_text)
	Content []contentPart

	// reasoning
	Summary          json.RawMessage
	EncryptedContent string
}

// UnmarshalJSON decodes an item by its type: the fields of the types rein
// reads, strictly, and nothing of any other type. An item that is not a
// JSON object is an error; null is no item.
func (it *outputItem) UnmarshalJSON(b []byte) error {
	typ, err := typeOf(b)
	if err != nil {
		return err
	}
	*it = outputItem{Type: typ}
	switch typ {
	case itemFunctionCall:
		var w struct {
			CallID    string `json:"call_id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		}
		err = json.Unmarshal(b, &w)
		it.CallID, it.Name, it.Arguments = w.CallID, w.Name, w.Arguments
	case itemMessage:
		var w struct {
			Content []contentPart `json:"content"`
		}
		err = json.Unmarshal(b, &w)
		it.Content = w.Content
	case itemReasoning:
		var w struct {
			Content          []contentPart   `json:"content"`
			Summary          json.RawMessage `json:"summary"`
			EncryptedContent string          `json:"encrypted_content"`
		}
		err = json.Unmarshal(b, &w)
		it.Content, it.Summary, it.EncryptedContent = w.Content, w.Summary, w.EncryptedContent
	}
	if err != nil {
		return fmt.Errorf("%s item: %w", typ, err)
	}
	return nil
}

// contentPart is one part of a message or reasoning item's content,
// reduced like an item to what rein reads of its type: the text of a text
// part, the refusal of a refusal part, nothing of any other (output_image,
// audio, a type not invented yet).
type contentPart struct {
	Type    string
	Text    string
	Refusal string
}

// UnmarshalJSON decodes a part by its type, as outputItem does.
func (p *contentPart) UnmarshalJSON(b []byte) error {
	typ, err := typeOf(b)
	if err != nil {
		return err
	}
	*p = contentPart{Type: typ}
	switch typ {
	case "output_text", "text", "reasoning_text", "":
		var w struct {
			Text string `json:"text"`
		}
		err = json.Unmarshal(b, &w)
		p.Text = w.Text
	case "refusal":
		var w struct {
			Refusal string `json:"refusal"`
		}
		err = json.Unmarshal(b, &w)
		p.Refusal = w.Refusal
	}
	if err != nil {
		return fmt.Errorf("%s content part: %w", cmp.Or(typ, "untyped"), err)
	}
	return nil
}

// typeOf returns the "type" of a JSON object, "" when it has none or one
// that is not a string (a type rein cannot know), and an error when b is
// not an object. null has no type.
func typeOf(b []byte) (string, error) {
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return "", err
	}
	var typ string
	if len(head.Type) > 0 && head.Type[0] == '"' {
		if err := json.Unmarshal(head.Type, &typ); err != nil {
			return "", err
		}
	}
	return typ, nil
}

// summaryPart is one part of a reasoning item's summary.
type summaryPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// usage is the token count of response.completed.
type usage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// decodeFailure is a stream event whose data is not what its type says.
type decodeFailure struct {
	Type string
	Data []byte
	Err  error
}

// Error says which event failed to decode, why, and how its data began.
func (e *decodeFailure) Error() string { return "responses: " + e.describe() }

// describe says what failed, for people: the event type, the cause and
// the start of the data.
func (e *decodeFailure) describe() string {
	name := e.Type
	if name == "" {
		name = "an untyped"
	}
	return fmt.Sprintf("decode %s event: %v (data %q)", name, e.Err, excerpt.Prefix(e.Data, 200))
}

// Unwrap returns the decoder's error.
func (e *decodeFailure) Unwrap() error { return e.Err }

var doneMarker = []byte("[DONE]")

// decodeEvent decodes one server-sent event into at most two frames: its
// data, and its stray lines (a JSON body some servers write without SSE
// framing). Either may be nil: an event without data, the [DONE] marker
// some proxies add, and stray text that is no JSON body are nothing to
// translate.
func decodeEvent(ev sse.Event) (data, stray frame, err error) {
	// [DONE] (or the start of it, in a body cut short) is Chat's end
	// marker, which some proxies add: it says nothing here.
	if len(ev.Data) > 0 && !bytes.HasPrefix(doneMarker, ev.Data) {
		name := ev.Name
		if name == "" || name == "message" {
			var peek struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(ev.Data, &peek); err != nil {
				return nil, nil, &decodeFailure{Type: name, Data: ev.Data, Err: err}
			}
			name = peek.Type
		}
		if name == "" {
			data, err = decodeUntyped(ev.Data)
		} else {
			data, err = decodeFrame(name, ev.Data)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if len(bytes.TrimSpace(ev.Stray)) > 0 {
		stray = decodeStray(ev.Stray)
	}
	return data, stray, nil
}

// decodeFrame decodes the data of an event of type typ.
func decodeFrame(typ string, data []byte) (frame, error) {
	var f frame
	switch typ {
	case typeCreated, typeInProgress, typeQueued:
		f = &lifecycleFrame{}
	case typeCompleted:
		f = &completedFrame{}
	case typeIncomplete:
		f = &incompleteFrame{}
	case typeFailed:
		f = &failedFrame{}
	case typeItemAdded:
		f = &itemAddedFrame{OutputIndex: noIndex}
	case typeItemDone:
		f = &itemDoneFrame{OutputIndex: noIndex}
	case typeTextDelta, typeRefusalDelta:
		f = &textDeltaFrame{OutputIndex: noIndex}
	case typeSummaryDelta:
		f = &reasoningDeltaFrame{OutputIndex: noIndex, SummaryIndex: noIndex, ContentIndex: noIndex, Summary: true}
	case typeReasoningDelta:
		f = &reasoningDeltaFrame{OutputIndex: noIndex, SummaryIndex: noIndex, ContentIndex: noIndex}
	case typeArgsDelta:
		f = &argsDeltaFrame{OutputIndex: noIndex}
	case typeArgsDone:
		f = &argsDoneFrame{OutputIndex: noIndex}
	case typeError:
		if err := validJSON(data); err != nil {
			return nil, &decodeFailure{Type: typ, Data: data, Err: err}
		}
		// The error event comes flat ({"code", "message", "param"}) or
		// nested ({"error": {...}}); the shared parser reads both.
		return &errorFrame{Detail: provider.ParseErrorBody(data)}, nil
	default:
		if err := validJSON(data); err != nil {
			return nil, &decodeFailure{Type: typ, Data: data, Err: err}
		}
		return &ignoredFrame{Type: typ}, nil
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, &decodeFailure{Type: typ, Data: data, Err: err}
	}
	return f, nil
}

// validJSON returns nil for valid JSON, and the syntax error otherwise.
func validJSON(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	return json.Unmarshal(data, &v)
}

// cutShort reports whether err is the decode failure of JSON that ends
// too early: what a body cut inside an event leaves. The scanner reports
// such data at its very end, either as an unexpected end or, inside a
// literal (nu, tr, 12e), as the invalid space it feeds itself at the end.
func cutShort(err error) bool {
	var df *decodeFailure
	var syn *json.SyntaxError
	if !errors.As(err, &df) || !errors.As(err, &syn) || syn.Offset < int64(len(df.Data)) {
		return false
	}
	msg := syn.Error()
	return strings.Contains(msg, "unexpected end of JSON input") || strings.Contains(msg, "invalid character ' '")
}

// decodeUntyped decodes data with no event type: an error body
// ({"error": ...}, {"object": "error", ...}) or a whole response object;
// any other JSON is tolerated and ignored.
func decodeUntyped(data []byte) (frame, error) {
	var peek struct {
		Object string          `json:"object"`
		Output json.RawMessage `json:"output"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &peek); err != nil {
		return nil, &decodeFailure{Data: data, Err: err}
	}
	isErr := peek.Object == "error" || (len(peek.Error) > 0 && string(peek.Error) != "null")
	switch {
	case peek.Object == "response" || (len(peek.Output) > 0 && string(peek.Output) != "null"):
		return decodeWhole(data)
	case isErr:
		return &errorFrame{Detail: provider.ParseErrorBody(data)}, nil
	}
	return &ignoredFrame{}, nil
}

// decodeStray decodes lines that were not SSE fields: an error body or a
// whole response some servers send instead of events. Anything else, plain
// text included, is nil: ignored, the stream goes on and ends on its own
// terms.
func decodeStray(b []byte) frame {
	if !json.Valid(b) {
		return nil
	}
	f, err := decodeUntyped(b)
	if err != nil {
		return nil
	}
	if _, ok := f.(*ignoredFrame); ok {
		return nil
	}
	return f
}

// decodeWhole decodes a whole response body. An error body in place of a
// response ({"error": ...} with no output) is an errorFrame.
func decodeWhole(data []byte) (frame, error) {
	var r response
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &decodeFailure{Type: "response body", Data: data, Err: err}
	}
	if r.Object == "error" || (r.failed() && len(r.Output) == 0 && r.Status == "") {
		return &errorFrame{Detail: provider.ParseErrorBody(data)}, nil
	}
	if r.Object == "" && r.Status == "" && r.Output == nil && !r.failed() {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data, &head) == nil && head.Type == "error" {
			// The stream's error event, sent as the whole body.
			return &errorFrame{Detail: provider.ParseErrorBody(data)}, nil
		}
		// Not a response, whatever JSON it is: reading it as an empty
		// finished one would end the call with no answer and no error.
		return nil, &decodeFailure{Type: "response body", Data: data, Err: errors.New("it is JSON but not a response (no object, status, output or error)")}
	}
	return &wholeFrame{Response: r}, nil
}
