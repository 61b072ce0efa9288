package cli

import (
	"context"
	"errors"
	"iter"
	"os"
	"strings"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/excerpt"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/tui"
	"github.com/rein-agent/rein/internal/tui/command"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// The line mode is the interactive session in plain lines (--plain, a
// pipe, TERM=dumb): a prompt, a streamed answer, the trace. It is the
// same program as the terminal UI: what the person types is a message
// for the model, "!command" (their own command), or one of the UI's
// commands with the same meaning, made through the same calls of the
// kernel's facade; "//text" sends text that begins with a slash.

// controls are the calls of the kernel's facade the line mode's commands
// make besides Runtime's; *kernel.Kernel has them.
type controls interface {
	Shell(ctx context.Context, command string) iter.Seq2[contract.Envelope, error]
	Events() iter.Seq2[contract.Envelope, error]
	SetMode(mode string) error
	Mode() string
	SwitchModel(ctx context.Context, spec string) error
	Current() kernel.Current
	Known() []string
	ChangesOf(intent string) string
}

// lineMode is one interactive session in lines; /clear, /resume and
// /fork change the session it is in.
type lineMode struct {
	a        *app
	s        *Session
	lines    *lineReader
	approver kernel.Approver
	r        renderer
	// custom are the person's and the project's commands
	// (.rein/commands/NAME.md), as the UI loads them.
	custom []command.Command
}

// lineCommand is one of the line mode's commands: the UI's, with the
// same names and meanings. do reports whether the person leaves; an
// error ends the session (rein itself failed), anything the person can
// do something about is said and the session goes on.
type lineCommand struct {
	name, args, about string
	do                func(l *lineMode, ctx context.Context, args string) (leave bool, err error)
}

// lineCommands are the line mode's commands, in /help's order (the UI's).
func lineCommands() []lineCommand {
	return []lineCommand{
		{"help", "", "these commands", (*lineMode).help},
		{"model", "[name]", "show the model and those known, or switch to another for the next turns (provider, provider:model or model)", (*lineMode).model},
		{"mode", "[name]", "show the permission mode and the modes, or set one: " + strings.Join(kernel.Modes(), ", "), (*lineMode).mode},
		{"compact", "[focus]", "summarise the conversation now, keeping what focus names", (*lineMode).compact},
		{"clear", "", "start a new session in this workspace", (*lineMode).clear},
		{"resume", "[id]", "list this repository's other sessions, or go on in one", (*lineMode).resume},
		{"fork", "", "copy this session into a new one and go on in the copy", (*lineMode).fork},
		{"rewind", "[N]", "list the messages and rewind to before one: code and conversation, conversation only or code only (asks first)", (*lineMode).rewind},
		{"undo", "", "rewind the last turn: its files and its message (asks first when files would be restored)", (*lineMode).undo},
		{"cost", "", "the tokens and cost of this session", (*lineMode).cost},
		{"jobs", "", "the background jobs: running or how each ended, what it printed, its command", (*lineMode).jobs},
		{"diff", "", "what this session's edits changed in the workspace, from the log", (*lineMode).diff},
		{"status", "", "provider, endpoint, model and window, configuration, sandbox, instructions", (*lineMode).status},
		{"permissions", "", "the permission rules in force, and the file each came from", (*lineMode).permissions},
		{"mcp", "", "the MCP servers: state, tools, the file each comes from, what failed", (*lineMode).mcp},
		{"hooks", "", "the hooks that run around prompts and tool calls, and the file each comes from", (*lineMode).hooks},
		{"skills", "", "the skills the model is told of, and where each was found", (*lineMode).skills},
		{"agents", "", "the agents the task tool may start, and where each was found", (*lineMode).agents},
		{"init", "", "ask the model to write an AGENTS.md for this repository", (*lineMode).init},
		{"exit", "", "leave rein (Ctrl-D does too)", (*lineMode).exit},
	}
}

// newLineMode starts the line mode over s, reading lines and asking
// approvals through approver; it says which custom commands could not be
// read.
func (a *app) newLineMode(s *Session, lines *lineReader, approver kernel.Approver) *lineMode {
	l := &lineMode{a: a, s: s, lines: lines, approver: approver, r: a.rendererOf(s)}
	var builtins []command.Command
	for _, c := range lineCommands() {
		builtins = append(builtins, command.Command{Name: c.name, Builtin: true})
	}
	custom, problems := command.Load(builtins, command.Dirs(l.workspace())...)
	for _, c := range custom {
		if !c.Builtin {
			l.custom = append(l.custom, c)
		}
	}
	if !a.flags.json {
		for _, p := range problems {
			printf(a.deps.Stderr, "rein: warning: custom command %s\n", strings.TrimPrefix(p.Error(), "command: "))
		}
	}
	return l
}

// workspace is the session's directory: its log's, else the working
// directory.
func (l *lineMode) workspace() string {
	if st := l.s.Runtime.State(); st.Cwd != "" {
		return st.Cwd
	}
	cwd, _ := os.Getwd()
	return cwd
}

// w is where the commands' words go: stderr, beside the trace, leaving
// stdout to the model's answers.
func (l *lineMode) w() *lineWriter { return &lineWriter{l.a} }

// lineWriter writes rein's own lines for the line mode, unless the
// output is JSON lines.
type lineWriter struct{ a *app }

func (w *lineWriter) say(s shown) {
	if !w.a.flags.json {
		say(w.a.deps.Stderr, s)
	}
}

func (w *lineWriter) printf(format string, args ...any) { w.say(sayf(format, args...)) }

// do acts on one line the person typed: a command, their own command,
// or a message to the model.
func (l *lineMode) do(ctx context.Context, line string) (leave bool, err error) {
	if cmd, ok := strings.CutPrefix(line, "!"); ok {
		return false, l.shell(ctx, strings.TrimSpace(cmd))
	}
	name, args, ok := command.Parse(line)
	if !ok {
		return false, l.send(ctx, args, args) // args is the text: "//x" sends "/x"
	}
	for _, c := range lineCommands() {
		if c.name == name {
			return c.do(l, ctx, args)
		}
	}
	for _, c := range l.custom {
		if c.Name == name {
			return false, l.send(ctx, command.Expand(c.Template, args), line)
		}
	}
	l.w().printf("rein: unknown command /%s: nothing was sent (/help lists the commands; //%s sends the text as it is)\n", name, name)
	return false, nil
}

// past shows the earlier conversation of a session gone on with, as the
// UI does: each message as the person saw it when they sent it (a long
// paste as its placeholder), the model's answers, and each tool call as
// its title and outcome. It all goes to stderr, apart from the answers
// of the runs to come.
func (l *lineMode) past() {
	c, ok := l.s.Runtime.(controls)
	if !ok || l.a.flags.json {
		return
	}
	w := l.a.deps.Stderr
	t := newTerminal(w, w)
	t.workspace = l.workspace()
	shownAny := false
	for env, err := range c.Events() {
		if err != nil {
			t.line(sayf("rein: reading the log: %s", err))
			break
		}
		switch e := env.Data.(type) {
		case *contract.UserMessage:
			shownAny = true
			msg := strings.ReplaceAll(strings.TrimRight(e.Shown(), "\n"), "\n", "\n  ")
			t.line("\n" + t.style("1", "› ") + text(msg))
		case *contract.ModelText:
			if !t.summarising {
				t.line(text(strings.TrimRight(e.Text, "\n")))
			}
		case *contract.ModelFinished:
			t.summarising = false
		default:
			if err := t.event(env); err != nil {
				return
			}
		}
	}
	t.end()
	if shownAny {
		say(w, t.style("2", "── the conversation so far; it goes on from here ──")+"\n")
	}
}

// run renders what seq yields, as a message's run is; an interrupt only
// stops it (the renderer says "stopped"), and the session goes on.
func (l *lineMode) run(ctx context.Context, seq func(ctx context.Context) iter.Seq2[contract.Envelope, error]) error {
	_, err := l.a.follow(ctx, l.r, seq)
	return err
}

// send sends text to the model; display is what the person typed (a
// custom command's name and arguments), recorded beside it when it
// differs.
func (l *lineMode) send(ctx context.Context, text, display string) error {
	rt := l.s.Runtime
	return l.run(ctx, func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Send(ctx, kernel.Input{Text: text, Display: display})
	})
}

