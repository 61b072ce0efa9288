package contract

import (
	"bytes"
	"unicode/utf8"
)

// replacementEscape is what a lone surrogate escape becomes: U+FFFD, as
// encoding/json decodes one.
const replacementEscape = `\ufffd`

// CleanJSON returns the encoded JSON text b as strict parsers (jq, Python,
// JavaScript) accept it: every invalid UTF-8 sequence replaced by U+FFFD
// and every \u escape of a lone UTF-16 surrogate by \ufffd, as encoding/json
// does when it decodes them. A high surrogate escape followed by a low one
// is a pair, kept as it is. Nothing else changes, and a text that needs no
// change is returned as it is, without a copy.
//
// The encoder writes Go strings this way already; what it embeds verbatim
// is json.RawMessage (a tool intent's input, opaque provider state), which
// holds whatever the model or vendor sent, and encoding/json checks only
// its syntax. The assembler cleans an intent's input with it, so that the
// live state, --json and the log hold the same input; the log's writer
// cleans every line with it, whatever embedded what.
//
// b must be valid JSON apart from its text encoding: a backslash occurs
// only inside a string, where it starts an escape. The scan takes a
// backslash and the byte after it together, so in "\\ud800" (an escaped
// backslash, then the letters ud800) nothing is an escape to replace.
func CleanJSON(b []byte) []byte {
	if utf8.Valid(b) && !hasSurrogateEscape(b) {
		return b
	}
	var out []byte // nil until the first change
	last := 0      // b[:last] is in out, or needs no change when out is nil
	replace := func(from, to int, with string) {
		if out == nil {
			out = make([]byte, 0, len(b)+len(b)/8)
		}
		out = append(append(out, b[last:from]...), with...)
		last = to
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				replace(i, i+1, string(utf8.RuneError))
			}
			i += size
		case c != '\\':
			i++
		case i+1 < len(b) && b[i+1] == 'u':
			r, ok := hex4(b[i+1:])
			switch {
			case !ok || r < 0xd800 || r > 0xdfff:
				i += 2
			case r < 0xdc00 && i+12 <= len(b) && b[i+6] == '\\' && isLowSurrogate(b[i+7:]):
				i += 12
			default:
				replace(i, i+6, replacementEscape)
				i += 6
			}
		case i+1 < len(b) && b[i+1] < utf8.RuneSelf:
			// Any other escape, \\ and \" included: two bytes.
			i += 2
		default:
			i++
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// hasSurrogateEscape reports whether b holds a \u escape of a UTF-16
// surrogate, D800 to DFFF, reading escapes as CleanJSON does: a backslash
// and the byte after it together.
func hasSurrogateEscape(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 || i+3 >= len(b) {
			return false
		}
		if b[i+1] == 'u' && (b[i+2] == 'd' || b[i+2] == 'D') && isHex89AF(b[i+3]) {
			return true
		}
		b = b[i+2:]
	}
}

// isHex89AF reports whether c is a hex digit from 8 to F.
func isHex89AF(c byte) bool {
	return c >= '8' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// isLowSurrogate reports whether b starts with the escape of a low
// surrogate, uDC00 to uDFFF (the backslash before it aside).
func isLowSurrogate(b []byte) bool {
	r, ok := hex4(b)
	return ok && r >= 0xdc00 && r <= 0xdfff
}
