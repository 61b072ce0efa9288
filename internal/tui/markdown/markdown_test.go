package markdown

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/tui/style"
)

var plain = style.Theme{}

func TestRenderConstructs(t *testing.T) {
	tests := []struct {
		name  string
		md    string
		width int
		want  string
	}{
		{"heading", "## Install it", 40, "## Install it"},
		{"paragraph joins its lines", "one\ntwo\nthree", 40, "one two three"},
		{"hard break", "one  \ntwo", 40, "one\ntwo"},
		{"emphasis", "a *b* **c** ~~d~~", 40, "a b c ~~d~~"},
		{"inline code", "run `go test` now", 40, "run `go test` now"},
		{"link", "see [the docs](https://go.dev/doc)", 40, "see the docs (https://go.dev/doc)"},
		{"autolink", "<https://go.dev>", 40, "https://go.dev"},
		{"bullets", "- a\n- b\n  - c\n    - d", 40, "• a\n• b\n  ◦ c\n    ▪ d"},
		{"numbered", "3. a\n4. b", 40, "3. a\n4. b"},
		{"numbered aligned", "9. a\n10. b\n11. c", 40, "9.  a\n10. b\n11. c"},
		{"hanging indent", "- alpha beta gamma delta", 13, "• alpha beta\n  gamma delta"},
		{"quote", "> a quote\n> goes on", 40, "│ a quote goes on"},
		{"rule", "---", 12, "────────────"},
		{"fenced code", "```\nx := 1\n\ny := 2\n```", 40, "  x := 1\n  \n  y := 2"},
		{"indented code", "    a\tb", 40, "  a   b"},
		{"long code line cut", "```\nabcdefghijklmnop\n```", 10, "  abcdefg↩\n  hijklmn↩\n  op"},
		{"code not wrapped at spaces", "```\naa bb cc\n```", 40, "  aa bb cc"},
		{"heading then paragraph", "# T\ntext", 40, "# T\n\ntext"},
		{"two blocks", "one\n\n\n\ntwo", 40, "one\n\ntwo"},
		{"long word cut", "aaaaaaaaaaaaaaa b", 10, "aaaaaaaaaa\naaaaa b"},
		{"table", "| a | bb |\n|---|---:|\n| ccc | d |", 40, "a   │ bb\n────┼───\nccc │  d"},
		{"table centred", "|x|y|\n|:-:|-|\n|abc|1|", 40, " x  │ y\n────┼──\nabc │ 1"},
		{"table too wide", "| aaaaaaaa | bbbbbbbb |\n|---|---|\n| c | d |", 12,
			"| aaaaaaaa ↩\n| bbbbbbbb ↩\n|\n|---|---|\n| c | d |"},
		{"table after a paragraph", "text\n| a | b |\n|---|---|\n| 1 | 2 |", 40, "text\n\na │ b\n──┼──\n1 │ 2"},
		{"pipe in text is no table", "a | b\nc | d", 40, "a | b c | d"},
		{"table in code stays code", "```\n| a |\n|---|\n```", 40, "  | a |\n  |---|"},
		{"indented table is code", "    | a |\n    |---|", 40, "  | a |\n  |---|"},
		{"escaped star", `\*not em\*`, 40, "*not em*"},
		{"html block", "<div>\nx\n</div>", 40, "<div>\nx\n</div>"},
		{"image", "![a cat](cat.png)", 40, "[image: a cat] (cat.png)"},
		{"entity", "a &amp; b &#35;", 40, "a & b #"},
		{"empty", "", 40, ""},
		{"setext headings", "Title\n=====\n\nSub\n---", 40, "# Title\n\n## Sub"},
		{"nested emphasis", "*a **b** c* and ***d***", 40, "a b c and d"},
		{"intraword underscore", "snake_case_name and _em_", 40, "snake_case_name and em"},
		{"code span runs", "``a ` b`` and ` `` `", 40, "`a ` b` and ````"},
		{"code span line end", "`a\nb`", 40, "`a b`"},
		{"link title, link as its URL", "[t](u \"title\") [u](u)", 40, "t (u) u"},
		{"named entities", "&copy; &mdash; &hellip; &rarr; &unknown; &#x41;", 40, "© — … → &unknown; A"},
		{"escaped entity", `\&amp; \&#35;`, 40, "&amp; &#35;"},
		{"backslash hard break", "one\\\ntwo", 40, "one\ntwo"},
		{"nested quote, lazy line", "> a\n> > b\n> c", 40, "│ a\n│ \n│ │ b c"},
		{"lazy quote line", "> a\nlazy", 40, "│ a lazy"},
		{"lazy underline is text", "> a\n===", 40, "│ a ==="},
		{"tilde fence", "~~~python\nx = 1\n~~~", 40, "  x = 1"},
		{"inline html", "a <b>bold</b> c", 40, "a <b>bold</b> c"},
		{"email autolink", "<a@b.com>", 40, "a@b.com"},
		{"too deep to indent", "- a\n  - b\n    - c\n      - d\n        - e", 12, "• a\n  ◦ b\n    ▪ c\n      •\n      d\n      ◦\n      e"},
		{"paren ordered", "1) a\n2) b", 40, "1) a\n2) b"},
		{"another list", "- a\n1. b", 40, "• a\n\n1. b"},
		{"tab after marker", "-\tx\n1.\ty", 40, "• x\n\n1. y"},
		{"empty item then content", "-\n  a", 40, "• a"},
		{"reference links", "[x]: https://x.y \"T\"\n[a][x], [X][] and [x]", 40, "a (https://x.y), X (https://x.y) and x\n(https://x.y)"},
		{"definitions alone show nothing", "[x]: /u\n[y]: /v", 40, ""},
		{"undefined reference stays", "[a][nope] [b]", 40, "[a][nope] [b]"},
		{"HTML5 entities", "&AElig; &Dcaron; &frac34; &HilbertSpace; &ngE; &fjlig;", 40, "Æ Ď ¾ ℋ ≧̸ fj"},
		{"not entities", "&notit; &ampx; &x; &nbsp &#; &a1;", 40, "&notit; &ampx; &x; &nbsp &#; &a1;"},
		{"link destination resolved", `[a](/b\*c&ouml;) [b](<d\>e>)`, 40, "a (/b*cö) b (d>e)"},
		{"definition's destination resolved", "[a]: /f&ouml;\\*\n[a]", 40, "a (/fö*)"},
		{"label case folded", "[SS]: /url\n[ẞ]", 40, "ẞ (/url)"},
		{"reference defined in an earlier block", "[1]: https://go.dev\n\nSee [docs][1].", 40, "See docs (https://go.dev)."},
		{"reference defined in a later block", "See [docs][1].\n\n[1]: https://go.dev", 40, "See [docs][1].\n\n[1]: https://go.dev"},
		{"later definition shown once, the first", "[a]\n\n[a]: /one\n[a]: /two\n\n[a]: /three\n\n[a]", 40, "[a]\n\n[a]: /one\n\na (/one)"},
		{"later definition in a quote", "[foo]\n\n> [foo]: /url", 40, "[foo]\n\n│ [foo]: /url"},
		{"later definition before text", "[x] and [y]\n\n[y]: /y\ntext [x]", 40, "[x] and [y]\n\n[y]: /y\ntext [x]"},
		{"later definition, label case folded", "[ẞ]\n\n[SS]: /url\n\n[ss]", 40, "[ẞ]\n\n[SS]: /url\n\nss (/url)"},
		{"later definition's destination resolved", "[a]\n\n[a]: /f&ouml;\\*", 40, "[a]\n\n[a]: /fö*"},
		{"reference in a table", "| a |\n|---|\n| [x] |\n\n[x]: /u\n\n| [x] |\n|---|", 40, "a\n───\n[x]\n\n[x]: /u\n\nx (/u)\n──────"},
		{"list item goes on after a blank line", "1.  A paragraph\n    with two lines.\n\n        indented code\n\n    > A block quote.", 40,
			"1. A paragraph with two lines.\n\n     indented code\n\n   │ A block quote."},
		{"fence in an item, a blank line in it", "1.  foo\n\n    ```\n    a\n\n    b\n    ```\n\n    baz", 40, "1. foo\n\n     a\n     \n     b\n\n   baz"},
		{"fence after an item's marker", "- ```\n  a\n\n  b\n  ```\n- c", 40, "•   a\n    \n    b\n• c"},
		{"table in an item", "1. Results:\n\n   | a | b |\n   |---|---|\n   | 1 | 2 |", 40, "1. Results:\n\n   a │ b\n   ──┼──\n   1 │ 2"},
		{"nested item goes on", "- a\n  - b\n\n    c\n\n  d\n\ne", 40, "• a\n  ◦ b\n\n    c\n\n  d\n\ne"},
		{"item goes on, then the text after", "- a\n\n  b\nlazy\nc\n- d\n\n  e", 40, "• a\n\n  b lazy c\n\n• d\n\n  e"},
		{"less indented is not the item's", "- a\n\n b", 40, "• a\n\nb"},
		{"an empty item does not go on", "-\n\n  foo", 40, "• \n\nfoo"},
		{"indented code after a paragraph", "text\n\n    code", 40, "text\n\n  code"},
		{"ordered item's indent", "9. a\n10. b\n\n    c", 40, "9.  a\n10. b\n\n    c"},
		{"too deep to indent goes on unindented", "- a\n  - b\n    - c\n      - d\n\n        e", 12, "• a\n  ◦ b\n    ▪ c\n      •\n      d\n\n      e"},
		{"HTML comment with a blank line", "<!-- a\n\n*b* -->\n\n*c*", 40, "<!-- a\n\n*b* -->\n\nc"},
		{"pre with a blank line", "<pre>\n*a*\n\n*b*\n</pre>\ntext", 40, "<pre>\n*a*\n\n*b*\n</pre>\n\ntext"},
		{"definition then underline", "[foo]: /url\n===\n[foo]", 40, "=== foo (/url)"},
		{"definition before a setext heading", "[foo]: /url\nbar\n===\n[foo]", 40, "# bar\n\nfoo (/url)"},
		{"definition then rule", "[foo]: /url\n---", 40, strings.Repeat("─", 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render(tt.md, tt.width, plain)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Render(%q, %d) mismatch (-want +got):\n%s", tt.md, tt.width, d)
			}
		})
	}
}