// controls returns the session's controls, or says why there are none.
func (l *lineMode) controls(what string) (controls, bool) {
	c, ok := l.s.Runtime.(controls)
	if !ok {
		l.w().printf("rein: this session's runtime cannot %s\n", what)
	}
	return c, ok
}

// shell runs a command the person typed, through the runtime: sandboxed,
// recorded as theirs, its output in the model's context.
func (l *lineMode) shell(ctx context.Context, cmd string) error {
	if cmd == "" {
		l.w().say("rein: ! runs a command: !ls, !go test ./...\n")
		return nil
	}
	c, ok := l.controls("run your commands")
	if !ok {
		return nil
	}
	return l.run(ctx, func(ctx context.Context) iter.Seq2[contract.Envelope, error] { return c.Shell(ctx, cmd) })
}

func (l *lineMode) help(context.Context, string) (bool, error) {
	w := l.w()
	w.say("Commands:\n")
	for _, c := range lineCommands() {
		w.printf("  %-18s %s\n", "/"+c.name+" "+c.args, c.about)
	}
	for _, c := range l.custom {
		w.printf("  %-18s %s (%s)\n", "/"+c.Name+" "+c.ArgumentHint, c.Description, c.Source)
	}
	w.say("  //text             send text that begins with /\n" +
		"  !command           run a command yourself (sandboxed, no approval); its output goes to the model\n" +
		"Anything else is a message to the model. Ctrl-C stops a run; Ctrl-D, or /exit, leaves.\n")
	return false, nil
}

