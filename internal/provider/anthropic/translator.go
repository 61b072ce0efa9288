package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// translator turns the frames of one stream into contract events. It holds
// the stream's state (the open content blocks, the thinking to send back,
// the usage so far) and lives exactly as long as the stream. It is pure: no
// I/O, so every frame kind is table-tested.
type translator struct {
	ref   contract.ProviderRef
	asm   *provider.Assembler
	open  []openBlock   // content blocks started and not stopped, in start order
	state []*stateBlock // thinking and redacted_thinking blocks, in order
	whole []string      // ids of tool_use blocks message_start carried whole
	usage contract.ModelUsage
	used  bool   // some usage was reported
	stop  string // the stop_reason so far
	calls int    // intents proposed so far
	done  bool   // the terminal frame arrived
	out   []contract.ModelEvent
}

// blockKind is what an open content block is, as far as deltas care.
type blockKind uint8

const (
	blockSkipped  blockKind = iota // vendor-run tools, unknown types, redacted thinking: deltas ignored
	blockText                      // text: text_delta
	blockThinking                  // thinking: thinking_delta, signature_delta
	blockToolUse                   // tool_use: input_json_delta, through the assembler
)

// openBlock is a content block whose content_block_stop has not arrived.
type openBlock struct {
	index int
	kind  blockKind
	think *stateBlock // blockThinking: where its thinking goes
	id    string      // blockToolUse: the call id
	// startInput is the input a tool_use block started with when it was
	// not the usual {}: it is the call's input unless input_json_delta
	// events bring one.
	startInput json.RawMessage
	gotArgs    bool // an input_json_delta with text arrived
}

// stateBlock is a thinking or redacted_thinking block, kept to be sent
// back with the message.
type stateBlock struct {
	redacted  bool
	thinking  []byte
	signature string
	data      string
}

func newTranslator(ref contract.ProviderRef) *translator {
	return &translator{ref: ref, asm: provider.NewAssembler(ref)}
}

// translate translates one frame. It returns the events to yield, in order,
// and the terminal error the frame carries, if any. The returned slice is
// only valid until the next call. Once a terminal frame (message_stop, a
// whole message) has been translated, done is set and the stream is over.
func (t *translator) translate(f frame) ([]contract.ModelEvent, *contract.ProviderError) {
	t.out = t.out[:0]
	switch f := f.(type) {
	case *blockDeltaFrame:
		if e := t.blockDelta(f); e != nil {
			return t.out, e
		}
	case *blockStartFrame:
		t.blockStart(f.Index, f.Block)
	case *blockStopFrame:
		t.blockStop(f.Index)
	case *messageStartFrame:
		t.message(&f.Message)
	case *messageDeltaFrame:
		if f.Delta.StopReason != "" {
			t.stop = f.Delta.StopReason
		}
		t.addUsage(&f.Usage)
	case *messageStopFrame:
		t.finish()
	case *wholeFrame:
		t.message(&f.Message)
		t.finish()
	case *errorFrame:
		return t.out, streamError(t.ref, f.Detail, f.RequestID)
	case *pingFrame, *unknownFrame, nil:
		// Nothing to say: keep-alives and events this package does not know.
	}
	return t.out, nil
}

func (t *translator) emit(ev contract.ModelEvent) {
	if ev == nil {
		return
	}
	if _, ok := ev.(*contract.IntentProposed); ok {
		t.calls++
	}
	t.out = append(t.out, ev)
}

// message translates the blocks a Message object already holds (a
// message_start's content, or a whole response), as if each had been
// streamed whole, and takes its stop reason and usage.
func (t *translator) message(m *message) {
	if m.StopReason != "" {
		t.stop = m.StopReason
	}
	t.addUsage(&m.Usage)
	for i, b := range m.Content {
		switch b := b.(type) {
		case *toolUseBlock:
			// The call is complete, its input too: its end is right here.
			args := string(bytes.TrimSpace(b.Input))
			if args == "null" {
				args = ""
			}
			t.emit(t.asm.Add(provider.Fragment{Index: i, ID: b.ID, Name: b.Name, Args: args}))
			t.emit(t.asm.End(i, b.ID))
			if b.ID != "" {
				t.whole = append(t.whole, b.ID)
			}
		default:
			t.blockStart(i, b)
			t.blockStop(i)
		}
	}
}

