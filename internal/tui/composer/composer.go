// Package composer is the interactive UI's message editor: the input at
// the bottom of the screen, built on bubbles' textarea, as the peers have
// it (Claude Code, Codex, Crush).
//
// Enter sends; Shift+Enter, Ctrl-J, Alt+Enter and a "\" before the cursor
// insert a newline. A bracketed paste arrives as one insertion, and a
// large one is shown as a placeholder ("[pasted 120 lines]") that behaves
// as one unit and is expanded in what is sent. Up and Down walk the
// project's history ([History]). "@" completes workspace files (honouring
// .gitignore) and attaches the files named on submit; "/" at the start
// completes commands. Esc and Ctrl-C are the program's: it asks
// [Composer.Completing] and closes the menu first.
//
// Nothing in Update blocks or does I/O: the file walk and the reading of
// attachments run in tea.Cmds whose messages come back to Update.
package composer

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/rein-agent/rein/internal/thirdparty/bubbles/key"
	"github.com/rein-agent/rein/internal/thirdparty/bubbles/textarea"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/tui/command"
	"github.com/rein-agent/rein/internal/tui/style"
)

// MaxHeight is the most lines the input grows to; past it, it scrolls
// inside.
const MaxHeight = 10

// maxContent is the most lines (soft-wrapped) a draft may hold; a paste
// that would pass it is collapsed anyway.
const maxContent = 10000

// Options configure a [Composer]. The zero Options is a composer with no
// workspace (no @ completion, no attachments), no history, no commands,
// the plain theme and the textarea's default width.
type Options struct {
	// Workspace is the workspace root: @ completes its files and names
	// them for attachment. Empty: no @ completion.
	Workspace string
	// History is the project's history; nil: Up and Down move between
	// lines only.
	History *History
	// Commands are the slash commands / completes.
	Commands []command.Command
	// Theme styles the prompt sign and the menu.
	Theme style.Theme
	// Width is the terminal's width; 0 keeps the textarea's default.
	Width int
	// Allow, when set, says whether the file at an absolute path may be
	// attached: an error refuses it (its text is the note the person
	// sees). nil attaches any file inside the workspace.
	Allow func(abs string) error
}

// Submission is what the person sent.
type Submission struct {
	// Text is what is sent: pastes expanded, files attached.
	Text string
	// Display is what was typed, pastes collapsed: shown in the transcript
	// and kept in history.
	Display string
	// Attachments are the files attached (workspace-relative), and notes
	// of those refused ("../x: not attached: outside the workspace").
	Attachments []string
	// Entry is what history keeps: pastes expanded (a recalled message
	// sends what was pasted, not its placeholder), files not attached.
	Entry string
}

// Composer is the message editor. It is not safe for concurrent use: the
// program's Update owns it. The zero Composer is not usable; call [New].
type Composer struct {
	ws       string
	theme    style.Theme
	commands []command.Command
	// allow says whether a file may be attached (the read deny rules).
	allow func(abs string) error
	// arguments lists the values a command's argument completes from.
	arguments func(name string) []string
	history   *History

	ta      textarea.Model
	focused bool

	pastes   []paste
	pasteSeq int
	sent     map[string][]paste // Display of this session's submissions -> their pastes, for recall

	recall recall
	menu   menu
	files  files

	menuAbove bool
}

