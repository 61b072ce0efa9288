package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/rein-agent/rein/internal/contract"
)

// strictJSON checks b as a strict parser (jq, Python's json, a browser's
// JSON.parse) does: one value by the grammar of RFC 8259, every string
// valid UTF-8 without control characters, and every \u escape of a UTF-16
// surrogate part of a pair, a high one followed by a low one. Go's
// encoding/json accepts more: invalid UTF-8 and lone surrogates, which it
// decodes to U+FFFD.
func strictJSON(b []byte) error {
	p := strictParser{b: b}
	p.space()
	if err := p.value(0); err != nil {
		return err
	}
	p.space()
	if p.i != len(b) {
		return p.fail("text after the value")
	}
	return nil
}

type strictParser struct {
	b []byte
	i int
}

func (p *strictParser) fail(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *strictParser) space() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

func (p *strictParser) value(depth int) error {
	if depth > 10000 {
		return p.fail("nested too deep")
	}
	if p.i >= len(p.b) {
		return p.fail("want a value, got the end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.b[p.i:], []byte(lit)) {
			p.i += len(lit)
			return nil
		}
	}
	return p.fail("want a value, got %q", p.b[p.i])
}

func (p *strictParser) object(depth int) error {
	return p.list('}', func() error {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return p.fail("want a key")
		}
		if err := p.string(); err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return p.fail("want ':'")
		}
		p.i++
		p.space()
		return p.value(depth + 1)
	})
}

func (p *strictParser) array(depth int) error {
	return p.list(']', func() error { return p.value(depth + 1) })
}

// list reads the members of an object or an array, from its opening
// bracket to close, separated by commas, each read by member.
func (p *strictParser) list(close byte, member func() error) error {
	p.i++
	p.space()
	if p.i < len(p.b) && p.b[p.i] == close {
		p.i++
		return nil
	}
	for {
		p.space()
		if err := member(); err != nil {
			return err
		}
		p.space()
		switch {
		case p.i >= len(p.b):
			return p.fail("want ',' or %q, got the end", close)
		case p.b[p.i] == ',':
			p.i++
		case p.b[p.i] == close:
			p.i++
			return nil
		default:
			return p.fail("want ',' or %q", close)
		}
	}
}

func (p *strictParser) string() error {
	p.i++ // the opening quote
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return nil
		case c < 0x20:
			return p.fail("control character %#x in a string", c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				return p.fail("invalid UTF-8")
			}
			p.i += size
		case c != '\\':
			p.i++
		case p.i+1 >= len(p.b):
			return p.fail("unterminated escape")
		case strings.IndexByte(`"\/bfnrt`, p.b[p.i+1]) >= 0:
			p.i += 2
		case p.b[p.i+1] == 'u':
			r, ok := hex4(p.b[p.i+2:])
			switch {
			case !ok:
				return p.fail("bad \\u escape")
			case r >= 0xdc00 && r <= 0xdfff:
				return p.fail("lone low surrogate %U", r)
			case r >= 0xd800 && r <= 0xdbff:
				if !bytes.HasPrefix(p.b[p.i+6:], []byte(`\u`)) || !isLowSurrogate(p.b[p.i+8:]) {
					return p.fail("lone high surrogate %U", r)
				}
				p.i += 12
			default:
				p.i += 6
			}
		default:
			return p.fail("bad escape \\%c", p.b[p.i+1])
		}
	}
	return p.fail("unterminated string")
}

func (p *strictParser) number() error {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return p.fail("bad number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.fail("bad fraction in %q", p.b[start:p.i])
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.fail("bad exponent in %q", p.b[start:p.i])
		}
	}
	return nil
}

// The oracle agrees with what it is for: it refuses what jq refuses.
func TestStrictJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[1,-2.5e+3,true,false,null,"x"]}`, `"\ud83d\ude00"`, `"\\ud800"`, `"\u00e9é"`, ` 0 `,
		`"\"\\\/\b\f\n\r\t"`,
	} {
		if err := strictJSON([]byte(s)); err != nil {
			t.Errorf("strictJSON(%s) = %v, want nil", s, err)
		}
	}
	for _, s := range []string{
		`"\ud800"`, `"\udc00"`, `"\udc00\ud800"`, `"\ud800\u0041"`, `"\uD800x"`, "\"\xff\"", "\"\xed\xa0\x80\"",
		"\"\x01\"", `{"a":1,}`, `[1 2]`, `01`, `1.`, `"\x"`, `{"a"}`, `"`, `tru`, `{} {}`,
	} {
		if err := strictJSON([]byte(s)); err == nil {
			t.Errorf("strictJSON(%q) = nil, want an error", s)
		}
	}
}

