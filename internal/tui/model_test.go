package tui

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/state"
)

var update = flag.Bool("update", false, "rewrite the golden screens under testdata/")

// fakeRuntime plays canned events for each Send, and keeps what it was
// asked.
type fakeRuntime struct {
	mu      sync.Mutex
	replies [][]contract.Envelope
	sent    []string
	shells  []string
	mode    string
	modes   []string
	usage   contract.Totals
	past    []contract.Envelope
	cur     kernel.Current
	rules   []kernel.Rule
	jobs    []state.Job
	// points and changes are what RewindPoints and PlanRewind say (the
	// changes and conflicts of a rewind of the code to each point's seq);
	// rewinds the rewinds asked ("seq scope force"), rewindErr what
	// Rewind returns.
	points    []kernel.RewindPoint
	changes   map[uint64]kernel.RewindPlan
	rewinds   []string
	rewindErr error
	// lateConflicts are files that change after a plan is shown: a
	// rewind without force meets them.
	lateConflicts []string
	todos         []contract.Todo
}

func (f *fakeRuntime) play(ctx context.Context, text string) iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		f.mu.Lock()
		f.sent = append(f.sent, text)
		var reply []contract.Envelope
		if len(f.replies) > 0 {
			reply, f.replies = f.replies[0], f.replies[1:]
		}
		f.mu.Unlock()
		for _, e := range reply {
			if ctx.Err() != nil {
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

func (f *fakeRuntime) Send(ctx context.Context, in kernel.Input) iter.Seq2[contract.Envelope, error] {
	return f.play(ctx, in.Text)
}
func (f *fakeRuntime) Compact(ctx context.Context, focus string) iter.Seq2[contract.Envelope, error] {
	return f.play(ctx, "/compact "+focus)
}
func (f *fakeRuntime) Resume(ctx context.Context, res kernel.Resume) iter.Seq2[contract.Envelope, error] {
	return f.play(ctx, "resume:"+res.Text)
}
func (f *fakeRuntime) Shell(ctx context.Context, command string) iter.Seq2[contract.Envelope, error] {
	f.shells = append(f.shells, command)
	return f.play(ctx, "!"+command)
}
func (f *fakeRuntime) Events() iter.Seq2[contract.Envelope, error] {
	return func(yield func(contract.Envelope, error) bool) {
		for _, e := range f.past {
			if !yield(e, nil) {
				return
			}
		}
	}
}
func (f *fakeRuntime) SetMode(mode string) error {
	f.mode = mode
	f.modes = append(f.modes, mode)
	return nil
}
func (f *fakeRuntime) Mode() string {
	if f.mode == "" {
		return "default"
	}
	return f.mode
}
func (f *fakeRuntime) SwitchModel(ctx context.Context, spec string) error {
	f.cur.Model = spec
	return nil
}
func (f *fakeRuntime) Current() kernel.Current { return f.cur }
func (f *fakeRuntime) Known() []string         { return []string{"gpt-5", "claude-sonnet-4-5"} }
func (f *fakeRuntime) Rules() []kernel.Rule    { return f.rules }
func (f *fakeRuntime) State() state.State {
	st := state.State{Session: "ses_test", Usage: f.usage, Jobs: f.jobs, Todos: f.todos}
	for _, p := range f.points {
		st.Points = append(st.Points, state.Point{Seq: p.Seq, Time: p.Time, Text: p.Text})
	}
	return st
}
func (f *fakeRuntime) Session() string { return "ses_test" }

func (f *fakeRuntime) RewindPoints() []kernel.RewindPoint { return f.points }

func (f *fakeRuntime) ChangesOf(string) string { return "" }

func (f *fakeRuntime) PlanRewind(seq uint64, scope string) (kernel.RewindPlan, error) {
	if seq == 0 {
		for i := len(f.points) - 1; i >= 0; i-- {
			if !f.points[i].Rewound {
				seq = f.points[i].Seq
				break
			}
		}
	}
	for _, p := range f.points {
		if p.Seq == seq {
			plan := f.changes[seq]
			plan.Point, plan.Scope = p, scope
			if scope == contract.RewindConversation {
				plan.Changes, plan.Conflicts = nil, nil
			}
			return plan, nil
		}
	}
	return kernel.RewindPlan{}, &kernel.ControlError{Msg: fmt.Sprintf("there is no message at seq %d to rewind to", seq)}
}

func (f *fakeRuntime) Rewind(ctx context.Context, seq uint64, scope string, force bool) (kernel.RewindPlan, error) {
	f.mu.Lock()
	f.rewinds = append(f.rewinds, fmt.Sprintf("%d %s %v", seq, scope, force))
	f.mu.Unlock()
	plan, err := f.PlanRewind(seq, scope)
	if err != nil {
		return plan, err
	}
	if f.rewindErr != nil {
		return plan, f.rewindErr
	}
	if len(f.lateConflicts) > 0 && !force {
		// Changed on disk after the plan was shown.
		plan.Conflicts = f.lateConflicts
		return plan, &kernel.ControlError{Msg: "changed since rein last recorded them", Err: kernel.ErrConflict}
	}
	if len(plan.Conflicts) > 0 && !force {
		return plan, &kernel.ControlError{Msg: "changed since rein last recorded them", Err: kernel.ErrConflict}
	}
	return plan, nil
}

// harness runs the model without a terminal: messages in, screen out.
// Commands it returns are run at once, as the program would, except
// those that only print (their text is kept as the scrollback) and the
// spinner's ticks.
type harness struct {
	t       testing.TB
	m       *model
	rt      *fakeRuntime
	back    []string // the scrollback
	pending []tea.Msg
	quit    bool
	clock   time.Time
}

// later moves the harness's clock on by d: a question answers only keys
// pressed a moment after it appeared.
func (h *harness) later(d time.Duration) { h.clock = h.clock.Add(d) }

func newHarness(t testing.TB, width int, rt *fakeRuntime) *harness {
	t.Helper()
	return newHarnessWith(t, width, rt, nil)
}

func newHarnessWith(t testing.TB, width int, rt *fakeRuntime, tune func(*Options)) *harness {
	t.Helper()
	if rt.cur.Provider == "" {
		rt.cur = kernel.Current{Provider: "anthropic", Model: "claude-sonnet-4-5", Info: &contract.ModelInfo{ContextWindow: 200000}}
	}
	opts := &Options{
		Session:     &Session{Runtime: rt, Dir: "/state/sessions/ses_test", Sandbox: "sandbox: workspace-write (Landlock; network off)"},
		Env:         []string{"NO_COLOR=1", "TERM=xterm"},
		Workspace:   t.TempDir(),
		HistoryFile: "-",
		CommandDirs: []string{},
		Width:       width, Height: 30,
		Notify: "off",
	}
	if tune != nil {
		tune(opts)
	}
	h := &harness{t: t, rt: rt}
	h.m = newModel(t.Context(), opts)
	h.clock = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	h.m.now = func() time.Time { return h.clock }
	h.m.onPrint = func(s string) { h.back = append(h.back, s) }
	h.m.startRun = h.startRun
	h.m.tick = func(time.Duration, tea.Msg) tea.Cmd { return nil } // the clock is the harness's
	h.do(h.m.Init())
	h.send(tea.WindowSizeMsg{Width: width, Height: 30})
	return h
}

// startRun replaces the pump: the run's events are delivered at once.
func (h *harness) startRun(ctx context.Context, run int, seq iter.Seq2[contract.Envelope, error]) {
	var events []contract.Envelope
	var failed error
	for e, err := range seq {
		if err != nil {
			failed = err
			break
		}
		events = append(events, e)
	}
	h.pending = append(h.pending, eventsMsg{run: run, events: events}, runDoneMsg{run: run, err: failed})
}

// send delivers msg, and what its commands bring, until quiet.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	_, cmd := h.m.Update(msg)
	h.do(cmd)
	for len(h.pending) > 0 {
		next := h.pending[0]
		h.pending = h.pending[1:]
		_, cmd := h.m.Update(next)
		h.do(cmd)
	}
}

// do runs cmd as the program would, feeding back the messages of rein's
// own packages (not the spinner's or the cursor's ticks, which would
// never end).
func (h *harness) do(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.do(c)
		}
	case tea.QuitMsg:
		h.quit = true
	default:
		if strings.HasPrefix(reflect.TypeOf(msg).PkgPath(), "github.com/rein-agent/rein/") {
			h.pending = append(h.pending, msg)
		}
	}
}

// key presses a key by its name ("enter", "ctrl+c", "shift+tab") or types
// text.
func (h *harness) key(k string) {
	h.t.Helper()
	h.send(keyMsg(k))
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screenText is what the person sees: the scrollback, then the live
// region, without styles.
func (h *harness) screenText() string {
	v := h.m.View()
	return ansi.Strip(strings.Join(h.back, "\n") + "\n" + v.Content)
}

func (h *harness) golden(name string) {
	h.t.Helper()
	got := h.screenText()
	for i, l := range strings.Split(ansi.Strip(h.m.View().Content), "\n") {
		if w := ansi.StringWidth(l); w > h.m.width {
			h.t.Errorf("live line %d is %d columns wide, more than %d: %q", i, w, h.m.width, l)
		}
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (run go test -update to write it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		h.t.Errorf("screen %s mismatch (-want +got):\n%s", name, d)
	}
}

// env builds an envelope.
func env(seq uint64, data contract.Event) contract.Envelope {
	return contract.Envelope{Seq: seq, Session: "ses_test", Data: data}
}

func rawInput(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
