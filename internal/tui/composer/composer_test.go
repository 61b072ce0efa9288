package composer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"
)

func TestEnterSends(t *testing.T) {
	c := New(Options{Width: 40})
	typeText(t, c, "fix the tests")
	sub := press(t, c, "enter")
	want := &Submission{Text: "fix the tests", Display: "fix the tests", Entry: "fix the tests"}
	if d := cmp.Diff(want, sub); d != "" {
		t.Errorf("Enter: submission mismatch (-want +got):\n%s", d)
	}
	if !c.Empty() {
		t.Errorf("after sending, Value() = %q, want empty", c.Value())
	}
}

func TestBlankIsNotSent(t *testing.T) {
	c := New(Options{Width: 40})
	typeText(t, c, "  ")
	press(t, c, "shift+enter")
	if sub := press(t, c, "enter"); sub != nil {
		t.Errorf("Enter on a blank draft sent %+v", sub)
	}
}

func TestNewlineKeys(t *testing.T) {
	for _, k := range []string{"shift+enter", "ctrl+j", "alt+enter"} {
		t.Run(k, func(t *testing.T) {
			c := New(Options{Width: 40})
			typeText(t, c, "one")
			if sub := press(t, c, k); sub != nil {
				t.Fatalf("%s sent %+v", k, sub)
			}
			typeText(t, c, "two")
			if got := c.Value(); got != "one\ntwo" {
				t.Errorf("Value() = %q, want %q", got, "one\ntwo")
			}
			sub := press(t, c, "enter")
			if sub == nil || sub.Text != "one\ntwo" {
				t.Errorf("Enter sent %+v, want the two lines", sub)
			}
		})
	}
}

