package tui

import (
	"context"
	"iter"
	"strings"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/rein-agent/rein/internal/thirdparty/bubbles/spinner"
	"github.com/rein-agent/rein/internal/thirdparty/bubbles/textinput"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/state"
	"github.com/rein-agent/rein/internal/tui/command"
	"github.com/rein-agent/rein/internal/tui/composer"
	"github.com/rein-agent/rein/internal/tui/style"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// model is the UI's bubbletea model. Every field is touched only by the
// program's loop (Update and View), except program, set before it runs.
type model struct {
	ctx     context.Context
	opts    *Options
	program *tea.Program
	now     func() time.Time

	theme         style.Theme
	colour        bool
	width, height int

	sess *Session
	rt   Runtime
	tr   *transcript.Transcript
	comp *composer.Composer
	hist *composer.History
	cmds []command.Command

	// The run in progress, if any: its number (batches of an earlier run
	// are ignored), how to stop it, when it started, what it does now.
	running   bool
	run       int
	cancel    context.CancelFunc
	started   time.Time
	activity  string
	spin      spinner.Model
	sentShown string // the user.message text already shown as typed
	// queue holds what was sent while a run worked, delivered in order
	// when it ends.
	queue []composer.Submission

	// asks are the questions waiting behind the one shown (ask); tell is
	// the line where the person says what to do instead of a call they
	// deny, while they write it.
	ask  *question
	asks []*question
	tell *textinput.Model
	// askSeen says the last frame showed the question's subject: a key
	// answers only a question the person can see.
	askSeen bool
	// picker is the /resume list, models the /model one, when open;
	// modelBusy is not zero while /model lists the models or switches
	// (the generation of that work: Esc or a later one makes a result
	// stale), and what is sent meanwhile waits in the queue.
	picker       *picker
	models       *modelPicker
	modelBusy    int
	modelGen     int
	modelListing bool
	// rewind is the rewind dialog (/rewind, Esc Esc, /undo), when open;
	// rewinding says the runtime rewinds, and what is sent meanwhile
	// waits in the queue. escAt is when Esc was pressed on an empty
	// composer while nothing ran: a second one soon after opens the
	// dialog.
	rewind    *rewindDialog
	rewinding bool
	escAt     time.Time

	// Printing into scrollback: one tea.Println at a time, in order.
	toPrint  []string
	printing bool
	// sized says the terminal's size is known; liveRows is how many rows
	// the live region took in the last frame.
	sized, printedOnce, begun bool
	// shown says a first print reached the screen: no frame is drawn
	// before it. suspended says Ctrl-Z gave the terminal back.
	shown, suspended bool
	// epilogued says Options.Epilogue was printed.
	epilogued bool
	liveRows  int
	// printed is what went into the scrollback, for the reprint after a
	// resize; reflowAt is not zero while a resize settles (the
	// generation of its timer, reflowGen the latest), reflowDue says the
	// reprint waits for a print under way.
	printed             scrollback
	reflowAt, reflowGen int
	reflowDue           bool

	// The status line's figures, from the events seen.
	contextUsed, window int
	// armed is when Ctrl-C was pressed on an empty composer: a second one
	// leaves.
	armed bool
	// note is a transient line above the composer ("press Ctrl-C again").
	note string
	// goal is the session's first message, for the terminal's title.
	goal string
	// leaving: quit once the scrollback has what was queued; quitting:
	// the last frame is empty, so the live region leaves no trace.
	leaving, quitting bool

	// compView and compCursor are the composer drawn, kept while
	// compDirty is false: a streamed answer redraws the live region sixty
	// times a second, the composer only when something touched it.
	compView   string
	compCursor *tea.Cursor
	compDirty  bool

	// The status and working lines as last drawn, and what they were
	// drawn from.
	statusDrawn, statusKey  string
	workingLine, workingKey string

	// readRule is the session's Readable, for the composer's attachments.
	readRule atomic.Pointer[func(string) error]
	// problems are what loading the custom commands found, printed once
	// the terminal's width is known.
	problems []string
	// askAt is when the question shown appeared, lastKey when the last key
	// came: keys typed as a question appears, or in a burst, are typing,
	// not an answer.
	askAt, lastKey time.Time
	// lastTyped is when a key last went to the draft: a person who was
	// typing must pause before a key answers a question.
	lastTyped time.Time
	// activityAt is when the activity last changed.
	activityAt time.Time

	// todos is the model's task list, drawn above the composer.
	todos checklist

	// runDone is closed when the last run's iterator has returned.
	runDone chan struct{}

	// Test hooks: onPrint takes what would be printed into the
	// scrollback; startRun replaces the pump. Nil in the program.
	onPrint  func(string)
	startRun func(ctx context.Context, run int, seq iter.Seq2[contract.Envelope, error])
	// tick replaces tea.Tick for the timers that withdraw a note.
	tick func(d time.Duration, msg tea.Msg) tea.Cmd
}

func newModel(ctx context.Context, opts *Options) *model {
	th, colour := themeFor(opts.Env)
	m := &model{ctx: ctx, opts: opts, now: time.Now, theme: th, colour: colour, width: 80, height: 24}
	if opts.Width > 0 {
		m.width, m.height = opts.Width, opts.Height
	}
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(th.Accent))
	if opts.HistoryFile != "-" {
		path := opts.HistoryFile
		if path == "" {
			path, _ = composer.HistoryPath(opts.Workspace) // no home: no history
		}
		if path != "" {
			if h, err := composer.OpenHistory(path); err == nil {
				m.hist = h
			} else {
				m.note = "history: " + err.Error()
			}
		}
	}
	dirs := opts.CommandDirs
	if dirs == nil {
		dirs = command.Dirs(opts.Workspace)
	}
	var problems []error
	m.cmds, problems = command.Load(builtins(), dirs...)
	for _, p := range problems {
		m.problems = append(m.problems, "custom command "+strings.TrimPrefix(p.Error(), "command: "))
	}
	m.comp = composer.New(composer.Options{
		Workspace: opts.Workspace, History: m.hist, Commands: m.cmds, Theme: th, Width: m.width,
		Allow: m.readable,
	})
	m.comp.SetArguments(m.argumentValues)
	m.switchTo(opts.Session)
	m.compDirty = true
	return m
}

