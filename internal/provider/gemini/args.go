package gemini

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argWriter writes the JSON text of a call whose arguments stream as
// partialArgs: values at JSON paths, in document order, a long string
// possibly in several pieces. Each write returns the text to append, so the
// Assembler sees the arguments grow as any vendor's argument deltas would;
// close returns the text that completes the object.
//
// The paths must come in document order (a container, once left, is never
// entered again; array items come in index order), which is how Gemini
// streams them. A path that breaks that order, or that cannot be read,
// makes the writer broken: it writes nothing more, and the call is
// reported as malformed rather than proposed with arguments rein would
// have to guess.
//
// The zero value is ready to use. An argWriter is not safe for concurrent
// use.
type argWriter struct {
	open     []container // containers open, the root object first
	inString bool        // the last value was a string with more pieces to come
	last     []segment   // path of the last value written
	broken   error
}

// container is an object or array being written.
type container struct {
	array bool
	via   segment  // the segment that entered it (none for the root)
	count int      // members written so far
	keys  []string // the keys written so far, for an object
}

// segment is one step of a JSON path: a member name or an array index.
type segment struct {
	key   string
	index int // -1 for a member name
}

// write returns the text for one partialArg.
func (w *argWriter) write(a *partialArg) string {
	if w.broken != nil {
		return ""
	}
	path, err := parsePath(a.JSONPath)
	if err != nil {
		w.broken = err
		return ""
	}
	var b []byte
	if w.inString {
		if a.NumberValue == nil && a.BoolValue == nil && a.NullValue == nil && equalPath(path, w.last) {
			// The next piece of the open string.
			if a.StringValue != nil {
				b = appendEscaped(b, *a.StringValue)
			}
			if !a.WillContinue {
				b = append(b, '"')
				w.inString = false
			}
			return string(b)
		}
		b = append(b, '"')
		w.inString = false
	}
	b, ok := w.enter(b, path, a.JSONPath)
	if !ok {
		return string(b)
	}
	w.last = path
	return string(w.appendValue(b, a))
}

// enter appends to b what takes the writer from where it is to path: the
// object that opens the arguments, the closing of the containers the new
// path leaves, the opening of the ones it enters, and the member's key. ok
// is false when path cannot follow what was written (w.broken says why).
func (w *argWriter) enter(b []byte, path []segment, jsonPath string) (_ []byte, ok bool) {
	if len(w.open) == 0 {
		b = append(b, '{')
		w.open = append(w.open, container{via: segment{index: -1}})
	}
	parent := path[:len(path)-1]
	common := 0
	for common < len(parent) && common+1 < len(w.open) && w.open[common+1].via == parent[common] {
		common++
	}
	for len(w.open) > common+1 {
		b = w.closeTop(b)
	}
	for i, seg := range path {
		if i < common {
			continue
		}
		top := &w.open[len(w.open)-1]
		if err := top.member(seg); err != nil {
			w.broken = fmt.Errorf("path %s: %w", jsonPath, err)
			return b, false
		}
		if top.count > 0 {
			b = append(b, ',')
		}
		top.count++
		if !top.array {
			top.keys = append(top.keys, seg.key)
			b = appendQuoted(b, seg.key)
			b = append(b, ':')
		}
		if i == len(path)-1 {
			break
		}
		next := container{array: path[i+1].index >= 0, via: seg}
		if next.array {
			b = append(b, '[')
		} else {
			b = append(b, '{')
		}
		w.open = append(w.open, next)
	}
	return b, true
}

// appendValue appends a's value, leaving a string open when more of it is
// to come.
func (w *argWriter) appendValue(b []byte, a *partialArg) []byte {
	switch {
	case a.NumberValue != nil:
		b = append(b, bytes.TrimSpace(a.NumberValue)...)
	case a.BoolValue != nil:
		b = strconv.AppendBool(b, *a.BoolValue)
	case a.NullValue != nil:
		b = append(b, "null"...)
	default:
		// A string, or a piece with no value at all: proto3 JSON leaves an
		// empty string out, so no value reads as "".
		b = append(b, '"')
		if a.StringValue != nil {
			b = appendEscaped(b, *a.StringValue)
		}
		if a.WillContinue {
			w.inString = true
		} else {
			b = append(b, '"')
		}
	}
	return b
}

// member checks that seg may be the next member of c.
func (c *container) member(seg segment) error {
	switch {
	case c.array && seg.index < 0:
		return errors.New("a member name inside an array")
	case !c.array && seg.index >= 0:
		return errors.New("an array index inside an object")
	case c.array && seg.index != c.count:
		return fmt.Errorf("index %d out of order (next is %d)", seg.index, c.count)
	case !c.array:
		for _, k := range c.keys {
			if k == seg.key {
				return fmt.Errorf("member %q written twice", seg.key)
			}
		}
	}
	return nil
}

// closeTop closes the innermost open container.
func (w *argWriter) closeTop(b []byte) []byte {
	top := w.open[len(w.open)-1]
	w.open = w.open[:len(w.open)-1]
	if top.array {
		return append(b, ']')
	}
	return append(b, '}')
}

// close returns the text that completes the arguments: "{}" when no
// argument came at all.
func (w *argWriter) close() string {
	if w.broken != nil {
		return ""
	}
	if len(w.open) == 0 {
		return "{}"
	}
	var b []byte
	if w.inString {
		b = append(b, '"')
		w.inString = false
	}
	for len(w.open) > 0 {
		b = w.closeTop(b)
	}
	return string(b)
}

// parsePath reads a JSON path (RFC 9535) of member names and indexes:
// $.a.b[0], $['a']["b"][0]. The root alone is refused: the arguments are an
// object, so every value sits below it.
func parsePath(p string) ([]segment, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, fmt.Errorf("json path %q does not start at $", p)
	}
	var path []segment
	rest := p[1:]
	for rest != "" {
		switch {
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name := rest[1 : 1+end]
			if name == "" {
				return nil, fmt.Errorf("json path %q has an empty member name", p)
			}
			path = append(path, segment{key: name, index: -1})
			rest = rest[1+end:]
		case strings.HasPrefix(rest, "['") || strings.HasPrefix(rest, `["`):
			name, n, err := quotedName(rest[1:])
			if err != nil || !strings.HasPrefix(rest[1+n:], "]") {
				return nil, fmt.Errorf("json path %q: bad quoted member name", p)
			}
			path = append(path, segment{key: name, index: -1})
			rest = rest[1+n+1:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("json path %q: unclosed index", p)
			}
			i, err := strconv.Atoi(rest[1:end])
			if err != nil || i < 0 || rest[1] == '+' {
				return nil, fmt.Errorf("json path %q: bad index %q", p, rest[1:end])
			}
			path = append(path, segment{index: i})
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("json path %q: unexpected %q", p, rest[0])
		}
	}
	if len(path) == 0 {
		return nil, fmt.Errorf("json path %q names the root, not an argument", p)
	}
	return path, nil
}

// quotedName reads a quoted member name at the start of s ('...' or
// "..."), with backslash escapes, and returns it with the number of bytes
// it took, quotes included.
func quotedName(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			if i+4 >= len(s) {
				return "", 0, errors.New("short \\u escape")
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", 0, err
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, errors.New("unterminated name")
}

func equalPath(a, b []segment) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// appendQuoted appends s as a JSON string.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendEscaped(b, s)
	return append(b, '"')
}

// appendEscaped appends s escaped for the inside of a JSON string. Unlike
// encoding/json it leaves <, > and & alone; invalid UTF-8 becomes U+FFFD.
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}