// New returns a focused, empty composer.
func New(opts Options) *Composer {
	c := &Composer{
		ws:       opts.Workspace,
		theme:    opts.Theme,
		commands: opts.Commands,
		history:  opts.History,
		allow:    opts.Allow,
		sent:     map[string][]paste{},
		recall:   recall{index: -1},
	}
	c.files.owner = c
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.SetPromptFunc(2, func(info textarea.PromptInfo) string {
		if info.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	ta.Placeholder = ""
	ta.EndOfBufferCharacter = ' '
	ta.CharLimit = 0
	ta.MaxWidth = 0
	ta.MaxHeight = MaxHeight
	ta.MaxContentHeight = maxContent
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.KeyMap = keyMap()
	ta.SetVirtualCursor(false)
	ta.SetStyles(styles(opts.Theme))
	if opts.Width > 0 {
		ta.SetWidth(opts.Width)
	}
	ta.Focus()
	c.ta = ta
	c.focused = true
	c.settle()
	return c
}

// keyMap is the textarea's key map as the composer wants it: Enter is the
// composer's (it sends), newline is Shift+Enter, Ctrl-J or Alt+Enter, and
// Ctrl-Left and Ctrl-Right move by words too. Ctrl-V is left to the
// terminal, whose paste arrives bracketed.
func keyMap() textarea.KeyMap {
	km := textarea.DefaultKeyMap()
	km.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"))
	km.WordForward = key.NewBinding(key.WithKeys("alt+right", "alt+f", "ctrl+right"))
	km.WordBackward = key.NewBinding(key.WithKeys("alt+left", "alt+b", "ctrl+left"))
	km.Paste = key.NewBinding(key.WithDisabled())
	return km
}

// styles are the textarea's styles from the theme: no cursor line, no
// colours but the prompt's and the text's.
func styles(t style.Theme) textarea.Styles {
	state := textarea.StyleState{
		Base:        lipgloss.NewStyle(),
		Text:        t.Text,
		CursorLine:  t.Text,
		Prompt:      t.Prompt,
		Placeholder: t.Dim,
		EndOfBuffer: t.Dim,
	}
	return textarea.Styles{
		Focused: state,
		Blurred: state,
		Cursor:  textarea.CursorStyle{Shape: tea.CursorBar, Blink: true},
	}
}

// settleMsg makes the textarea reposition its view after the composer
// changed its value directly.
type settleMsg struct{}

func (c *Composer) settle() {
	c.ta, _ = c.ta.Update(settleMsg{})
}

// Update handles a message; it returns a Submission when the person sent
// one (Enter), else nil. A message that names files (@path) is sent once
// they are read: Update returns a tea.Cmd that reads them, and the
// Submission comes back from the Update that handles that Cmd's message;
// so the program passes every message it does not know to Update. The
// file walk of @ completion comes back the same way.
func (c *Composer) Update(msg tea.Msg) (*Submission, tea.Cmd) {
	switch msg := msg.(type) {
	case filesMsg:
		if msg.owner == c {
			c.files.set(msg)
			return nil, c.refreshMenu()
		}
		return nil, nil
	case attachedMsg:
		if msg.owner == c {
			sub := msg.sub
			return &sub, nil
		}
		return nil, nil
	case tea.PasteMsg:
		if !c.focused {
			return nil, nil
		}
		c.paste(msg.Content)
		c.recall = recall{index: -1}
		return nil, c.refreshMenu()
	case tea.KeyPressMsg:
		if !c.focused {
			return nil, nil
		}
		return c.key(msg)
	}
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	return nil, cmd
}

// key handles a key press.
func (c *Composer) key(msg tea.KeyPressMsg) (*Submission, tea.Cmd) {
	if c.menu.open() {
		if cmd, done := c.menuKey(msg); done {
			return nil, cmd
		}
	}
	switch msg.String() {
	case "enter", "ctrl+m":
		if before, after := c.split(); strings.HasSuffix(before, `\`) {
			c.set(strings.TrimSuffix(before, `\`)+"\n", after)
			return nil, c.refreshMenu()
		}
		return c.submit()
	case "up":
		if c.onFirstLine() && c.older() {
			return nil, c.refreshMenu()
		}
	case "down":
		if c.onLastLine() && c.newer() {
			return nil, c.refreshMenu()
		}
	case "backspace", "ctrl+h":
		if c.deletePaste(true) {
			return nil, c.refreshMenu()
		}
	case "delete", "ctrl+d":
		if c.deletePaste(false) {
			return nil, c.refreshMenu()
		}
	}
	was := c.ta.Value()
	var cmd tea.Cmd
	c.ta, cmd = c.ta.Update(msg)
	if c.ta.Value() != was {
		// An edited entry is a draft: the next Up starts a new walk.
		c.recall = recall{index: -1}
	}
	return nil, tea.Batch(cmd, c.refreshMenu())
}

// submit sends the draft, unless it is blank.
func (c *Composer) submit() (*Submission, tea.Cmd) {
	display := c.ta.Value()
	if strings.TrimSpace(display) == "" {
		return nil, nil
	}
	sub := Submission{Text: expand(display, c.pastes), Display: display}
	sub.Entry = sub.Text
	if len(c.pastes) > 0 {
		c.sent[display] = c.pastes
	}
	c.Reset()
	names := mentions(display)
	if len(names) == 0 || c.ws == "" {
		return &sub, nil
	}
	return nil, attach(c, c.ws, sub, names, c.allow)
}

// View renders the input, and the completion menu when it is open: under
// the input, or above it after SetMenuAbove(true).
func (c *Composer) View() string {
	input := strings.TrimSuffix(c.ta.View(), "\n")
	m := c.menuView()
	switch {
	case m == "":
		return input
	case c.menuAbove:
		return m + "\n" + input
	default:
		return input + "\n" + m
	}
}

// Cursor returns the cursor, relative to View's top-left; nil when
// blurred.
func (c *Composer) Cursor() *tea.Cursor {
	if !c.focused {
		return nil
	}
	cur := c.ta.Cursor()
	if cur != nil && c.menuAbove {
		cur.Position.Y += c.menuRows()
	}
	return cur
}

// SetWidth sets the width the composer renders to (the terminal's).
func (c *Composer) SetWidth(w int) {
	if w > 0 {
		c.ta.SetWidth(w)
		c.settle()
	}
}

// SetMenuAbove puts the completion menu above the input (true) or under it
// (false, the default), as the program lays the screen out.
func (c *Composer) SetMenuAbove(above bool) { c.menuAbove = above }

// SetCommands replaces the commands / completes.
func (c *Composer) SetCommands(cmds []command.Command) { c.commands = cmds }

// SetArguments sets what completes a command's argument: values(name)
// lists the values /name takes (the models for /model), nil or empty
// when it completes none.
func (c *Composer) SetArguments(values func(name string) []string) { c.arguments = values }

// Value returns the draft as typed, pastes collapsed.
func (c *Composer) Value() string { return c.ta.Value() }

// SetValue replaces the draft with s, the cursor at its end; the draft's
// pastes are forgotten.
func (c *Composer) SetValue(s string) {
	c.pastes, c.pasteSeq = nil, 0
	c.ta.SetValue(s)
	c.settle()
	c.menu.close()
}

// Reset empties the draft, forgets its pastes, closes the menu and ends a
// walk through history.
func (c *Composer) Reset() {
	c.pastes, c.pasteSeq = nil, 0
	c.ta.Reset()
	c.settle()
	c.menu = menu{}
	c.recall = recall{index: -1}
}

// Empty reports whether the draft is empty.
func (c *Composer) Empty() bool { return c.ta.Value() == "" }

// Completing reports whether a completion menu is open (Esc then closes
// it, with CloseMenu, rather than interrupting).
func (c *Composer) Completing() bool { return c.menu.open() }

// CloseMenu closes the completion menu; it opens again when the draft
// changes.
func (c *Composer) CloseMenu() { c.menu.dismiss(c.ta.Value()) }

// Focus gives the composer the keyboard.
func (c *Composer) Focus() tea.Cmd {
	c.focused = true
	return c.ta.Focus()
}

// Blur takes the keyboard away (an approval dialog has it): keys and
// pastes are ignored and Cursor is nil.
func (c *Composer) Blur() {
	c.focused = false
	c.ta.Blur()
}

// split returns the draft before and after the cursor.
func (c *Composer) split() (before, after string) {
	lines := strings.Split(c.ta.Value(), "\n")
	row := min(c.ta.Line(), len(lines)-1)
	cur := []rune(lines[row])
	col := min(max(c.ta.Column(), 0), len(cur))
	before = strings.Join(append(lines[:row:row], string(cur[:col])), "\n")
	after = strings.Join(append([]string{string(cur[col:])}, lines[row+1:]...), "\n")
	return before, after
}

// set replaces the draft with before+after, the cursor between them.
func (c *Composer) set(before, after string) {
	c.ta.Reset()
	c.ta.InsertString(after)
	c.ta.MoveToBegin()
	c.ta.InsertString(before)
	c.settle()
}

// onFirstLine reports whether the cursor is on the input's first (visual)
// line.
func (c *Composer) onFirstLine() bool {
	return c.ta.Line() == 0 && c.ta.LineInfo().RowOffset == 0
}

// onLastLine reports whether the cursor is on the input's last (visual)
// line.
func (c *Composer) onLastLine() bool {
	li := c.ta.LineInfo()
	return c.ta.Line() == c.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}
