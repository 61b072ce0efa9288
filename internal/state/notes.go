package state

import (
	"strconv"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
)

// Note is what rein tells the model between messages of the conversation:
// that its tools changed (tools.changed), or what a person's hook adds
// (hook.ran with context, or a Stop hook that asks it to go on). A note
// joins the conversation as a user message, at the first point where one
// may stand: not between an assistant's tool calls and their results,
// nor inside a model call. Until then it waits in State.Notes.
type Note struct {
	Text string `json:"text"`
	// Seq is the seq of the event that made the note.
	Seq uint64 `json:"seq"`
}

// applyNotes applies the events that tell the model something of rein's:
// tools.changed, and a hook's context or request to go on.
func (s *State) applyNotes(env contract.Envelope) {
	switch e := env.Data.(type) {
	case *contract.ToolsChanged:
		if len(s.Messages) > 0 || len(s.Notes) > 0 {
			// Before the conversation starts the model learns its tools
			// from the request itself.
			s.note(toolsNote(e), env.Seq)
		}
	case *contract.HookRan:
		text := hookNote(e)
		switch {
		case text == "":
		case e.Event == contract.HookUserPromptSubmit:
			s.PromptNotes = append(s.PromptNotes, Note{Text: text, Seq: env.Seq})
		default:
			s.note(text, env.Seq)
		}
	case *contract.UserMessage:
		// A UserPromptSubmit hook's context, recorded before the prompt
		// it belongs to, comes right after it.
		if len(s.PromptNotes) > 0 {
			for _, n := range s.PromptNotes {
				s.note(n.Text, n.Seq)
			}
			s.PromptNotes = nil
		}
	}
	s.flushNotes()
}

// note adds text to the conversation now, or as soon as a message may
// stand there.
func (s *State) note(text string, seq uint64) {
	s.Notes = append(s.Notes, Note{Text: text, Seq: seq})
}

// flushNotes moves the waiting notes into the conversation when a user
// message may stand at its end: no call of the model under way, no tool
// call waiting for its result.
func (s *State) flushNotes() {
	if len(s.Notes) == 0 || len(s.Pending) > 0 || s.Draft.Role != "" || s.Calling {
		return
	}
	for _, n := range s.Notes {
		s.addMessage(contract.ModelMessage{Role: contract.RoleUser, Text: n.Text}, n.Seq)
	}
	s.Notes = nil
}

// toolsNote is what the model is told of a change of its tools.
func toolsNote(e *contract.ToolsChanged) string {
	var b strings.Builder
	b.WriteString("[rein] Your tools changed")
	if e.Server != "" {
		b.WriteString(" (MCP server " + strconv.Quote(e.Server) + ")")
	}
	if e.Reason != "" {
		b.WriteString(": " + strings.TrimSuffix(e.Reason, ".") + ".")
	} else {
		b.WriteString(".")
	}
	if len(e.Added) > 0 {
		b.WriteString(" Now available: " + strings.Join(e.Added, ", ") + ".")
	}
	if len(e.Removed) > 0 {
		b.WriteString(" No longer available: " + strings.Join(e.Removed, ", ") + "; calls to them will fail until they are back.")
	}
	return b.String()
}

// hookNote is what the model is told of a hook's run: its context, or a
// Stop hook's reason to go on; "" when nothing.
func hookNote(e *contract.HookRan) string {
	switch {
	case e.Event == contract.HookStop && e.Decision == contract.HookBlock:
		reason := e.Reason
		if reason == "" {
			reason = "(it gave no reason)"
		}
		return "[rein] The user's Stop hook asks you to go on before you finish: " + reason
	case e.Context != "":
		what := "[rein] The user's " + e.Event + " hook adds this context"
		if e.ToolName != "" {
			what += " about the " + e.ToolName + " call"
		}
		return what + ":\n" + e.Context
	}
	return ""
}
