package markdown

import (
	"strconv"
	"unicode/utf8"
)

// entity resolves the character reference s begins with ("&amp;",
// "&#35;", "&#x1F600;"): its text and length, or 0 when s begins none
// this package knows. A named reference outside the common ones stays as
// written. The text may be a control character: the caller makes it
// printable.
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

// namedEntity returns the text of the common named reference name, ""
// for another.
func namedEntity(name string) string {
	switch name {
	case "amp":
		return "&"
	case "lt":
		return "<"
	case "gt":
		return ">"
	case "quot":
		return `"`
	case "apos":
		return "'"
	case "nbsp":
		return "\u00a0"
	case "copy":
		return "©"
	case "reg":
		return "®"
	case "trade":
		return "™"
	case "mdash":
		return "—"
	case "ndash":
		return "–"
	case "hellip":
		return "…"
	case "rarr":
		return "→"
	case "larr":
		return "←"
	case "uarr":
		return "↑"
	case "darr":
		return "↓"
	case "harr":
		return "↔"
	case "rArr":
		return "⇒"
	case "lArr":
		return "⇐"
	case "hArr":
		return "⇔"
	case "times":
		return "×"
	case "divide":
		return "÷"
	case "plusmn":
		return "±"
	case "minus":
		return "−"
	case "ne":
		return "≠"
	case "le":
		return "≤"
	case "ge":
		return "≥"
	case "asymp":
		return "≈"
	case "infin":
		return "∞"
	case "deg":
		return "°"
	case "micro":
		return "µ"
	case "middot":
		return "·"
	case "bull":
		return "•"
	case "sect":
		return "§"
	case "para":
		return "¶"
	case "laquo":
		return "«"
	case "raquo":
		return "»"
	case "lsquo":
		return "‘"
	case "rsquo":
		return "’"
	case "ldquo":
		return "“"
	case "rdquo":
		return "”"
	case "euro":
		return "€"
	case "pound":
		return "£"
	case "yen":
		return "¥"
	case "cent":
		return "¢"
	case "check":
		return "✓"
	case "star":
		return "☆"
	case "hearts":
		return "♥"
	case "frac12":
		return "½"
	case "frac14":
		return "¼"
	case "frac34":
		return "¾"
	case "sup2":
		return "²"
	case "sup3":
		return "³"
	}
	return ""
}
