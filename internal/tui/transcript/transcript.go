// Package transcript folds a session's events into what a person sees:
// the finished blocks printed once into the terminal's scrollback, and
// what is still in progress (a streaming answer, reasoning, running
// tools) shown live below them.
//
// Everything a model, a tool or a file produced is made printable
// (package printable) before it is styled, so no escape sequence in it
// reaches the terminal.
package transcript

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/markdown"
	"github.com/rein-agent/rein/internal/tui/style"
)

// Options configure a Transcript.
type Options struct {
	// Width is the terminal's width in columns; zero means 80.
	Width int
	// Theme styles everything; the zero Theme is plain.
	Theme style.Theme
	// Workspace is the workspace's root: paths under it are shown
	// relative to it. Empty shows paths as they are.
	Workspace string
	// SessionDir is the session's directory, under which the artifacts
	// that ToolObservation.ArtifactRef names live. Empty shows the
	// reference alone.
	SessionDir string
}

// Transcript is the fold of a session's envelopes into rendered blocks.
// It does no I/O and starts no goroutine: given the same envelopes and
// times it renders the same text. Blocks are printed in order, and the
// caller separates two with a blank line. It is not safe for concurrent
// use.
type Transcript struct {
	opts Options

	// text is the answer streaming, nil when none; textOpen says deltas
	// came that the model.text closing them has not.
	text     *markdown.Stream
	textOpen bool
	// reasoning is the reasoning streaming; reasoningOpen as textOpen.
	reasoning     strings.Builder
	reasonClean   printable.Stream
	reasoningOpen bool
	lastReasoning string
	// lastOutput is the latest finished tool call's output, for Ctrl-O.
	lastOutput Output

	// cards are the tool calls proposed and not finished, by intent id;
	// order is their ids in the order they were proposed.
	cards map[string]*card
	order []string

	// aborted says the event just folded was the provider.error of a
	// model call rein stopped (the person's cancel): it and the discard
	// that follows it show nothing, the run's "interrupted" says it.
	aborted bool
}

// New returns an empty Transcript.
func New(opts Options) *Transcript {
	opts.Width = widthOr80(opts.Width)
	return &Transcript{opts: opts, cards: map[string]*card{}}
}

// Resize sets the width of what is rendered from now on.
func (t *Transcript) Resize(width int) {
	t.opts.Width = widthOr80(width)
	if t.text != nil {
		t.text.Resize(t.opts.Width)
	}
}

// widthOr80 returns width, or 80 when it is not positive.
func widthOr80(width int) int {
	if width <= 0 {
		return 80
	}
	return width
}

// LastReasoning returns the whole text of the last reasoning block, ""
// if there was none: made printable, as it streamed, or as the log
// holds it when it did not stream.
func (t *Transcript) LastReasoning() string { return t.lastReasoning }

// Output is a finished tool call's output as the model saw it: the call
// (its header), the text, and the artifact that holds the whole of it
// when the text is shortened (empty when it is not).
type Output struct {
	Call, Text, Artifact string
}

// LastOutput returns the latest finished tool call's output; the zero
// Output when no call finished yet.
func (t *Transcript) LastOutput() Output { return t.lastOutput }

// Carry takes from past, the fold of a session's earlier conversation,
// the latest output and reasoning, for Ctrl-O and Ctrl-T to show after a
// resume.
func (t *Transcript) Carry(past *Transcript) {
	if past.lastOutput.Call != "" {
		t.lastOutput = past.lastOutput
	}
	if past.lastReasoning != "" {
		t.lastReasoning = past.lastReasoning
	}
}

// Apply folds one envelope, durable or delta, and returns the blocks it
// finished, in the order they are to be printed into scrollback, each
// rendered without a trailing newline; nil when none.
func (t *Transcript) Apply(env contract.Envelope) []string {
	w, th := t.opts.Width, t.opts.Theme
	aborted := t.aborted
	t.aborted = false // only the event just after it is the stop's discard
	switch e := env.Data.(type) {
	case *contract.UserMessage:
		return []string{User(e.Shown(), w, th)}
	case *contract.TextDelta:
		return t.textDelta(e.Text)
	case *contract.ModelText:
		return t.modelText(e.Text)
	case *contract.ReasoningDelta:
		t.reasoning.WriteString(t.reasonClean.Next(e.Text))
		t.reasoningOpen = true
	case *contract.ModelReasoning:
		return t.modelReasoning(e.Text)
	case *contract.ModelDiscarded:
		return t.discarded(e.Reason, aborted)
	case *contract.ProviderError:
		if e.Kind == contract.KindAborted {
			t.aborted = true
			return nil
		}
		return nonEmpty(t.note(env))
	case *contract.IntentProposed, *contract.ToolValidation, *contract.ToolPermission,
		*contract.InvocationStarted, *contract.ToolOutputDelta, *contract.InvocationCompleted,
		*contract.ToolObservation, *contract.TaskStarted, *contract.TaskEvent, *contract.TaskFinished:
		return t.tool(env)
	case *contract.RunFinished:
		return t.runFinished(e)
	default:
		if n := t.note(env); n != "" {
			return []string{n}
		}
	}
	return nil
}

