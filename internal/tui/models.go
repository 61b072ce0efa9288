package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// modelsMsg brings the models /model offers, and why some could not be
// listed; gen is the listing's.
type modelsMsg struct {
	gen    int
	models []string
	err    error
}

// switchedMsg says how a switch of model went; gen is the switch's.
type switchedMsg struct {
	gen int
	err error
}

// busyModels marks /model's work under way, and returns its generation;
// a listing may be cancelled (Esc), a switch may not: it is the
// runtime's once asked.
func (m *model) busyModels(note string, listing bool) int {
	m.modelGen++
	m.modelBusy, m.modelListing = m.modelGen, listing
	m.setNote(note)
	return m.modelGen
}

// modelsDone ends /model's work gen, if it is still the current one (a
// later /model, or Esc, made it stale), and sends what waited for it.
func (m *model) modelsDone(gen int) (current bool, next tea.Cmd) {
	if gen != m.modelBusy {
		return false, nil
	}
	m.modelBusy = 0
	m.setNote("")
	if !m.running && len(m.queue) > 0 {
		sub := m.queue[0]
		m.queue = m.queue[1:]
		next = m.dispatch(sub)
	}
	return true, next
}

// cancelModels drops a listing of the models under way (Esc): its
// result, when it comes, is ignored. A switch cannot be dropped.
func (m *model) cancelModels() tea.Cmd {
	if !m.modelListing {
		return nil
	}
	m.modelBusy = 0
	m.setNote("")
	if !m.running && len(m.queue) > 0 {
		// What waited for the list goes now, as it would have.
		sub := m.queue[0]
		m.queue = m.queue[1:]
		return m.dispatch(sub)
	}
	return nil
}

// openModels asks the session for the models it offers (a server may be
// asked: outside the loop) and opens the picker on them.
func (m *model) openModels() tea.Cmd {
	list, ctx := m.sess.Models, m.ctx
	if list == nil {
		known := m.rt.Known()
		list = func(context.Context) ([]string, error) { return known, nil }
	}
	gen := m.busyModels("listing the models… (esc: never mind)", true)
	return func() tea.Msg {
		models, err := list(ctx)
		return modelsMsg{gen: gen, models: models, err: err}
	}
}

// listed opens the picker on what came, or says why it cannot.
func (m *model) listed(msg modelsMsg) tea.Cmd {
	current, next := m.modelsDone(msg.gen)
	if !current {
		return nil
	}
	if next != nil || m.running || !m.comp.Empty() {
		// The person went on meanwhile: the picker would take their keys.
		m.print(transcript.Note("info", "the models are listed: /model opens the picker once you are ready", m.width, m.theme))
		return tea.Batch(m.flushPrint(), next)
	}
	if msg.err != nil {
		m.print(transcript.Note("warn", msg.err.Error(), m.width, m.theme))
	}
	cur := m.rt.Current()
	in := cur.Provider + ":" + cur.Model
	items := slices.Clone(msg.models)
	if cur.Model != "" && !slices.Contains(items, in) && !slices.Contains(items, cur.Model) {
		items = append([]string{in}, items...)
	}
	if len(items) == 0 {
		m.print(transcript.Note("info", "no models are known here; /model NAME (provider, provider:model or model) switches to any", m.width, m.theme))
		return m.flushPrint()
	}
	if !slices.Contains(items, in) {
		in = cur.Model // a name the list holds without its provider
	}
	p := &modelPicker{items: items, current: in}
	p.filter("")
	if i := slices.Index(p.shown, in); i >= 0 {
		p.at = i
	}
	m.models = p
	return m.flushPrint()
}

// switchModel asks the runtime for spec outside the loop: building a
// model may ask its server for its window.
func (m *model) switchModel(spec string) tea.Cmd {
	rt, ctx := m.rt, m.ctx
	gen := m.busyModels("switching to "+printable.Line(spec)+"…", false)
	return func() tea.Msg { return switchedMsg{gen: gen, err: rt.SwitchModel(ctx, spec)} }
}

// switched says what the switch came to, and sends what waited for it.
func (m *model) switched(msg switchedMsg) tea.Cmd {
	_, next := m.modelsDone(msg.gen)
	if msg.err != nil {
		m.print(transcript.Note("error", msg.err.Error(), m.width, m.theme))
		return tea.Batch(m.flushPrint(), next)
	}
	cur := m.rt.Current()
	m.print(transcript.Note("info", "model: "+printable.Line(cur.Provider+":"+cur.Model)+" for the next turns", m.width, m.theme))
	if cur.Info != nil {
		m.window = cur.Info.ContextWindow
	}
	return tea.Batch(m.flushPrint(), next)
}

// setNote sets the transient line above the composer.
func (m *model) setNote(s string) { m.note = s }

// modelPicker is the /model list: typing filters it, Up and Down move,
// Enter switches, Esc closes.
type modelPicker struct {
	items, shown []string
	current      string
	query        string
	at           int
}

// filter keeps the items that hold every word of q, case aside.
func (p *modelPicker) filter(q string) {
	p.query = q
	p.shown = p.shown[:0]
	words := strings.Fields(strings.ToLower(q))
	for _, it := range p.items {
		l := strings.ToLower(it)
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(l, w) }) {
			p.shown = append(p.shown, it)
		}
	}
	p.at = min(p.at, max(0, len(p.shown)-1))
}

// pickModel handles a key on the model picker.
func (m *model) pickModel(k tea.KeyPressMsg) tea.Cmd {
	p := m.models
	switch k.String() {
	case "up", "ctrl+p":
		p.at = max(0, p.at-1)
	case "down", "ctrl+n":
		p.at = min(len(p.shown)-1, p.at+1)
	case "pgup":
		p.at = max(0, p.at-10)
	case "pgdown":
		p.at = min(len(p.shown)-1, p.at+10)
	case "esc", "ctrl+c":
		m.models = nil
	case "enter":
		if len(p.shown) == 0 {
			return nil
		}
		choice := p.shown[p.at]
		m.models = nil
		if choice == p.current {
			return nil
		}
		return m.switchModel(choice)
	case "backspace":
		if r := []rune(p.query); len(r) > 0 {
			p.filter(string(r[:len(r)-1]))
		}
	default:
		if k.Text != "" {
			p.filter(p.query + k.Text)
		}
	}
	return nil
}

// view renders the picker: the filter, and at most ten rows around the
// selection, each a whole name (cut at its end, never wrapped inside it).
func (p *modelPicker) view(m *model) string {
	th := m.theme
	var b strings.Builder
	head := "Switch model"
	if p.query != "" {
		head += ": " + printable.Line(p.query)
	}
	b.WriteString(th.Accent.Render(head) + th.Dim.Render("  (type to filter, ↑/↓, enter, esc)") + "\n")
	if len(p.shown) == 0 {
		b.WriteString(th.Dim.Render("  no model matches; enter does nothing, backspace widens the filter"))
		return b.String()
	}
	lo := max(0, min(p.at-4, len(p.shown)-10))
	for i := lo; i < min(len(p.shown), lo+10); i++ {
		name := printable.Line(p.shown[i])
		if p.shown[i] == p.current {
			name += " (in use)"
		}
		line := truncate(name, m.width-4)
		if i == p.at {
			b.WriteString(th.Accent.Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if n := len(p.shown); n > 10 {
		b.WriteString(th.Dim.Render(fmt.Sprintf("  %d models", n)) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