func (l *lineMode) model(ctx context.Context, args string) (bool, error) {
	c, ok := l.controls("switch models")
	if !ok {
		return false, nil
	}
	w := l.w()
	if args == "" {
		cur := c.Current()
		line := sayf("model: %s", cur.Provider+":"+cur.Model)
		if cur.Info != nil && cur.Info.ContextWindow > 0 {
			line += sayf(" · window %s tokens (%s)", thousands(cur.Info.ContextWindow), cur.Info.Source)
		}
		w.say(line + "\n")
		if known := c.Known(); len(known) > 0 {
			more := shown("")
			if len(known) > maxKnown {
				more = sayf(" … (%d more)", len(known)-maxKnown)
			}
			w.printf("known: %s%s\n", strings.Join(known[:min(len(known), maxKnown)], ", "), more)
		}
		w.say("/model NAME switches to another for the next turns\n")
		return false, nil
	}
	if err := c.SwitchModel(ctx, args); err != nil {
		w.printf("rein: %s\n", err)
		return false, nil
	}
	cur := c.Current()
	w.printf("model: %s for the next turns\n", cur.Provider+":"+cur.Model)
	return false, nil
}

// maxKnown is how many of the known models /model names.
const maxKnown = 30

func (l *lineMode) mode(_ context.Context, args string) (bool, error) {
	c, ok := l.controls("change the permission mode")
	if !ok {
		return false, nil
	}
	w := l.w()
	if args == "" {
		mode := c.Mode()
		w.printf("permission mode: %s · %s\n", mode, kernel.ModeMeaning(mode))
		w.printf("modes: %s (/mode NAME sets one)\n", strings.Join(kernel.Modes(), ", "))
		return false, nil
	}
	if err := c.SetMode(args); err != nil {
		w.printf("rein: %s\n", err)
		return false, nil
	}
	mode := c.Mode()
	w.printf("permission mode: %s · %s\n", mode, kernel.ModeMeaning(mode))
	return false, nil
}

