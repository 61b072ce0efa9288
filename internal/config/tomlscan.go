package config

import (
	"fmt"
	"strconv"
	"strings"
)

// This file finds where things are in a TOML text, so that Answers.Save
// can insert a rule without rewriting the rest of the file. It only
// locates headers, keys and values; BurntSushi/toml does the real
// decoding, and saveRuleIn checks every edit by decoding the result.

// tomlLayout is where a TOML document's tables and keys are.
type tomlLayout struct {
	headers []header
	keyvals []keyval
}

// header is a [table] or [[array]] line.
type header struct {
	start, lineEnd int // offsets of '[' and just past the line's newline
	key            []string
	array          bool
}

// keyval is a key = value line.
type keyval struct {
	section          int // index of the header above it; -1 for the root table
	key              []string
	valStart, valEnd int
	start, lineEnd   int
}

// arrayValue is where an array's brackets, elements and commas are.
type arrayValue struct {
	open, close   int      // offsets of '[' and ']'
	elems         [][2]int // start and end of each element
	trailingComma bool     // a comma follows the last element
	commaAt       int      // offset of that comma
}

type scanner struct {
	s string
	i int
}

func (sc *scanner) fail(msg string) error {
	return fmt.Errorf("toml: offset %d: %s", sc.i, msg)
}

func (sc *scanner) more() bool { return sc.i < len(sc.s) }

