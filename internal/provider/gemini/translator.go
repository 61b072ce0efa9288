package gemini

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// translator turns decoded chunks into events. It holds the state of one
// stream (the Assembler, the call being streamed, the finish reason seen,
// the last usage, the signatures) and does no I/O, so it is tested frame by
// frame. The zero value is not usable; use newTranslator.
type translator struct {
	ref contract.ProviderRef
	asm *provider.Assembler
	// calls counts the calls of the stream: the next call's index, and the
	// n of the id "call_<n>" made up for a call that has none.
	calls int
	// streaming is the call whose arguments are arriving as partialArgs,
	// nil when none is.
	streaming *streamingCall
	proposed  bool   // an intent was proposed
	finish    string // the first candidate's finishReason, once seen
	blocked   string // promptFeedback.blockReason, once seen
	usage     *usageMetadata
	state     []statePart
}

// streamingCall is a call whose arguments stream as partialArgs.
type streamingCall struct {
	index int
	id    string
	name  string
	args  argWriter
}

func newTranslator(ref contract.ProviderRef) *translator {
	return &translator{ref: ref, asm: provider.NewAssembler(ref)}
}

// terminal reports whether the terminal frame has arrived: a finish
// reason, or a prompt blocked before any candidate.
func (t *translator) terminal() bool { return t.finish != "" || t.blocked != "" }

// translate translates one chunk. It returns the events to yield and, when the
// chunk is an error, the stream's terminal error.
func (t *translator) translate(c *chunk) ([]contract.ModelEvent, *contract.ProviderError) {
	if e := bytes.TrimSpace(c.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
		body := make([]byte, 0, len(e)+10)
		body = append(append(append(body, `{"error":`...), e...), '}')
		return nil, streamError(t.ref, body)
	}
	if c.UsageMetadata != nil {
		t.usage = c.UsageMetadata
	}
	if c.PromptFeedback != nil && c.PromptFeedback.BlockReason != "" && t.blocked == "" {
		t.blocked = c.PromptFeedback.BlockReason
	}
	if len(c.Candidates) == 0 {
		return nil, nil
	}
	// Only the first candidate is read: rein asks for one (candidateCount
	// is left at its default of 1).
	cand := &c.Candidates[0]
	var events []contract.ModelEvent
	if cand.Content != nil {
		for i := range cand.Content.Parts {
			events = t.part(events, &cand.Content.Parts[i])
		}
	}
	if cand.FinishReason != "" && t.finish == "" {
		t.finish = cand.FinishReason
		// A call still streaming ends with the message: Vertex may finish
		// without the call's closing part.
		events = t.endStreaming(events)
		if t.finish == "MALFORMED_FUNCTION_CALL" || t.finish == "UNEXPECTED_TOOL_CALL" {
			msg := "the model produced a function call Gemini could not parse (" + t.finish + ")"
			if cand.FinishMessage != "" {
				msg += ": " + cand.FinishMessage
			}
			events = append(events, provider.NewError(t.ref, contract.KindMalformedToolCall, msg))
		}
	}
	return events, nil
}

// part translates one part of the candidate's content.
func (t *translator) part(events []contract.ModelEvent, p *part) []contract.ModelEvent {
	if p.FunctionCall != nil {
		return t.call(events, p.FunctionCall, p.ThoughtSignature)
	}
	if p.ThoughtSignature != "" {
		kind := kindText
		if p.Thought {
			kind = kindThought
		}
		t.state = append(t.state, statePart{Kind: kind, Signature: p.ThoughtSignature})
	}
	switch {
	case p.Text == "":
		// An empty text part (often the bearer of a signature), or a part
		// of a kind rein does not translate. executableCode and
		// codeExecutionResult are code Gemini ran itself: never intents,
		// since rein runs nothing it did not propose to run.
	case p.Thought:
		events = append(events, &contract.ReasoningDelta{Text: p.Text})
	default:
		events = append(events, &contract.TextDelta{Text: p.Text})
	}
	return events
}

// call translates a functionCall part: a whole call, or a piece of one
// streaming as partialArgs.
func (t *translator) call(events []contract.ModelEvent, f *functionCall, signature string) []contract.ModelEvent {
	if s := t.streaming; s != nil {
		newCall := f.Args != nil || (f.Name != "" && f.Name != s.name) || (f.ID != "" && f.ID != s.id)
		if !newCall {
			t.sign(s.id, signature)
			return t.continueStreaming(events, f, false)
		}
		events = t.endStreaming(events)
	}
	if f.Name == "" && f.ID == "" && f.Args == nil && len(f.PartialArgs) == 0 && !f.WillContinue {
		// An empty functionCall is the end marker of a streamed call,
		// here one that already ended (its last piece said nothing more
		// would follow): there is nothing left to end.
		return events
	}
	index, id, synthetic := t.calls, f.ID, f.ID == ""
	t.calls++
	if synthetic {
		id = "call_" + strconv.Itoa(index)
	}
	if synthetic || signature != "" {
		t.state = append(t.state, statePart{Kind: kindCall, CallID: id, Synthetic: synthetic, Signature: signature})
	}
	if f.WillContinue || (f.Args == nil && len(f.PartialArgs) > 0) {
		t.streaming = &streamingCall{index: index, id: id, name: f.Name}
		return t.continueStreaming(events, f, true)
	}
	// A whole call: one fragment, ended at once. Gemini leaves args out
	// for a call without arguments.
	args := string(bytes.TrimSpace(f.Args))
	if args == "" || args == "null" {
		args = "{}"
	}
	events = append(events, t.asm.Add(provider.Fragment{Index: index, ID: id, Name: f.Name, Args: args}))
	return t.end(events, index, id)
}

