package markdown

import (
	"regexp"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/rein-agent/rein/internal/tui/style"
)

// sgr is a Select Graphic Rendition sequence, the only escape sequence
// the colour theme writes.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// FuzzRender checks that any text renders without a panic, within the
// width, with no escape sequence but the theme's styles, and the same
// whole as streamed in two pieces.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		sample, "# h\n\n- a\n  - b\n\n> q\n> > r\n", "*a **b** c* `x` [l](u \"t\") ![i](s) <https://x>",
		"&#27;[2J &#x9b; &copy; \\*x\\*", "| a | b |\n|---|:-:|\n| 1 | 2 |", "```go\nfunc f() {}\n```",
		"<div>\n\x1b]52;c;aGk=\x07\n</div>", "1. a\n2. b\n\n   c", "- - - - - - - - deep\n", "日本語の**強調**",
		"[a][x] [x]\n[x]: <u v> 'title'\n", "> a\nb\n- c\nd\n", "<!-- c -->\n\n<div>\nx\n",
		"See [docs][1].\n\n[1]: https://go.dev\n\n[docs][1]", "1.  a\n\n    ```\n    b\n\n    c\n    ```\n\n    > d\n",
		"- a\n  - b\n\n    c\n\n  d\n\ne", "<pre>\n\n*a*\n</pre>\n", "[x]: /u\n===\n&AElig;&notit;",
	} {
		f.Add(s, 40, 7)
	}
	themes := []style.Theme{plain, style.New(true, true)}
	f.Fuzz(func(t *testing.T, md string, width, cut int) {
		width = width%200 + 1
		if width < 0 {
			width += 200
		}
		for _, th := range themes {
			out := Render(md, width, th)
			for _, l := range strings.Split(out, "\n") {
				if w := lipgloss.Width(l); w > max(width, minWidth) {
					t.Fatalf("Render(%q, %d): line %q is %d wide", md, width, l, w)
				}
			}
			rest := out
			if th.Color {
				rest = sgr.ReplaceAllString(out, "")
			}
			if strings.ContainsRune(rest, '\x1b') || strings.ContainsRune(rest, '\u009b') {
				t.Fatalf("Render(%q, %d) = %q: an escape sequence reached the output", md, width, out)
			}
			if cut < 0 {
				cut = -cut
			}
			i := cut % (len(md) + 1)
			if got := streamed([]string{md[:i], md[i:]}, width, th); got != out {
				t.Fatalf("Render(%q, %d) split at %d: streamed %q, whole %q", md, width, i, got, out)
			}
		}
	})
}
