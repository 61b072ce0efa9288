package openai

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// translator turns decoded frames of one stream into events. It holds the
// stream's state (the assembler, the think-tag splitter, the finish reason
// and the last usage seen) and lives exactly as long as the stream. It does
// no I/O.
type translator struct {
	ref      contract.ProviderRef
	asm      *provider.Assembler
	think    thinkSplitter
	finished bool   // a finish_reason arrived: the message is complete
	reason   string // the first finish_reason, as sent
	intents  int    // intents proposed so far
	usage    *contract.ModelUsage
	// reasoningContent: the server streamed reasoning_content.
	reasoningContent bool
	details          details
	// skipped holds the keys of calls that are not function calls.
	skipped map[string]bool
	// streamed is set once a delta of choice 0 carried something, and
	// messaged once a message was read in place of deltas: a stream's
	// messages are then never read (see chunk).
	streamed, messaged bool
	// others is set once a chunk held a choice other than choice 0.
	others bool
	out    []contract.ModelEvent
}

func newTranslator(ref contract.ProviderRef) *translator {
	return &translator{ref: ref, asm: provider.NewAssembler(ref)}
}

// translate returns the events of one frame, and the terminal error when the
// frame is, or ends in, an error; the events come before the error. A whole
// (non-streamed) response goes through here too, with whole set. The slice
// is reused by the next call.
//
// Only choice 0 is read: the first choice of the chunk whose index is 0.
// Every other choice is ignored (and others set). Of choice 0, a stream's
// chunk is read from its delta. Its message is read only in place of
// deltas, for a server that streams whole messages: when the delta carries
// nothing, no delta of the stream carried anything yet, and no message was
// read before; so neither a message that repeats the delta (Writer) nor a
// running total (Perplexity) is ever read, and a message at most once.
func (t *translator) translate(c *chunk, whole bool) ([]contract.ModelEvent, *contract.ProviderError) {
	t.out = t.out[:0]
	if e := t.frameError(c); e != nil {
		return nil, e
	}
	var ch *choice
	for i := range c.Choices {
		switch {
		case c.Choices[i].Index != 0 || ch != nil:
			t.others = true
		default:
			ch = &c.Choices[i]
		}
	}
	if ch != nil {
		switch {
		case whole && ch.Message != nil:
			t.message(ch.Message, true)
		case whole || !ch.Delta.empty():
			t.streamed = t.streamed || !whole
			t.message(&ch.Delta, whole)
		case ch.Message != nil && !ch.Message.empty() && !t.streamed && !t.messaged:
			t.messaged = true
			t.message(ch.Message, true)
		}
		if ch.FinishReason != "" {
			if e := t.finish(string(ch.FinishReason)); e != nil {
				return t.out, e
			}
		}
	}
	t.takeUsage(c.Usage)
	t.takeUsage(c.XGroq.Usage)
	return t.out, nil
}

// frameError returns the error a frame carries, or nil.
func (t *translator) frameError(c *chunk) *contract.ProviderError {
	hasError := len(c.Error) > 0 && string(c.Error) != "null"
	if !hasError && !bool(c.Object) {
		return nil
	}
	body := errorBody{Error: c.Error, Message: c.Message, Type: string(c.Type), Code: c.Code}
	if bool(c.Object) {
		body.Object = "error"
	}
	d, status, _ := body.detail()
	return streamError(t.ref, d, status)
}