func TestCleanLine(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"lone high", `"\ud800"`, `"\ufffd"`},
		{"lone low", `"\udc00"`, `"\ufffd"`},
		{"low then high", `"\udc00\ud800"`, `"\ufffd\ufffd"`},
		{"upper case", `"a\uD800b"`, `"a\ufffdb"`},
		{"high then not a low", `"\ud800\u0041"`, `"\ufffd\u0041"`},
		{"high then high", `"\ud800\ud800"`, `"\ufffd\ufffd"`},
		{"high then a pair", `"\ud800\ud83d\ude00"`, `"\ufffd\ud83d\ude00"`},
		{"high at the end", `["\ud800"]`, `["\ufffd"]`},
		{"a pair", `"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{"an escaped backslash", `"\\ud800"`, `"\\ud800"`},
		{"an escaped backslash, then an escape", `"\\\ud800"`, `"\\\ufffd"`},
		{"an escaped quote", `"\"\ud800"`, `"\"\ufffd"`},
		{"other escapes", `"\u00e9\n\t\u2028"`, `"\u00e9\n\t\u2028"`},
		{"invalid byte", "\"a\xffb\"", "\"a\uFFFDb\""},
		{"a surrogate in UTF-8", "\"\xed\xa0\x80\"", "\"\uFFFD\uFFFD\uFFFD\""},
		{"truncated rune", "\"é\xc3\"", "\"é\uFFFD\""},
		{"valid UTF-8", `"é€😀"`, `"é€😀"`},
		{"both", "{\"a\":\"\\ud800\xff\",\"b\":\"\\ud83d\\ude00\"}", "{\"a\":\"\\ufffd\uFFFD\",\"b\":\"\\ud83d\\ude00\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			got := contract.CleanJSON(in)
			if string(got) != tc.want {
				t.Errorf("contract.CleanJSON(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if err := strictJSON(got); err != nil {
				t.Errorf("contract.CleanJSON(%s) = %s: %v", tc.in, got, err)
			}
			if tc.in == tc.want && &got[0] != &in[0] {
				t.Errorf("contract.CleanJSON(%s) copied a line it did not change", tc.in)
			}
			if d := decodedDiff(in, got); d != "" {
				t.Error(d)
			}
		})
	}
}

// decodedDiff says how encoding/json reads was and is differently, or ""
// when it reads them the same: cleaning changes nothing it would see.
func decodedDiff(was, is []byte) string {
	var a, b any
	// Numbers are compared as written: 1E700 is valid JSON that no float
	// holds.
	decode := func(data []byte, v *any) error {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		return d.Decode(v)
	}
	errA, errB := decode(was, &a), decode(is, &b)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("encoding/json reads %q as %#v (%v), but %q as %#v (%v)", was, a, errA, is, b, errB)
	}
	return ""
}

// intent returns a tool_intent.proposed envelope whose input is the raw
// JSON input, as an assembler hands it over.
func intent(input string) contract.Envelope {
	return contract.Envelope{
		ID: "ev-intent", Time: t0, Session: "s1", Run: "r1", Turn: 1,
		Data: &contract.IntentProposed{ToolIntent: contract.ToolIntent{
			ID: "int_1", ToolName: "bash", Input: json.RawMessage(input), RawInput: input,
			Provider: contract.ProviderRef{Name: "scripted"},
		}},
	}
}

// A model may send any escape in a tool's arguments; what the log holds
// is read by jq and other strict parsers all the same.
func TestLogLinesAreStrictJSON(t *testing.T) {
	inputs := []string{
		`{"command":"echo \ud800"}`,
		`{"command":"\udc00\ud800"}`,
		`{"command":"\ud83d\ude00"}`,
		`{"command":"\\ud800"}`,
		"{\"command\":\"echo \xff\xfe\"}",
		`{"command":"echo ok"}`,
	}
	dir := t.TempDir()
	s := mustOpen(t, dir, &FileOptions{Secrets: []string{"sk-secret-1234"}})
	for i, in := range inputs {
		if _, err := s.Append(withSeq(intent(in), uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	text := durable("bad \xff and sk-secret-1234")
	text.ID = "ev-text" // the envelope's own fields are not redacted
	if _, err := s.Append(withSeq(text, uint64(len(inputs)+1))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	file := readFile(t, dir)
	lines := bytes.Split(bytes.TrimSuffix(file, []byte("\n")), []byte("\n"))
	if len(lines) != len(inputs)+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(inputs)+1, file)
	}
	for i, l := range lines {
		if err := strictJSON(l); err != nil {
			t.Errorf("line %d is not strict JSON: %v\n%s", i+1, err, l)
		}
	}
	if !bytes.Contains(lines[2], []byte(`"\ud83d\ude00"`)) || !bytes.Contains(lines[3], []byte(`"\\ud800"`)) {
		t.Errorf("a pair or an escaped backslash was changed:\n%s\n%s", lines[2], lines[3])
	}
	if bytes.Contains(file, []byte("sk-secret-1234")) {
		t.Errorf("the secret was written:\n%s", file)
	}
	got := collect(t, mustOpen(t, dir, &FileOptions{ReadOnly: true}).Events(1))
	for i, want := range []string{"echo \uFFFD", "\uFFFD\uFFFD", "😀", `\ud800`, "echo \uFFFD\uFFFD", "echo ok"} {
		var in struct{ Command string }
		if err := json.Unmarshal(got[i].Data.(*contract.IntentProposed).Input, &in); err != nil || in.Command != want {
			t.Errorf("input %d read back as %q (%v), want %q", i+1, in.Command, err, want)
		}
	}
}

// FuzzWriterLinesAreStrictJSON appends a tool intent whose input is
// arbitrary bytes (as a json.RawMessage: the encoder checks only its
// syntax) and whose raw text is an arbitrary string. Every line the file
// store writes must be strict JSON, valid UTF-8 with no lone surrogate
// escape; encoding/json must read it as it reads the unclean line; no
// secret may be left in it; and a line that was clean already is written
// byte for byte as encoded.
func FuzzWriterLinesAreStrictJSON(f *testing.F) {
	for _, s := range []string{
		`{"command":"\ud800"}`, `"\ud800"`, `"\udc00\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"\\\ud800"`,
		"\"\xff\xfe\"", "{\"a\":\"\xed\xa0\x80\"}", `["\uD800\u0041", "\ud800\ud83d\ude00"]`,
		`{"command":"export KEY=sk-ant-secret-42"}`, `"sk-ant-\ud800secret-42"`, "\"abc\xffdefgh\"",
		`"\nfoo-secret"`, `{"x":"1234567","y":12345678}`, `null`, `{}`, ``, `{`, `"\u`,
		`{"":1E700}`, // valid JSON no float holds: found by fuzzing
	} {
		f.Add([]byte(s), s)
	}
	// Secrets, among them one holding U+FFFD, which an invalid byte turns
	// into, and one holding a backslash.
	secrets := []string{"sk-ant-secret-42", "abc\uFFFDdefgh", `back\slash`, "foo-secret"}
	s := mustOpen(f, f.TempDir(), &FileOptions{Secrets: secrets})
	encoded := NewRedactor(secrets).encoded
	f.Fuzz(func(t *testing.T, input []byte, text string) {
		env := withSeq(intent(string(input)), s.LastSeq()+1)
		env.Data.(*contract.IntentProposed).RawInput = text
		marshalled, merr := env.MarshalJSON()
		off := s.size
		stored, err := s.Append(env)
		if err != nil {
			if merr == nil && !errors.Is(err, errUnredactable) {
				t.Fatalf("Append() = %v for an envelope that encodes", err)
			}
			if s.err != nil || s.size != off {
				t.Fatalf("a refused line broke the store or was written: %v", s.err)
			}
			return
		}
		if err := s.w.Flush(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, s.size-off)
		if _, err := s.f.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
		line, ok := bytes.CutSuffix(buf, []byte("\n"))
		if !ok || bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("not one line: %q", buf)
		}
		if !utf8.Valid(line) {
			t.Errorf("line is not valid UTF-8: %q", line)
		}
		if err := strictJSON(line); err != nil {
			t.Errorf("line is not strict JSON: %v\n%q", err, line)
		}
		var back contract.Envelope
		if err := back.UnmarshalJSON(line); err != nil {
			t.Errorf("line does not decode: %v\n%q", err, line)
		}
		if !bytes.Equal(line, marshalled) {
			// The log publishes what it wrote, not what it was given.
			if d := cmp.Diff(back, stored); d != "" {
				t.Errorf("Append() returned what the line does not say (-line +returned):\n%s", d)
			}
		}
		for _, secret := range encoded {
			for i := 0; ; i++ {
				k := bytes.Index(line[i:], secret)
				if k < 0 {
					break
				}
				if i += k; !escaped(line, i) {
					t.Errorf("line holds the secret %q:\n%q", secret, line)
					break
				}
			}
		}
		if !bytes.Contains(line, []byte(redacted)) {
			if d := decodedDiff(marshalled, line); d != "" {
				t.Error(d)
			}
			if strictJSON(marshalled) == nil && !bytes.Equal(line, marshalled) {
				t.Errorf("a clean line was changed:\n%q\n%q", marshalled, line)
			}
		}
	})
}

