package tui

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/kernel"
	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/command"
	"github.com/rein-agent/rein/internal/tui/composer"
	"github.com/rein-agent/rein/internal/tui/style"
	"github.com/rein-agent/rein/internal/tui/transcript"
)

// builtin is a command the UI answers itself.
type builtin struct {
	name, args, about string
	// idle says it must wait for the run in progress to end.
	idle bool
	do   func(m *model, args string) tea.Cmd
}

// builtinTable lists the built-in commands, in /help's order.
func builtinTable() []builtin {
	return []builtin{
		{"help", "", "the keys and the commands", false, (*model).help},
		{"model", "[name]", "pick the model for the next turns from those the providers offer, or switch to name (provider, provider:model or model)", true, (*model).model},
		{"mode", "[name]", "show the permission mode, or set it: default, accept-edits, plan, yolo", false, (*model).mode},
		{"compact", "[focus]", "summarise the conversation now, keeping what focus names", true, (*model).compact},
		{"clear", "", "start a new session in this workspace", true, (*model).clear},
		{"resume", "", "pick one of this workspace's sessions and go on in it", true, (*model).resume},
		{"fork", "", "copy this session into a new one and go on in the copy", true, (*model).fork},
		{"rewind", "", "pick an earlier message and put the code, the conversation or both back as they were before it (Esc Esc too)", true, (*model).rewindCommand},
		{"undo", "", "rewind the last turn: its files and its message (asks first when files would be restored)", true, (*model).undo},
		{"cost", "", "the tokens and cost of this session", false, (*model).cost},
		{"jobs", "", "the background jobs: running or how each ended, what it printed, its command", false, (*model).jobs},
		{"diff", "", "what this session's edits changed in the workspace, from the log", false, (*model).diff},
		{"status", "", "provider, endpoint, model and window, configuration, sandbox, instructions", false, (*model).status},
		{"permissions", "", "the permission rules in force, and the file each came from", false, (*model).permissions},
		{"mcp", "", "the MCP servers: state, tools, the file each comes from, what failed", false, (*model).mcp},
		{"hooks", "", "the hooks that run around prompts and tool calls, and the file each comes from", false, (*model).hooks},
		{"skills", "", "the skills the model is told of, and where each was found", false, (*model).skills},
		{"agents", "", "the agents the task tool may start, and where each was found", false, (*model).agents},
		{"init", "", "ask the model to write an AGENTS.md for this repository", true, (*model).init},
		{"exit", "", "leave rein (Ctrl-D on an empty composer does too)", false, (*model).exit},
	}
}

// builtins are the built-in commands as the composer completes them.
func builtins() []command.Command {
	var out []command.Command
	for _, b := range builtinTable() {
		out = append(out, command.Command{Name: b.name, Description: b.about, ArgumentHint: b.args, Builtin: true})
	}
	return out
}

// needsIdle says sub starts something that must wait for the run in
// progress: a message, a command of the person's, a command that runs.
func (m *model) needsIdle(sub composer.Submission) bool {
	text := strings.TrimSpace(sub.Text)
	name, _, ok := command.Parse(text)
	if !ok || strings.HasPrefix(text, "//") {
		return true
	}
	for _, b := range builtinTable() {
		if b.name == name {
			return b.idle
		}
	}
	return true // a custom command is a message
}

// dispatch acts on a submission: a command, a shell command, or a
// message to the model.
func (m *model) dispatch(sub composer.Submission) tea.Cmd {
	text := strings.TrimSpace(sub.Text)
	switch {
	case strings.HasPrefix(text, "//"):
		sub.Text, sub.Display = strings.TrimPrefix(strings.TrimSpace(sub.Text), "/"), strings.TrimPrefix(strings.TrimSpace(sub.Display), "/")
		return m.send(sub)
	case strings.HasPrefix(text, "!"):
		return m.shell(strings.TrimSpace(text[1:]))
	}
	name, args, ok := command.Parse(text)
	if !ok {
		return m.send(sub)
	}
	for _, b := range builtinTable() {
		if b.name == name {
			return b.do(m, args)
		}
	}
	for _, c := range m.cmds {
		if c.Name == name && !c.Builtin {
			prompt := command.Expand(c.Template, args)
			return m.send(composer.Submission{Text: prompt, Display: sub.Display})
		}
	}
	note := fmt.Sprintf("unknown command /%s: nothing was sent (/help lists the commands; //%s sends the text as it is)", printable.Line(name), printable.Line(name))
	if m.comp.Empty() {
		// What was typed is the person's: a typo must not cost it.
		m.comp.SetValue(sub.Entry)
		m.compDirty = true
		note += "; your text is back in the composer"
	}
	m.print(transcript.Note("warn", note, m.width, m.theme))
	return m.flushPrint()
}