// sample is an answer using every construct.
const sample = "# A plan\n\nThis change *moves* the **parser** into `internal/parse`, see [the design](https://example.com/design) for why; it is a longer paragraph so that it wraps more than once at forty columns.\n\n" +
	"- first item\n- second item, long enough to wrap onto another line at forty\n  1. nested one\n  2. nested two\n\n" +
	"> a quoted remark\n\n---\n\n```go\npackage main\n\n// main says hi.\nfunc main() {\n\tfmt.Println(\"hi\", 42)\n}\n```\n\n" +
	"```python\ndef f(x):\n    \"\"\"Doc\n    string.\"\"\"\n    return x + 1  # one\n```\n\n" +
	"| file | lines |\n|------|------:|\n| a.go | 12 |\n| b.go | 3 |\n\n" +
	"    indented\n\nA last word: supercalifragilisticexpialidocious-and-then-some-more-letters.\n"

func TestWrapNeverExceedsNorSplits(t *testing.T) {
	for _, width := range []int{40, 80} {
		for _, th := range []style.Theme{plain, style.New(true, true)} {
			out := Render(sample, width, th)
			for _, l := range strings.Split(out, "\n") {
				if w := lipgloss.Width(l); w > width {
					t.Errorf("width %d: line %q is %d wide", width, ansi.Strip(l), w)
				}
			}
			// Every word of the prose that fits a line is on one line.
			lines := strings.Split(ansi.Strip(out), "\n")
			for _, word := range strings.Fields("This change moves the parser into see the design for why; it is a longer paragraph so that it wraps more than once at forty columns. second item, long enough to wrap onto another line") {
				if !anyContains(lines, word) {
					t.Errorf("width %d: word %q split across lines:\n%s", width, word, ansi.Strip(out))
				}
			}
		}
	}
}

