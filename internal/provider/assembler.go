package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// Fragment is one piece of a streamed tool call, in the shape every vendor
// reduces to:
//
//   - OpenAI chat completions: one Fragment per tool_calls entry of a chunk,
//     Index from the entry, ID and Name only on the first.
//   - Anthropic messages: content_block_start gives Index, ID and Name with
//     empty Args; each input_json_delta gives Index and the next Args.
//   - OpenAI responses: output_item.added gives Index (the output index), ID
//     and Name; each function_call_arguments.delta gives Index and Args.
//   - Gemini: one Fragment per whole call, followed at once by its end.
type Fragment struct {
	// Index is the vendor's index of the call within the message. A
	// negative Index means the vendor gives none: the call is then keyed by
	// ID, and a fragment with neither index nor ID continues the call that
	// started last.
	Index int
	// ID is the vendor's call id. It may be empty on later fragments; an
	// empty ID never overwrites a known one.
	ID string
	// Name is the tool name. It may be empty on later fragments; an empty
	// Name never overwrites a known one.
	Name string
	// Args is the next piece of the argument text, exactly as received.
	Args string
}

// Assembler puts streamed tool-call fragments together into complete tool
// intents. It holds the only state a provider keeps while a stream runs,
// and it lives exactly as long as that stream: make one per Stream call
// with [NewAssembler].
//
// The adapter feeds every fragment to [Assembler.Add] and yields the delta
// it returns; when the vendor marks a call as complete it calls
// [Assembler.End], and when the message ends it calls [Assembler.EndAll]
// for the calls the vendor never ends one by one. Only then are the
// arguments parsed, once: an intent is never proposed with partial input,
// even when the text received so far happens to parse. When a stream ends
// without its terminal frame, the adapter must not call EndAll: the calls
// still open are simply dropped, never proposed, and the stream ends with a
// stream_interrupted error.
//
// The zero value is not usable. An Assembler is not safe for concurrent
// use.
type Assembler struct {
	ref   contract.ProviderRef
	open  []*openCall // calls started and not yet ended, in first-seen order
	adds  int         // Add calls so far: the ordinal of the next fragment
	calls int         // calls started so far: the ordinal of the next call
}

// openCall is a tool call whose end has not arrived yet.
type openCall struct {
	ordinal   int // position among this assembler's calls, 0-based
	index     int // the vendor's index, -1 when it gives none
	id        string
	name      string
	args      strings.Builder
	fragments int
	first     int // ordinal of the call's first fragment
	last      int // ordinal of the call's last fragment
}

// NewAssembler returns an Assembler for one stream. ref names the provider,
// model and request the intents will be attributed to; it is copied into
// every intent and error the Assembler makes.
func NewAssembler(ref contract.ProviderRef) *Assembler {
	return &Assembler{ref: ref}
}

// Add records f and returns the delta to yield for it: the call's argument
// text received so far, with its tool name and call id as far as they are
// known. The delta's Index is the call's position among the calls of this
// stream (0 for the first call seen, 1 for the second...), whatever the
// vendor's own index, so a display can tell the calls apart.
//
// A fragment belongs to the open call with the same Index, or, when Index
// is negative, to the open call with the same ID, or to the call that
// started last when it has no ID either. Otherwise it starts a new call. A
// fragment whose Index matches an open call but whose ID differs from that
// call's known id starts a new call too: some OpenAI-compatible servers
// give every parallel call index 0 and tell them apart only by id.
func (a *Assembler) Add(f Fragment) *contract.IntentDelta {
	c := a.lookup(f)
	if c == nil {
		c = &openCall{ordinal: a.calls, index: max(f.Index, -1), first: a.adds}
		a.calls++
		a.open = append(a.open, c)
	}
	if c.id == "" {
		c.id = f.ID
	}
	if f.Name != "" {
		c.name = f.Name
	}
	c.args.WriteString(f.Args)
	c.fragments++
	c.last = a.adds
	a.adds++
	return &contract.IntentDelta{
		Index:          c.ordinal,
		ProviderCallID: c.id,
		ToolName:       c.name,
		RawInput:       c.args.String(),
	}
}

// lookup returns the open call f continues, or nil when f starts one.
func (a *Assembler) lookup(f Fragment) *openCall {
	switch {
	case f.Index >= 0:
		for _, c := range slices.Backward(a.open) {
			if c.index == f.Index {
				if f.ID != "" && c.id != "" && f.ID != c.id {
					return nil
				}
				return c
			}
		}
		return nil
	case f.ID != "":
		if i := slices.IndexFunc(a.open, func(c *openCall) bool { return c.id == f.ID }); i >= 0 {
			return a.open[i]
		}
		return nil
	case len(a.open) > 0:
		return a.open[len(a.open)-1]
	}
	return nil
}