// message handles one delta (or, with whole set, one whole message, whose
// tool calls carry no index but their place in the list).
func (t *translator) message(m *wireDelta, whole bool) {
	// Reasoning: the first of the fields that has it, so that a server
	// sending the same text twice (OpenRouter's reasoning and
	// reasoning_details, vLLM's reasoning and reasoning_content) is
	// counted once.
	r := string(m.ReasoningContent)
	if r != "" {
		t.reasoningContent = true
	} else {
		r = string(m.Reasoning)
	}
	if len(m.ReasoningDetails) > 0 {
		t.details.add(m.ReasoningDetails)
		if r == "" {
			r = readable(m.ReasoningDetails)
		}
	}
	r += m.Content.thinking
	text, inline := t.think.split(m.Content.text)
	r += inline
	if r != "" {
		t.out = append(t.out, &contract.ReasoningDelta{Text: r})
	}
	text += string(m.Refusal)
	if text != "" {
		t.out = append(t.out, &contract.TextDelta{Text: text})
	}
	for i := range m.ToolCalls {
		d := &m.ToolCalls[i]
		f := provider.Fragment{Index: -1, ID: string(d.ID), Name: string(d.Function.Name), Args: string(d.Function.Arguments)}
		switch {
		case d.Index != nil:
			f.Index = max(*d.Index, 0)
		case whole:
			f.Index = i
		}
		if t.skip(f, string(d.Type)) {
			continue
		}
		t.out = append(t.out, t.asm.Add(f))
	}
	if fc := m.FunctionCall; fc != nil && (fc.Name != "" || fc.Arguments != "") {
		// The legacy single call: no index, no id; its fragments continue
		// the call that started last.
		t.out = append(t.out, t.asm.Add(provider.Fragment{Index: -1, Name: string(fc.Name), Args: string(fc.Arguments)}))
	}
}

// skip reports whether a fragment belongs to a call that is not a function
// call (a custom or vendor-run tool: rein declares function tools only, and
// proposes to run nothing it did not declare). Only a call's first
// fragment says its type; the later ones are known by their id, or by
// their index when they have no id.
func (t *translator) skip(f provider.Fragment, typ string) bool {
	other := typ != "" && typ != "function"
	if !other && len(t.skipped) == 0 {
		return false // the common case: nothing was ever skipped
	}
	idx := "#" + strconv.Itoa(f.Index)
	switch {
	case other:
		if t.skipped == nil {
			t.skipped = map[string]bool{}
		}
		t.skipped[idx] = true
		if f.ID != "" {
			t.skipped["id:"+f.ID] = true
		}
		return true
	case f.ID != "" && t.skipped["id:"+f.ID]:
		return true
	case typ == "function" || f.ID != "":
		delete(t.skipped, idx) // a function call now holds that index
		return false
	}
	return t.skipped[idx]
}

// finish handles a finish_reason: the message is over, so every call still
// open is complete. A finish_reason may come twice; the first one counts.
func (t *translator) finish(reason string) *contract.ProviderError {
	if reason == "error" {
		// OpenRouter ends a stream whose upstream failed this way (usually
		// with an error object, handled before).
		return provider.NewError(t.ref, contract.KindServer, `the server ended the message with finish_reason "error"`)
	}
	if !t.finished {
		t.finished, t.reason = true, reason
	}
	t.endCalls()
	return nil
}

// endCalls ends every open call and flushes text held back.
func (t *translator) endCalls() {
	text, reasoning := t.think.flush()
	if reasoning != "" {
		t.out = append(t.out, &contract.ReasoningDelta{Text: reasoning})
	}
	if text != "" {
		t.out = append(t.out, &contract.TextDelta{Text: text})
	}
	for _, ev := range t.asm.EndAll() {
		if _, ok := ev.(*contract.IntentProposed); ok {
			t.intents++
		}
		t.out = append(t.out, ev)
	}
}

// end returns the events that close a complete stream ([DONE], or the end
// of the body after a finish_reason, or a whole response): calls still
// open, the usage and model.finished.
func (t *translator) end() []contract.ModelEvent {
	t.out = t.out[:0]
	t.endCalls()
	if t.usage != nil {
		t.out = append(t.out, t.usage)
		t.usage = nil
	}
	t.out = append(t.out, &contract.ModelFinished{Reason: t.finishReason(), ProviderState: t.state()})
	return t.out
}

// takeUsage keeps the last usage seen: servers that count on every chunk
// count cumulatively. It is yielded once, before model.finished.
func (t *translator) takeUsage(u *wireUsage) {
	if u == nil {
		return
	}
	mu := &contract.ModelUsage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, CacheReadTokens: u.PromptCacheHitTokens}
	if d := u.PromptTokensDetails; d != nil {
		if d.CachedTokens > 0 {
			mu.CacheReadTokens = d.CachedTokens
		}
		mu.CacheWriteTokens = d.CacheWriteTokens
	}
	if d := u.CompletionTokensDetails; d != nil {
		mu.ReasoningTokens = d.ReasoningTokens
	}
	t.usage = mu
}