func anyContains(lines []string, w string) bool {
	for _, l := range lines {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// streamed feeds parts to a Stream, taking Done after each Write and
// peeking at Live now and then, and returns all it printed.
func streamed(parts []string, width int, th style.Theme) string {
	s := NewStream(width, th)
	var done []string
	for i, p := range parts {
		s.Write(p)
		done = append(done, s.Done())
		if i%3 == 0 {
			s.Live()
		}
	}
	done = append(done, s.Close())
	return JoinBlocks(done...)
}

func TestStreamChunkSplitInvariance(t *testing.T) {
	answer, err := os.ReadFile("testdata/streamed.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, md := range map[string]string{"sample": sample, "streamed.md": string(answer)} {
		for _, th := range []style.Theme{plain, style.New(false, true)} {
			want := Render(md, 40, th)
			t.Run(name+"/every split in two", func(t *testing.T) {
				for i := range len(md) + 1 {
					if got := streamed([]string{md[:i], md[i:]}, 40, th); got != want {
						t.Fatalf("split at %d: mismatch (-want +got):\n%s", i, cmp.Diff(want, got))
					}
				}
			})
			t.Run(name+"/random pieces", func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, 2))
				for range 50 {
					var parts []string
					for rest := md; rest != ""; {
						n := min(len(rest), 1+r.IntN(8))
						parts = append(parts, rest[:n])
						rest = rest[n:]
					}
					if got := streamed(parts, 40, th); got != want {
						t.Fatalf("mismatch (-want +got):\n%s", cmp.Diff(want, got))
					}
				}
			})
		}
	}
}