func TestTrailingBackslashIsANewline(t *testing.T) {
	c := New(Options{Width: 40})
	typeText(t, c, `first \`)
	if sub := press(t, c, "enter"); sub != nil {
		t.Fatalf("Enter after a backslash sent %+v", sub)
	}
	typeText(t, c, "second")
	if got, want := c.Value(), "first \nsecond"; got != want {
		t.Errorf("Value() = %q, want %q", got, want)
	}
	if sub := press(t, c, "enter"); sub == nil || sub.Text != "first \nsecond" {
		t.Errorf("Enter sent %+v", sub)
	}
}

func TestEditingKeys(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		typ  string
		want string
	}{
		{"ctrl+a goes to the line's start", []string{"ctrl+a"}, "X", "Xhello world"},
		{"home goes to the line's start", []string{"home"}, "X", "Xhello world"},
		{"ctrl+e goes to the line's end", []string{"home", "ctrl+e"}, "!", "hello world!"},
		{"end goes to the line's end", []string{"home", "end"}, "!", "hello world!"},
		{"ctrl+k kills to the end", []string{"home", "alt+right", "ctrl+k"}, "", "hello"},
		{"ctrl+u kills to the start", []string{"alt+left", "ctrl+u"}, "", "world"},
		{"ctrl+w deletes a word back", []string{"ctrl+w"}, "", "hello "},
		{"alt+backspace deletes a word back", []string{"alt+backspace"}, "", "hello "},
		{"alt+left moves a word back", []string{"alt+left"}, "X", "hello Xworld"},
		{"ctrl+left moves a word back", []string{"ctrl+left"}, "X", "hello Xworld"},
		{"alt+right moves a word on", []string{"home", "alt+right"}, "X", "helloX world"},
		{"ctrl+right moves a word on", []string{"home", "ctrl+right"}, "X", "helloX world"},
		{"alt+d deletes a word on", []string{"home", "alt+d"}, "", " world"},
		{"backspace", []string{"backspace", "backspace"}, "", "hello wor"},
		{"delete", []string{"home", "delete"}, "", "ello world"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{Width: 40})
			typeText(t, c, "hello world")
			press(t, c, tt.keys...)
			typeText(t, c, tt.typ)
			if got := c.Value(); got != tt.want {
				t.Errorf("Value() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGrowsUpToTenLinesThenScrolls(t *testing.T) {
	c := New(Options{Width: 30})
	if got := strings.Count(c.View(), "\n") + 1; got != 1 {
		t.Errorf("empty composer is %d lines, want 1", got)
	}
	for i := range 15 {
		if i > 0 {
			press(t, c, "ctrl+j")
		}
		typeText(t, c, "l")
	}
	view := c.View()
	if got := strings.Count(view, "\n") + 1; got != MaxHeight {
		t.Errorf("15 lines show as %d rows, want %d:\n%s", got, MaxHeight, view)
	}
	if cur := c.Cursor(); cur == nil || cur.Position.Y != MaxHeight-1 {
		t.Errorf("Cursor() = %+v, want on the last row shown", cur)
	}
	for _, line := range strings.Split(view, "\n") {
		if w := len([]rune(line)); w != 30 {
			t.Errorf("row %q is %d wide, want 30", line, w)
		}
	}
}

func TestWidthFollowsTheTerminal(t *testing.T) {
	c := New(Options{Width: 40})
	typeText(t, c, "a few words that wrap at twenty columns")
	c.SetWidth(20)
	view := c.View()
	for _, line := range strings.Split(view, "\n") {
		if w := len([]rune(line)); w != 20 {
			t.Errorf("row %q is %d wide, want 20", line, w)
		}
	}
	if n := strings.Count(view, "\n") + 1; n < 2 {
		t.Errorf("the draft did not wrap at 20 columns:\n%s", view)
	}
}

func TestCursor(t *testing.T) {
	c := New(Options{Width: 40})
	typeText(t, c, "ab")
	press(t, c, "ctrl+j")
	typeText(t, c, "c")
	cur := c.Cursor()
	if cur == nil || cur.Position != (tea.Position{X: 3, Y: 1}) {
		t.Errorf("Cursor() = %+v, want at column 3 (prompt 2 + 1) of row 1", cur)
	}
	c.Blur()
	if cur := c.Cursor(); cur != nil {
		t.Errorf("blurred: Cursor() = %+v, want nil", cur)
	}
	typeText(t, c, "ignored")
	if got := c.Value(); got != "ab\nc" {
		t.Errorf("blurred, typing changed the draft to %q", got)
	}
	c.Focus()
	if c.Cursor() == nil {
		t.Error("focused again: Cursor() = nil")
	}
}

func TestSetValueAndReset(t *testing.T) {
	c := New(Options{Width: 40})
	c.SetValue("one\ntwo")
	if c.Value() != "one\ntwo" || c.Empty() {
		t.Errorf("SetValue: Value() = %q", c.Value())
	}
	typeText(t, c, "!")
	if got := c.Value(); got != "one\ntwo!" {
		t.Errorf("after SetValue the cursor is not at the end: %q", got)
	}
	c.Reset()
	if !c.Empty() {
		t.Errorf("Reset: Value() = %q", c.Value())
	}
}

func TestPasteSmallIsInsertedAsItIs(t *testing.T) {
	c := New(Options{Width: 40})
	typeText(t, c, "> ")
	sub, _ := c.Update(tea.PasteMsg{Content: "a\r\nb\nc\n"})
	if sub != nil {
		t.Fatalf("a paste sent %+v", sub)
	}
	if got, want := c.Value(), "> a\nb\nc\n"; got != want {
		t.Errorf("Value() = %q, want %q", got, want)
	}
}

func TestPasteLargeIsCollapsed(t *testing.T) {
	c := New(Options{Width: 60})
	big, second, wide := lines(120), lines(40), strings.Repeat("w", 900)
	typeText(t, c, "see ")
	feed(t, c, tea.PasteMsg{Content: big})
	typeText(t, c, " and ")
	feed(t, c, tea.PasteMsg{Content: second})
	typeText(t, c, " ")
	feed(t, c, tea.PasteMsg{Content: wide})
	display := "see [pasted 120 lines] and [pasted #2 40 lines] [pasted #3 900 characters]"
	if got := c.Value(); got != display {
		t.Fatalf("Value() = %q, want %q", got, display)
	}
	sub := press(t, c, "enter")
	want := &Submission{Text: "see " + big + " and " + second + " " + wide, Display: display}
	want.Entry = want.Text // history keeps what was pasted
	if d := cmp.Diff(want, sub); d != "" {
		t.Errorf("submission mismatch (-want +got):\n%s", d)
	}
}

func TestBackspaceRemovesAPlaceholderWhole(t *testing.T) {
	c := New(Options{Width: 60})
	typeText(t, c, "a ")
	feed(t, c, tea.PasteMsg{Content: lines(10)})
	typeText(t, c, "b")
	press(t, c, "backspace")
	if got := c.Value(); got != "a [pasted 10 lines]" {
		t.Fatalf("Value() = %q", got)
	}
	press(t, c, "backspace")
	if got := c.Value(); got != "a " {
		t.Errorf("backspace after a placeholder: Value() = %q, want %q", got, "a ")
	}
	if sub := typeText(t, c, "c"); sub != nil || c.Value() != "a c" {
		t.Errorf("Value() = %q", c.Value())
	}
	if sub := press(t, c, "enter"); sub == nil || sub.Text != "a c" {
		t.Errorf("Enter sent %+v, want the paste gone", sub)
	}

	// Delete at a placeholder's start removes it too.
	feed(t, c, tea.PasteMsg{Content: lines(6)})
	typeText(t, c, "!")
	press(t, c, "home", "delete")
	if got := c.Value(); got != "!" {
		t.Errorf("delete before a placeholder: Value() = %q, want %q", got, "!")
	}
}

func TestAPlaceholderTypedByHandIsText(t *testing.T) {
	c := New(Options{Width: 60})
	typeText(t, c, "[pasted 3 lines]")
	press(t, c, "backspace")
	if got := c.Value(); got != "[pasted 3 lines" {
		t.Errorf("Value() = %q: a bracket typed by hand is one character", got)
	}
}
