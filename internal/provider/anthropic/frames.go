package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/provider"
	"github.com/rein-agent/rein/internal/provider/sse"
)

// frame is one decoded event of a Messages stream: one of the *...Frame
// types below, each the typed shape of one event type.
type frame interface{ isFrame() }

// messageStartFrame opens the message. Its content is usually empty, but
// may already hold complete blocks.
type messageStartFrame struct{ Message message }

// blockStartFrame opens content block Index.
type blockStartFrame struct {
	Index int
	Block block
}

// blockDeltaFrame is the next piece of content block Index.
type blockDeltaFrame struct {
	Index int       `json:"index"`
	Delta wireDelta `json:"delta"`
	// Err is set when a delta of a known type did not decode. Only the
	// translator can tell whether that matters: it is the stream's error
	// for a block rein reads, and nothing for a block it skips (the input
	// of a tool the vendor runs itself).
	Err error `json:"-"`
}

// blockStopFrame closes content block Index.
type blockStopFrame struct {
	Index int `json:"index"`
}

// messageDeltaFrame carries the stop reason and the cumulative usage.
type messageDeltaFrame struct {
	Delta struct {
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage wireUsage `json:"usage"`
}

// messageStopFrame is the terminal frame of a stream.
type messageStopFrame struct{}

// pingFrame keeps the connection alive.
type pingFrame struct{}

// errorFrame is an "error" event, or an error body in a 200 response: the
// terminal error.
type errorFrame struct {
	Detail    provider.ErrorDetail
	RequestID string
}

// wholeFrame is a whole message in one JSON body, from a server that
// ignored "stream": true. It is terminal, like message_stop.
type wholeFrame struct{ Message message }

// unknownFrame is an event this package does not know; it is tolerated.
type unknownFrame struct{ Type string }

func (*messageStartFrame) isFrame() {}
func (*blockStartFrame) isFrame()   {}
func (*blockDeltaFrame) isFrame()   {}
func (*blockStopFrame) isFrame()    {}
func (*messageDeltaFrame) isFrame() {}
func (*messageStopFrame) isFrame()  {}
func (*pingFrame) isFrame()         {}
func (*errorFrame) isFrame()        {}
func (*wholeFrame) isFrame()        {}
func (*unknownFrame) isFrame()      {}

// message is a Message object, as message_start and a whole response
// carry it.
type message struct {
	Content    []block
	StopReason string
	Usage      wireUsage
}

// wireMessageObject is a Message object as it is decoded, before its
// blocks are.
type wireMessageObject struct {
	Type       string            `json:"type"`
	Content    []json.RawMessage `json:"content"`
	StopReason string            `json:"stop_reason"`
	Usage      wireUsage         `json:"usage"`
	Error      json.RawMessage   `json:"error"`
	RequestID  string            `json:"request_id"`
}

// wireUsage is the usage object. Fields are pointers because message_delta
// carries only those it revises: an absent field keeps its earlier value.
type wireUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
}

// wireDelta is the delta of a content_block_delta: the API's own union of
// text_delta (Text), input_json_delta (PartialJSON), thinking_delta
// (Thinking) and signature_delta (Signature). Other types (citations_delta)
// are tolerated and ignored.
type wireDelta struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	PartialJSON string `json:"partial_json"`
	Thinking    string `json:"thinking"`
	Signature   string `json:"signature"`
}

// block is one content block: one of the *...Block types below.
type block interface{ isBlock() }

type textBlock struct {
	Text string `json:"text"`
}

type thinkingBlock struct {
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Data string `json:"data"`
}

type toolUseBlock struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// otherBlock is a block that is none of the above: tools the vendor runs
// itself (server_tool_use, web_search_tool_result...), and types this
// package does not know (citations, compaction...). They are skipped.
type otherBlock struct{ Type string }

func (*textBlock) isBlock()             {}
func (*thinkingBlock) isBlock()         {}
func (*redactedThinkingBlock) isBlock() {}
func (*toolUseBlock) isBlock()          {}
func (*otherBlock) isBlock()            {}

// typeProbe reads only what tells a payload's kind.
type typeProbe struct {
	Type      string          `json:"type"`
	Error     json.RawMessage `json:"error"`
	RequestID string          `json:"request_id"`
}

// errNoData is the error of an event that needs data and has none.
var errNoData = errors.New("no data")

// decodeFrame decodes one server-sent event. The event name says what the
// data is; without one (or with the default "message") the data's own
// "type" does. It returns a nil frame for an event that says nothing (a
// block of stray lines that is not an error body) and an error for data
// that does not decode as its event type.
func decodeFrame(ev *sse.Event) (frame, error) {
	name, data := ev.Name, ev.Data
	if data == nil {
		switch name {
		case "":
			return strayFrame(ev.Stray), nil
		case "ping":
			data = []byte("{}")
		case "message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "error":
			return nil, fmt.Errorf("anthropic: decode %s event: %w", name, errNoData)
		default:
			return &unknownFrame{Type: name}, nil
		}
	}
	if name == "" || name == "message" {
		var p typeProbe
		if err := json.Unmarshal(data, &p); err != nil {
			return nil, fmt.Errorf("anthropic: decode event: %w (data %s)", err, snippet(data))
		}
		name = p.Type
		if name == "" && len(p.Error) > 0 && string(p.Error) != "null" {
			name = "error" // {"error": {...}} without a type, as proxies send it
		}
	}
	f, err := decodeData(name, data)
	if err != nil {
		return nil, decodeError(name, data, err)
	}
	return f, nil
}