// argumentValues is what a command's argument completes from: the
// models the session knows for /model, the modes for /mode.
func (m *model) argumentValues(name string) []string {
	switch name {
	case "model":
		return m.rt.Known()
	case "mode":
		return kernel.Modes()
	}
	return nil
}

// readable says whether the person may attach the file at abs: the
// session's read rules decide. It runs in the composer's command, outside
// the program's loop, so the rules are read through an atomic.
func (m *model) readable(abs string) error {
	if f := m.readRule.Load(); f != nil && *f != nil {
		return (*f)(abs)
	}
	return nil
}

// switchTo makes s the session the UI works in.
func (m *model) switchTo(s *Session) {
	m.sess, m.rt = s, s.Runtime
	m.readRule.Store(&s.Readable)
	m.tr = transcript.New(transcript.Options{
		Width: m.width, Theme: m.theme, Workspace: m.opts.Workspace, SessionDir: s.Dir,
	})
	st := m.rt.State()
	m.goal = firstLine(st.LastUser)
	m.todos.set(st.Todos)
	m.contextUsed, m.window = 0, 0
	if st.ModelInfo != nil {
		m.window = st.ModelInfo.ContextWindow
	}
}

// Init starts the UI: the earlier conversation, a first message.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.comp.Focus(), tea.RequestBackgroundColor}
	if m.sized {
		cmds = append(cmds, m.begin())
	}
	return tea.Batch(cmds...)
}

// begin prints the banner and the earlier conversation and sends the
// first message, once the terminal's width is known: what goes into the
// scrollback is wrapped to it and never again.
func (m *model) begin() tea.Cmd {
	m.begun = true
	m.print(m.banner())
	for _, p := range m.problems {
		m.print(transcript.Note("warn", p, m.width, m.theme))
	}
	for _, w := range m.opts.Warnings {
		m.print(transcript.Note("warn", w, m.width, m.theme))
	}
	for _, n := range m.opts.Notes {
		m.print(transcript.Note("info", n, m.width, m.theme))
	}
	if m.opts.Past {
		m.showPast()
	}
	cmds := []tea.Cmd{}
	if m.sess.Gates != nil {
		cmds = append(cmds, m.resumeRun(m.opts.Resume))
	} else if strings.TrimSpace(m.opts.First) != "" {
		first := composer.Submission{Text: m.opts.First, Display: m.opts.First, Entry: m.opts.First}
		cmds = append(cmds, m.dispatch(first))
	}
	return tea.Batch(append(cmds, m.flushPrint())...)
}

