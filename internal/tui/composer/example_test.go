package composer_test

import (
	"fmt"

	tea "github.com/rein-agent/rein/internal/thirdparty/bubbletea"

	"github.com/rein-agent/rein/internal/tui/composer"
)

// A program gives the composer every message it does not handle itself
// (keys, pastes, and the composer's own messages coming back from its
// commands), asks Completing before treating Esc as an interrupt, and
// adds each submission's Display to the history.
func Example() {
	c := composer.New(composer.Options{Width: 30})
	for _, msg := range []tea.Msg{
		tea.KeyPressMsg{Code: 'h', Text: "h"},
		tea.KeyPressMsg{Code: 'i', Text: "i"},
		tea.KeyPressMsg{Code: tea.KeyEnter},
	} {
		if sub, _ := c.Update(msg); sub != nil {
			fmt.Printf("sent %q\n", sub.Text)
		}
	}
	// Output: sent "hi"
}
