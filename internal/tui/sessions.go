package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/session"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// sessionMsg brings a session the Host opened (or why it could not).
type sessionMsg struct {
	s    *Session
	err  error
	what string // "new", "resumed", "forked"
	past bool   // render its earlier conversation
}

// opened makes the session the Host opened the current one; the one left
// is closed.
func (m *model) opened(msg sessionMsg) tea.Cmd {
	if msg.err != nil {
		m.print(transcript.Note("error", msg.err.Error(), m.width, m.theme))
		return m.flushPrint()
	}
	old, jobs := m.sess, 0
	if m.rt != nil {
		st := m.rt.State()
		jobs = st.RunningJobs()
	}
	m.switchTo(msg.s)
	if old != nil && old.Close != nil {
		if err := old.Close(); err != nil {
			m.print(transcript.Note("warn", "closing the session: "+err.Error(), m.width, m.theme))
		}
	}
	if jobs > 0 {
		// Its jobs ended with it (they belong to the session that
		// started them): said, not left to be found.
		m.print(transcript.Note("info", fmt.Sprintf("ended the background jobs of the session left (%d)", jobs), m.width, m.theme))
	}
	if msg.past {
		m.showPast() // its log says it was resumed
	} else {
		m.print(transcript.Note("info", fmt.Sprintf("%s session %s", msg.what, m.rt.Session()), m.width, m.theme))
	}
	if m.sess.Gates != nil {
		return tea.Batch(m.flushPrint(), m.resumeRun(""))
	}
	return m.flushPrint()
}

// host runs open in a command (it reads and writes logs), bringing its
// session back as a sessionMsg.
func (m *model) host(what string, past bool, open func(h Host) (*Session, error)) tea.Cmd {
	if m.opts.Host == nil {
		m.print(transcript.Note("warn", "this session cannot open others", m.width, m.theme))
		return m.flushPrint()
	}
	h := m.opts.Host
	return func() tea.Msg {
		s, err := open(h)
		return sessionMsg{s: s, err: err, what: what, past: past}
	}
}

func (m *model) clear(string) tea.Cmd {
	ctx := m.ctx
	return m.host("new", false, func(h Host) (*Session, error) { return h.New(ctx) })
}

func (m *model) fork(string) tea.Cmd {
	ctx, id := m.ctx, m.rt.Session()
	return m.host("forked into", false, func(h Host) (*Session, error) { return h.Fork(ctx, id) })
}

// resume opens the picker of this workspace's sessions.
func (m *model) resume(string) tea.Cmd {
	if m.opts.Host == nil {
		return m.host("", false, nil)
	}
	list, err := m.opts.Host.Sessions()
	if err != nil {
		m.print(transcript.Note("error", err.Error(), m.width, m.theme))
		return m.flushPrint()
	}
	var keep []session.Summary
	for _, s := range list {
		if s.ID != m.rt.Session() {
			keep = append(keep, s)
		}
	}
	if len(keep) == 0 {
		m.print(transcript.Note("info", "no other session in this repository or directory", m.width, m.theme))
		return m.flushPrint()
	}
	m.picker = &picker{items: keep}
	return nil
}

// picker is the /resume list: Up and Down move, Enter opens, Esc closes.
type picker struct {
	items []session.Summary
	at    int
}

// pick handles a key on the picker.
func (m *model) pick(key string) tea.Cmd {
	p := m.picker
	switch key {
	case "up", "ctrl+p", "k":
		p.at = max(0, p.at-1)
	case "down", "ctrl+n", "j":
		p.at = min(len(p.items)-1, p.at+1)
	case "esc", "ctrl+c", "q":
		m.picker = nil
	case "enter":
		m.picker = nil
		ctx, id := m.ctx, p.items[p.at].ID
		return m.host("resumed", true, func(h Host) (*Session, error) { return h.Resume(ctx, id) })
	}
	return nil
}

// view renders the picker: at most ten rows around the selection.
func (p *picker) view(m *model) string {
	th := m.theme
	var b strings.Builder
	b.WriteString(th.Accent.Render("Resume a session") + th.Dim.Render("  (↑/↓, enter, esc)") + "\n")
	lo := max(0, min(p.at-4, len(p.items)-10))
	for i := lo; i < min(len(p.items), lo+10); i++ {
		s := p.items[i]
		// The time and the prompt first: on a narrow terminal they are
		// what tells sessions apart; the id follows, for rein resume ID.
		line := fmt.Sprintf("%s  %s  %s", ago(s.LastActivity, m.now()), firstLine(s.FirstPrompt), s.ID)
		line = truncate(printable.Line(line), m.width-4)
		if i == p.at {
			b.WriteString(th.Accent.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ago says how long ago t was, shortly.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%2d min ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%2d h ago  ", int(d.Hours()))
	}
	return fmt.Sprintf("%2d days ago", int(d.Hours()/24))
}

// diff prints what the session's edits changed, from its log: the diff of
// each edit and write that succeeded, in order, and how many commands ran
// (they may have changed files too; rein why FILE tells which).
func (m *model) diff(string) tea.Cmd {
	c, err := transcript.ReadChanges(m.rt.Events(), m.opts.Workspace, m.rt.ChangesOf)
	for _, d := range c.Diffs {
		m.print(transcript.Diff(d, m.width, 200, m.theme))
	}
	if err != nil {
		m.print(transcript.Note("error", "reading the log: "+err.Error(), m.width, m.theme))
	}
	if line := c.Summary(); line != "" {
		m.print(transcript.Note("info", line, m.width, m.theme))
	}
	return m.flushPrint()
}