// banner is the first line printed: which session, which model, how
// commands are contained, where help is.
func (m *model) banner() string {
	cur := m.rt.Current()
	parts := []string{"rein", "session " + m.rt.Session(), modelName(cur)}
	if sb := sandboxWord(m.sess.Sandbox); sb != "" {
		parts = append(parts, "sandbox "+sb)
	}
	parts = append(parts, "/help for commands and keys")
	var lines []string
	line := ""
	for _, p := range parts {
		p = printable.Line(p)
		switch {
		case line == "":
			line = p
		case ansi.StringWidth(line+" · "+p) <= m.width:
			line += " · " + p
		default:
			lines, line = append(lines, line), p
		}
	}
	return m.theme.Dim.Render(strings.Join(append(lines, line), "\n"))
}

// resumeRun goes on with a resumed session: the runtime records that it
// was resumed, settles what its log left open, and sends text if any.
func (m *model) resumeRun(text string) tea.Cmd {
	rt, gates := m.rt, m.sess.Gates
	if text != "" {
		m.print(transcript.User(text, m.width, m.theme))
		m.sentShown = text
	}
	return m.start("resuming", func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Resume(ctx, kernel.Resume{Gates: gates, Text: text})
	})
}

// showPast prints the session's earlier conversation from its log, as
// replay renders it: nothing is run again.
func (m *model) showPast() {
	past := transcript.New(transcript.Options{
		Width: m.width, Theme: m.theme, Workspace: m.opts.Workspace, SessionDir: m.sess.Dir,
	})
	for env, err := range m.rt.Events() {
		if err != nil {
			m.print(transcript.Note("error", "reading the log: "+err.Error(), m.width, m.theme))
			break
		}
		m.see(env)
		m.print(past.Apply(env)...)
	}
	m.print(past.Flush()...)
	m.tr.Carry(past)
	m.print(transcript.Note("info", "— earlier conversation above; go on below —", m.width, m.theme))
}

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case eventsMsg, spinner.TickMsg, printedMsg:
		// These never reach the composer: its drawing is kept.
	default:
		m.compDirty = true
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m, m.resized(msg)
	case tea.BackgroundColorMsg:
		if m.colour && !m.printedAny() {
			m.theme = style.New(msg.IsDark(), true)
			m.tr = transcript.New(transcript.Options{Width: m.width, Theme: m.theme, Workspace: m.opts.Workspace, SessionDir: m.sess.Dir})
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.tell != nil {
			ti, cmd := m.tell.Update(msg)
			m.tell = &ti
			return m, cmd
		}
		if m.picker != nil || m.models != nil || m.rewind != nil {
			return m, nil
		}
		sub, cmd := m.comp.Update(msg)
		return m, tea.Batch(cmd, m.submitted(sub))
	case askMsg:
		return m, m.asked(msg.q)
	case eventsMsg:
		if msg.run != m.run {
			return m, nil
		}
		for _, env := range msg.events {
			m.event(env)
		}
		return m, m.flushPrint()
	case runDoneMsg:
		if msg.run != m.run {
			return m, nil
		}
		return m, m.ended(msg.err)
	case printedMsg:
		m.printing, m.shown = false, true
		if m.leaving && len(m.toPrint) == 0 {
			m.quitting = true
			return m, tea.Quit
		}
		return m, m.flushPrint()
	case spinner.TickMsg:
		if !m.running {
			return m, nil // no tick while idle: no CPU spent
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case sessionMsg:
		return m, m.opened(msg)
	case reflowMsg:
		return m, m.reflowed(msg)
	case warnMsg:
		m.print(transcript.Note("warn", msg.text, m.width, m.theme))
		return m, m.flushPrint()
	case modelsMsg, switchedMsg, pointsMsg, rewoundMsg, escTimeoutMsg:
		return m, m.worked(msg)
	case tea.ResumeMsg:
		m.suspended = false
		return m, nil
	}
	sub, cmd := m.comp.Update(msg)
	return m, tea.Batch(cmd, m.submitted(sub))
}

