package command

import (
	"strings"
	"unicode"
)

// Expand fills the template with args: $ARGUMENTS becomes args (trimmed),
// and $1 to $9 the arguments args splits into as a shell would (quotes
// respected: '…' literally, "…" with \" and \\; a backslash outside
// quotes escapes the next character); a missing argument is empty. What
// the arguments hold is never expanded again. A template that uses none
// of these gets non-empty args after it, as "\n\nARGUMENTS: args", so
// nothing typed is lost.
func Expand(template, args string) string {
	args = strings.TrimSpace(args)
	var fields []string
	split := false
	var b strings.Builder
	used := false
	for i := 0; i < len(template); {
		if template[i] != '$' {
			j := strings.IndexByte(template[i:], '$')
			if j < 0 {
				j = len(template) - i
			}
			b.WriteString(template[i : i+j])
			i += j
			continue
		}
		rest := template[i+1:]
		switch {
		case strings.HasPrefix(rest, "ARGUMENTS"):
			b.WriteString(args)
			i += 1 + len("ARGUMENTS")
			used = true
		case rest != "" && rest[0] >= '1' && rest[0] <= '9':
			if !split {
				fields, split = Split(args), true
			}
			if n := int(rest[0] - '1'); n < len(fields) {
				b.WriteString(fields[n])
			}
			i += 2
			used = true
		default:
			b.WriteByte('$')
			i++
		}
	}
	if !used && args != "" {
		b.WriteString("\n\nARGUMENTS: ")
		b.WriteString(args)
	}
	return b.String()
}

// Split splits s into arguments as a shell would, simply: white space
// separates them; '…' is taken literally; in "…" a backslash escapes " and
// \; outside quotes a backslash escapes the next character. An unclosed
// quote runs to the end.
func Split(s string) []string {
	var out []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\'':
			inWord = true
			for i++; i < len(rs) && rs[i] != '\''; i++ {
				cur.WriteRune(rs[i])
			}
		case r == '"':
			inWord = true
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\') {
					i++
				}
				cur.WriteRune(rs[i])
			}
		case r == '\\' && i+1 < len(rs):
			inWord = true
			i++
			cur.WriteRune(rs[i])
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

// Parse splits a typed line "/name rest" into the name and the rest
// (trimmed); ok is false when the line is not a command, and args is then
// the text to send as it is: the line itself, or, for a line beginning
// "//", the line less its first slash ("//text" is text beginning with
// "/"). A line is a command when it begins with "/" followed by a valid
// name ([ValidName]) ending at white space or the end: "/usr/bin/env" and
// "/ x" are text.
func Parse(line string) (name, args string, ok bool) {
	if strings.HasPrefix(line, "//") {
		return "", line[1:], false
	}
	if !strings.HasPrefix(line, "/") {
		return "", line, false
	}
	end := strings.IndexFunc(line, unicode.IsSpace)
	if end < 0 {
		end = len(line)
	}
	name = line[1:end]
	if !ValidName(name) {
		return "", line, false
	}
	return name, strings.TrimSpace(line[end:]), true
}