// TestStreamLaterDefinition streams a reference whose definition comes
// in a later block: the reference is printed as written, before the
// definition is known, and the definition is shown where it stands, so
// that the URL is on the screen; a reference after it is a link.
func TestStreamLaterDefinition(t *testing.T) {
	s := NewStream(40, plain)
	s.Write("See [docs][1].\n\n")
	if got, want := s.Done(), "See [docs][1]."; got != want {
		t.Errorf("Done() = %q, want %q", got, want)
	}
	s.Write("[1]: https://go")
	if got, want := s.Live(), "[1]: https://go"; got != want {
		t.Errorf("Live() of the definition = %q, want %q", got, want)
	}
	s.Write(".dev\n\nAgain [docs][1].")
	if got, want := s.Done(), "[1]: https://go.dev"; got != want {
		t.Errorf("Done() = %q, want %q", got, want)
	}
	if got, want := s.Close(), "Again docs (https://go.dev)."; got != want {
		t.Errorf("Close() = %q, want %q", got, want)
	}
}

// TestStreamListItemGoesOn streams a list item whose content goes on
// after a blank line, a code fence with a blank line in it among it: the
// blocks are printed as they complete, under the item, and the blank
// line inside the fence ends no block.
func TestStreamListItemGoesOn(t *testing.T) {
	s := NewStream(40, plain)
	s.Write("1.  foo\n\n")
	if got, want := s.Done(), "1. foo"; got != want {
		t.Errorf("Done() = %q, want %q", got, want)
	}
	s.Write("    ```\n    a\n\n")
	if got := s.Done(); got != "" {
		t.Errorf("Done() inside the item's fence = %q, want \"\"", got)
	}
	if got, want := s.Live(), "     a"; got != want {
		t.Errorf("Live() = %q, want %q", got, want)
	}
	s.Write("    b\n    ```\n\n    > bam\n\nafter")
	if got, want := s.Done(), "     a\n     \n     b\n\n   │ bam"; got != want {
		t.Errorf("Done() = %q, want %q", got, want)
	}
	if got, want := s.Close(), "after"; got != want {
		t.Errorf("Close() = %q, want %q", got, want)
	}
}

func TestStreamDoneAndLive(t *testing.T) {
	s := NewStream(40, plain)
	s.Write("first para")
	if got := s.Done(); got != "" {
		t.Errorf("Done() before a blank line = %q, want \"\"", got)
	}
	if got := s.Live(); got != "first para" {
		t.Errorf("Live() = %q, want %q", got, "first para")
	}
	s.Write("graph\n\n```\ncode\n\nmore")
	if got := s.Done(); got != "first paragraph" {
		t.Errorf("Done() = %q, want the paragraph", got)
	}
	if got, want := s.Live(), "  code\n  \n  more"; got != want {
		t.Errorf("Live() in an open fence = %q, want %q", got, want)
	}
	s.Write("\n```\ntail")
	if got, want := s.Done(), "  code\n  \n  more"; got != want {
		t.Errorf("Done() at the closing fence = %q, want %q", got, want)
	}
	s.Resize(3)
	if got, want := s.Close(), "tail"; got != want {
		t.Errorf("Close() = %q, want %q", got, want)
	}
	if got := s.Live(); got != "" {
		t.Errorf("Live() after Close = %q, want \"\"", got)
	}
}

func TestHostileTextIsPrintable(t *testing.T) {
	md := "ref &#27;[2J [x](http://a/&#27;[3J) ![y](&#x1b;) evil \x1b]52;c;aGk=\x07 and \x1b[2J\rhidden\u202e\n\n```sh\necho \x1b[31mred\x9b\n```\n"
	for _, th := range []style.Theme{plain, style.New(true, true)} {
		out := Render(md, 80, th)
		stripped := ansi.Strip(out)
		if strings.ContainsAny(stripped, "\x1b\x07\r\u202e\u009b") {
			t.Errorf("control characters reached the output: %q", stripped)
		}
		for _, want := range []string{`\x1b]52;c;aGk=\x07`, `\x1b[2J\rhidden<U+202E>`, `\x1b[31mred\x9b`, `ref \x1b[2J`, `(http://a/\x1b[3J)`} {
			if !strings.Contains(stripped, want) {
				t.Errorf("output %q does not show %q", stripped, want)
			}
		}
		// The same through a stream, byte by byte.
		var parts []string
		for i := range len(md) {
			parts = append(parts, md[i:i+1])
		}
		if got := streamed(parts, 80, th); got != out {
			t.Errorf("streamed byte by byte: mismatch (-want +got):\n%s", cmp.Diff(out, got))
		}
	}
}