func (sc *scanner) skipSpace() {
	for sc.more() && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

func (sc *scanner) skipComment() {
	if sc.more() && sc.s[sc.i] == '#' {
		for sc.more() && sc.s[sc.i] != '\n' {
			sc.i++
		}
	}
}

// skipBlank skips spaces, newlines and comments, as allowed inside arrays.
func (sc *scanner) skipBlank() {
	for sc.more() {
		switch sc.s[sc.i] {
		case ' ', '\t', '\r', '\n':
			sc.i++
		case '#':
			sc.skipComment()
		default:
			return
		}
	}
}

// endLine consumes the rest of a line: spaces, a comment, the newline.
func (sc *scanner) endLine() error {
	sc.skipSpace()
	sc.skipComment()
	if !sc.more() {
		return nil
	}
	if strings.HasPrefix(sc.s[sc.i:], "\r\n") {
		sc.i += 2
		return nil
	}
	if sc.s[sc.i] == '\n' {
		sc.i++
		return nil
	}
	return sc.fail("expected the end of the line")
}

func scanTOML(src string) (*tomlLayout, error) {
	sc := &scanner{s: src}
	doc := &tomlLayout{}
	for {
		sc.skipSpace()
		if !sc.more() {
			return doc, nil
		}
		switch c := sc.s[sc.i]; c {
		case '\n', '\r':
			sc.i++
		case '#':
			sc.skipComment()
		case '[':
			h := header{start: sc.i, array: strings.HasPrefix(sc.s[sc.i:], "[[")}
			sc.i++
			if h.array {
				sc.i++
			}
			key, err := sc.key()
			if err != nil {
				return nil, err
			}
			closing := "]"
			if h.array {
				closing = "]]"
			}
			if !strings.HasPrefix(sc.s[sc.i:], closing) {
				return nil, sc.fail("unterminated table header")
			}
			sc.i += len(closing)
			if err := sc.endLine(); err != nil {
				return nil, err
			}
			h.key, h.lineEnd = key, sc.i
			doc.headers = append(doc.headers, h)
		default:
			kv := keyval{section: len(doc.headers) - 1, start: sc.i}
			key, err := sc.key()
			if err != nil {
				return nil, err
			}
			if !sc.more() || sc.s[sc.i] != '=' {
				return nil, sc.fail("expected '='")
			}
			sc.i++
			sc.skipSpace()
			kv.valStart = sc.i
			if err := sc.value(); err != nil {
				return nil, err
			}
			kv.valEnd = sc.i
			if err := sc.endLine(); err != nil {
				return nil, err
			}
			kv.key, kv.lineEnd = key, sc.i
			doc.keyvals = append(doc.keyvals, kv)
		}
	}
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a dotted key up to what follows it ('=' or ']').
func (sc *scanner) key() ([]string, error) {
	var parts []string
	for {
		sc.skipSpace()
		if !sc.more() {
			return nil, sc.fail("expected a key")
		}
		start := sc.i
		switch sc.s[sc.i] {
		case '"':
			if strings.HasPrefix(sc.s[sc.i:], `"""`) {
				return nil, sc.fail("a key cannot be a multi-line string")
			}
			if err := sc.str(); err != nil {
				return nil, err
			}
			part, err := strconv.Unquote(sc.s[start:sc.i])
			if err != nil {
				return nil, sc.fail("bad quoted key")
			}
			parts = append(parts, part)
		case '\'':
			if err := sc.str(); err != nil {
				return nil, err
			}
			parts = append(parts, sc.s[start+1:sc.i-1])
		default:
			for sc.more() && isBare(sc.s[sc.i]) {
				sc.i++
			}
			if sc.i == start {
				return nil, sc.fail("expected a key")
			}
			parts = append(parts, sc.s[start:sc.i])
		}
		sc.skipSpace()
		if sc.more() && sc.s[sc.i] == '.' {
			sc.i++
			continue
		}
		return parts, nil
	}
}

// value skips one value.
func (sc *scanner) value() error {
	if !sc.more() {
		return sc.fail("expected a value")
	}
	switch sc.s[sc.i] {
	case '"', '\'':
		return sc.str()
	case '[':
		_, err := sc.array()
		return err
	case '{':
		sc.i++
		for {
			sc.skipBlank()
			if !sc.more() {
				return sc.fail("unterminated inline table")
			}
			if sc.s[sc.i] == '}' {
				sc.i++
				return nil
			}
			if _, err := sc.key(); err != nil {
				return err
			}
			if !sc.more() || sc.s[sc.i] != '=' {
				return sc.fail("expected '='")
			}
			sc.i++
			sc.skipSpace()
			if err := sc.value(); err != nil {
				return err
			}
			sc.skipBlank()
			if sc.more() && sc.s[sc.i] == ',' {
				sc.i++
			}
		}
	default:
		// A number, a boolean or a date: up to a delimiter, trailing
		// spaces left out (a date may hold one space).
		start := sc.i
		for sc.more() && !strings.ContainsRune(",]}#\r\n", rune(sc.s[sc.i])) {
			sc.i++
		}
		for sc.i > start && (sc.s[sc.i-1] == ' ' || sc.s[sc.i-1] == '\t') {
			sc.i--
		}
		if sc.i == start {
			return sc.fail("expected a value")
		}
		return nil
	}
}

func (sc *scanner) array() (arrayValue, error) {
	a := arrayValue{open: sc.i}
	sc.i++
	for {
		sc.skipBlank()
		if !sc.more() {
			return a, sc.fail("unterminated array")
		}
		if sc.s[sc.i] == ']' {
			a.close = sc.i
			sc.i++
			return a, nil
		}
		start := sc.i
		if err := sc.value(); err != nil {
			return a, err
		}
		a.elems = append(a.elems, [2]int{start, sc.i})
		a.trailingComma = false
		sc.skipBlank()
		if !sc.more() {
			return a, sc.fail("unterminated array")
		}
		switch sc.s[sc.i] {
		case ',':
			a.trailingComma, a.commaAt = true, sc.i
			sc.i++
		case ']':
			a.close = sc.i
			sc.i++
			return a, nil
		default:
			return a, sc.fail("expected ',' or ']' in an array")
		}
	}
}

// str skips a string of any of the four kinds.
func (sc *scanner) str() error {
	q := sc.s[sc.i]
	escapes := q == '"'
	if delim := strings.Repeat(string(q), 3); strings.HasPrefix(sc.s[sc.i:], delim) {
		sc.i += 3
		for sc.more() {
			if escapes && sc.s[sc.i] == '\\' {
				sc.i += 2
				continue
			}
			if strings.HasPrefix(sc.s[sc.i:], delim) {
				sc.i += 3
				// Up to two quotes may end the content right before the
				// delimiter.
				for k := 0; k < 2 && sc.more() && sc.s[sc.i] == q; k++ {
					sc.i++
				}
				return nil
			}
			sc.i++
		}
		return sc.fail("unterminated multi-line string")
	}
	sc.i++
	for sc.more() && sc.s[sc.i] != '\n' {
		if escapes && sc.s[sc.i] == '\\' {
			sc.i += 2
			continue
		}
		if sc.s[sc.i] == q {
			sc.i++
			return nil
		}
		sc.i++
	}
	return sc.fail("unterminated string")
}
