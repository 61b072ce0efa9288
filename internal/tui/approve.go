package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rein-agent/rein/internal/thirdparty/bubbles/textinput"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/charmbracelet/x/ansi"

	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/style"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// Approver asks the person through the UI: the kernel's goroutine calls
// Approve, the question is shown as a dialog in the live region, and one
// key answers it. It is safe for concurrent use; questions asked together
// (parallel calls) are shown one after another.
type Approver struct {
	mu sync.Mutex
	p  *tea.Program
	// flush hands the UI what the run yielded before the question, so
	// that the card it asks about is drawn before the dialog.
	flush func()
}

// NewApprover returns an Approver with no UI yet: until Run attaches one,
// a question is answered No with an error saying so.
func NewApprover() *Approver { return &Approver{} }

func (a *Approver) attach(p *tea.Program) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.p = p
}

// following makes flush the run's: called before each question.
func (a *Approver) following(flush func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flush = flush
}

// warnMsg brings a warning of rein's to the UI, which prints it.
type warnMsg struct{ text string }

// Warn shows text as a warning in the UI, from any goroutine; false when
// no UI runs to show it (the caller says it elsewhere).
func (a *Approver) Warn(text string) bool {
	a.mu.Lock()
	p := a.p
	a.mu.Unlock()
	if p == nil {
		return false
	}
	go p.Send(warnMsg{text}) // never from under the program's loop
	return true
}

// errNoUI says a question came when no UI could ask it.
var errNoUI = errors.New("tui: no interactive UI to ask")

// Approve shows q and waits for the person's key or for ctx. A key
// answers; t, a no that tells the model what to do instead, takes a line
// of text first.
func (a *Approver) Approve(ctx context.Context, q kernel.Question) (kernel.Reply, error) {
	a.mu.Lock()
	p, flush := a.p, a.flush
	a.mu.Unlock()
	if p == nil {
		return kernel.Reply{Answer: kernel.No}, errNoUI
	}
	if flush != nil {
		flush()
	}
	reply := make(chan kernel.Reply, 1)
	ask := &question{q: q, reply: reply}
	// Send returns when the UI's loop took it, or at once when the
	// program has ended (then ctx is the run's, cancelled with it).
	p.Send(askMsg{ask})
	select {
	case r := <-reply:
		return r, nil
	case <-ctx.Done():
		// The dialog is withdrawn by the run's end (runDoneMsg).
		return kernel.Reply{Answer: kernel.No}, ctx.Err()
	}
}

// question is one waiting question and where its answer goes.
type question struct {
	q     kernel.Question
	reply chan<- kernel.Reply
}

// askMsg brings a question to the UI's loop.
type askMsg struct{ q *question }

// answer sends r to the asker once.
func (q *question) answer(r kernel.Reply) {
	select {
	case q.reply <- r:
	default:
	}
}

// dialog renders the question in the live region: what is asked, the
// command wrapped, the reason, the diff an edit would make, and the keys;
// the exact rule and file an "always" saves. It never takes more than
// room rows: the heading, the subject's first line and the keys always
// show (the keys on one compact line when the full ones leave no room),
// and a command, a reason or a diff too long for the rest shows its start
// and how many lines are left (v prints the command and the rules whole
// into the scrollback). It sets m.askSeen: whether the subject is on
// screen, without which no key answers.
func (m *model) dialog(q *question, room int) string {
	th, w := m.theme, max(20, m.width-2)
	head, reason, keys, compact := m.dialogParts(q, w)
	subject := strings.Split(wrapIndent(printable.Text(subjectOf(q.q)), w, "  "), "\n")
	var preview []string
	if q.q.Preview != "" && q.q.Kind != kernel.AskOutsideSandbox {
		preview = strings.Split(transcript.Diff(q.q.Preview, w, 400, th), "\n")
	}
	if rows(head)+1+rows([]string{keys}) > room {
		keys = compact
	}
	// What is left once the heading and the keys are in is shared: the
	// subject first (a few lines at least), then the reason, then the
	// diff; each cut says what it left out.
	left := room - rows(head) - rows([]string{keys})
	m.askSeen = left >= 1
	subjectRows := min(len(subject), max(1, min(max(2, left/3), left)))
	if len(reason)+len(preview) == 0 {
		subjectRows = min(len(subject), max(1, left))
	}
	if len(subject) > subjectRows {
		subject = cut(th, subject, subjectRows, "v prints it whole")
	}
	left -= len(subject)
	switch r := min(len(reason), max(0, left/2)); {
	case left <= 0:
		reason = nil
	case len(preview) > 0 && len(reason) > r:
		reason = cut(th, reason, max(1, r), "")
	case len(reason) > left:
		reason = cut(th, reason, left, "")
	}
	left -= len(reason)
	if len(preview) > max(0, left) {
		preview = nil
		if left >= 2 {
			preview = cut(th, strings.Split(transcript.Diff(q.q.Preview, w, 400, th), "\n"), left, "/diff shows it once made")
		}
	}
	parts := append(head, subject...)
	parts = append(parts, reason...)
	parts = append(parts, preview...)
	parts = append(parts, keys)
	return strings.Join(parts, "\n")
}