func (l *lineMode) compact(ctx context.Context, focus string) (bool, error) {
	rt := l.s.Runtime
	if !recorded(rt) {
		l.w().say("rein: nothing to compact: the conversation is empty\n")
		return false, nil
	}
	return false, l.run(ctx, func(ctx context.Context) iter.Seq2[contract.Envelope, error] { return rt.Compact(ctx, focus) })
}

// switchTo makes next the session the line mode is in, closing the one
// it was in; what says how it came ("new", "forked into", "resumed").
// A session opened to go on with (its gates are set) is resumed: what
// its log left unfinished is finished first.
func (l *lineMode) switchTo(ctx context.Context, next *Session, what string) error {
	l.a.sessionLine(l.s)
	st := l.s.Runtime.State()
	jobs := st.RunningJobs()
	closeSession(l.s, l.a.deps.Stderr)
	if jobs > 0 {
		// Its jobs ended with it: said, not left to be found.
		l.w().printf("rein: ended the background jobs of the session left (%d)\n", jobs)
	}
	l.s, l.r = next, l.a.rendererOf(next)
	l.w().printf("rein: %s session %s\n", what, next.Runtime.Session())
	l.a.saySandbox(next)
	if next.Gates == nil {
		return nil
	}
	rt := next.Runtime
	return l.run(ctx, func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Resume(ctx, kernel.Resume{Gates: next.Gates})
	})
}

func (l *lineMode) clear(ctx context.Context, _ string) (bool, error) {
	next, err := l.a.open(ctx, l.approver)
	if err != nil {
		l.w().printf("rein: %s\n", err)
		return false, nil
	}
	return false, l.switchTo(ctx, next, "new")
}

func (l *lineMode) resume(ctx context.Context, ref string) (bool, error) {
	w := l.w()
	if ref == "" {
		list, err := l.a.nearSessions()
		if err != nil {
			w.printf("rein: %s\n", err)
			return false, nil
		}
		n := 0
		for _, sum := range list {
			if sum.ID == l.s.Runtime.Session() {
				continue
			}
			n++
			w.printf("  %s  %s  %s\n", sum.ID, stamp(sum.LastActivity), excerpt.Text(oneLine(sum.FirstPrompt), 60))
		}
		if n == 0 {
			w.say("rein: no other session in this repository\n")
			return false, nil
		}
		w.say("/resume ID goes on in one\n")
		return false, nil
	}
	_, id, err := l.a.own(ref, "resume")
	if err == nil && id == l.s.Runtime.Session() {
		err = errors.New("this is the session you are in")
	}
	var next *Session
	if err == nil {
		next, err = l.a.reopen(ctx, l.approver, id)
	}
	if err != nil {
		w.printf("rein: %s\n", problem(err))
		return false, nil
	}
	return false, l.switchTo(ctx, next, "resumed")
}

func (l *lineMode) fork(ctx context.Context, _ string) (bool, error) {
	next, err := l.a.forkSession(ctx, l.approver, l.s.Runtime.Session())
	if err != nil {
		l.w().printf("rein: %s\n", problem(err))
		return false, nil
	}
	return false, l.switchTo(ctx, next, "forked into")
}

// permissions lists the rules in force, deny first, each with the file it
// came from, as the UI's /permissions does.
func (l *lineMode) permissions(context.Context, string) (bool, error) {
	w := l.w()
	rs, ok := l.s.Runtime.(interface{ Rules() []kernel.Rule })
	if !ok {
		w.say("this session has no permission rules to show\n")
		return false, nil
	}
	if c, ok := l.s.Runtime.(controls); ok {
		w.printf("permission mode: %s · %s\n", c.Mode(), kernel.ModeMeaning(c.Mode()))
	}
	rules := rs.Rules()
	if len(rules) == 0 {
		w.say("no rules: the mode decides; an answer's always or never adds one\n")
	}
	for _, r := range rules {
		w.printf("  %-5s %s · %s\n", r.Decision, r.Rule, r.From())
	}
	return false, nil
}

