package composer

import (
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/printable"
	"github.com/rein-agent/rein/internal/tui/command"
)

// MenuRows is the most rows the completion menu shows; it scrolls past
// them.
const MenuRows = 8

// maxItems is the most matches a menu holds.
const maxItems = 100

type menuKind int

const (
	noMenu menuKind = iota
	fileMenu
	commandMenu
	argumentMenu
)

// item is one entry of a menu: a workspace path (directories end in "/")
// or a command's name.
type item struct {
	value string
	desc  string
}

// menu is the completion menu's state.
type menu struct {
	kind     menuKind
	items    []item
	sel, top int
	token    string // what is being completed: "@que", "/he"
	loading  bool   // the file list is being walked

	// dismissed says Esc closed the menu over the draft dismissedAt: it
	// stays closed until the draft changes.
	dismissed   bool
	dismissedAt string
}

func (m *menu) open() bool { return m.kind != noMenu }

func (m *menu) close() {
	m.kind, m.items, m.sel, m.top, m.token, m.loading = noMenu, nil, 0, 0, "", false
}

func (m *menu) dismiss(draft string) {
	if m.open() {
		m.dismissed, m.dismissedAt = true, draft
	}
	m.close()
}

// show opens the menu of kind for token with items; an empty list closes
// it (unless the files are still being listed).
func (m *menu) show(kind menuKind, token string, items []item, loading bool) {
	if len(items) == 0 && !loading {
		m.close()
		return
	}
	if m.kind != kind || m.token != token {
		m.sel, m.top = 0, 0
	}
	m.kind, m.token, m.items, m.loading = kind, token, items, loading
	m.sel = min(m.sel, max(len(items)-1, 0))
	m.scroll()
}

func (m *menu) move(delta int) {
	if len(m.items) == 0 {
		return
	}
	m.sel = (m.sel + delta + len(m.items)) % len(m.items)
	m.scroll()
}

// scroll keeps the selection among the rows shown.
func (m *menu) scroll() {
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+MenuRows {
		m.top = m.sel - MenuRows + 1
	}
}

// refreshMenu opens, updates or closes the menu after the draft or the
// cursor changed. It returns the walk of the workspace the first time a
// file is to be completed.
func (c *Composer) refreshMenu() tea.Cmd {
	if c.recall.index >= 0 {
		// An entry recalled from history is not being typed: Up and Down
		// go on walking the history.
		c.menu.close()
		return nil
	}
	if c.menu.dismissed {
		if c.ta.Value() == c.menu.dismissedAt {
			return nil
		}
		c.menu.dismissed = false
	}
	if tok, ok := commandToken(c.ta.Value()); ok && len(c.commands) > 0 {
		c.menu.show(commandMenu, tok, matchCommands(c.commands, tok[1:]), false)
		return nil
	}
	if name, arg, ok := argumentToken(c.ta.Value()); ok && c.arguments != nil {
		if values := c.arguments(name); len(values) > 0 {
			c.menu.show(argumentMenu, arg, matchValues(values, arg), false)
			return nil
		}
	}
	if c.ws != "" {
		before, _ := c.split()
		if tok, ok := mentionToken(before); ok {
			var cmd tea.Cmd
			if !c.files.loaded && !c.files.loading {
				cmd = c.files.load(c.ws)
			}
			c.menu.show(fileMenu, tok, c.files.match(tok[1:]), !c.files.loaded)
			return cmd
		}
	}
	c.menu.close()
	return nil
}

// commandToken returns the draft when it is a command being typed: it
// starts with "/" (not "//") and has no white space yet.
func commandToken(value string) (string, bool) {
	if !strings.HasPrefix(value, "/") || strings.HasPrefix(value, "//") || strings.IndexFunc(value, unicode.IsSpace) >= 0 {
		return "", false
	}
	return value, true
}

// argumentToken returns a command's name and the one argument being
// typed after it ("/model gpt" -> "model", "gpt").
func argumentToken(value string) (name, arg string, ok bool) {
	if !strings.HasPrefix(value, "/") || strings.HasPrefix(value, "//") {
		return "", "", false
	}
	name, arg, ok = strings.Cut(value[1:], " ")
	if !ok || name == "" || strings.IndexFunc(arg, unicode.IsSpace) >= 0 {
		return "", "", false
	}
	return name, arg, true
}

// matchValues returns the values that start with q, then those that
// match it otherwise, best first.
func matchValues(values []string, q string) []item {
	cmds := make([]command.Command, len(values))
	for i, v := range values {
		cmds[i] = command.Command{Name: v}
	}
	return matchCommands(cmds, q)
}

// mentionToken returns the word that ends at the cursor (before is the
// draft before it) when it starts with "@".
func mentionToken(before string) (string, bool) {
	word := before[strings.LastIndexFunc(before, unicode.IsSpace)+1:]
	if !strings.HasPrefix(word, "@") {
		return "", false
	}
	return word, true
}