// send sends a message to the model.
func (m *model) send(sub composer.Submission) tea.Cmd {
	m.print(transcript.User(sub.Display, m.width, m.theme))
	m.sentShown = sub.Text
	if m.goal == "" {
		m.goal = firstLine(sub.Display)
	}
	rt := m.rt
	return tea.Batch(m.flushPrint(), m.start("waiting for the model", func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Send(ctx, kernel.Input{Text: sub.Text, Display: sub.Display})
	}))
}

// shell runs a command the person typed, through the runtime: sandboxed,
// recorded as their own, its output in the model's context.
func (m *model) shell(cmd string) tea.Cmd {
	if cmd == "" {
		m.print(transcript.Note("warn", "! runs a command: !ls, !go test ./...", m.width, m.theme))
		return m.flushPrint()
	}
	rt := m.rt
	return m.start("running "+cmd, func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Shell(ctx, cmd)
	})
}

func (m *model) help(string) tea.Cmd {
	th := m.theme
	var b strings.Builder
	b.WriteString(th.Bold.Render("Keys") + "\n")
	for _, k := range [][2]string{
		{"Enter", "send; Shift+Enter, Ctrl-J or a trailing \\ inserts a newline"},
		{"Up / Down", "earlier and later messages (this project's history)"},
		{"@path", "complete a workspace file; its content is attached when sent"},
		{"/", "complete a command; //text sends text beginning with /"},
		{"!command", "run a command yourself (sandboxed, no approval); its output goes to the model"},
		{"Esc", "interrupt the running turn (a stream or a tool); close a menu"},
		{"Esc Esc", "on an empty composer: rewind to an earlier message (as /rewind)"},
		{"Ctrl-C", "interrupt a run; clear the composer; twice on an empty one: exit"},
		{"Ctrl-D", "exit (on an empty composer)"},
		{"Shift+Tab", "cycle the permission mode: default, accept-edits, plan"},
		{"Ctrl-O", "print the latest tool call's whole output"},
		{"Ctrl-T", "print the model's last reasoning in full"},
		{"Ctrl-Z", "suspend rein (fg brings it back)"},
		{"y n a d t", "answer an approval: yes, no, always (saves the rule), never (saves a deny), no and tell the model what to do instead; v prints a long command whole"},
	} {
		b.WriteString(row(m.width, 14, "  "+k[0], k[1], th) + "\n")
	}
	b.WriteString(th.Bold.Render("Commands") + "\n")
	for _, c := range m.cmds {
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		about := c.Description
		if !c.Builtin {
			about = strings.TrimSpace(about + " (" + printable.Line(c.Source) + ")")
		}
		b.WriteString(row(m.width, 21, "  "+printable.Line(name), printable.Line(about), th) + "\n")
	}
	m.print(strings.TrimSuffix(b.String(), "\n"))
	return m.flushPrint()
}

func (m *model) model(args string) tea.Cmd {
	if args = strings.TrimSpace(args); args == "" {
		return m.openModels()
	}
	return m.switchModel(args)
}

func (m *model) mode(args string) tea.Cmd {
	if args = strings.TrimSpace(args); args == "" {
		mode := m.rt.Mode()
		m.print(transcript.Note("info", "permission mode: "+mode+" · "+kernel.ModeMeaning(mode)+" (Shift+Tab cycles)", m.width, m.theme))
		return m.flushPrint()
	}
	return m.setMode(args)
}

func (m *model) compact(focus string) tea.Cmd {
	rt := m.rt
	focus = strings.TrimSpace(focus)
	return m.start("compacting the conversation", func(ctx context.Context) iter.Seq2[contract.Envelope, error] {
		return rt.Compact(ctx, focus)
	})
}

func (m *model) cost(string) tea.Cmd {
	st := m.rt.State()
	u := st.Usage
	line := "no model call yet"
	if u.Calls > 0 {
		line = fmt.Sprintf("%d model calls · tokens %s in (%s cached) · %s out · %s", u.Calls,
			count(int(u.InputTokens)), count(int(u.CacheReadTokens)), count(int(u.OutputTokens)), costText(&u))
	}
	m.print(transcript.Note("info", "session: "+line, m.width, m.theme))
	return m.flushPrint()
}