// worked handles what the work done outside the loop brings: /model's
// list and switch, a rewind, the end of Esc's second.
func (m *model) worked(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case modelsMsg:
		return m.listed(msg)
	case switchedMsg:
		return m.switched(msg)
	case pointsMsg:
		return m.listedPoints(msg)
	case rewoundMsg:
		return m.rewound(msg)
	case escTimeoutMsg:
		if msg.at.Equal(m.escAt) {
			m.disarmEsc()
		}
	}
	return nil
}

// resized re-wraps what is not printed yet to the terminal's new size,
// and lets printing start once the size is known.
func (m *model) resized(msg tea.WindowSizeMsg) tea.Cmd {
	oldW, oldH, tall := m.width, m.height, m.liveRows
	m.width, m.height, m.sized = max(msg.Width, 10), max(msg.Height, 5), true
	m.tr.Resize(m.width)
	m.comp.SetWidth(m.width)
	if !m.begun {
		return m.begin()
	}
	// A narrower or wider terminal re-wraps its rows; a shorter one
	// pushes the top of a frame taller than it into the scrollback.
	if m.printedOnce && (m.width != oldW || m.height < oldH && tall > m.height) {
		return m.resizeSettles()
	}
	return m.flushPrint()
}

// event folds one event of the run into the transcript and the status.
func (m *model) event(env contract.Envelope) {
	m.see(env)
	if m.ask != nil {
		// The question is what the run waits on; the activity says so
		// until it is answered.
		m.print(m.tr.Apply(env)...)
		return
	}
	switch d := env.Data.(type) {
	case *contract.UserMessage:
		if m.sentShown != "" && d.Text == m.sentShown {
			m.sentShown = ""
			return // already shown as typed, attachments collapsed
		}
	case *contract.ModelRequested:
		if d.Purpose == "compaction" {
			m.setActivity("compacting the conversation")
		} else {
			m.setActivity("waiting for the model")
		}
	case *contract.TextDelta:
		m.setActivity("writing")
	case *contract.ReasoningDelta:
		m.setActivity("thinking")
	case *contract.InvocationStarted:
		m.setActivity("running " + toolSubject(d.ToolName, d.Input))
	case *contract.RetryScheduled:
		m.setActivity(d.Status())
	}
	m.print(m.tr.Apply(env)...)
}

// see keeps the status line's figures up to date with env.
func (m *model) see(env contract.Envelope) {
	switch d := env.Data.(type) {
	case *contract.ContextProjected:
		if d.Window > 0 {
			m.window = d.Window
		}
		m.contextUsed = d.EstimatedTokens
	case *contract.ModelUsage:
		if d.InputTokens > 0 {
			m.contextUsed = int(d.InputTokens + d.OutputTokens)
		}
	case *contract.ContextCompacted:
		m.contextUsed = d.TokensAfter
	case *contract.ModelSwitched:
		if d.Info != nil {
			m.window = d.Info.ContextWindow
		}
	case *contract.UserMessage:
		if m.goal == "" {
			m.goal = firstLine(d.Text)
		}
	case *contract.TodoUpdated:
		m.todos.set(d.Todos)
	}
}

// start runs seq as the UI's run: its events are rendered as they come.
func (m *model) start(activity string, seq func(ctx context.Context) iter.Seq2[contract.Envelope, error]) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.run++
	m.running, m.cancel, m.started = true, cancel, m.now()
	m.setActivity(activity)
	if m.startRun != nil {
		m.startRun(ctx, m.run, seq(ctx))
	} else {
		pm := &pump{p: m.program, run: m.run}
		m.opts.Approver.following(pm.flush)
		pm.start(seq(ctx))
		m.runDone = pm.done
	}
	return m.spin.Tick
}

// setActivity says what the run does now; its timer starts again when
// that changes ("running go test · 1.2 s" counts the command, not the
// run).
func (m *model) setActivity(a string) {
	if a != m.activity {
		m.activity, m.activityAt = a, m.now()
	}
}

