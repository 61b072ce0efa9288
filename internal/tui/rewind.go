package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// escTwice is how soon a second Esc must follow the first, on an empty
// composer while nothing runs, to open the rewind picker.
const escTwice = time.Second

// escNote is what the first Esc on an empty composer says.
const escNote = "press Esc again to rewind to an earlier message"

// The stages of the rewind dialog: the points, what to restore, a yes or
// no (files changed by someone else, or /undo's files).
const (
	rewindPoints = iota
	rewindScope
	rewindConfirm
)

// rewindChoice is one of the answers to "what to restore".
type rewindChoice struct {
	scope, label string
}

// rewindChoices are what a rewind may restore, in the dialog's order; the
// last, with no scope, cancels.
var rewindChoices = []rewindChoice{
	{contract.RewindBoth, "Restore code and conversation"},
	{contract.RewindConversation, "Restore conversation only"},
	{contract.RewindCode, "Restore code only"},
	{"", "Never mind"},
}

// rewindDialog is /rewind's (and Esc Esc's, and /undo's) dialog: a
// picker of the session's points, then what to restore with the files it
// would restore listed, then, when files changed since rein last recorded
// them (or for /undo), a yes or no.
type rewindDialog struct {
	stage  int
	points []kernel.RewindPoint
	at     int // the point selected
	// plan is what a rewind of the code and the conversation to the
	// chosen point does; planErr why its files cannot be restored.
	plan    kernel.RewindPlan
	planErr error
	choice  int // among rewindChoices
	// scope and force are what the confirmation, when yes, rewinds with.
	scope string
	force bool
	// undo says the dialog is /undo's confirmation: no picker to go back
	// to; late that it asks about files the rewind found changed after
	// the plan was shown, with none either.
	undo, late bool
}

// pointsMsg brings the points /rewind's picker offers.
type pointsMsg struct{ points []kernel.RewindPoint }

// rewoundMsg says how a rewind went.
type rewoundMsg struct {
	plan kernel.RewindPlan
	err  error
}

// escTimeoutMsg withdraws the first Esc's note once a second would come
// too late.
type escTimeoutMsg struct{ at time.Time }

// esc handles Esc on an empty composer while nothing runs: the first
// arms, a second within escTwice opens the rewind picker. A terminal
// that sends two Escs at once reports them as alt+esc (see key). In a
// session with no message yet, Esc does nothing.
func (m *model) esc(now time.Time) tea.Cmd {
	if st := m.rt.State(); len(st.Points) == 0 {
		return nil
	}
	if !m.escAt.IsZero() && now.Sub(m.escAt) <= escTwice {
		m.disarmEsc()
		return m.openRewind()
	}
	m.escAt, m.note = now, escNote
	at := now
	return m.after(escTwice, escTimeoutMsg{at: at})
}

// disarmEsc forgets a first Esc.
func (m *model) disarmEsc() {
	m.escAt = time.Time{}
	if m.note == escNote {
		m.note = ""
	}
}

