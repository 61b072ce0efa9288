package printable

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, text, line string
	}{
		{"plain", "plain text", "plain text", "plain text"},
		{"empty", "", "", ""},
		{"newline and tab", "a\tb\nc\n", "a\tb\nc\n", `a\tb\nc\n`},
		{"OSC 52 with BEL", "\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`, `\x1b]52;c;aGk=\x07`},
		{"OSC title with ST", "\x1b]0;pwned\x1b\\", `\x1b]0;pwned\x1b\`, `\x1b]0;pwned\x1b\`},
		{"CSI clear", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		{"alternate screen", "\x1b[?1049h", `\x1b[?1049h`, `\x1b[?1049h`},
		{"DCS APC PM SOS", "\x1bPq\x1b\\\x1b_a\x1b\\\x1b^b\x1b\\\x1bXc\x1b\\", `\x1bPq\x1b\\x1b_a\x1b\\x1b^b\x1b\\x1bXc\x1b\`, `\x1bPq\x1b\\x1b_a\x1b\\x1b^b\x1b\\x1bXc\x1b\`},
		{"single-character escape", "\x1bc\x1b7\x1b8", `\x1bc\x1b7\x1b8`, `\x1bc\x1b7\x1b8`},
		{"C1 CSI as a character", "a \u009b2J b", `a \x9b2J b`, `a \x9b2J b`},
		{"C1 OSC and ST", "\u009d0;t\u009c", `\x9d0;t\x9c`, `\x9d0;t\x9c`},
		{"C1 as a raw byte", "raw \x9b byte", `raw \x9b byte`, `raw \x9b byte`},
		{"NEL", "a\u0085b", `a\x85b`, `a\x85b`},
		{"other C0 and DEL", "\x00\x01\x07\x0b\x0c\x7f", `\x00\x01\x07\x0b\x0c\x7f`, `\x00\x01\x07\x0b\x0c\x7f`},
		{"carriage return", "rm -rf ~\rls", `rm -rf ~\rls`, `rm -rf ~\rls`},
		{"CRLF", "a\r\nb", "a\\r\nb", `a\r\nb`},
		{"backspace", "safe\b\b\b\bevil", `safe\b\b\b\bevil`, `safe\b\b\b\bevil`},
		{"invalid UTF-8", "bad \xff\xfe byte", `bad \xff\xfe byte`, `bad \xff\xfe byte`},
		{"a surrogate in UTF-8", "\xed\xa0\x80", `\xed\xa0\x80`, `\xed\xa0\x80`},
		{"a cut character", "é\xc3", `é\xc3`, `é\xc3`},
		{"U+FFFD stays", "replaced \uFFFD here", "replaced \uFFFD here", "replaced \uFFFD here"},
		{"right-to-left override", "ls \u202etxt.exe", `ls <U+202E>txt.exe`, `ls <U+202E>txt.exe`},
		{"embeddings and isolates", "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `<U+202A><U+202B><U+202C><U+202D><U+2066><U+2067><U+2068><U+2069>`, `<U+202A><U+202B><U+202C><U+202D><U+2066><U+2067><U+2068><U+2069>`},
		{"marks", "\u200e\u200f\u061c", `<U+200E><U+200F><U+061C>`, `<U+200E><U+200F><U+061C>`},
		{"zero width", "a\u200bb\u200cc\u200dd\u2060e\ufefff", `a<U+200B>b<U+200C>c<U+200D>d<U+2060>e<U+FEFF>f`, `a<U+200B>b<U+200C>c<U+200D>d<U+2060>e<U+FEFF>f`},
		{"Mongolian vowel separator, soft hyphen", "a\u180eb\u00adc", `a<U+180E>b<U+00AD>c`, `a<U+180E>b<U+00AD>c`},
		{"tags", "hi\U000E0041\U000E007F", `hi<U+E0041><U+E007F>`, `hi<U+E0041><U+E007F>`},
		{"Hangul filler", "x\u3164y", `x<U+3164>y`, `x<U+3164>y`},
		{"line separator", "a\u2028b\u2029c", `a<U+2028>b<U+2029>c`, `a<U+2028>b<U+2029>c`},
		{"ordinary Unicode", "café ✓ — “quoted” 日本語 العربية 🙂 ❤️", "café ✓ — “quoted” 日本語 العربية 🙂 ❤️", "café ✓ — “quoted” 日本語 العربية 🙂 ❤️"},
		{"a backslash stays", `C:\x1b\path`, `C:\x1b\path`, `C:\x1b\path`},
		{"no-break space", "a\u00a0b", "a\u00a0b", "a\u00a0b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Text(tc.in); got != tc.text {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
			}
			if got := Line(tc.in); got != tc.line {
				t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
			}
		})
	}
}

// checkShown fails unless s is what a terminal shows as it is: valid
// UTF-8, no control character (newline and tab apart, unless oneLine), no
// character hidden reports.
func checkShown(t *testing.T, in, s string, oneLine bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("(%q) = %q: not UTF-8", in, s)
	}
	for _, r := range s {
		if (unicode.IsControl(r) && (oneLine || r != '\n' && r != '\t')) || r >= 0xa0 && hidden(r) {
			t.Fatalf("(%q) = %q: holds %U", in, s, r)
		}
	}
}

// FuzzText checks, for any text, that Text and Line leave nothing a
// terminal acts on, return a clean text itself, change nothing when
// applied again, and that a Stream fed the text in any two or three pieces
// gives what Text gives the whole.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "abc", "\x1b]52;c;aGk=\x07", "é\xc3", "🙂", "\xf0\x9f\x99", "\u202e\u200b", "a\r\n\t", "\U000E0041"} {
		f.Add(s, uint8(1), uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, i, j uint8) {
		text, line := Text(s), Line(s)
		checkShown(t, s, text, false)
		checkShown(t, s, line, true)
		if Text(text) != text || Line(line) != line || Line(text) != line {
			t.Fatalf("escaping %q again changes it: %q, %q", s, text, line)
		}
		if cleanPrefix(s, false) == len(s) && text != s {
			t.Fatalf("Text(%q) = %q changed a clean text", s, text)
		}
		a := min(int(i), len(s))
		b := min(a+int(j), len(s))
		var st Stream
		got := st.Next(s[:a]) + st.Next(s[a:b]) + st.Next(s[b:]) + st.Flush()
		if got != text {
			t.Fatalf("Stream over %q cut at %d and %d = %q, want %q", s, a, b, got, text)
		}
	})
}

// A character split across deltas is shown whole, whatever the split; one
// that never ends is shown as its bytes when the text ends.
func TestStreamHoldsBackASplitCharacter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []string
		want   []string // what each Next returns, then Flush
	}{
		{"two bytes", []string{"caf\xc3", "\xa9!"}, []string{"caf", "é!", ""}},
		{"four bytes, one at a time", []string{"\xf0", "\x9f", "\x99", "\x82"}, []string{"", "", "", "🙂", ""}},
		{"an override split", []string{"ls \xe2\x80", "\xae", "x"}, []string{"ls ", "<U+202E>", "x", ""}},
		{"C1 split", []string{"\xc2", "\x9b2J"}, []string{"", `\x9b2J`, ""}},
		{"ESC split from its sequence", []string{"a\x1b", "]52;c;aGk=\x07"}, []string{`a\x1b`, `]52;c;aGk=\x07`, ""}},
		{"never ends", []string{"x\xe2\x80"}, []string{"x", `\xe2\x80`}},
		{"broken by the next piece", []string{"\xe2\x80", "a"}, []string{"", `\xe2\x80a`, ""}},
		{"invalid at the end is not held", []string{"a\xff"}, []string{`a\xff`, ""}},
		{"a whole character at the end", []string{"a🙂"}, []string{"a🙂", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st Stream
			var got []string
			for _, p := range tc.pieces {
				got = append(got, st.Next(p))
			}
			got = append(got, st.Flush())
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("pieces %q gave %q, want %q", tc.pieces, got, tc.want)
			}
		})
	}
}

// Text that needs nothing is returned as it is, without a copy: streamed
// deltas go through here.
func TestCleanTextIsNotCopied(t *testing.T) {
	clean := strings.Repeat("The answer is 42, café — “quoted”\tand 日本語.\n", 100)
	var st Stream
	if n := testing.AllocsPerRun(100, func() {
		_ = Text(clean)
		_ = Line("bash")
		_ = st.Next(clean)
	}); n != 0 {
		t.Errorf("%v allocations for clean text, want 0", n)
	}
	if got := Text(clean); got != clean {
		t.Errorf("Text changed a clean text")
	}
}

// hidden's shortcuts for the common ranges agree with the Unicode tables it
// stands for, for every character.
func TestHiddenIsTheUnicodeSet(t *testing.T) {
	for r := rune(0xa0); r <= unicode.MaxRune; r++ {
		if want := unicode.In(r, hiddenTables...); hidden(r) != want {
			t.Errorf("hidden(%U) = %v, want %v", r, !want, want)
		}
	}
}

// The benchmarks measure a model's 4 KiB of ordinary text (the fast path:
// no copy) and 4 KiB of hostile text (escape sequences, controls and
// overrides throughout).
func BenchmarkPrintable(b *testing.B) {
	clean := strings.Repeat("The test fails because Mean divides by zero — see stats.go:12.\n", 64)[:4096]
	hostile := strings.Repeat("ok \x1b]52;c;aGk=\x07 \u202etxt\r\u009b2J\xff é\n", 160)[:4096]
	for _, bc := range []struct {
		name, text string
	}{{"clean4KiB", clean}, {"hostile4KiB", hostile}} {
		b.Run("Text/"+bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			for b.Loop() {
				_ = Text(bc.text)
			}
		})
		b.Run("Stream/"+bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			var st Stream
			for b.Loop() {
				_ = st.Next(bc.text)
			}
		})
	}
}

// The eight-at-a-time check says plain only of eight printable ASCII
// bytes: each byte value, at each place among plain ones.
func TestPlainASCII(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			b := []byte("abcdefgh")
			b[at] = byte(c)
			want := c >= 0x20 && c < 0x7f
			if got := plainASCII(string(b)); got != want {
				t.Errorf("plainASCII(%q) = %v, want %v", b, got, want)
			}
		}
	}
}