// dialogParts are the dialog's heading, reason (one line a row) and keys,
// in full and compact, with the lines under the keys (the line the person
// writes on, the draft kept, the questions waiting).
func (m *model) dialogParts(q *question, w int) (head, reason []string, keys, compact string) {
	th := m.theme
	if q.q.Kind == kernel.AskOutsideSandbox {
		head = []string{th.Warn.Render("The sandbox stopped part of this command:")}
		if q.q.Agent != "" {
			head = []string{th.Warn.Render(truncate("The sandbox stopped part of "+asker(q.q)+"'s command:", w))}
		}
		for l := range strings.Lines(q.q.Reason) {
			reason = append(reason, strings.Split(wrapIndent(printable.Line(strings.TrimSuffix(l, "\n")), w, "  "), "\n")...)
		}
		reason = append(reason, strings.Split(th.Dim.Render(wrapIndent("Yes runs this one command again with no sandbox at all: it can then write anywhere you can, read your credentials and reach the network. Nothing is saved for next time.", w, "  ")), "\n")...)
		keys = keysLine(th, w, "y", "yes, run it again with no sandbox", "n", "no, keep the refusal", "t", "no, and tell the model what to do instead")
		compact = flowKeys(th, w, "y", "yes", "n", "no", "t", "tell the model")
	} else {
		verb := "use " + printable.Line(q.q.Tool)
		if q.q.Tool == "bash" {
			verb = "run a command"
		}
		head = []string{th.Accent.Render(truncate(fmt.Sprintf("%s wants to %s:", asker(q.q), verb), w))}
		if q.q.Reason != "" {
			reason = strings.Split(th.Dim.Render(wrapIndent(printable.Text(q.q.Reason), w, "  ")), "\n")
		}
		if q.q.Undoable {
			reason = append(reason, strings.Split(th.Dim.Render(wrapIndent(kernel.UndoNote, w, "  ")), "\n")...)
		}
		opts, short := []string{"y", "yes", "n", "no"}, []string{"y", "yes", "n", "no"}
		if len(q.q.Rules) > 0 {
			rules := rulesText(q.q.Rules, w)
			deny := rules
			if len(q.q.DenyRules) > 0 {
				deny = rulesText(q.q.DenyRules, w)
			}
			where := " (this session only)"
			if q.q.SaveTo != "" {
				where = " (saved in " + printable.Line(q.q.SaveTo) + ")"
			}
			opts = append(opts, "a", "always: allow "+rules+where, "d", "never: deny "+deny+where)
			short = append(short, "a", "always", "d", "never")
		}
		opts = append(opts, "t", "no, and tell the model what to do instead")
		keys = keysLine(th, w, opts...)
		compact = flowKeys(th, w, append(short, "t", "tell the model", "v", "details")...)
	}
	var under string
	if m.tell != nil {
		keys = th.Accent.Render(wrapIndent("Tell the model what to do instead (Enter: no, with this; Esc: back):", w, "  ")) + "\n  " + m.tell.View()
		compact = keys
	} else if draft := m.comp.Value(); strings.TrimSpace(draft) != "" {
		last := draft[strings.LastIndexByte(strings.TrimRight(draft, "\n"), '\n')+1:]
		under += "\n" + th.Dim.Render(truncate("  your draft, kept: "+printable.Line(last), w))
	}
	if n := len(m.asks); n > 0 {
		under += "\n" + th.Dim.Render(fmt.Sprintf("  (%d more waiting)", n))
	}
	return head, reason, keys + under, compact + under
}

// rulesText is the rules an answer saves, as the dialog names them: all
// of them when they fit on a line of width, else how many, for v to
// print whole: a dialog that names thirty rules has no room left for the
// question.
func rulesText(rules []string, width int) string {
	text := printable.Line(strings.Join(rules, ", "))
	if len(rules) == 1 || ansi.StringWidth(text) <= width-30 {
		return text
	}
	return fmt.Sprintf("%d rules (v lists them)", len(rules))
}

// cut keeps the first n-1 of lines and says how many are left and, when
// how is not empty, how to see them.
func cut(th style.Theme, lines []string, n int, how string) []string {
	n = max(1, n-1)
	more := fmt.Sprintf("  … %d more lines", len(lines)-n)
	if how != "" {
		more += " · " + how
	}
	return append(lines[:n:n], th.Warn.Render(more))
}