// decodeError is the error of the data of an event named name that did
// not decode.
func decodeError(name string, data []byte, err error) error {
	return fmt.Errorf("anthropic: decode %s event: %w (data %s)", name, err, snippet(data))
}

// decodeData decodes the data of an event named name.
func decodeData(name string, data []byte) (frame, error) {
	switch name {
	case "content_block_delta":
		f := new(blockDeltaFrame)
		if err := json.Unmarshal(data, f); err != nil {
			return tolerateDelta(data, err)
		}
		return f, nil
	case "content_block_start":
		var w struct {
			Index int             `json:"index"`
			Block json.RawMessage `json:"content_block"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, err
		}
		b, err := decodeBlock(w.Block)
		if err != nil {
			return nil, err
		}
		return &blockStartFrame{Index: w.Index, Block: b}, nil
	case "content_block_stop":
		f := new(blockStopFrame)
		return f, json.Unmarshal(data, f)
	case "message_start":
		var w struct {
			Message wireMessageObject `json:"message"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, err
		}
		m, err := decodeMessage(&w.Message)
		if err != nil {
			return nil, err
		}
		return &messageStartFrame{Message: m}, nil
	case "message_delta":
		f := new(messageDeltaFrame)
		return f, json.Unmarshal(data, f)
	case "message_stop":
		// The data is not needed, but it must be an event, not garbage.
		return &messageStopFrame{}, jsonObject(data)
	case "ping":
		return &pingFrame{}, nil
	case "error":
		var p typeProbe
		_ = json.Unmarshal(data, &p) // the request id is a bonus; ParseErrorBody reads any shape
		return &errorFrame{Detail: provider.ParseErrorBody(data), RequestID: p.RequestID}, nil
	}
	return &unknownFrame{Type: name}, nil
}

// tolerateDelta handles a content_block_delta that did not decode: a delta
// of a type this package does not know may have fields whose shape differs
// from the known ones, and is ignored; a known delta that does not decode
// carries its error, for the translator to judge by its block. Data that is
// not a delta of some block at all is an error.
func tolerateDelta(data []byte, err error) (frame, error) {
	var w struct {
		Index int `json:"index"`
		Delta struct {
			Type string `json:"type"`
		} `json:"delta"`
	}
	if json.Unmarshal(data, &w) != nil {
		return nil, err
	}
	f := &blockDeltaFrame{Index: w.Index, Delta: wireDelta{Type: w.Delta.Type}}
	switch w.Delta.Type {
	case "text_delta", "input_json_delta", "thinking_delta", "signature_delta":
		f.Err = decodeError("content_block_delta", data, err)
	}
	return f, nil
}

// decodeMessage decodes the blocks of a Message object.
func decodeMessage(w *wireMessageObject) (message, error) {
	m := message{StopReason: w.StopReason, Usage: w.Usage}
	for _, raw := range w.Content {
		b, err := decodeBlock(raw)
		if err != nil {
			return message{}, err
		}
		m.Content = append(m.Content, b)
	}
	return m, nil
}

// decodeBlock decodes one content block by its type. A block of a type
// this package does not handle is an *otherBlock, whatever its fields.
func decodeBlock(raw json.RawMessage) (block, error) {
	var p struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("content block: %w", err)
	}
	var b block
	switch p.Type {
	case "text":
		b = new(textBlock)
	case "thinking":
		b = new(thinkingBlock)
	case "redacted_thinking":
		b = new(redactedThinkingBlock)
	case "tool_use":
		b = new(toolUseBlock)
	default:
		return &otherBlock{Type: p.Type}, nil
	}
	if err := json.Unmarshal(raw, b); err != nil {
		return nil, fmt.Errorf("%s block: %w", p.Type, err)
	}
	return b, nil
}

// strayFrame reads lines that were not SSE fields: an error body a server
// wrote after (or instead of) the events becomes the terminal error;
// anything else is ignored, as SSE ignores fields it does not know.
func strayFrame(stray []byte) frame {
	var p typeProbe
	if len(stray) == 0 || json.Unmarshal(stray, &p) != nil {
		return nil
	}
	if p.Type == "error" || len(p.Error) > 0 && string(p.Error) != "null" {
		return &errorFrame{Detail: provider.ParseErrorBody(stray), RequestID: p.RequestID}
	}
	return nil
}

// decodeWhole decodes a whole JSON response body: a message, or an error.
func decodeWhole(body []byte) (frame, error) {
	var w wireMessageObject
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("anthropic: decode response: %w (body %s)", err, snippet(body))
	}
	if w.Type == "error" || len(w.Error) > 0 && string(w.Error) != "null" {
		return &errorFrame{Detail: provider.ParseErrorBody(body), RequestID: w.RequestID}, nil
	}
	if w.Type != "message" {
		return nil, fmt.Errorf("anthropic: the response is JSON but not a message (type %q, body %s)", w.Type, snippet(body))
	}
	m, err := decodeMessage(&w)
	if err != nil {
		return nil, fmt.Errorf("anthropic: decode response: %w", err)
	}
	return &wholeFrame{Message: m}, nil
}

// jsonObject reports whether data is a JSON object.
func jsonObject(data []byte) error {
	var v struct{}
	return json.Unmarshal(data, &v)
}

// snippet quotes the start of data for an error message.
func snippet(data []byte) string {
	const n = 120
	if len(data) > n {
		return fmt.Sprintf("%q…", excerpt.Prefix(data, n))
	}
	return fmt.Sprintf("%q", data)
}

// isEmptyObject reports whether raw is {} (or empty, or null): the input a
// tool_use block starts with before its input_json_delta events.
func isEmptyObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	if raw[0] != '{' || raw[len(raw)-1] != '}' {
		return false
	}
	return len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0
}
