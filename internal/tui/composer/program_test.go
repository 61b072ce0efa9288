package composer

import (
	"bytes"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"
)

// program is a minimal bubbletea program around a composer: it keeps what
// was sent and quits after want submissions.
type program struct {
	c    *Composer
	want int
	sent []string
}

func (p *program) Init() tea.Cmd { return nil }

func (p *program) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	sub, cmd := p.c.Update(msg)
	if sub != nil {
		p.sent = append(p.sent, sub.Text)
		if len(p.sent) == p.want {
			return p, tea.Quit
		}
	}
	return p, cmd
}

func (p *program) View() tea.View {
	v := tea.NewView(p.c.View())
	v.Cursor = p.c.Cursor()
	return v
}

// The keys as a terminal sends them, through bubbletea's own decoder: so
// that the names the composer matches are the ones a real terminal's
// bytes become.
func TestTerminalBytes(t *testing.T) {
	input := "" +
		"one\ntwo\r" + // Ctrl-J is LF; Enter is CR
		"alt\x1b\rnewline\r" + // Alt+Enter is ESC CR
		"back\\\rslash\r" + // a backslash before Enter
		"\x1b[200~pasted\r\nlines\r\x1b[201~\r" + // a bracketed paste, CRs in it, then Enter
		"hello world\x17\x17there\r" + // Ctrl-W twice
		"ab\x01X\x05Y\r" + // Ctrl-A, Ctrl-E
		"kill this\x01\x1bf\x0b\r" + // Ctrl-A, Alt-F, Ctrl-K
		"word back\x1b\x7f\x1b\x7fgone\r" // Alt-Backspace twice
	p := &program{c: New(Options{Width: 40}), want: 8}
	prog := tea.NewProgram(p, tea.WithInput(bytes.NewReader([]byte(input))), tea.WithOutput(io.Discard),
		tea.WithWindowSize(40, 10), tea.WithoutSignals(), tea.WithContext(t.Context()))
	if _, err := prog.Run(); err != nil {
		t.Fatalf("Run: %v (sent %q)", err, p.sent)
	}
	want := []string{"one\ntwo", "alt\nnewline", "back\nslash", "pasted\nlines\n", "there", "XabY", "kill", "gone"}
	if d := cmp.Diff(want, p.sent); d != "" {
		t.Errorf("sent mismatch (-want +got):\n%s", d)
	}
}
