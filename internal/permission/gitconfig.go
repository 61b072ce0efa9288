package permission

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// gitConfigMax bounds the size of a git configuration file the policy
// reads: a larger one is not read, and git is not taken to only read.
const gitConfigMax = 1 << 20

// gitVar is one variable of a git configuration file: its key as git
// names it (section and name in lower case, a subsection as written:
// diff.Foo.textconv becomes diff.Foo.textconv, [Diff "Foo"] TextConv
// too), its value, and whether it was given without one (a bare name,
// which git reads as true).
type gitVar struct {
	key, value string
	bare       bool
	line       int
}

// parseGitConfig reads a git configuration file as git does (git-config(1),
// "CONFIGURATION FILE"): sections [name], [name "subsection"] and the
// older [name.subsection]; variables name = value or a bare name;
// comments from # or ; outside quotes; values with quotes, the escapes
// \" \\ \n \t \b and a backslash before the end of a line to continue it.
// Anything else (a line git would refuse, a NUL byte) is an error: what
// the policy cannot read, it does not trust.
func parseGitConfig(b []byte) ([]gitVar, error) {
	if len(b) > gitConfigMax {
		return nil, fmt.Errorf("larger than %d bytes", gitConfigMax)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, errors.New("holds a NUL byte")
	}
	r := &configReader{b: bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), line: 1}
	var out []gitVar
	section := ""
	for {
		c, ok := r.next()
		switch {
		case !ok:
			return out, nil
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
		case c == '#' || c == ';':
			r.skipLine()
		case c == '[':
			s, err := r.header()
			if err != nil {
				return nil, r.errorf("%v", err)
			}
			section = s
		case isAlpha(c):
			if section == "" {
				return nil, r.errorf("a variable before any section")
			}
			v, err := r.variable(c)
			if err != nil {
				return nil, r.errorf("%v", err)
			}
			v.key = section + "." + v.key
			out = append(out, v)
		default:
			return nil, r.errorf("unexpected %q", c)
		}
	}
}

type configReader struct {
	b    []byte
	i    int
	line int
}

func (r *configReader) next() (byte, bool) {
	if r.i >= len(r.b) {
		return 0, false
	}
	c := r.b[r.i]
	r.i++
	if c == '\n' {
		r.line++
	}
	return c, true
}

func (r *configReader) back() {
	r.i--
	if r.b[r.i] == '\n' {
		r.line--
	}
}

func (r *configReader) skipLine() {
	for {
		if c, ok := r.next(); !ok || c == '\n' {
			return
		}
	}
}

func (r *configReader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{r.line}, args...)...)
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNameChar(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '-' }

// header reads a section header after its [: the section's name, lower
// case, with its subsection after a dot.
func (r *configReader) header() (string, error) {
	var name []byte
	for {
		c, ok := r.next()
		switch {
		case !ok:
			return "", errors.New("a section header without its ]")
		case c == ']':
			if len(name) == 0 {
				return "", errors.New("an empty section name")
			}
			// [section.subsection]: the old form, all in lower case.
			return strings.ToLower(string(name)), nil
		case c == ' ' || c == '\t':
			if len(name) == 0 || bytes.IndexByte(name, '.') >= 0 {
				return "", errors.New("a bad section header")
			}
			return r.subsection(strings.ToLower(string(name)))
		case isNameChar(c) || c == '.':
			name = append(name, c)
		default:
			return "", fmt.Errorf("%q in a section name", c)
		}
	}
}

// subsection reads [section "subsection"] after the blank that follows
// the section's name.
func (r *configReader) subsection(section string) (string, error) {
	c, ok := r.next()
	for ok && (c == ' ' || c == '\t') {
		c, ok = r.next()
	}
	if !ok || c != '"' {
		return "", errors.New("a subsection not in quotes")
	}
	var sub []byte
	for {
		c, ok := r.next()
		switch {
		case !ok || c == '\n':
			return "", errors.New("a subsection without its closing quote")
		case c == '"':
			if c, ok := r.next(); !ok || c != ']' {
				return "", errors.New("a section header without its ]")
			}
			return section + "." + string(sub), nil
		case c == '\\':
			c, ok := r.next()
			if !ok || c == '\n' {
				return "", errors.New("a subsection without its closing quote")
			}
			sub = append(sub, c)
		default:
			sub = append(sub, c)
		}
	}
}

// variable reads a variable whose name starts with first.
func (r *configReader) variable(first byte) (gitVar, error) {
	name := []byte{first}
	v := gitVar{line: r.line}
	for {
		c, ok := r.next()
		if ok && isNameChar(c) {
			name = append(name, c)
			continue
		}
		if ok {
			r.back()
		}
		break
	}
	v.key = strings.ToLower(string(name))
	for {
		c, ok := r.next()
		switch {
		case !ok || c == '\n':
			v.bare = true
			return v, nil
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '#' || c == ';':
			r.skipLine()
			v.bare = true
			return v, nil
		case c == '=':
			value, err := r.value()
			v.value = value
			return v, err
		default:
			return v, fmt.Errorf("%q after the name %s", c, name)
		}
	}
}

// value reads a variable's value after its =, to the end of its line.
func (r *configReader) value() (string, error) {
	var out []byte
	quoted := false
	spaces := 0 // blanks seen outside quotes, kept only when text follows
	for {
		c, ok := r.next()
		switch {
		case !ok || c == '\n' && !quoted:
			return string(out), nil
		case c == '\n':
			return "", errors.New("a value whose quote is not closed on its line")
		case (c == ' ' || c == '\t' || c == '\r') && !quoted:
			if len(out) > 0 {
				spaces++
			}
			continue
		case (c == '#' || c == ';') && !quoted:
			r.skipLine()
			return string(out), nil
		}
		for ; spaces > 0; spaces-- {
			out = append(out, ' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			e, ok := r.next()
			switch {
			case !ok:
				return "", errors.New("a backslash at the end of the file")
			case e == '\n':
				// The value goes on on the next line.
			case e == 'n':
				out = append(out, '\n')
			case e == 't':
				out = append(out, '\t')
			case e == 'b':
				out = append(out, '\b')
			case e == '\\' || e == '"':
				out = append(out, e)
			default:
				return "", fmt.Errorf("the bad escape \\%c", e)
			}
		default:
			out = append(out, c)
		}
	}
}