// matchCommands returns the commands whose names start with q, in the
// order given, then those that match it otherwise, best first (see
// match.go).
func matchCommands(cmds []command.Command, q string) []item {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = strings.ToLower(c.Name)
	}
	var out []item
	seen := make([]bool, len(cmds))
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			out = append(out, item{value: cmds[i].Name, desc: commandDesc(cmds[i])})
		}
	}
	for i, c := range cmds {
		if c.Name == q {
			add(i)
		}
	}
	for i, c := range cmds {
		if strings.HasPrefix(c.Name, q) {
			add(i)
		}
	}
	best, _ := rankMatches(names, nil, q, len(cmds))
	for _, i := range best {
		add(i)
	}
	return out
}

func commandDesc(c command.Command) string {
	if c.ArgumentHint != "" {
		return c.ArgumentHint + "  " + c.Description
	}
	return c.Description
}

// menuKey handles a key while the menu is open; done is false when the
// key is not the menu's (it goes on to the input: Enter on an exact
// command sends it).
func (c *Composer) menuKey(msg tea.KeyPressMsg) (cmd tea.Cmd, done bool) {
	switch msg.String() {
	case "up", "ctrl+p":
		c.menu.move(-1)
		return nil, true
	case "down", "ctrl+n":
		c.menu.move(1)
		return nil, true
	case "esc":
		c.menu.dismiss(c.ta.Value())
		return nil, true
	case "tab":
		if len(c.menu.items) == 0 {
			return nil, true
		}
		return c.accept(), true
	case "enter", "ctrl+m":
		if len(c.menu.items) == 0 || c.menu.kind == commandMenu && c.exactCommand(c.ta.Value()) ||
			c.menu.kind == argumentMenu && c.exactArgument(c.ta.Value()) {
			return nil, false
		}
		return c.accept(), true
	}
	return nil, false
}

func (c *Composer) exactCommand(value string) bool {
	return slices.ContainsFunc(c.commands, func(cmd command.Command) bool { return "/"+cmd.Name == value })
}

// exactArgument reports whether the argument typed is one of the
// values offered: Enter then sends it.
func (c *Composer) exactArgument(value string) bool {
	name, arg, ok := argumentToken(value)
	return ok && slices.Contains(c.arguments(name), arg)
}

// accept puts the selected entry in place of the token being completed.
func (c *Composer) accept() tea.Cmd {
	it := c.menu.items[c.menu.sel]
	switch c.menu.kind {
	case argumentMenu:
		name, _, _ := argumentToken(c.ta.Value())
		c.menu.close()
		c.set("/"+name+" "+it.value, "")
		c.menu.dismiss(c.ta.Value()) // accepted: Enter now sends it
		return nil
	case commandMenu:
		c.menu.close()
		c.set("/"+it.value+" ", "")
	case fileMenu:
		before, after := c.split()
		tok, _ := mentionToken(before)
		before = strings.TrimSuffix(before, tok) + "@" + quoteMention(it.value)
		// The rest of the word under the cursor is replaced too.
		if i := strings.IndexFunc(after, unicode.IsSpace); i >= 0 {
			after = after[i:]
		} else {
			after = ""
		}
		if !strings.HasSuffix(it.value, "/") && after == "" {
			before += " "
		}
		c.set(before, after)
	}
	return c.refreshMenu()
}

// quoteMention quotes a path with white space in it, as mentions reads
// it back: @"my notes.txt".
func quoteMention(p string) string {
	if strings.IndexFunc(p, unicode.IsSpace) >= 0 {
		return `"` + p + `"`
	}
	return p
}

// menuView renders the open menu's rows, the selected one marked.
func (c *Composer) menuView() string {
	if !c.menu.open() {
		return ""
	}
	width := c.width()
	if c.menu.loading && len(c.menu.items) == 0 {
		return c.theme.Dim.Render(ansi.Truncate("  listing files…", width, "…"))
	}
	end := min(c.menu.top+MenuRows, len(c.menu.items))
	shown := c.menu.items[c.menu.top:end]
	nameWidth := 0
	for _, it := range shown {
		nameWidth = max(nameWidth, ansi.StringWidth(c.menuName(it)))
	}
	rows := make([]string, 0, len(shown))
	for i, it := range shown {
		name := c.menuName(it)
		mark, nameStyle := "  ", c.theme.Text
		if c.menu.top+i == c.menu.sel {
			mark, nameStyle = "▸ ", c.theme.Accent
		}
		line := ansi.Truncate(mark+name, width, "…")
		row := nameStyle.Render(line)
		if it.desc != "" {
			pad := strings.Repeat(" ", nameWidth-ansi.StringWidth(name)+2)
			if room := width - ansi.StringWidth(line) - len(pad); room > 1 {
				row += pad + c.theme.Dim.Render(ansi.Truncate(printable.Line(it.desc), room, "…"))
			}
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "\n")
}

func (c *Composer) menuName(it item) string {
	if c.menu.kind == commandMenu {
		return "/" + printable.Line(it.value)
	}
	return printable.Line(it.value)
}

// menuRows is how many lines the menu takes in View.
func (c *Composer) menuRows() int {
	if v := c.menuView(); v != "" {
		return strings.Count(v, "\n") + 1
	}
	return 0
}

// width is the composer's whole width: the text's and the prompt's.
func (c *Composer) width() int { return c.ta.Width() + 2 }