// interrupt stops the run in progress: the kernel records it as
// cancelled and what was recorded stays recorded.
func (m *model) interrupt() {
	if m.cancel != nil {
		m.cancel()
	}
	m.setActivity("stopping")
	if len(m.queue) > 0 {
		// What waited goes back to the composer, all of it, after what is
		// being typed, for the person to send again or not: nothing
		// queued is sent by an interrupted run's end.
		var texts []string
		if v := m.comp.Value(); strings.TrimSpace(v) != "" {
			texts = append(texts, v)
		}
		for _, q := range m.queue {
			texts = append(texts, q.Entry)
		}
		m.queue = nil
		m.comp.SetValue(strings.Join(texts, "\n"))
		m.compDirty = true
	}
}

// stopRun cancels a run left going when the UI ends.
func (m *model) stopRun() {
	if m.cancel != nil {
		m.cancel()
	}
}

// settle waits, after the UI ended, for the run it cancelled to end: the
// kernel then has recorded how it ended (cancelled) and killed what it
// ran, before the session is closed. A kernel that does not stop is left
// after a while, its log ending where it does.
func (m *model) settle(wait time.Duration) {
	if m.runDone == nil {
		return
	}
	select {
	case <-m.runDone:
	case <-time.After(wait):
	}
}

// ended closes the run: what it left in progress is printed, its
// questions withdrawn, the person told, and what was queued sent.
func (m *model) ended(err error) tea.Cmd {
	m.print(m.tr.Flush()...)
	if err != nil {
		m.print(transcript.Note("error", err.Error(), m.width, m.theme))
	}
	for _, q := range append([]*question{m.ask}, m.asks...) {
		if q != nil {
			q.answer(kernel.Reply{Answer: kernel.No})
		}
	}
	m.ask, m.asks, m.tell = nil, nil, nil
	took := m.now().Sub(m.started)
	m.running, m.cancel, m.activity = false, nil, ""
	if !m.epilogued && (m.opts.Epilogue != "" || m.opts.Otherwise != "") {
		m.epilogued = true
		text := m.opts.Otherwise
		if st := m.rt.State(); st.Phase() == state.Completed {
			text = m.opts.Epilogue
		}
		if text != "" {
			m.print(transcript.Note("info", text, m.width, m.theme))
		}
	}
	cmds := []tea.Cmd{m.flushPrint()}
	if took >= notifyAfter {
		cmds = append(cmds, m.notify("rein: the run ended"))
	}
	if len(m.queue) > 0 {
		next := m.queue[0]
		m.queue = m.queue[1:]
		cmds = append(cmds, m.dispatch(next))
	}
	return tea.Batch(cmds...)
}

// notifyAfter is how long a run must have taken for its end to be
// announced: a quick answer needs no bell.
const notifyAfter = 5 * time.Second

// notify rings the bell or sends a desktop notification (OSC 9), as
// configured.
func (m *model) notify(text string) tea.Cmd {
	switch m.opts.Notify {
	case "off":
		return nil
	case "osc9":
		return tea.Raw("\x1b]9;" + printable.Line(text) + "\x07")
	}
	return tea.Raw("\a")
}

// asked shows q, or queues it behind the one shown.
func (m *model) asked(q *question) tea.Cmd {
	if !m.running {
		q.answer(kernel.Reply{Answer: kernel.No})
		return nil
	}
	if m.ask != nil {
		m.asks = append(m.asks, q)
		return nil
	}
	m.ask, m.askAt, m.askSeen = q, m.now(), true
	m.tr.Asking(q.q.IntentID, true)
	m.setActivity("waiting for your answer")
	return m.notify("rein: approval needed")
}

// answered sends the person's reply and shows the next question.
func (m *model) answered(r kernel.Reply) {
	m.ask.answer(r)
	m.tr.Asking(m.ask.q.IntentID, false)
	m.ask, m.tell = nil, nil
	if len(m.asks) > 0 {
		m.ask, m.asks, m.askAt, m.askSeen = m.asks[0], m.asks[1:], m.now(), true
		m.tr.Asking(m.ask.q.IntentID, true)
		return
	}
	m.setActivity("working")
}

// printedMsg says a Println is done: the next one may go.
type printedMsg struct{}

