// Package printable makes text that came from outside rein (a model's
// words, a tool's output, a provider's error, a configuration file, a log)
// safe to show on a terminal: nothing in it is interpreted, everything in
// it is seen.
//
// A terminal acts on what it is sent: ESC starts a control sequence that
// can set the clipboard (OSC 52), the window's title, clear the screen or
// switch to the alternate screen; a lone carriage return or a backspace
// rewrites what the line already showed; a bidirectional override (U+202E)
// shows a command in an order other than the one that runs; a zero-width
// character hides text in plain sight. [Text] and [Line] show each such
// character as an escape a person can read, and leave everything else as
// it is:
//
//   - C0 controls and DEL as \x1b, \x07, \x7f...; carriage return as \r,
//     backspace as \b. [Text] keeps newline and tab; [Line] shows them as
//     \n and \t.
//   - C1 controls (U+0080 to U+009F) as \x9b..., and each byte that is not
//     UTF-8 as \xff...: a terminal reads a lone 0x9b as ESC [.
//   - Format characters (bidirectional overrides, embeddings, isolates and
//     marks; zero-width spaces and joiners; the byte order mark; the tag
//     characters U+E0000 to U+E007F), the other default-ignorable characters
//     that show as nothing (U+034F, the Hangul fillers), and the line and
//     paragraph separators, as <U+202E>...
//
// An escape sequence is made inert by its ESC (or C1 introducer) alone: the
// rest of it (]52;c;..., [2J) is ordinary text and is shown as it is, so
// the person sees what was attempted. So no parsing of sequences is needed,
// and text streamed in pieces is safe piece by piece: a sequence split
// across two pieces is still two inert halves. [Stream] adds only what
// pieces need: a character split across them is held back until it is
// whole.
//
// The escapes are made of printable ASCII, so making printable text
// printable again changes nothing. A backslash in the text itself is left
// as it is: "\x1b" on the screen may be the four characters that were sent,
// but never an escape sequence.
//
// Variation selectors (U+FE0F after an emoji) are left alone: they change
// how a character looks, not what the text says.
package printable

import (
	"unicode"
	"unicode/utf8"
)

// Text returns s made printable for a terminal, its newlines and tabs kept
// (a model's answer, a tool's output): s itself, without a copy, when it
// needs nothing.
func Text(s string) string { return escape(s, false) }

// Line returns s made printable for a one-line slot (a tool's name, a
// path, a rule, an error message on a line of its own): as [Text], and
// newline and tab shown as \n and \t too. It returns s itself when it
// needs nothing.
func Line(s string) string { return escape(s, true) }

// Stream makes a text that comes in pieces (a model's streamed deltas)
// printable piece by piece: the concatenation of what [Stream.Next]
// returns for each piece, and then of what [Stream.Flush] returns, is
// [Text] of the whole text. A character split across pieces is held back
// until its last byte comes, so it is shown whole and not as the escapes
// of its bytes. The zero value is ready to use; a Stream is not safe for
// concurrent use.
type Stream struct {
	held [utf8.UTFMax - 1]byte
	n    int
}

// Next returns the printable form of the next piece of the text: delta
// itself, without a copy, when it needs nothing and nothing is held back.
// The bytes at its end that begin a character it does not finish are held
// back for the next piece.
func (st *Stream) Next(delta string) string {
	s := delta
	if st.n > 0 {
		s = string(st.held[:st.n]) + delta
		st.n = 0
	}
	if cut := partialTail(s); cut < len(s) {
		st.n = copy(st.held[:], s[cut:])
		s = s[:cut]
	}
	return Text(s)
}

// Flush ends the text: it returns what is held back, the start of a
// character that never ended, shown as the escapes of its bytes, and
// forgets it; "" when nothing is held back. The Stream is then ready for
// another text.
func (st *Stream) Flush() string {
	if st.n == 0 {
		return ""
	}
	s := string(st.held[:st.n])
	st.n = 0
	return Text(s)
}