// after delivers msg once d has passed.
func (m *model) after(d time.Duration, msg tea.Msg) tea.Cmd {
	if m.tick != nil {
		return m.tick(d, msg)
	}
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// rewindCommand is /rewind: the picker of the points.
func (m *model) rewindCommand(string) tea.Cmd { return m.openRewind() }

// openRewind asks the runtime for the session's points outside the
// program's loop (counting the files changed after each reads the
// checkpoints); what is sent meanwhile waits.
func (m *model) openRewind() tea.Cmd {
	rt := m.rt
	m.rewinding = true
	m.setNote("listing the messages…")
	return func() tea.Msg { return pointsMsg{points: rt.RewindPoints()} }
}

// listedPoints opens the picker on the points, the latest selected,
// unless the person went on meanwhile.
func (m *model) listedPoints(msg pointsMsg) tea.Cmd {
	m.rewinding = false
	if m.note == "listing the messages…" {
		m.setNote("")
	}
	switch {
	case len(msg.points) == 0:
		m.print(transcript.Note("info", "nothing to rewind to: the session has no message yet", m.width, m.theme))
	case m.running || len(m.queue) > 0 || !m.comp.Empty():
		m.print(transcript.Note("info", "the messages are listed: /rewind opens the picker once you are ready", m.width, m.theme))
	default:
		m.rewind = &rewindDialog{points: msg.points, at: len(msg.points) - 1}
	}
	return tea.Batch(m.flushPrint(), m.sendQueued())
}

// sendQueued sends the first of what waited for a rewind, if nothing
// else holds it back.
func (m *model) sendQueued() tea.Cmd {
	if m.running || m.modelBusy != 0 || m.rewinding || m.rewind != nil || len(m.queue) == 0 {
		return nil
	}
	sub := m.queue[0]
	m.queue = m.queue[1:]
	return m.dispatch(sub)
}

// undo is /undo: the last turn rewound, code and conversation, asking
// first only when files would be restored.
func (m *model) undo(string) tea.Cmd {
	plan, err := m.rt.PlanRewind(0, contract.RewindBoth)
	if err != nil {
		m.print(transcript.Note("error", "nothing was undone: "+controlText(err), m.width, m.theme))
		return m.flushPrint()
	}
	if len(plan.Changes) == 0 {
		return m.doRewind(plan.Point.Seq, contract.RewindBoth, false)
	}
	m.rewind = &rewindDialog{stage: rewindConfirm, undo: true, plan: plan, scope: contract.RewindBoth, force: len(plan.Conflicts) > 0}
	return nil
}

// rewindKey handles a key on the rewind dialog.
func (m *model) rewindKey(key string) tea.Cmd {
	d := m.rewind
	switch d.stage {
	case rewindPoints:
		switch key {
		case "up", "ctrl+p", "k":
			d.at = max(0, d.at-1)
		case "down", "ctrl+n", "j":
			d.at = min(len(d.points)-1, d.at+1)
		case "pgup":
			d.at = max(0, d.at-10)
		case "pgdown":
			d.at = min(len(d.points)-1, d.at+10)
		case "home":
			d.at = 0
		case "end":
			d.at = len(d.points) - 1
		case "esc", "ctrl+c", "q":
			m.rewind = nil
		case "enter":
			d.plan, d.planErr = m.rt.PlanRewind(d.points[d.at].Seq, contract.RewindBoth)
			if d.planErr != nil && d.plan.Point.Seq == 0 {
				// Not even the conversation can go there (a point no
				// longer kept).
				m.rewind = nil
				m.print(transcript.Note("error", "nothing was rewound: "+controlText(d.planErr), m.width, m.theme))
				return m.flushPrint()
			}
			d.stage, d.choice = rewindScope, 0
			if d.planErr != nil {
				d.choice = 1 // the conversation alone can be
			}
		}
	case rewindScope:
		switch key {
		case "up", "ctrl+p", "k":
			d.choice = max(0, d.choice-1)
		case "down", "ctrl+n", "j", "tab":
			d.choice = min(len(rewindChoices)-1, d.choice+1)
		case "1", "2", "3", "4":
			d.choice = int(key[0] - '1')
			return m.chosen()
		case "esc":
			d.stage = rewindPoints // back to the list
		case "ctrl+c", "q":
			m.rewind = nil
		case "enter":
			return m.chosen()
		}
	case rewindConfirm:
		switch key {
		case "y", "Y", "enter":
			m.rewind = nil
			return m.doRewind(d.plan.Point.Seq, d.scope, d.force)
		case "n", "N", "esc", "ctrl+c", "q":
			if d.undo || d.late {
				m.rewind = nil
			} else {
				d.stage = rewindScope
			}
		}
	}
	return nil
}

// chosen acts on the choice of what to restore: cancel, rewind, or ask
// first when files changed since rein last recorded them.
func (m *model) chosen() tea.Cmd {
	d := m.rewind
	c := rewindChoices[d.choice]
	switch {
	case c.scope == "":
		m.rewind = nil
		return nil
	case c.scope != contract.RewindConversation && d.planErr != nil:
		return nil // said in the dialog: the files cannot be restored
	case c.scope != contract.RewindConversation && len(d.plan.Conflicts) > 0:
		d.stage, d.scope, d.force = rewindConfirm, c.scope, true
		return nil
	}
	m.rewind = nil
	return m.doRewind(d.plan.Point.Seq, c.scope, false)
}

// doRewind asks the runtime for the rewind, outside the program's loop
// (it restores files); what is sent meanwhile waits for it.
func (m *model) doRewind(seq uint64, scope string, force bool) tea.Cmd {
	rt, ctx := m.rt, m.ctx
	m.rewinding = true
	m.setNote("rewinding…")
	return func() tea.Msg {
		plan, err := rt.Rewind(ctx, seq, scope, force)
		return rewoundMsg{plan: plan, err: err}
	}
}

// rewound says what the rewind did, in a line; after a rewind of the
// conversation the message rewound is put back into the composer, to be
// edited and sent again.
func (m *model) rewound(msg rewoundMsg) tea.Cmd {
	m.rewinding = false
	if m.note == "rewinding…" {
		m.setNote("")
	}
	if errors.Is(msg.err, kernel.ErrConflict) && len(msg.plan.Conflicts) > 0 {
		// Files changed between the plan shown and the rewind: asked
		// about now, as a plan that showed them would have been.
		m.rewind = &rewindDialog{stage: rewindConfirm, late: true, plan: msg.plan, scope: msg.plan.Scope, force: true}
		return tea.Batch(m.flushPrint(), m.sendQueued())
	}
	if msg.err != nil {
		m.print(transcript.Note("error", "nothing was rewound: "+controlText(msg.err), m.width, m.theme))
	} else {
		plan := msg.plan
		line := RewoundLine(plan)
		if plan.Scope != contract.RewindCode {
			st := m.rt.State()
			m.todos.set(st.Todos)
			text := typedText(plan.Point.Text)
			switch {
			case strings.TrimSpace(text) == "":
			case m.comp.Empty():
				m.comp.SetValue(text)
				m.compDirty = true
				line += "; the message is back in the composer to edit and send again"
			default:
				line += "; your draft is kept (↑ recalls the message)"
			}
		}
		m.print(transcript.Note("info", line, m.width, m.theme))
	}
	return tea.Batch(m.flushPrint(), m.sendQueued())
}

// RewoundLine says in a line what a rewind did: to where, which files;
// printable (the line mode says it too).
func RewoundLine(plan kernel.RewindPlan) string {
	first := "“" + firstLine(plan.Point.Text) + "”"
	var line string
	switch plan.Scope {
	case contract.RewindConversation:
		return "conversation rewound to before " + first + "; the files stay as they are"
	case contract.RewindCode:
		line = "code restored to before " + first
	default:
		line = "code and conversation rewound to before " + first
	}
	if len(plan.Changes) == 0 {
		return line + " · no file needed restoring"
	}
	var names []string
	for i, c := range plan.Changes {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(plan.Changes)-5))
			break
		}
		names = append(names, printable.Line(c.Path))
	}
	return line + " · " + files(len(plan.Changes)) + " restored: " + strings.Join(names, ", ")
}