// textDelta streams a piece of the answer.
func (t *Transcript) textDelta(s string) []string {
	if t.text == nil {
		t.text = markdown.NewStream(t.opts.Width, t.opts.Theme)
	}
	t.textOpen = true
	t.text.Write(s)
	return nonEmpty(t.text.Done())
}

// modelText ends the answer's text block: the rest of the stream, or the
// whole text rendered when it did not stream (a log replayed).
func (t *Transcript) modelText(s string) []string {
	if t.textOpen {
		t.textOpen = false
		return t.closeText()
	}
	return nonEmpty(markdown.Render(s, t.opts.Width, t.opts.Theme))
}

// closeText ends the stream of the answer, if one is open.
func (t *Transcript) closeText() []string {
	if t.text == nil {
		return nil
	}
	rest := t.text.Close()
	t.text = nil
	return nonEmpty(rest)
}

// modelReasoning ends a reasoning block: the text streamed, as for an
// answer (the deltas are what the kernel chose to show), or the whole
// text when it did not stream.
func (t *Transcript) modelReasoning(s string) []string {
	if t.reasoningOpen {
		return t.closeReasoning()
	}
	t.lastReasoning = printable.Text(s)
	return nonEmpty(t.renderReasoning(t.lastReasoning, true))
}

// closeReasoning ends the reasoning streamed.
func (t *Transcript) closeReasoning() []string {
	t.reasoning.WriteString(t.reasonClean.Flush())
	s := t.reasoning.String()
	t.reasoning.Reset()
	t.reasonClean = printable.Stream{}
	t.reasoningOpen = false
	t.lastReasoning = s
	return nonEmpty(t.renderReasoning(s, true))
}

// reasoningShown is how many lines of a reasoning block are shown.
const reasoningShown = 3

// renderReasoning renders reasoning dim behind a dotted bar, its last
// lines only; finished says whether to tell how many were left out.
func (t *Transcript) renderReasoning(s string, finished bool) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	th := t.opts.Theme
	lines := wrapText(s, t.opts.Width-2)
	bar := paint(th, th.Dim, "┆ ")
	var b strings.Builder
	if hidden := len(lines) - reasoningShown; hidden > 0 {
		lines = lines[hidden:]
		if finished {
			more := ansi.Truncate("… "+plural(hidden, "line")+" of reasoning (ctrl+o shows them)", max(t.opts.Width-2, 1), "…")
			b.WriteString(bar + paint(th, th.Dim, more) + "\n")
		}
	}
	b.WriteString(prefixed(lines, bar, bar, th, th.Dim.Italic(th.Color)))
	return b.String()
}

// liveTailBytes bounds the reasoning text re-wrapped for each frame.
const liveTailBytes = 4096

// liveTail returns the end of s that its last lines can come from: at
// most reasoningShown lines and liveTailBytes bytes, so that a frame
// costs the same however long the reasoning has run.
func liveTail(s string) string {
	s = strings.TrimRight(s, " \n")
	start := max(len(s)-liveTailBytes, 0)
	for start > 0 && start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	end := len(s)
	for range reasoningShown {
		i := strings.LastIndexByte(s[start:end], '\n')
		if i < 0 {
			return s[start:]
		}
		end = start + i
	}
	return s[end+1:]
}

// discarded drops the partial answer of a failed attempt: what of it
// was printed stays, followed by a note; none for an attempt rein
// stopped, whose run ends "interrupted".
func (t *Transcript) discarded(reason string, aborted bool) []string {
	t.text, t.textOpen = nil, false
	t.reasoning.Reset()
	t.reasonClean = printable.Stream{}
	t.reasoningOpen = false
	if aborted {
		return nil
	}
	msg := "the partial answer was discarded"
	if reason != "" {
		msg += ": " + reason
	}
	return []string{Note("warn", msg, t.opts.Width, t.opts.Theme)}
}

// runFinished ends the run: what was in progress, then how it ended when
// it did not complete.
func (t *Transcript) runFinished(e *contract.RunFinished) []string {
	out := t.Flush()
	if line := outcomeNote(e, t.opts.Width, t.opts.Theme); line != "" {
		out = append(out, line)
	}
	return out
}

// Flush ends whatever is in progress (the run ended or was interrupted)
// and returns it as finished blocks: the rest of the answer, the
// reasoning streamed, the tool calls not finished.
func (t *Transcript) Flush() []string {
	out := t.closeText()
	t.textOpen = false
	if t.reasoningOpen {
		out = append(out, t.closeReasoning()...)
	}
	for _, id := range t.order {
		out = append(out, t.cards[id].finished(t.view(), nil))
		delete(t.cards, id)
	}
	t.order = t.order[:0]
	if len(out) == 0 {
		return nil
	}
	return out
}

// Live renders what is in progress (the streaming answer's current
// block, reasoning being streamed, tool calls not finished with their
// timers measured to now); "" when nothing is.
func (t *Transcript) Live(now time.Time) string {
	var parts []string
	if t.reasoningOpen {
		parts = append(parts, t.renderReasoning(liveTail(t.reasoning.String()), false))
	}
	if t.text != nil {
		parts = append(parts, t.text.Live())
	}
	for _, id := range t.order {
		parts = append(parts, t.cards[id].live(t.view(), now))
	}
	return markdown.JoinBlocks(parts...)
}

// nonEmpty returns s as the one block, or nil when it is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