func TestColourThemeStyles(t *testing.T) {
	th := style.New(true, true)
	for _, tt := range []struct{ name, md string }{
		{"heading", "# T"}, {"strong", "**b**"}, {"code", "`c`"}, {"link", "[a](b)"},
		{"quote", "> q"}, {"rule", "***"}, {"go keyword", "```go\nfunc\n```"},
		{"json key", "```json\n{\"k\": 1}\n```"}, {"yaml key", "```yaml\nname: x\n```"},
		{"bullet", "- x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if out := Render(tt.md, 40, th); !strings.Contains(out, "\x1b[") {
				t.Errorf("Render(%q) = %q: no style applied", tt.md, out)
			}
		})
	}
}

func TestHighlight(t *testing.T) {
	tests := []struct {
		lang, code string
		want       []seg
	}{
		{"go", `x := "a\"b" // c`, []seg{{"x := ", mCodeBlock}, {`"a\"b"`, mString}, {" ", mCodeBlock}, {"// c", mComment}}},
		{"py", "def f(): return 0x1f", []seg{{"def", mKeyword}, {" f(): ", mCodeBlock}, {"return", mKeyword}, {" ", mCodeBlock}, {"0x1f", mNumber}}},
		{"bash", "echo a#b # c", []seg{{"echo", mKeyword}, {" a#b ", mCodeBlock}, {"# c", mComment}}},
		{"json", `{"k": "v", "n": true}`, []seg{{"{", mCodeBlock}, {`"k"`, mKeyword}, {": ", mCodeBlock}, {`"v"`, mString}, {", ", mCodeBlock}, {`"n"`, mKeyword}, {": ", mCodeBlock}, {"true", mKeyword}, {"}", mCodeBlock}}},
		{"yaml", "  - name: 'x' # c", []seg{{"  - ", mCodeBlock}, {"name", mKeyword}, {": ", mCodeBlock}, {"'x'", mString}, {" ", mCodeBlock}, {"# c", mComment}}},
		{"rust", "let s = 'a';", []seg{{"let", mKeyword}, {" s = 'a';", mCodeBlock}}},
		{"ts", "const a = `x`", []seg{{"const", mKeyword}, {" a = ", mCodeBlock}, {"`x`", mString}}},
		{"java", "int x = 1; /* c */", []seg{{"int", mKeyword}, {" x = ", mCodeBlock}, {"1", mNumber}, {"; ", mCodeBlock}, {"/* c */", mComment}}},
		{"cobol", "MOVE 1", []seg{{"MOVE 1", mCodeBlock}}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			got := merge(newHighlighter(tt.lang).line(tt.code))
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(seg{})); d != "" {
				t.Errorf("line(%q) mismatch (-want +got):\n%s", tt.code, d)
			}
		})
	}
	t.Run("comment across lines", func(t *testing.T) {
		h := newHighlighter("c")
		h.line("a /* b")
		got := merge(h.line("c */ d"))
		want := []seg{{"c */", mComment}, {" d", mCodeBlock}}
		if d := cmp.Diff(want, got, cmp.AllowUnexported(seg{})); d != "" {
			t.Errorf("second line mismatch (-want +got):\n%s", d)
		}
	})
}

// merge joins neighbouring segments of the same mark, as rendering does.
func merge(segs []seg) []seg {
	var out []seg
	for _, s := range segs {
		if n := len(out); n > 0 && out[n-1].m == s.m {
			out[n-1].text += s.text
			continue
		}
		out = append(out, s)
	}
	return out
}

// TestLiveCodeBlock checks that a code block shown while it streams, line
// by line from a cache, is what rendering it whole shows.
func TestLiveCodeBlock(t *testing.T) {
	const md = "Intro.\n\n```python\ndef f(x):\n    \"\"\"A doc\n    string that is long enough to be cut.\"\"\"\n\treturn x  # one\n\n```\n"
	for _, th := range []style.Theme{plain, style.New(true, true)} {
		s := NewStream(30, th)
		opened := strings.Index(md, "```python\n") + len("```python\n")
		for i := range len(md) - 4 {
			s.Write(md[i : i+1])
			s.Done()
			if i+1 < opened {
				continue
			}
			prefix := md[strings.Index(md, "```") : i+1]
			closing := "\n```"
			if strings.HasSuffix(prefix, "\n") {
				closing = "```"
			}
			if got, want := s.Live(), Render(prefix+closing, 30, th); got != want {
				t.Fatalf("after %q: Live() mismatch (-want +got):\n%s", md[:i+1], cmp.Diff(want, got))
			}
		}
	}
}