// BenchmarkCleanLine measures what cleaning adds to each line the writer
// encodes: the check of a clean line (the common case: a model's text, a
// tool's 8 KiB output) and the rewrite of one holding a lone surrogate.
func BenchmarkCleanLine(b *testing.B) {
	for _, bc := range []struct {
		name string
		env  contract.Envelope
	}{
		{"text", numbered(2)},
		{"output-8KiB", contract.Envelope{ID: "ev-o", Time: t0, Session: "s1", Data: &contract.ToolObservation{
			Observation: contract.Observation{IntentID: "int_1", Phase: contract.PhaseExecution, Text: testOutput(8 << 10)}}}},
		{"surrogate-8KiB", intent(`{"command":"` + strings.Repeat(`echo \ud800 \"x\"\n`, 512) + `"}`)},
	} {
		line, err := bc.env.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				contract.CleanJSON(line)
			}
		})
		b.Run(bc.name+"/marshal", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.env.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// hex4 decodes the four hex digits b starts with: the oracle's own, apart
// from the code under test.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(n), err == nil
}

// isLowSurrogate reports whether b starts with the four hex digits of a
// low surrogate.
func isLowSurrogate(b []byte) bool {
	r, ok := hex4(b)
	return ok && r >= 0xdc00 && r <= 0xdfff
}
