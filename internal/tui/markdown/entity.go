package markdown

import (
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// entity resolves the character reference s begins with ("&amp;",
// "&#35;", "&#x1F600;"): its text and length, or 0 when s begins none
// (a name HTML5 does not define stays as written). The text may be a
// control character: the caller makes it printable.
func entity(s string) (string, int) {
	end := 1
	for end < len(s) && end <= 33 && s[end] != ';' {
		end++
	}
	if end >= len(s) || s[end] != ';' || end == 1 {
		return "", 0
	}
	name := s[1:end]
	if name[0] != '#' {
		if r := namedEntity(name); r != "" {
			return r, end + 1
		}
		return "", 0
	}
	digits, base := name[1:], 10
	if digits != "" && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	if digits == "" || (base == 10 && len(digits) > 7) || (base == 16 && len(digits) > 6) {
		return "", 0
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return "", 0 // not all digits: no reference
	}
	r := rune(v)
	if r == 0 || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return string(r), end + 1
}

// namedEntity returns the text of the named character reference
// "&name;", one of HTML5's (the html package's table), "" for a name that
// is none. The name is the reference's letters and digits, without its
// '&' and ';'.
func namedEntity(name string) string {
	if !isLetter(name[0]) {
		return ""
	}
	for i := 1; i < len(name); i++ {
		if !isLetter(name[i]) && !isDigit(name[i]) {
			return ""
		}
	}
	ref := "&" + name + ";"
	r := html.UnescapeString(ref)
	// A name that is not one may begin with one that HTML also knows
	// without its ';' ("&notit;" is "¬it;" to html): it is none.
	if r == ref || (strings.HasSuffix(r, ";") && name != "semi") {
		return ""
	}
	return r
}