// finishReason maps the finish_reason. A message that proposed intents
// ended in tool use whatever its reason says: Ollama and others say "stop".
func (t *translator) finishReason() contract.FinishReason {
	var r contract.FinishReason
	switch t.reason {
	case "tool_calls", "function_call", "tool_use":
		r = contract.FinishToolUse
	case "length", "max_tokens", "model_length":
		r = contract.FinishLength
	case "content_filter", "safety", "recitation":
		r = contract.FinishContentFilter
	default: // stop, end_turn, eos, none at all ([DONE] alone)...
		r = contract.FinishStop
	}
	if r == contract.FinishStop && t.intents > 0 {
		r = contract.FinishToolUse
	}
	return r
}

// state returns the opaque state for model.finished, or nil when the
// server needs nothing back.
func (t *translator) state() json.RawMessage {
	st := providerState{State: provider.State{Provider: stateName}, ReasoningContent: t.reasoningContent}
	if t.details.needed() {
		st.ReasoningDetails, _ = json.Marshal(t.details.entries) // plain strings and ints always marshal
	}
	if !st.ReasoningContent && st.ReasoningDetails == nil {
		return nil
	}
	b, _ := json.Marshal(st) // as above
	return b
}

// thinkSplitter separates reasoning a model writes inline, as
// <think>...</think> at the start of its content (DeepSeek R1, QwQ and
// Qwen3 on servers without a reasoning parser), from the answer. Tags may
// be split across deltas: a piece that could be the start of a tag is held
// back until the next delta tells. A <think> anywhere but at the start
// (after whitespace) is text, and so is everything when the content does
// not start with one.
type thinkSplitter struct {
	state thinkState
	held  string
}

type thinkState int

const (
	thinkStart thinkState = iota // only whitespace so far: a <think> may open
	thinkIn                      // inside <think>
	thinkAfter                   // right after </think>: whitespace is dropped
	thinkText                    // the answer
)

const (
	openTag  = "<think>"
	closeTag = "</think>"
)

// split returns the answer text and the reasoning in the next piece of
// content. Within one piece, reasoning always comes before text.
func (sp *thinkSplitter) split(s string) (text, reasoning string) {
	if sp.state == thinkText {
		return s, ""
	}
	if s == "" {
		return "", ""
	}
	buf := sp.held + s
	sp.held = ""
	for {
		switch sp.state {
		case thinkStart:
			rest := strings.TrimLeft(buf, " \t\r\n")
			switch {
			case rest == "", strings.HasPrefix(openTag, rest):
				sp.held = buf // whitespace, or maybe the start of <think>
				return text, reasoning
			case strings.HasPrefix(rest, openTag):
				sp.state, buf = thinkIn, rest[len(openTag):]
			default:
				sp.state = thinkText
				return text + buf, reasoning
			}
		case thinkIn:
			if i := strings.Index(buf, closeTag); i >= 0 {
				reasoning += buf[:i]
				sp.state, buf = thinkAfter, buf[i+len(closeTag):]
				continue
			}
			k := partialSuffix(buf, closeTag)
			sp.held = buf[len(buf)-k:]
			return text, reasoning + buf[:len(buf)-k]
		case thinkAfter:
			rest := strings.TrimLeft(buf, " \t\r\n")
			if rest == "" {
				return text, reasoning
			}
			sp.state = thinkText
			return text + rest, reasoning
		default:
			return text + buf, reasoning
		}
	}
}

// flush returns what is held back when the content ends: whitespace or a
// tag that never completed, as what it was part of.
func (sp *thinkSplitter) flush() (text, reasoning string) {
	held := sp.held
	sp.held = ""
	if sp.state == thinkIn {
		return "", held
	}
	return held, ""
}

// partialSuffix returns the length of the longest suffix of s that is a
// proper prefix of tag.
func partialSuffix(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}