// partialTail returns where the incomplete character at the end of s
// starts: the first bytes of a valid UTF-8 encoding that s cuts short;
// len(s) when s ends with a whole character or with bytes that are not
// UTF-8 whatever follows.
func partialTail(s string) int {
	for k := len(s) - 1; k >= 0 && k > len(s)-utf8.UTFMax; k-- {
		if utf8.RuneStart(s[k]) {
			if !utf8.FullRuneInString(s[k:]) {
				return k
			}
			break
		}
	}
	return len(s)
}

// escape is Text (line false) or Line (line true).
func escape(s string, line bool) string {
	i := cleanPrefix(s, line)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+len(s)/2+16)
	b = append(b, s[:i]...)
	return string(appendEscaped(b, s[i:], line))
}

// asciiShown says which ASCII bytes are shown as they are: printable ASCII,
// and (index 0, for Text) newline and tab too.
var asciiShown = func() (t [2][utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[0][c], t[1][c] = true, true
	}
	t[0]['\n'], t[0]['\t'] = true, true
	return t
}()

// cleanPrefix returns the length of the longest prefix of s that needs no
// escape.
func cleanPrefix(s string, line bool) int {
	shown := &asciiShown[0]
	if line {
		shown = &asciiShown[1]
	}
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plainASCII(s[i:i+8]) {
			i += 8
			continue
		}
		// One character at a time to the end of these eight bytes.
		for end := min(i+8, len(s)); i < end; {
			c := s[i]
			if c < utf8.RuneSelf {
				if !shown[c] {
					return i
				}
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			if size == 1 || r < 0xa0 || hidden(r) {
				return i
			}
			i += size
		}
	}
	return len(s)
}

// plainASCII reports whether the 8 bytes of s are all printable ASCII
// (0x20 to 0x7e), eight at a time: none has its high bit set, none is below
// 0x20, none is 0x7f.
func plainASCII(s string) bool {
	_ = s[7]
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	v := w ^ 0x7f7f7f7f7f7f7f7f // a zero byte where w holds 0x7f
	return (w|(w-0x2020202020202020)|(v-0x0101010101010101)&^v)&0x8080808080808080 == 0
}

// appendEscaped appends s to b, each character that needs it escaped.
func appendEscaped(b []byte, s string, line bool) []byte {
	shown := &asciiShown[0]
	if line {
		shown = &asciiShown[1]
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case shown[c]:
				b = append(b, c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\b':
				b = append(b, `\b`...)
			default:
				b = appendByte(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case size == 1: // not UTF-8 (a valid U+FFFD is three bytes)
			b = appendByte(b, c)
		case r < 0xa0:
			b = appendByte(b, byte(r))
		case hidden(r):
			b = appendCodePoint(b, r)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendByte appends \xNN, NN the value of c in lower-case hex.
func appendByte(b []byte, c byte) []byte {
	return append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
}

// appendCodePoint appends <U+XXXX>, XXXX the code point of r in upper-case
// hex, at least four digits.
func appendCodePoint(b []byte, r rune) []byte {
	const upper = "0123456789ABCDEF"
	b = append(b, "<U+"...)
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	for d := digits - 1; d >= 0; d-- {
		b = append(b, upper[(r>>(4*d))&0xf])
	}
	return append(b, '>')
}

// hidden reports whether r, a character from U+00A0 on, is one that shows
// as nothing or changes how the text around it shows: a format character
// (Unicode's category Cf), another default-ignorable one (U+034F, the
// Hangul fillers, the unassigned ones of the tag block), or a line or
// paragraph separator. The common ranges are decided without a table
// lookup; TestHiddenIsTheUnicodeSet checks them against the tables.
func hidden(r rune) bool {
	switch {
	case r < 0x600:
		return r == 0xad || r == 0x34f
	case r >= 0x2000 && r < 0x2070: // general punctuation: dashes, quotes
		return r >= 0x200b && r <= 0x200f || r >= 0x2028 && r <= 0x202e || r >= 0x2060
	case r >= 0x2070 && r < 0xfeff: // CJK, Hangul syllables, ...
		return r == 0x3164
	}
	return unicode.In(r, hiddenTables...)
}

// hiddenTables are the Unicode sets of the characters hidden reports.
var hiddenTables = []*unicode.RangeTable{unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Zl, unicode.Zp}
