package tui

import (
	"slices"
	"strings"
	"time"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/composer"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// askGuard is how long a question must have been on the screen before a
// key answers it; typingGap the gap under which a key follows another as
// typing does: a key that comes less than typingGap after the one before
// never answers. Both go to the draft instead, where the person was
// typing: a question that appears mid-word must not take the next letter
// as "always" (a typist's keys come 100 to 450 ms apart).
const (
	askGuard  = 500 * time.Millisecond
	typingGap = 300 * time.Millisecond
	// typedPause is how long a person who was typing (a key went to the
	// draft) must stop before a key answers: a slow typist's keys come
	// more than typingGap apart, and the letters after the question would
	// otherwise answer it one by one.
	typedPause = time.Second
)

// modeCycle is the order Shift+Tab goes through, as Claude Code's.
var modeCycle = []string{"default", "accept-edits", "plan"}

// key handles a key press: a dialog or the picker first, then the keys
// that mean what they mean elsewhere, then the composer.
func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if key != "ctrl+c" {
		m.armed = false
		if m.note == ctrlCNote {
			m.note = ""
		}
	}
	if key != "esc" {
		m.disarmEsc()
	}
	now := m.now()
	gap := now.Sub(m.lastKey)
	m.lastKey = now
	if key == "ctrl+z" {
		// The terminal is given back and rein stopped as a shell's job
		// is; fg brings it back, the frame drawn again where the shell
		// left the cursor. A run goes on where it was once resumed. The
		// frame is taken off the screen first (the last one drawn before
		// the terminal is given back is empty), so no copy of it stays
		// above the shell's lines.
		if !canSuspend() {
			m.print(transcript.Note("warn", "Ctrl-Z needs a shell with job control: rein was not started from one, so nothing could bring it back (fg); it goes on", m.width, m.theme))
			return m.flushPrint()
		}
		m.suspended = true
		return tea.Suspend
	}
	if m.ask != nil {
		return m.askKey(k, now, gap)
	}
	if m.picker != nil {
		return m.pick(key)
	}
	if m.models != nil {
		return m.pickModel(k)
	}
	if m.rewind != nil {
		return m.rewindKey(key)
	}
	switch key {
	case "ctrl+c":
		return m.ctrlC()
	case "esc":
		switch {
		case m.comp.Completing():
			m.comp.CloseMenu()
		case m.running:
			m.interrupt()
		case m.modelBusy != 0:
			return m.cancelModels()
		case m.comp.Empty() && !m.rewinding:
			return m.esc(now)
		}
		return nil
	case "alt+esc":
		// Two Escs the terminal sent at once.
		if !m.running && m.modelBusy == 0 && !m.rewinding && m.comp.Empty() && !m.comp.Completing() {
			return m.openRewind()
		}
		return nil
	case "ctrl+d":
		if m.comp.Empty() {
			return m.leave()
		}
	case "shift+tab":
		return m.cycleMode()
	case "ctrl+o":
		return m.showOutput()
	case "ctrl+t":
		if r := m.tr.LastReasoning(); r != "" {
			m.print(m.theme.Dim.Render(transcript.Note("info", "reasoning:", m.width, m.theme) + "\n" + wrapIndent(r, m.width-2, "  ")))
		} else {
			m.print(transcript.Note("info", "no reasoning to show yet: ctrl+t shows the model's last reasoning in full once it has reasoned", m.width, m.theme))
		}
		return m.flushPrint()
	}
	return m.typed(k, now)
}

// askKey handles a key while a question is shown. It answers only when
// the question has been on screen askGuard, no key came in the typingGap
// before it, and the person has not typed into the draft for typedPause:
// every other key is their typing and goes on into the draft, where they
// were typing (a "y" in a word would allow a command, an "a" save a rule).
func (m *model) askKey(k tea.KeyPressMsg, now time.Time, gap time.Duration) tea.Cmd {
	key := k.String()
	if m.tell != nil {
		return m.telling(k)
	}
	if key == "ctrl+c" {
		m.interrupt()
		return nil
	}
	if m.askSeen && now.Sub(m.askAt) >= askGuard && gap >= typingGap && now.Sub(m.lastTyped) >= typedPause {
		switch key {
		case "esc":
			m.answered(kernel.Reply{Answer: kernel.No})
			return nil
		case "v":
			return m.showSubject()
		case "t", "T":
			return m.startTell()
		}
		if ans, ok := answerKey(m.ask, key); ok {
			m.answered(kernel.Reply{Answer: ans})
			return nil
		}
	}
	return m.typed(k, now)
}

// typed gives a key to the composer, as the person's typing: while it
// leaves a draft, the person is in the middle of typing; once the draft
// is sent or emptied, they are not.
func (m *model) typed(k tea.KeyPressMsg, now time.Time) tea.Cmd {
	sub, cmd := m.comp.Update(k)
	m.lastTyped = time.Time{}
	if !m.comp.Empty() {
		m.lastTyped = now
	}
	return tea.Batch(cmd, m.submitted(sub))
}

// ctrlCNote is what the first Ctrl-C on an empty composer says.
const ctrlCNote = "press Ctrl-C again to exit"

// ctrlC interrupts a run; idle, it clears the composer; idle and empty,
// it asks for a second one, which leaves.
func (m *model) ctrlC() tea.Cmd {
	switch {
	case m.running:
		m.interrupt()
	case !m.comp.Empty():
		m.comp.Reset()
	case m.armed:
		return m.leave()
	default:
		m.armed, m.note = true, ctrlCNote
	}
	return nil
}

// cycleMode moves to the next permission mode; the runtime records it.
func (m *model) cycleMode() tea.Cmd {
	cur := m.rt.Mode()
	next := modeCycle[0]
	if i := slices.Index(modeCycle, cur); i >= 0 {
		next = modeCycle[(i+1)%len(modeCycle)]
	}
	return m.setMode(next)
}

// setMode asks the runtime for mode and says what it means.
func (m *model) setMode(mode string) tea.Cmd {
	if err := m.rt.SetMode(mode); err != nil {
		m.print(transcript.Note("error", err.Error(), m.width, m.theme))
	} else {
		m.print(transcript.Note("info", "permission mode: "+mode+" · "+kernel.ModeMeaning(mode), m.width, m.theme))
	}
	return m.flushPrint()
}

// submitted handles what the composer sent, if anything.
func (m *model) submitted(sub *composer.Submission) tea.Cmd {
	if sub == nil {
		return nil
	}
	if strings.TrimSpace(sub.Text) == "" {
		return nil
	}
	if len(sub.Attachments) > 0 {
		m.print(transcript.Note("info", "attached: "+printable.Line(strings.Join(sub.Attachments, "; ")), m.width, m.theme))
	}
	if m.hist != nil {
		entry := sub.Entry
		if entry == "" {
			entry = sub.Display
		}
		if err := m.hist.Add(entry); err != nil {
			m.print(transcript.Note("warn", "history: "+err.Error(), m.width, m.theme))
		}
	}
	if (m.running || m.modelBusy != 0 || m.rewinding) && m.needsIdle(*sub) {
		m.queue = append(m.queue, *sub)
		return nil
	}
	return m.dispatch(*sub)
}