// End closes the call whose own end marker arrived (Anthropic's
// content_block_stop, Responses' output_item.done, right after a Gemini
// call) and parses its arguments. It returns the *contract.IntentProposed
// to yield, or a *contract.ProviderError of kind malformed_tool_call when
// the call has no tool name or its arguments are not a JSON object; either
// is yielded as an event, and the stream goes on. It returns nil when no
// such call is open.
//
// The call is found by index when index is not negative (id then only
// chooses between calls sharing that index), by id otherwise, and it is the
// call that started last when both are missing.
//
// The proposed intent's ID is left empty: the kernel assigns rein's intent
// ids. Its Input is the compacted argument text; RawInput is the text as
// received. The one repair made is unambiguous: argument text that is empty
// or only whitespace becomes {} and HadRepair is set. Nothing else is
// guessed.
func (a *Assembler) End(index int, id string) contract.ModelEvent {
	i := a.find(index, id)
	if i < 0 {
		return nil
	}
	c := a.open[i]
	a.open = slices.Delete(a.open, i, i+1)
	return a.finish(c)
}

// find returns the position in a.open of the call End(index, id) means, or
// -1.
func (a *Assembler) find(index int, id string) int {
	switch {
	case index >= 0:
		found := -1
		for i, c := range a.open {
			if c.index != index {
				continue
			}
			if id != "" && c.id == id {
				return i
			}
			if found < 0 {
				found = i
			}
		}
		return found
	case id != "":
		return slices.IndexFunc(a.open, func(c *openCall) bool { return c.id == id })
	}
	return len(a.open) - 1
}

// EndAll ends every call still open, in the order they started, as
// [Assembler.End] would, and returns one event per call. Adapters call it
// when the message ends normally (OpenAI's finish_reason, Anthropic's
// message_stop), never when the stream was interrupted.
func (a *Assembler) EndAll() []contract.ModelEvent {
	if len(a.open) == 0 {
		return nil
	}
	events := make([]contract.ModelEvent, 0, len(a.open))
	for _, c := range a.open {
		events = append(events, a.finish(c))
	}
	a.open = nil
	return events
}

// finish parses the arguments of an ended call.
func (a *Assembler) finish(c *openCall) contract.ModelEvent {
	raw := c.args.String()
	from := contract.Assembly{Fragments: c.fragments, FirstIndex: c.first, LastIndex: c.last}
	if c.name == "" {
		return a.malformed(c, "has no tool name", nil)
	}
	text := raw
	if strings.Trim(raw, " \t\r\n") == "" {
		text, from.HadRepair = "{}", true
	}
	var input bytes.Buffer
	if err := json.Compact(&input, []byte(text)); err != nil {
		return a.malformed(c, fmt.Sprintf("arguments (%d bytes) are not valid JSON", len(raw)), err)
	}
	if input.Bytes()[0] != '{' {
		return a.malformed(c, fmt.Sprintf("arguments are a JSON %s, not an object", jsonKind(input.Bytes()[0])), nil)
	}
	return &contract.IntentProposed{ToolIntent: contract.ToolIntent{
		ProviderCallID: c.id,
		ToolName:       c.name,
		Input:          json.RawMessage(contract.CleanJSON(input.Bytes())),
		RawInput:       raw,
		Provider:       a.ref,
		AssembledFrom:  from,
	}}
}

// malformed returns the malformed_tool_call error for c.
func (a *Assembler) malformed(c *openCall, what string, err error) *contract.ProviderError {
	msg := "tool call " + describe(c) + " " + what
	if err != nil {
		msg += ": " + err.Error()
	}
	return &contract.ProviderError{
		Kind:      contract.KindMalformedToolCall,
		Retryable: contract.KindMalformedToolCall.Retryable(),
		Provider:  a.ref.Name,
		Model:     a.ref.Model,
		RequestID: a.ref.RequestID,
		Message:   msg,
		Err:       err,
	}
}

// describe names a call for people: its tool name and id, as known.
func describe(c *openCall) string {
	var s string
	if c.name != "" {
		s = fmt.Sprintf("%q", c.name)
	} else {
		s = fmt.Sprintf("#%d", c.ordinal)
	}
	if c.id != "" {
		s += " (id " + c.id + ")"
	}
	return s
}

// jsonKind names the kind of JSON value that starts with b.
func jsonKind(b byte) string {
	switch b {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