// print queues blocks for the scrollback, in order.
func (m *model) print(blocks ...string) {
	for _, b := range blocks {
		if b != "" {
			m.toPrint = append(m.toPrint, b)
		}
	}
}

// printedAny says something other than the banner was printed.
func (m *model) printedAny() bool { return m.printing || len(m.toPrint) > 1 }

// flushPrint prints what is queued, unless a print is under way:
// tea.Println runs as a command, and two of them could overtake each
// other. Nothing is printed before the terminal's size is known, nor
// while a resize settles: what is queued then goes with the reprint.
func (m *model) flushPrint() tea.Cmd {
	if m.printing || !m.sized || m.reflowAt != 0 {
		return nil
	}
	if m.reflowDue {
		return m.reprint()
	}
	if len(m.toPrint) == 0 {
		return nil
	}
	// Blocks are bare: a blank line sets each apart, as the peers' do.
	text := strings.Join(m.toPrint, "\n\n")
	if m.printedOnce {
		text = "\n" + text // apart from the last print
	}
	m.printedOnce, m.toPrint = true, nil
	m.printed.add(text)
	if m.onPrint != nil {
		m.onPrint(text)
		return func() tea.Msg { return printedMsg{} }
	}
	m.printing = true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// reflowDelay is how long the terminal's size must stay the same before
// the scrollback is printed again for it: dragging a window's edge sends
// many sizes, and one reprint is enough.
const reflowDelay = 150 * time.Millisecond

// reflowMsg says a resize settled, if gen is still the latest.
type reflowMsg struct{ gen int }

// resizeSettles asks for a reprint of the scrollback once the size stops
// changing. A terminal re-wraps and moves its lines on a resize, the
// live region's included, in ways no renderer can follow: without it, a
// frame drawn over the moved rows leaves its old copy, or half a
// paragraph, in the scrollback.
func (m *model) resizeSettles() tea.Cmd {
	m.reflowGen++
	gen := m.reflowGen
	m.reflowAt = m.reflowGen
	return tea.Tick(reflowDelay, func(time.Time) tea.Msg { return reflowMsg{gen: gen} })
}

// reflowed handles a settled resize: the reprint goes as soon as no
// print is under way.
func (m *model) reflowed(msg reflowMsg) tea.Cmd {
	if msg.gen != m.reflowGen {
		return nil // a later size came: its own timer will do it
	}
	m.reflowAt, m.reflowDue = 0, true
	return m.flushPrint()
}

// reprint clears the terminal's screen and scrollback and prints
// everything printed so far again, wrapped to the new width, then what
// waited to be printed.
func (m *model) reprint() tea.Cmd {
	m.reflowDue = false
	text := m.printed.wrapped(m.width)
	if len(m.toPrint) > 0 {
		more := strings.Join(m.toPrint, "\n\n")
		if m.printedOnce {
			more = "\n" + more
		}
		m.printed.add(more)
		m.printedOnce, m.toPrint = true, nil
		if text != "" {
			text += "\n"
		}
		text += more
	}
	if m.onPrint != nil {
		m.onPrint("\x00reprint\x00" + text)
		return func() tea.Msg { return printedMsg{} }
	}
	m.printing = true
	return tea.Sequence(tea.Reprint(text), func() tea.Msg { return printedMsg{} })
}

// leave ends the UI once what is queued is printed.
func (m *model) leave() tea.Cmd {
	m.stopRun()
	if !m.printing && len(m.toPrint) == 0 {
		m.quitting = true
		return tea.Quit
	}
	m.leaving = true
	return m.flushPrint()
}

// firstLine is the first line of s, printable and short, for titles.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = printable.Line(s)
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// modelName is "provider:model" as the status line shows it.
func modelName(c kernel.Current) string {
	if c.Model == "" {
		return c.Provider
	}
	return c.Model
}

// sandboxWord is the sandbox's mode from Session.Sandbox's line
// ("sandbox: workspace-write (…)" -> "workspace-write").
func sandboxWord(line string) string {
	line = strings.TrimPrefix(strings.TrimSpace(line), "sandbox: ")
	if i := strings.IndexAny(line, " (;"); i > 0 {
		line = line[:i]
	}
	return line
}