// asker is who asks: "rein", or the child session of a task call that
// asks through its parent ("explore · find the auth code").
func asker(q kernel.Question) string {
	if q.Agent == "" {
		return "rein"
	}
	who := printable.Line(q.Agent)
	if q.Task != "" {
		who += " · " + printable.Line(strings.Join(strings.Fields(q.Task), " "))
	}
	return who
}

// subjectOf is what a question is about: its command or path, else its
// input.
func subjectOf(q kernel.Question) string {
	if q.Subject != "" {
		return q.Subject
	}
	return string(q.Input)
}

// showSubject prints the whole subject of the question shown (a command
// too long for the dialog) into the scrollback, for the person to read
// before answering.
func (m *model) showSubject() tea.Cmd {
	text := m.theme.Accent.Render("The whole command "+asker(m.ask.q)+" asks about:") + "\n" + wrapIndent(printable.Text(subjectOf(m.ask.q)), m.width-2, "  ")
	if rules := m.ask.q.Rules; len(rules) > 1 && m.ask.q.Kind != kernel.AskOutsideSandbox {
		text += "\n" + m.theme.Accent.Render("The rules always (allow) or never (deny) would save:")
		for _, r := range rules {
			text += "\n" + wrapIndent(printable.Line(r), m.width-2, "  ")
		}
	}
	m.print(text)
	return m.flushPrint()
}

// keysLine renders "[y] yes  [n] no" with the keys accented, on one
// line when it fits in width, else one key a line, each wrapped whole:
// the rule an "always" saves is never cut.
func keysLine(th style.Theme, width int, pairs ...string) string {
	var parts, plain []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, th.Accent.Render("["+pairs[i]+"]")+" "+pairs[i+1])
		plain = append(plain, "["+pairs[i]+"] "+pairs[i+1])
	}
	if ansi.StringWidth("  "+strings.Join(plain, "  ")+"  (esc: no)") <= width {
		return "  " + strings.Join(parts, "  ") + th.Dim.Render("  (esc: no)")
	}
	for i, p := range parts {
		parts[i] = wrapIndent(p, width, "  ")
	}
	return strings.Join(parts, "\n") + "\n" + th.Dim.Render("  (esc: no)")
}

// flowKeys renders "[y] yes  [n] no ..." as few rows as width allows,
// each row as many keys as fit: the compact keys of a dialog on a short
// terminal.
func flowKeys(th style.Theme, width int, pairs ...string) string {
	var rowsOut []string
	line, plain := "  ", 2
	for i := 0; i+1 < len(pairs); i += 2 {
		part := th.Accent.Render("["+pairs[i]+"]") + " " + pairs[i+1]
		n := ansi.StringWidth("[" + pairs[i] + "] " + pairs[i+1])
		if plain > 2 && plain+2+n > width {
			rowsOut = append(rowsOut, line)
			line, plain = "  ", 2
		}
		if plain > 2 {
			line, plain = line+"  ", plain+2
		}
		line, plain = line+part, plain+n
	}
	if plain+len("  (esc: no)") <= width {
		line += th.Dim.Render("  (esc: no)")
	}
	return strings.Join(append(rowsOut, line), "\n")
}

// answerKey maps the key pressed on a dialog to its answer; ok false
// when the key answers nothing.
func answerKey(q *question, key string) (kernel.Answer, bool) {
	rules := len(q.q.Rules) > 0 && q.q.Kind != kernel.AskOutsideSandbox
	switch key {
	case "y", "Y":
		return kernel.Yes, true
	case "n", "N", "esc":
		return kernel.No, true
	case "a", "A":
		return kernel.Always, rules
	case "d", "D":
		return kernel.Never, rules
	}
	return kernel.No, false
}

// startTell opens the line where the person tells the model what to do
// instead of the call they deny.
func (m *model) startTell() tea.Cmd {
	ti := textinput.New()
	ti.Prompt = "› "
	ti.CharLimit = kernel.MaxReplyText
	ti.SetVirtualCursor(false)
	ti.SetWidth(max(10, m.width-6))
	m.tell = &ti
	return m.tell.Focus()
}

// telling handles a key while the person writes what to tell the model:
// Enter answers no with it, Esc goes back to the keys.
func (m *model) telling(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		text := strings.TrimSpace(m.tell.Value())
		m.tell = nil
		if text == "" {
			return nil // nothing said: the question stays
		}
		m.answered(kernel.Reply{Answer: kernel.No, Text: text})
		return nil
	case "esc":
		m.tell = nil
		return nil
	case "ctrl+c":
		m.tell = nil
		m.interrupt()
		return nil
	}
	ti, cmd := m.tell.Update(k)
	m.tell = &ti
	return cmd
}
