package openai

import (
	"encoding/json"

	"github.com/rein-agent/rein/internal/provider"
)

// stateName is the "provider" field of the opaque state this package puts
// on model.finished; state naming another provider is never sent back.
const stateName = "openai"

// providerState is what a server of this API needs back with the assistant
// message in the next request, carried opaquely by model.finished and the
// conversation:
//
//   - ReasoningContent: the server streamed its reasoning as
//     reasoning_content, and wants it back on the assistant message
//     (DeepSeek answers 400 when a turn that called tools comes back
//     without it). The reasoning text itself is the message's Reasoning.
//   - ReasoningDetails: OpenRouter's reasoning_details, which carry the
//     signatures and encrypted reasoning that Anthropic and Gemini models
//     behind it need back verbatim to go on after a tool call.
type providerState struct {
	provider.State
	ReasoningContent bool            `json:"reasoning_content,omitempty"`
	ReasoningDetails json.RawMessage `json:"reasoning_details,omitempty"`
}

// details merges the pieces of reasoning_details a stream sends into whole
// entries, keyed by type and index as OpenRouter numbers them.
type details struct {
	entries []reasoningDetail
}

// add merges the pieces of one delta.
func (d *details) add(pieces []reasoningDetail) {
	for _, p := range pieces {
		var e *reasoningDetail
		for i := range d.entries {
			if d.entries[i].Type == p.Type && d.entries[i].Index == p.Index {
				e = &d.entries[i]
				break
			}
		}
		if e == nil {
			d.entries = append(d.entries, p)
			continue
		}
		e.Text += p.Text
		e.Summary += p.Summary
		e.Data += p.Data
		if p.ID != "" {
			e.ID = p.ID
		}
		if p.Format != "" {
			e.Format = p.Format
		}
		if p.Signature != "" {
			e.Signature = p.Signature
		}
	}
}

// needed reports whether the entries hold anything the server must get
// back: a signature or encrypted reasoning. Plain reasoning text alone is
// not worth carrying, since the message's Reasoning has it already.
func (d *details) needed() bool {
	for _, e := range d.entries {
		if e.Signature != "" || e.Data != "" || e.Type == "reasoning.encrypted" {
			return true
		}
	}
	return false
}

// readable returns the reasoning text of one delta's pieces.
func readable(pieces []reasoningDetail) string {
	var s string
	for _, p := range pieces {
		s += p.Text + p.Summary
	}
	return s
}
