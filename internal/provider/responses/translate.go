package responses

import (
	"cmp"
	"encoding/json"
	"errors"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// Output item types rein reads. Every other item type is a tool the vendor
// runs itself (web_search_call, file_search_call, code_interpreter_call,
// shell_call, local_shell_call, apply_patch_call, computer_call, mcp_call,
// image_generation_call...) or a type not invented yet: it is never an
// intent, since rein executes nothing it did not propose to run, and the
// vendor reports its result itself.
const (
	itemMessage      = "message"
	itemReasoning    = "reasoning"
	itemFunctionCall = "function_call"
)

// translator turns the frames of one stream into contract events. It holds
// the stream's state (the assembler, which output items streamed their
// text, the reasoning to send back) and lives exactly as long as the
// stream. It is not safe for concurrent use.
type translator struct {
	ref contract.ProviderRef
	asm *provider.Assembler

	// calls are the function calls seen, by output index.
	calls map[int]*callState
	// loose is the current call of a server that sends no output index:
	// each output_item.added starts a new one.
	loose *callState
	// streamed holds the output indexes whose text or reasoning came as
	// deltas, so that their output_item.done does not repeat it.
	streamed map[int]bool
	// unindexed is set once a text or reasoning delta came without an
	// output index: item text is then never replayed, since it cannot be
	// told apart from what streamed.
	unindexed bool
	// items counts the output item frames seen. A response.completed after
	// none carries the whole output, which is then translated from it.
	items int
	// lastPart is the reasoning part the last reasoning delta belonged to.
	lastPart reasoningPart
	// state holds the reasoning items to send back next turn.
	state []json.RawMessage
	// proposed counts the intents proposed: the turn ends in tool_use when
	// there is any.
	proposed int
	// done is set once the terminal frame (or a terminal error) is
	// translated: nothing after it is read.
	done bool

	out []contract.ModelEvent
}

// callState is what the translator knows of one function call.
type callState struct {
	raw   string // the argument text given to the assembler so far
	named bool   // the assembler knows its tool name
	open  bool   // started and not yet ended
	ended bool   // its output_item.done arrived
}

// reasoningPart identifies a reasoning part: an item's summary part or
// content part.
type reasoningPart struct {
	valid   bool
	index   int
	summary bool
	part    int
}

func newTranslator(ref contract.ProviderRef) *translator {
	return &translator{
		ref:      ref,
		asm:      provider.NewAssembler(ref),
		calls:    map[int]*callState{},
		streamed: map[int]bool{},
	}
}

// translate returns the events for one frame and, when the frame ends the
// stream in an error, that error, to be yielded after the events. The
// returned slice is valid until the next call.
func (t *translator) translate(f frame) ([]contract.ModelEvent, *contract.ProviderError) {
	t.out = t.out[:0]
	if t.done {
		return t.out, nil
	}
	switch f := f.(type) {
	case *lifecycleFrame, *ignoredFrame:
	case *textDeltaFrame:
		t.markStreamed(f.OutputIndex)
		if f.Delta != "" {
			t.emit(&contract.TextDelta{Text: f.Delta})
		}
	case *reasoningDeltaFrame:
		t.reasoningDelta(f)
	case *itemAddedFrame:
		t.items++
		if f.Item.Type == itemFunctionCall {
			if f.OutputIndex < 0 && t.loose != nil && (t.loose.open || t.loose.ended) {
				t.loose = nil
			}
			c := t.call(f.OutputIndex)
			if !c.ended {
				t.fragment(f.OutputIndex, c, f.Item.CallID, f.Item.Name, f.Item.Arguments)
			}
		}
	case *argsDeltaFrame:
		t.items++
		c := t.call(f.OutputIndex)
		if !c.ended {
			t.fragment(f.OutputIndex, c, "", "", f.Delta)
		}
	case *argsDoneFrame:
		t.items++
		t.complete(f.OutputIndex, "", f.Name, f.Arguments)
	case *itemDoneFrame:
		t.items++
		t.itemDone(f.OutputIndex, &f.Item)
	case *completedFrame:
		t.finish(&f.Response, "")
	case *incompleteFrame:
		t.finish(&f.Response, incompleteReason(&f.Response))
	case *failedFrame:
		return t.fail(&f.Response)
	case *wholeFrame:
		return t.whole(&f.Response)
	case *errorFrame:
		t.done = true
		return t.out, t.streamError(f.Detail)
	}
	return t.out, nil
}

func (t *translator) emit(e contract.ModelEvent) { t.out = append(t.out, e) }

func (t *translator) markStreamed(index int) {
	if index < 0 {
		t.unindexed = true
		return
	}
	if !t.streamed[index] {
		t.streamed[index] = true
	}
}

// reasoningDelta yields reasoning text. Consecutive parts (summary parts
// of one item, or separate items) are separated by a blank line, as the
// model wrote them as separate paragraphs.
func (t *translator) reasoningDelta(f *reasoningDeltaFrame) {
	t.markStreamed(f.OutputIndex)
	if f.Delta == "" {
		return
	}
	p := reasoningPart{valid: true, index: f.OutputIndex, summary: f.Summary, part: f.ContentIndex}
	if f.Summary {
		p.part = f.SummaryIndex
	}
	text := f.Delta
	if t.lastPart.valid && t.lastPart != p {
		text = "\n\n" + text
	}
	t.lastPart = p
	t.emit(&contract.ReasoningDelta{Text: text})
}

// call returns the state of the function call at index, creating it.
func (t *translator) call(index int) *callState {
	if index < 0 {
		if t.loose == nil {
			t.loose = &callState{}
		}
		return t.loose
	}
	c := t.calls[index]
	if c == nil {
		c = &callState{}
		t.calls[index] = c
	}
	return c
}

// fragment feeds one fragment of the call at index to the assembler and
// yields its delta.
func (t *translator) fragment(index int, c *callState, id, name, args string) {
	d := t.asm.Add(provider.Fragment{Index: index, ID: id, Name: name, Args: args})
	c.raw, c.open = d.RawInput, true
	if name != "" {
		c.named = true
	}
	t.emit(d)
}

// complete makes sure the assembler holds the whole argument text full of
// the call at index, which a .done frame carries. A server that streamed
// no argument deltas gets full as the call's one fragment; one whose
// deltas stopped short gets the rest; deltas that disagree with full win,
// since they are what was shown.
func (t *translator) complete(index int, id, name, full string) {
	c := t.call(index)
	switch {
	case c.ended:
	case !c.open:
		t.fragment(index, c, id, name, full)
	case len(full) > len(c.raw) && strings.HasPrefix(full, c.raw):
		t.fragment(index, c, "", t.newName(c, name), full[len(c.raw):])
	case !c.named && name != "":
		t.fragment(index, c, "", name, "")
	}
}

// newName returns name when the assembler does not know the call's name
// yet, and "" otherwise: a known name is never repeated.
func (t *translator) newName(c *callState, name string) string {
	if c.named {
		return ""
	}
	return name
}

// itemDone translates an output item's end: a function call's end marker,
// reasoning to keep for the next turn, and the text of items that did not
// stream it.
func (t *translator) itemDone(index int, item *outputItem) {
	switch item.Type {
	case itemFunctionCall:
		t.complete(index, item.CallID, item.Name, item.Arguments)
		c := t.call(index)
		if c.ended {
			return
		}
		c.ended, c.open = true, false
		if index < 0 {
			t.loose = nil
		}
		if ev := t.asm.End(index, item.CallID); ev != nil {
			t.intent(ev)
		}
	case itemReasoning:
		t.keepReasoning(item)
		if text := reasoningText(item); text != "" && t.replay(index) {
			t.emit(&contract.ReasoningDelta{Text: text})
		}
	case itemMessage:
		if text := messageText(item); text != "" && t.replay(index) {
			t.emit(&contract.TextDelta{Text: text})
		}
	}
}

// replay reports whether the text of the item at index must be yielded
// from the item itself, because it did not stream.
func (t *translator) replay(index int) bool {
	return index >= 0 && !t.unindexed && !t.streamed[index]
}

// intent yields an ended call: a proposed intent, or its
// malformed_tool_call error.
func (t *translator) intent(ev contract.ModelEvent) {
	if _, ok := ev.(*contract.IntentProposed); ok {
		t.proposed++
	}
	t.emit(ev)
}

// stateItem is a reasoning item as it is sent back. Its id is left out:
// with store: false the server keeps nothing, and an id it cannot resolve
// fails the request; the encrypted content is all it needs.
type stateItem struct {
	Type             string          `json:"type"`
	Summary          json.RawMessage `json:"summary"`
	EncryptedContent string          `json:"encrypted_content"`
}

// keepReasoning keeps a reasoning item for the next turn. Only items with
// encrypted content are kept: without it, and with store: false, the
// server cannot use the item, and its text is in the transcript anyway.
func (t *translator) keepReasoning(item *outputItem) {
	if item.EncryptedContent == "" {
		return
	}
	summary := item.Summary
	if len(summary) == 0 || string(summary) == "null" {
		summary = json.RawMessage("[]")
	}
	b, err := json.Marshal(stateItem{Type: itemReasoning, Summary: summary, EncryptedContent: item.EncryptedContent})
	if err != nil {
		return // the summary came from a decoded frame: it is valid JSON
	}
	t.state = append(t.state, b)
}

// finish translates the terminal frame: the calls still open end, then the
// usage, then model.finished. reason is "" for a completed response.
func (t *translator) finish(r *response, reason contract.FinishReason) {
	if t.items == 0 {
		// No output item frame came: the server put the whole output in
		// the terminal frame only.
		for i := range r.Output {
			t.itemDone(i, &r.Output[i])
		}
	}
	for _, ev := range t.asm.EndAll() {
		t.intent(ev)
	}
	t.usage(r)
	if reason == "" {
		reason = contract.FinishStop
		if t.proposed > 0 {
			reason = contract.FinishToolUse
		}
	}
	t.emit(&contract.ModelFinished{Reason: reason, ProviderState: t.providerState()})
	t.done = true
}

func (t *translator) usage(r *response) {
	if r.Usage == nil {
		return
	}
	t.emit(&contract.ModelUsage{
		InputTokens:     r.Usage.InputTokens,
		OutputTokens:    r.Usage.OutputTokens,
		CacheReadTokens: r.Usage.InputTokensDetails.CachedTokens,
		ReasoningTokens: r.Usage.OutputTokensDetails.ReasoningTokens,
	})
}

// incompleteReason maps incomplete_details.reason: content_filter, else
// length (max_output_tokens, and any reason not known yet: the response
// was cut short).
func incompleteReason(r *response) contract.FinishReason {
	if r.IncompleteDetails != nil && r.IncompleteDetails.Reason == "content_filter" {
		return contract.FinishContentFilter
	}
	return contract.FinishLength
}

// fail translates response.failed: the usage if any, then the error.
func (t *translator) fail(r *response) ([]contract.ModelEvent, *contract.ProviderError) {
	t.usage(r)
	t.done = true
	d := r.errorDetail()
	if d.Message == "" && d.Code == "" {
		d.Message = "the response failed (status " + cmp.Or(r.Status, "failed") + ")"
	}
	return t.out, t.streamError(d)
}

// whole translates a whole response: every output item as if it had
// streamed whole, then the end its status says.
func (t *translator) whole(r *response) ([]contract.ModelEvent, *contract.ProviderError) {
	for i := range r.Output {
		t.items++
		t.itemDone(i, &r.Output[i])
	}
	switch {
	case r.Status == "failed" || r.Status == "cancelled" || (r.Status == "" && r.failed()):
		return t.fail(r)
	case r.Status == "incomplete":
		t.finish(r, incompleteReason(r))
	case r.Status == "" || r.Status == "completed":
		t.finish(r, "")
	default:
		// in_progress or queued: a background response, not an answer.
		t.done = true
		return t.out, provider.Interrupted(t.ref, "a finished response (its status is "+r.Status+")")
	}
	return t.out, nil
}

// providerState returns the opaque state for model.finished, or nil when
// there is nothing to send back.
func (t *translator) providerState() json.RawMessage {
	if len(t.state) == 0 {
		return nil
	}
	b, err := json.Marshal(state{State: provider.State{Provider: stateProvider}, Reasoning: t.state})
	if err != nil {
		return nil // the items were marshalled by keepReasoning: valid JSON
	}
	return b
}

// streamError maps an error the server reported inside the stream.
func (t *translator) streamError(d provider.ErrorDetail) *contract.ProviderError {
	kind := classify(0, d)
	msg := d.Message
	switch {
	case msg == "":
		msg = "the server reported an error"
		if d.Code != "" {
			msg += " (" + d.Code + ")"
		}
	case d.Code != "" && !strings.Contains(msg, d.Code):
		msg += " (" + d.Code + ")"
	}
	e := provider.NewError(t.ref, kind, msg)
	e.RetryAfterMS = provider.RetryAfterMS(nil, []byte(d.Message))
	return e
}

// decodeError maps data that could not be decoded: the server (or a proxy)
// sent something that is not the Responses API.
func (t *translator) decodeError(err error) *contract.ProviderError {
	msg := err.Error()
	if df, ok := errors.AsType[*decodeFailure](err); ok {
		msg = df.describe()
	}
	e := provider.NewError(t.ref, contract.KindUnknown, msg)
	e.Err = err
	return e
}

// reasoningText is the text of a reasoning item: its summary, else its
// reasoning_text content, parts separated by blank lines.
func reasoningText(item *outputItem) string {
	var parts []string
	if len(item.Summary) > 0 {
		var summary []summaryPart
		if json.Unmarshal(item.Summary, &summary) == nil {
			for _, p := range summary {
				if p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
		}
	}
	if len(parts) == 0 {
		for _, p := range item.Content {
			if p.Text != "" {
				parts = append(parts, p.Text)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// messageText is the text of a message item: its output_text and refusal
// parts.
func messageText(item *outputItem) string {
	var b strings.Builder
	for _, p := range item.Content {
		switch p.Type {
		case "output_text", "text":
			b.WriteString(p.Text)
		case "refusal":
			b.WriteString(p.Refusal)
		}
	}
	return b.String()
}