func (l *lineMode) cost(context.Context, string) (bool, error) {
	st := l.s.Runtime.State()
	if u := st.Usage; u.Calls > 0 {
		l.w().printf("session: %d model calls · %s\n", u.Calls, totals(&u))
	} else {
		// No call reported usage: none was made, or the provider (a
		// script, some servers) reports none.
		l.w().say("session: no usage reported yet\n")
	}
	return false, nil
}

func (l *lineMode) jobs(context.Context, string) (bool, error) {
	if s, ok := l.s.Runtime.(interface{ SettleJobs() error }); ok {
		if err := s.SettleJobs(); err != nil {
			return false, err
		}
	}
	st := l.s.Runtime.State()
	lines := tui.JobLines(st.Jobs)
	if len(lines) == 0 {
		l.w().say(tui.NoJobs + "\n")
	}
	for _, line := range lines {
		l.w().say(text(line + "\n"))
	}
	return false, nil
}

func (l *lineMode) diff(context.Context, string) (bool, error) {
	c, ok := l.controls("read its log")
	if !ok {
		return false, nil
	}
	w := l.w()
	changes, err := transcript.ReadChanges(c.Events(), l.workspace(), c.ChangesOf)
	for _, d := range changes.Diffs {
		w.say(text(strings.TrimRight(d, "\n") + "\n"))
	}
	if err != nil {
		w.printf("rein: reading the log: %s\n", err)
	}
	if line := changes.Summary(); line != "" {
		w.printf("rein: %s\n", line)
	}
	return false, nil
}

func (l *lineMode) status(context.Context, string) (bool, error) {
	st := l.s.Runtime.State()
	facts := []Fact{{Key: "session", Value: l.s.Runtime.Session()}, {Key: "directory", Value: l.s.Dir}}
	facts = append(facts, Fact{Key: "workspace", Value: l.workspace()})
	c, _ := l.s.Runtime.(controls)
	var cur kernel.Current
	if c != nil {
		cur = c.Current()
	}
	facts = append(facts, tui.ModelFacts(l.s.About, cur, l.s.Sandbox)...)
	if c != nil {
		facts = append(facts, Fact{Key: "mode", Value: c.Mode()})
	} else if st.Mode != "" {
		facts = append(facts, Fact{Key: "mode", Value: st.Mode})
	}
	w := l.w()
	w.say("Status\n")
	for _, f := range facts {
		w.printf("  %-14s %s\n", f.Key, f.Value)
	}
	return false, nil
}

func (l *lineMode) mcp(context.Context, string) (bool, error) { return false, l.extensions("mcp") }

func (l *lineMode) hooks(context.Context, string) (bool, error) {
	return false, l.extensions("hooks")
}

func (l *lineMode) skills(context.Context, string) (bool, error) {
	return false, l.extensions("skills")
}

func (l *lineMode) agents(context.Context, string) (bool, error) {
	return false, l.extensions("agents")
}

// extensions says what the session's extensions of kind are, as rein mcp
// list, rein hooks, rein skills and rein agents do.
func (l *lineMode) extensions(kind string) error {
	var facts []Fact
	if l.s.Extensions != nil {
		facts = l.s.Extensions(kind)
	}
	if l.a.flags.json {
		return nil
	}
	return l.a.facts(l.a.deps.Stderr, facts, kind)
}

func (l *lineMode) init(ctx context.Context, _ string) (bool, error) {
	return false, l.send(ctx, kernel.InitPrompt, "/init")
}

func (l *lineMode) exit(context.Context, string) (bool, error) { return true, nil }