// sign records a signature that came on a later part of a streaming call.
func (t *translator) sign(id, signature string) {
	if signature == "" {
		return
	}
	for i := range t.state {
		if p := &t.state[i]; p.Kind == kindCall && p.CallID == id {
			if p.Signature == "" {
				p.Signature = signature
			}
			return
		}
	}
	t.state = append(t.state, statePart{Kind: kindCall, CallID: id, Signature: signature})
}

// continueStreaming writes the partialArgs of f into the streaming call,
// and ends the call when f says nothing more follows. Each part is one
// fragment at most: the first part of a call always is one (it names the
// call), a later part only when it brings argument text.
func (t *translator) continueStreaming(events []contract.ModelEvent, f *functionCall, first bool) []contract.ModelEvent {
	s := t.streaming
	var text string
	for i := range f.PartialArgs {
		text += s.args.write(&f.PartialArgs[i])
	}
	last := !f.WillContinue
	if last {
		t.streaming = nil
		text += s.args.close()
	}
	if first || text != "" {
		frag := provider.Fragment{Index: s.index, ID: s.id, Args: text}
		if first {
			frag.Name = s.name
		}
		events = append(events, t.asm.Add(frag))
	}
	if !last {
		return events
	}
	return t.endStreamed(events, s)
}

// endStreaming ends the streaming call, if any.
func (t *translator) endStreaming(events []contract.ModelEvent) []contract.ModelEvent {
	s := t.streaming
	if s == nil {
		return events
	}
	t.streaming = nil
	if text := s.args.close(); text != "" {
		events = append(events, t.asm.Add(provider.Fragment{Index: s.index, ID: s.id, Args: text}))
	}
	return t.endStreamed(events, s)
}

// endStreamed ends a streamed call in the Assembler. When its partialArgs
// could not be written out (the writer broke), the call is malformed,
// whatever the text written so far would parse to.
func (t *translator) endStreamed(events []contract.ModelEvent, s *streamingCall) []contract.ModelEvent {
	if s.args.broken == nil {
		return t.end(events, s.index, s.id)
	}
	t.asm.End(s.index, s.id) // closed and dropped: its text is not the call's arguments
	e := provider.NewError(t.ref, contract.KindMalformedToolCall,
		fmt.Sprintf("tool call %q (id %s) streamed arguments that cannot be assembled: %v", s.name, s.id, s.args.broken))
	e.Err = s.args.broken
	return append(events, e)
}

// end ends call index in the Assembler and appends what it yields: the
// proposed intent, or a malformed_tool_call error.
func (t *translator) end(events []contract.ModelEvent, index int, id string) []contract.ModelEvent {
	ev := t.asm.End(index, id)
	if ev == nil {
		return events
	}
	if _, ok := ev.(*contract.IntentProposed); ok {
		t.proposed = true
	}
	return append(events, ev)
}

// finishEvents returns the events that close a stream whose terminal frame
// arrived: the usage, once, with the last figures, then model.finished.
// The caller checks terminal() first: without the terminal frame the
// stream was interrupted, and nothing of this is yielded.
func (t *translator) finishEvents() []contract.ModelEvent {
	var events []contract.ModelEvent
	if t.streaming != nil { // a call still open when a blocked prompt ended the stream
		events = t.endStreaming(events)
	}
	// The Assembler holds no other open call: every call is ended when it
	// arrives. EndAll keeps that promise explicit.
	for _, ev := range t.asm.EndAll() {
		if _, ok := ev.(*contract.IntentProposed); ok {
			t.proposed = true
		}
		events = append(events, ev)
	}
	if u := t.usage; u != nil {
		// OutputTokens counts everything generated, thoughts included, as
		// Gemini bills them; ReasoningTokens is the thoughts' share.
		// InputTokens includes the cached tokens, as promptTokenCount does.
		events = append(events, &contract.ModelUsage{
			InputTokens:     u.PromptTokenCount + u.ToolUsePromptTokenCount,
			OutputTokens:    u.CandidatesTokenCount + u.ThoughtsTokenCount,
			CacheReadTokens: u.CachedContentTokenCount,
			ReasoningTokens: u.ThoughtsTokenCount,
		})
	}
	return append(events, &contract.ModelFinished{Reason: t.reason(), ProviderState: encodeState(t.state)})
}

// reason maps the finish reason (or the block reason) into rein's.
func (t *translator) reason() contract.FinishReason {
	if t.finish == "" && t.blocked != "" {
		return contract.FinishContentFilter
	}
	switch t.finish {
	case "STOP":
		// STOP also ends a turn of function calls.
		if t.proposed {
			return contract.FinishToolUse
		}
		return contract.FinishStop
	case "MAX_TOKENS":
		return contract.FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "LANGUAGE":
		return contract.FinishContentFilter
	}
	// MALFORMED_FUNCTION_CALL and UNEXPECTED_TOOL_CALL (after their
	// malformed_tool_call event), TOO_MANY_TOOL_CALLS,
	// MISSING_THOUGHT_SIGNATURE, MALFORMED_RESPONSE, OTHER, and reasons
	// newer than this adapter: the turn did not end as the model meant.
	return contract.FinishError
}