func (t *translator) blockStart(index int, b block) {
	if i := t.find(index); i >= 0 {
		// A second start for an open index: the first block is abandoned
		// (its tool call, if any, stays open until the message ends).
		t.open = slices.Delete(t.open, i, i+1)
	}
	ob := openBlock{index: index}
	switch b := b.(type) {
	case *textBlock:
		ob.kind = blockText
		if b.Text != "" {
			t.emit(&contract.TextDelta{Text: b.Text})
		}
	case *thinkingBlock:
		ob.kind = blockThinking
		ob.think = &stateBlock{thinking: []byte(b.Thinking), signature: b.Signature}
		t.state = append(t.state, ob.think)
		if b.Thinking != "" {
			t.emit(&contract.ReasoningDelta{Text: b.Thinking})
		}
	case *redactedThinkingBlock:
		// Encrypted thinking: nothing to show, but it must go back.
		t.state = append(t.state, &stateBlock{redacted: true, data: b.Data})
	case *toolUseBlock:
		if slices.Contains(t.whole, b.ID) {
			break // message_start already carried this call whole
		}
		ob.kind, ob.id = blockToolUse, b.ID
		if !isEmptyObject(b.Input) {
			ob.startInput = b.Input
		}
		t.emit(t.asm.Add(provider.Fragment{Index: index, ID: b.ID, Name: b.Name}))
	case *otherBlock:
		// Tools the vendor runs itself (server_tool_use and their results)
		// are not intents: rein executes nothing it did not propose to
		// run. Unknown block types (citations, compaction...) are
		// tolerated. Their deltas are ignored.
	}
	t.open = append(t.open, ob)
}

// blockDelta translates the next piece of a block. A delta that did not
// decode is the stream's error, unless its block is one rein skips: what
// a vendor-run tool streams is not rein's to read, whatever its shape.
func (t *translator) blockDelta(f *blockDeltaFrame) *contract.ProviderError {
	var ob *openBlock
	if i := t.find(f.Index); i >= 0 {
		ob = &t.open[i]
	}
	if f.Err != nil {
		if ob != nil && ob.kind == blockSkipped {
			return nil
		}
		return undecodable(t.ref, f.Err)
	}
	d := &f.Delta
	switch d.Type {
	case "text_delta":
		// Text for a block never started is shown all the same.
		if d.Text != "" && (ob == nil || ob.kind == blockText) {
			t.emit(&contract.TextDelta{Text: d.Text})
		}
	case "thinking_delta":
		if d.Thinking == "" || ob != nil && ob.kind != blockThinking {
			return nil
		}
		if ob != nil {
			ob.think.thinking = append(ob.think.thinking, d.Thinking...)
		}
		t.emit(&contract.ReasoningDelta{Text: d.Thinking})
	case "signature_delta":
		if ob != nil && ob.kind == blockThinking {
			ob.think.signature += d.Signature
		}
	case "input_json_delta":
		if ob == nil || ob.kind != blockToolUse {
			return nil // a vendor-run tool's input, or a block never started
		}
		if d.PartialJSON != "" {
			ob.gotArgs = true
		}
		t.emit(t.asm.Add(provider.Fragment{Index: f.Index, Args: d.PartialJSON}))
	}
	// citations_delta and unknown deltas are tolerated and ignored.
	return nil
}

// blockStop ends block index: for a tool call, its own end marker.
func (t *translator) blockStop(index int) {
	i := t.find(index)
	if i < 0 {
		return
	}
	ob := t.open[i]
	t.open = slices.Delete(t.open, i, i+1)
	if ob.kind == blockToolUse {
		t.endCall(&ob)
	}
}