// files says "1 file", "3 files".
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// controlText is what an error of the runtime says to the person: a
// ControlError's message alone.
func controlText(err error) string {
	if ce, ok := errors.AsType[*kernel.ControlError](err); ok {
		return ce.Msg
	}
	if errors.Is(err, kernel.ErrBusy) {
		return "a run is under way; rewind once it ends"
	}
	return err.Error()
}

// typedText is a message as the person typed it: the files their
// @mentions attached, which the composer appends as <file> blocks, left
// out (sending it again attaches them as they are then).
func typedText(text string) string {
	for strings.HasSuffix(text, "</file>") {
		i := strings.LastIndex(text, "\n\n<file path=\"")
		if i < 0 {
			break
		}
		text = text[:i]
	}
	return text
}

// view renders the dialog in the room the screen leaves.
func (d *rewindDialog) view(m *model, room int) string {
	switch d.stage {
	case rewindPoints:
		return d.pointsView(m)
	case rewindScope:
		return d.scopeView(m, room)
	}
	return d.confirmView(m, room)
}

// pointsView is the list of points, newest at the bottom: when, the
// message's first line, how many files changed after it; at most ten rows
// around the selection.
func (d *rewindDialog) pointsView(m *model) string {
	th := m.theme
	var b strings.Builder
	b.WriteString(th.Accent.Render("Rewind to before a message") + th.Dim.Render("  (↑/↓, enter, esc)") + "\n")
	lo := max(0, min(d.at-5, len(d.points)-10))
	for i := lo; i < min(len(d.points), lo+10); i++ {
		p := d.points[i]
		tail := "  "
		switch {
		case p.Files < 0:
			tail += "files ?"
		case p.Files == 0:
			tail += "no file changed"
		default:
			tail += files(p.Files) + " changed"
		}
		if p.Rewound {
			tail = "  (rewound)" + tail
		}
		head := ago(p.Time, m.now()) + "  "
		room := m.width - 2 - len([]rune(head)) - len([]rune(tail))
		text := truncate(firstLine(p.Text), max(8, room))
		pad := max(0, room-len([]rune(text)))
		line := truncate(head+text+strings.Repeat(" ", pad)+tail, m.width-2)
		if i == d.at {
			b.WriteString(th.Accent.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if n := len(d.points); n > 10 {
		b.WriteString(th.Dim.Render(fmt.Sprintf("  %d messages", n)) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// scopeView asks what to restore, and lists the files the code's rewind
// would restore, those changed since rein recorded them flagged.
func (d *rewindDialog) scopeView(m *model, room int) string {
	th := m.theme
	p := d.plan.Point
	lines := []string{th.Accent.Render(truncate("Rewind to before “"+firstLine(p.Text)+"” ("+strings.TrimSpace(ago(p.Time, m.now()))+")", m.width))}
	for i, c := range rewindChoices {
		label := fmt.Sprintf("%d. %s", i+1, c.label)
		if d.planErr != nil && c.scope != "" && c.scope != contract.RewindConversation {
			label += " (not possible)"
		}
		if i == d.choice {
			lines = append(lines, th.Accent.Render("› "+label))
		} else {
			lines = append(lines, "  "+label)
		}
	}
	scope := rewindChoices[d.choice].scope
	keys := th.Dim.Render("  (↑/↓ or 1-4, enter; esc goes back to the list)")
	lines = append(lines, d.filesLines(m, scope, room-len(lines)-1)...)
	return strings.Join(append(lines, keys), "\n")
}

// filesLines says what the choice of scope does to the files, in at most
// room rows.
func (d *rewindDialog) filesLines(m *model, scope string, room int) []string {
	th := m.theme
	w := max(20, m.width-2)
	switch {
	case d.planErr != nil:
		return strings.Split(th.Warn.Render(wrapIndent("The files cannot be restored: "+controlText(d.planErr), w, "")), "\n")
	case scope == "":
		return nil
	case len(d.plan.Changes) == 0:
		return []string{th.Dim.Render("No file to restore: the session changed none since this message.")}
	case scope == contract.RewindConversation:
		return []string{th.Dim.Render(truncate("The files stay as they are ("+files(len(d.plan.Changes))+" changed since this message).", m.width))}
	}
	return changeLines(m, d.plan, "Files it restores ("+fmt.Sprint(len(d.plan.Changes))+"):", room)
}

// changeLines lists the files plan restores under head, a line each, in
// at most room rows: what happens to it, its path, and whether someone
// else changed it since rein recorded it.
func changeLines(m *model, plan kernel.RewindPlan, head string, room int) []string {
	th := m.theme
	conflict := map[string]bool{}
	for _, c := range plan.Conflicts {
		conflict[c] = true
	}
	lines := []string{head}
	show := len(plan.Changes)
	if room > 2 && show > room-1 {
		show = room - 2 // a row says how many more
	}
	for _, c := range plan.Changes[:max(0, show)] {
		line := fmt.Sprintf("  %-9s %s", RewindVerb(c.Op), printable.Line(c.Path))
		if conflict[c.Path] {
			lines = append(lines, th.Warn.Render(truncate(line+"  (changed since rein recorded it: overwritten)", m.width)))
			continue
		}
		lines = append(lines, truncate(line, m.width))
	}
	if more := len(plan.Changes) - max(0, show); more > 0 {
		lines = append(lines, th.Dim.Render(fmt.Sprintf("  … and %d more", more)))
	}
	return lines
}

// RewindVerb says what a rewind does to a file of its plan (Op created,
// changed or deleted): restore, revert or remove (the line mode says it
// too).
func RewindVerb(op string) string {
	switch op {
	case "created":
		return "restore"
	case "deleted":
		return "remove"
	}
	return "revert"
}

// confirmView asks yes or no: /undo's files, or the files someone else
// changed since rein recorded them, which a rewind overwrites.
func (d *rewindDialog) confirmView(m *model, room int) string {
	th := m.theme
	w := max(20, m.width-2)
	first := "“" + firstLine(d.plan.Point.Text) + "”"
	var head string
	if d.undo && !d.late {
		head = "Undo the last turn, " + first + "? Its files come back as they were before it:"
	} else {
		head = fmt.Sprintf("%s changed since rein last recorded %s: the rewind overwrites %s. Go on?",
			files(len(d.plan.Conflicts)), pronoun(len(d.plan.Conflicts)), pronoun(len(d.plan.Conflicts)))
	}
	lines := strings.Split(th.Accent.Render(wrapIndent(head, w, "")), "\n")
	keys := "  " + th.Accent.Render("[y]") + " yes  " + th.Accent.Render("[n]") + " no" + th.Dim.Render("  (esc: no)")
	if d.undo {
		lines = append(lines, changeLines(m, d.plan, "", room-len(lines)-1)[1:]...)
	} else {
		for _, c := range d.plan.Conflicts {
			lines = append(lines, th.Warn.Render(truncate("  "+printable.Line(c), m.width)))
		}
	}
	return strings.Join(append(lines, keys), "\n")
}

// pronoun is "it" for one file, "them" for more.
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
