package composer

import (
	"strings"
	"testing"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/tui/style"
)

// The composer's views in the plain theme, compared with the files under
// testdata/; go test ./internal/tui/composer -update rewrites them.
func TestGoldenViews(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T) *Composer
	}{
		{"empty.txt", func(t *testing.T) *Composer { return New(Options{Width: 40}) }},
		{"multiline.txt", func(t *testing.T) *Composer {
			c := New(Options{Width: 40})
			typeText(t, c, "Look at why the tests fail")
			press(t, c, "shift+enter")
			typeText(t, c, "and fix them; a long line wraps inside the composer's width")
			press(t, c, "ctrl+j")
			typeText(t, c, "thanks")
			return c
		}},
		{"paste.txt", func(t *testing.T) *Composer {
			c := New(Options{Width: 40})
			typeText(t, c, "this log: ")
			feed(t, c, tea.PasteMsg{Content: lines(120)})
			typeText(t, c, " and ")
			feed(t, c, tea.PasteMsg{Content: lines(40)})
			return c
		}},
		{"at-menu.txt", func(t *testing.T) *Composer {
			c := New(Options{Width: 40, Workspace: newWorkspace(t)})
			typeText(t, c, "read @app")
			press(t, c, "down")
			return c
		}},
		{"slash-menu.txt", func(t *testing.T) *Composer {
			c := New(Options{Width: 50, Commands: testCommands})
			typeText(t, c, "/")
			return c
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, tt.make(t).View()+"\n")
		})
	}
}

func TestMenuAboveMovesTheCursor(t *testing.T) {
	c := New(Options{Width: 50, Commands: testCommands})
	typeText(t, c, "/")
	below := c.Cursor()
	c.SetMenuAbove(true)
	above := c.Cursor()
	view := c.View()
	if !strings.HasSuffix(view, strings.Split(view, "\n")[len(testCommands)]) || !strings.HasPrefix(strings.Split(view, "\n")[len(testCommands)], "› /") {
		t.Errorf("menu above: the input is not the last row:\n%s", view)
	}
	if below.Position.Y != 0 || above.Position.Y != len(testCommands) {
		t.Errorf("Cursor() Y = %d below, %d above; want 0 and %d", below.Position.Y, above.Position.Y, len(testCommands))
	}
}

func TestColourThemeStylesThePrompt(t *testing.T) {
	c := New(Options{Width: 40, Theme: style.New(true, true)})
	if v := c.View(); !strings.Contains(v, "\x1b[") {
		t.Errorf("the colour theme styled nothing: %q", v)
	}
	plain := New(Options{Width: 40})
	if v := plain.View(); strings.Contains(v, "\x1b") {
		t.Errorf("the plain theme wrote an escape: %q", v)
	}
}

func TestMenuShowsFileNamesPrintable(t *testing.T) {
	root := newWorkspace(t)
	tree(t, root, map[string]string{"evil\x1b]52;c;aGk=\x07.txt": ""})
	c := New(Options{Width: 60, Workspace: root})
	typeText(t, c, "@evil")
	v := c.View()
	if strings.ContainsAny(v, "\x1b\x07") || !strings.Contains(v, `evil\x1b]52;c;aGk=\x07.txt`) {
		t.Errorf("a file name's escape reached the view: %q", v)
	}
}