// endCall ends a tool call, with the input its block started with when no
// input_json_delta brought one.
func (t *translator) endCall(ob *openBlock) {
	if !ob.gotArgs && ob.startInput != nil {
		t.emit(t.asm.Add(provider.Fragment{Index: ob.index, Args: string(ob.startInput)}))
	}
	t.emit(t.asm.End(ob.index, ob.id))
}

// find returns the position in t.open of the open block index, or -1.
func (t *translator) find(index int) int {
	for i := len(t.open) - 1; i >= 0; i-- {
		if t.open[i].index == index {
			return i
		}
	}
	return -1
}

// addUsage takes the figures u carries; usage is cumulative, so each
// replaces the one before, and a figure u does not carry is kept.
func (t *translator) addUsage(u *wireUsage) {
	set := func(dst *int64, src *int64) {
		if src != nil {
			*dst, t.used = *src, true
		}
	}
	set(&t.usage.InputTokens, u.InputTokens)
	set(&t.usage.OutputTokens, u.OutputTokens)
	set(&t.usage.CacheReadTokens, u.CacheReadInputTokens)
	set(&t.usage.CacheWriteTokens, u.CacheCreationInputTokens)
}

// finish ends the message: the calls whose blocks never stopped are ended
// (the message did end normally), then the usage, once, then
// model.finished with the thinking to send back.
func (t *translator) finish() {
	for i := range t.open {
		if ob := &t.open[i]; ob.kind == blockToolUse && !ob.gotArgs && ob.startInput != nil {
			t.emit(t.asm.Add(provider.Fragment{Index: ob.index, Args: string(ob.startInput)}))
		}
	}
	t.open = t.open[:0]
	for _, ev := range t.asm.EndAll() {
		t.emit(ev)
	}
	if t.used {
		// rein counts every input token in InputTokens, cached or not (as
		// the other vendors do); Anthropic's input_tokens leaves the
		// cache reads and writes out.
		u := t.usage
		u.InputTokens += u.CacheReadTokens + u.CacheWriteTokens
		t.emit(&u)
	}
	t.emit(&contract.ModelFinished{Reason: finishReason(t.stop, t.calls), ProviderState: t.providerState()})
	t.done = true
}

// finishReason maps the API's stop_reason. A stream that never said why it
// stopped stopped for its tool calls if it proposed any.
func finishReason(stop string, calls int) contract.FinishReason {
	switch stop {
	case "end_turn", "stop_sequence", "pause_turn":
		return contract.FinishStop
	case "tool_use":
		return contract.FinishToolUse
	case "max_tokens", "model_context_window_exceeded":
		return contract.FinishLength
	case "refusal":
		return contract.FinishContentFilter
	}
	if calls > 0 {
		return contract.FinishToolUse
	}
	return contract.FinishStop
}

// stateThinking and stateRedacted are the blocks of the provider state, in
// the API's own shape.
type stateThinking struct {
	Type      string `json:"type"` // "thinking"
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type stateRedacted struct {
	Type string `json:"type"` // "redacted_thinking"
	Data string `json:"data"`
}

// providerState returns the opaque state of the message: its thinking
// blocks, which the API wants back verbatim with it, or nil when there are
// none. Thinking without a signature is left out: the API refuses it.
func (t *translator) providerState() json.RawMessage {
	var blocks []json.RawMessage
	for _, b := range t.state {
		var v any
		switch {
		case b.redacted && b.data != "":
			v = stateRedacted{Type: "redacted_thinking", Data: b.data}
		case !b.redacted && b.signature != "":
			v = stateThinking{Type: "thinking", Thinking: string(b.thinking), Signature: b.signature}
		default:
			continue
		}
		raw, err := provider.EncodeJSON(v)
		if err != nil {
			continue // strings always marshal
		}
		blocks = append(blocks, raw)
	}
	if len(blocks) == 0 {
		return nil
	}
	raw, err := provider.EncodeJSON(providerState{State: provider.State{Provider: stateProvider}, Blocks: blocks})
	if err != nil {
		return nil // raw messages made by json.Marshal always marshal
	}
	return raw
}
