package tui

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

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

// errNoUI says a question came when no UI could ask it.
var errNoUI = errors.New("tui: no interactive UI to ask")

// Approve shows q and waits for the person's key or for ctx.
func (a *Approver) Approve(ctx context.Context, q kernel.Question) (kernel.Answer, error) {
	a.mu.Lock()
	p, flush := a.p, a.flush
	a.mu.Unlock()
	if p == nil {
		return kernel.No, errNoUI
	}
	if flush != nil {
		flush()
	}
	reply := make(chan kernel.Answer, 1)
	ask := &question{q: q, reply: reply}
	// Send returns when the UI's loop took it, or at once when the
	// program has ended (then ctx is the run's, cancelled with it).
	p.Send(askMsg{ask})
	select {
	case ans := <-reply:
		return ans, nil
	case <-ctx.Done():
		// The dialog is withdrawn by the run's end (runDoneMsg).
		return kernel.No, ctx.Err()
	}
}

// question is one waiting question and where its answer goes.
type question struct {
	q     kernel.Question
	reply chan<- kernel.Answer
}

// askMsg brings a question to the UI's loop.
type askMsg struct{ q *question }

// answer sends ans to the asker once.
func (q *question) answer(ans kernel.Answer) {
	select {
	case q.reply <- ans:
	default:
	}
}

// dialog renders the question in the live region: what is asked, the
// command wrapped, the reason, the diff an edit would make, and the keys;
// the exact rule and file an "always" saves. It never takes more rows than
// the screen leaves it: a command too long to show whole shows its start
// and how many lines are left, and v prints it whole into the scrollback.
func (m *model) dialog(q *question) string {
	th, w := m.theme, max(20, m.width-2)
	room := max(8, m.height-3) // the working and status lines stay
	var head, tail []string
	var keys string
	if q.q.Kind == kernel.AskOutsideSandbox {
		head = []string{th.Warn.Render("The sandbox stopped part of this command:")}
		for l := range strings.Lines(q.q.Reason) {
			tail = append(tail, wrapIndent(printable.Line(strings.TrimSuffix(l, "\n")), w, "  "))
		}
		tail = append(tail, th.Dim.Render(wrapIndent("Yes runs this one command again with no sandbox at all: it can then write anywhere you can, read your credentials and reach the network. Nothing is saved for next time.", w, "  ")))
		keys = keysLine(th, w, "y", "yes, run it again with no sandbox", "n", "no, keep the refusal")
	} else {
		verb := "use " + printable.Line(q.q.Tool)
		if q.q.Tool == "bash" {
			verb = "run a command"
		}
		head = []string{th.Accent.Render(fmt.Sprintf("rein wants to %s:", verb))}
		if q.q.Reason != "" {
			tail = append(tail, th.Dim.Render(wrapIndent(printable.Text(q.q.Reason), w, "  ")))
		}
		opts := []string{"y", "yes", "n", "no"}
		if len(q.q.Rules) > 0 {
			rules := printable.Line(strings.Join(q.q.Rules, ", "))
			where := " (this session only)"
			if q.q.SaveTo != "" {
				where = " (saved in " + printable.Line(q.q.SaveTo) + ")"
			}
			opts = append(opts, "a", "always: allow "+rules+where, "d", "never: deny "+printable.Line(cmp.Or(strings.Join(q.q.DenyRules, ", "), rules)))
		}
		keys = keysLine(th, w, opts...)
	}
	if n := len(m.asks); n > 0 {
		keys += "\n" + th.Dim.Render(fmt.Sprintf("  (%d more waiting)", n))
	}
	fixed := rows(head) + rows(tail) + rows([]string{keys})
	subject := strings.Split(wrapIndent(printable.Text(subjectOf(q.q)), w, "  "), "\n")
	left := max(3, room-fixed)
	preview := ""
	if q.q.Preview != "" && q.q.Kind != kernel.AskOutsideSandbox {
		share := max(3, left/3)
		if len(subject) > share {
			subject = cut(th, subject, share)
		}
		preview = transcript.Diff(q.q.Preview, w, max(4, left-len(subject)-1), th)
	} else if len(subject) > left {
		subject = cut(th, subject, left)
	}
	parts := append(head, strings.Join(subject, "\n"))
	parts = append(parts, tail...)
	if preview != "" {
		parts = append(parts, preview)
	}
	parts = append(parts, keys)
	return strings.Join(parts, "\n")
}

// cut keeps the first n-1 lines of a long subject and says how many are
// left and how to see them.
func cut(th style.Theme, lines []string, n int) []string {
	n = max(1, n-1)
	return append(lines[:n:n], th.Warn.Render(fmt.Sprintf("  … %d more lines: press v to print it whole above, then answer", len(lines)-n)))
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
	m.print(m.theme.Accent.Render("The whole command rein asks about:") + "\n" + wrapIndent(printable.Text(subjectOf(m.ask.q)), m.width-2, "  "))
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

// answerWord names an answer in the transcript.
func answerWord(ans kernel.Answer) string {
	switch ans {
	case kernel.Yes:
		return "allowed once"
	case kernel.Always:
		return "allowed always"
	case kernel.Never:
		return "denied always"
	}
	return "denied"
}