func (m *model) status(string) tea.Cmd {
	cur := m.rt.Current()
	facts := []Fact{{"session", m.rt.Session()}, {"directory", m.sess.Dir}}
	if st := m.rt.State(); st.Cwd != "" {
		facts = append(facts, Fact{"workspace", st.Cwd})
	} else if m.opts.Workspace != "" {
		facts = append(facts, Fact{"workspace", m.opts.Workspace})
	}
	facts = append(facts, ModelFacts(m.sess.About, cur, m.sess.Sandbox)...)
	facts = append(facts, Fact{"mode", m.rt.Mode()})
	var b strings.Builder
	for _, f := range facts {
		b.WriteString(row(m.width, 16, "  "+printable.Line(f.Key), printable.Line(f.Value), m.theme) + "\n")
	}
	m.print(m.theme.Bold.Render("Status") + "\n" + strings.TrimSuffix(b.String(), "\n"))
	return m.flushPrint()
}

// ModelFacts are the facts /status shows of the model and the sandbox,
// in the terminal UI and the line mode alike: about's when it is set (the
// wiring's, which knows the configuration), else what cur and sandbox
// (the line said at the start) tell; a provider or model switched with
// /model since is said so.
func ModelFacts(about func() []Fact, cur kernel.Current, sandbox string) []Fact {
	var facts []Fact
	if about != nil {
		facts = slices.Clone(about()) // its own, relabelled below
	} else {
		facts = []Fact{{"provider", cur.Provider}, {"model", cur.Model}}
		if cur.BaseURL != "" {
			facts = append(facts, Fact{"endpoint", cur.BaseURL})
		}
		if sandbox != "" {
			facts = append(facts, Fact{"sandbox", strings.TrimPrefix(sandbox, "sandbox: ")})
		}
	}
	for i, f := range facts {
		switch {
		case f.Key == "provider" && cur.Provider != "" && !strings.HasPrefix(f.Value, cur.Provider):
			facts[i].Value = cur.Provider + " (switched with /model)"
		case f.Key == "model" && cur.Model != "" && !strings.HasPrefix(f.Value, cur.Model):
			facts[i].Value = cur.Model + " (switched with /model)"
		}
	}
	return facts
}

func (m *model) init(string) tea.Cmd {
	return m.send(composer.Submission{Text: kernel.InitPrompt, Display: "/init"})
}

func (m *model) exit(string) tea.Cmd { return m.leave() }

// permissions prints the rules in force, deny first (deny wins, then ask,
// then allow), each with the file it came from, and where an answer's
// rules go.
func (m *model) permissions(string) tea.Cmd {
	th := m.theme
	var b strings.Builder
	b.WriteString(th.Bold.Render("Permissions") + "\n")
	b.WriteString(th.Dim.Render(wrapIndent("mode "+m.rt.Mode()+": "+kernel.ModeMeaning(m.rt.Mode()), m.width, "  ")) + "\n")
	rules := m.rt.Rules()
	if len(rules) == 0 {
		b.WriteString(th.Dim.Render("  no rules: the mode decides; an answer's always or never adds one") + "\n")
	}
	for _, r := range rules {
		b.WriteString(row(m.width, 8, "  "+string(r.Decision), printable.Line(r.Rule)+" · "+printable.Line(r.From()), th) + "\n")
	}
	m.print(strings.TrimSuffix(b.String(), "\n"))
	return m.flushPrint()
}

// row renders a key and what it is, the key padded to col columns and
// the rest word-wrapped under itself, in width.
func row(width, col int, key, text string, th style.Theme) string {
	pad := max(0, col-ansi.StringWidth(key))
	if ansi.StringWidth(key) >= col {
		pad = 1
	}
	first := key + strings.Repeat(" ", pad)
	lines := strings.Split(transcript.Wrap(text, max(10, width-col)), "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == 0 {
			b.WriteString(first + th.Dim.Render(l))
			continue
		}
		b.WriteString("\n" + strings.Repeat(" ", col) + th.Dim.Render(l))
	}
	return b.String()
}

// count formats n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// costText is a total's cost, or how much of it is unknown.
func costText(t *contract.Totals) string {
	switch {
	case t.Calls > 0 && t.Unpriced == t.Calls:
		return "cost unknown"
	case t.Unpriced > 0:
		return fmt.Sprintf("$%.4f + %d unpriced calls", t.CostUSD, t.Unpriced)
	}
	return fmt.Sprintf("$%.4f", t.CostUSD)
}
