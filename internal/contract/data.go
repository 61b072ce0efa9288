package contract

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeData decodes data, the text of the data of a known event type that
// is neither null nor missing, into ev, a fresh event of that type, and
// returns ev, or nil when data does not decode. Its strings are made with
// in, which may be nil. The events that fill logs
// are read without reflection when their data is plain (see scanData);
// anything else goes to json.Unmarshal, which decides. The result is the
// same either way: FuzzDataFast holds scanData to that.
func decodeData(in *interner, ev Event, data []byte) Event {
	if f, ok := ev.(fielder); ok {
		if scanData(in, f, data) {
			return ev
		}
		// scanData may have set some fields before it gave up, and
		// json.Unmarshal leaves alone those that data does not name.
		ev = newEvent(ev.EventType())
	}
	if json.Unmarshal(data, ev) != nil {
		return nil
	}
	return ev
}

// scanData reads data into the zero value of a type of the fast path and
// reports whether it could. It takes an object of the type's keys, spelled
// exactly, each at most once, in any order, with JSON whitespace between
// tokens and nothing after the object; each value of the kind its field
// wants: a string (escapes decoded as encoding/json does), a plain decimal
// integer in range, possibly negative (no fraction, no exponent, no
// leading zero), true or false, any valid JSON value for a
// json.RawMessage (kept verbatim), null or an array of strings for a
// []string, a string in the RFC 3339 shape parseTime takes for a
// time.Time, an object for a nested struct, an object for a pointer to a
// *SandboxSpec or a *Totals, a JSON number for a float64 or a *float64, and null or an array of objects for a []FileStamp. It reports false on anything else (a key in
// another case, a duplicate, null for anything but a slice, trailing
// bytes...), leaving the event partly set; it must then be decoded
// afresh.
//
// Whenever scanData reports true, the event is exactly what json.Unmarshal
// makes of data: absent keys leave zero values, an empty array is an empty
// slice that is not nil, and raw values are copies of their bytes.
func scanData(in *interner, f fielder, data []byte) bool {
	s := scanner{b: data, in: in}
	t := f.fields()
	return s.object(&t) && s.end()
}

// field is one key of an object as the fast path reads it: the key, and
// where its value goes: a *string, *int, *int64, *bool, *json.RawMessage,
// *[]string, *time.Time, *[]FileStamp, **SandboxSpec (an optional
// object: null takes the slow path, as it is never written), or a fielder
// for a nested object.
// Named string types are converted to *string.
type field struct {
	name string
	to   any
}

// fields lists the keys of an object in the order MarshalJSON writes them.
// Unused entries have no name.
type fields [12]field

// fielder is a struct whose JSON object the fast path can read: the event
// types that make up almost every log, and the structs they nest.
// fields returns the struct's keys, with pointers into it.
type fielder interface{ fields() fields }

func (e *UserMessage) fields() fields {
	return fields{{"text", &e.Text}, {"display", &e.Display}}
}
func (e *RunStarted) fields() fields { return fields{{"goal", &e.Goal}} }
func (e *RunFinished) fields() fields {
	return fields{{"outcome", (*string)(&e.Outcome)}, {"reason", &e.Reason}, {"usage", &e.Usage}}
}
func (t *Totals) fields() fields {
	return fields{{"input_tokens", &t.InputTokens}, {"output_tokens", &t.OutputTokens},
		{"cache_read_tokens", &t.CacheReadTokens}, {"cache_write_tokens", &t.CacheWriteTokens},
		{"reasoning_tokens", &t.ReasoningTokens}, {"calls", &t.Calls}, {"cost_usd", &t.CostUSD},
		{"unpriced_calls", &t.Unpriced}}
}
func (e *ModelRequested) fields() fields {
	return fields{{"provider", &e.Provider}, {"model", &e.Model}, {"message_count", &e.MessageCount},
		{"tool_names", &e.ToolNames}, {"estimated_input_tokens", &e.EstimatedInputTokens},
		{"input_bytes", &e.InputBytes}, {"purpose", &e.Purpose}, {"reasoning_effort", &e.ReasoningEffort}}
}
func (e *ModelStarted) fields() fields {
	return fields{{"provider", &e.Provider}, {"model", &e.Model}, {"request_id", &e.RequestID}}
}
func (e *ModelText) fields() fields      { return fields{{"text", &e.Text}} }
func (e *ModelReasoning) fields() fields { return fields{{"text", &e.Text}} }
func (e *ModelUsage) fields() fields {
	return fields{{"input_tokens", &e.InputTokens}, {"output_tokens", &e.OutputTokens},
		{"cache_read_tokens", &e.CacheReadTokens}, {"cache_write_tokens", &e.CacheWriteTokens},
		{"reasoning_tokens", &e.ReasoningTokens}, {"cost_usd", &e.CostUSD}}
}
func (e *ModelFinished) fields() fields {
	return fields{{"reason", (*string)(&e.Reason)}, {"provider_state", &e.ProviderState}}
}
func (e *ToolValidation) fields() fields {
	return fields{{"intent_id", &e.IntentID}, {"ok", &e.OK}, {"code", (*string)(&e.Code)}, {"errors", &e.Errors}}
}
func (e *ToolPermission) fields() fields {
	return fields{{"intent_id", &e.IntentID}, {"decision", (*string)(&e.Decision)}, {"by", &e.By},
		{"rule", &e.Rule}, {"reason", &e.Reason}, {"message", &e.Message}}
}
func (e *InvocationStarted) fields() fields {
	return fields{{"intent_id", &e.IntentID}, {"invocation_id", &e.InvocationID}, {"tool_name", &e.ToolName},
		{"input", &e.Input}, {"cwd", &e.Cwd}, {"timeout_ms", &e.TimeoutMS}, {"sandbox", &e.Sandbox}}
}
func (s *SandboxSpec) fields() fields {
	return fields{{"mode", &s.Mode}, {"writable", &s.Writable}, {"read_only", &s.ReadOnly},
		{"deny_read", &s.DenyRead}, {"network", &s.Network}}
}
func (e *InvocationCompleted) fields() fields {
	return fields{{"intent_id", &e.IntentID}, {"invocation_id", &e.InvocationID}, {"exit", (*string)(&e.Exit)},
		{"exit_code", &e.ExitCode}, {"duration_ms", &e.DurationMS}, {"output_bytes", &e.OutputBytes}}
}

// fields of a ToolIntent serves *IntentProposed, which embeds it.
func (in *ToolIntent) fields() fields {
	return fields{{"intent_id", &in.ID}, {"provider_call_id", &in.ProviderCallID}, {"tool_name", &in.ToolName},
		{"input", &in.Input}, {"raw_input", &in.RawInput}, {"provider", &in.Provider},
		{"assembled_from", &in.AssembledFrom}, {"origin", &in.Origin}}
}
func (p *ProviderRef) fields() fields {
	return fields{{"name", &p.Name}, {"model", &p.Model}, {"request_id", &p.RequestID}}
}
func (a *Assembly) fields() fields {
	return fields{{"fragments", &a.Fragments}, {"first_index", &a.FirstIndex}, {"last_index", &a.LastIndex},
		{"had_repair", &a.HadRepair}}
}

// fields of an Observation serves *ToolObservation, which embeds it.
func (o *Observation) fields() fields {
	return fields{{"intent_id", &o.IntentID}, {"tool_name", &o.ToolName}, {"ok", &o.OK}, {"phase", &o.Phase},
		{"code", (*string)(&o.Code)}, {"text", &o.Text}, {"truncated", &o.Truncated}, {"omitted_bytes", &o.OmittedBytes},
		{"artifact_ref", &o.ArtifactRef}, {"untrusted", &o.Untrusted}, {"files", &o.Files}}
}
func (f *FileStamp) fields() fields {
	return fields{{"path", &f.Path}, {"size", &f.Size}, {"mtime", &f.ModTime}, {"sha256", &f.SHA256},
		{"op", (*string)(&f.Op)}}
}

// index returns the index in t of the key spelled exactly, or -1. Keys
// mostly come in t's order, so it looks at hint first.
func (t *fields) index(key []byte, hint int) int {
	if len(key) == 0 {
		return -1
	}
	if hint < len(t) && t[hint].name == string(key) {
		return hint
	}
	for i := range t {
		if t[i].name == string(key) {
			return i
		}
	}
	return -1
}

// object reads an object of t's keys into the places t names, each key at
// most once.
func (s *scanner) object(t *fields) bool {
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	var seen uint16
	for next := 0; ; {
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return false
		}
		i := t.index(key, next)
		if i < 0 || seen&(1<<i) != 0 || !s.value(t[i].to) {
			return false
		}
		seen |= 1 << i
		next = i + 1
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// value reads the value of one key into to.
func (s *scanner) value(to any) bool {
	ok := false
	switch p := to.(type) {
	case *string:
		*p, ok = s.quoted()
	case *int:
		var n int64
		n, ok = s.int(math.MaxInt)
		*p = int(n)
	case *int64:
		*p, ok = s.int(math.MaxInt64)
	case *bool:
		if ok = s.word("true"); ok {
			*p = true
		} else {
			ok = s.word("false")
		}
	case *json.RawMessage:
		*p, ok = s.raw()
	case *[]string:
		*p, ok = s.list()
	case *time.Time:
		*p, ok = parseTime(s.str())
	case *[]FileStamp:
		*p, ok = objects[FileStamp](s)
	case **SandboxSpec:
		v := new(SandboxSpec)
		t := v.fields()
		*p, ok = v, s.object(&t)
	case **Totals:
		v := new(Totals)
		t := v.fields()
		*p, ok = v, s.object(&t)
	case *float64:
		*p, ok = s.float()
	case **float64:
		var f float64
		f, ok = s.float()
		*p = &f
	case fielder:
		t := p.fields()
		ok = s.object(&t)
	}
	return ok
}

// word consumes the literal w if it comes next.
func (s *scanner) word(w string) bool {
	s.skip()
	if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
		s.i += len(w)
		return true
	}
	return false
}

// int reads a plain decimal integer from -limit-1 to limit.
func (s *scanner) int(limit uint64) (int64, bool) {
	if !s.byte('-') {
		n, ok := s.uint(limit)
		return int64(n), ok
	}
	if s.i < len(s.b) && !isDigit(s.b[s.i]) {
		return 0, false // whitespace after the sign
	}
	n, ok := s.uint(limit + 1)
	return int64(-n), ok
}

// float reads a JSON number as encoding/json reads it into a float64:
// the number's text, checked against JSON's grammar, parsed by strconv.
func (s *scanner) float() (float64, bool) {
	s.skip()
	start := s.i
	s.byte('-')
	if s.i >= len(s.b) || !isDigit(s.b[s.i]) {
		return 0, false
	}
	if s.b[s.i] == '0' {
		s.i++
	} else {
		s.digits()
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return 0, false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	return f, err == nil
}

// digits consumes decimal digits and returns how many.
func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && isDigit(s.b[s.i]) {
		s.i++
	}
	return s.i - start
}

// quoted reads a string: plain strings as they are, others decoded as
// encoding/json does.
func (s *scanner) quoted() (string, bool) {
	s.skip()
	start := s.i
	if v, ok := s.str(); ok {
		return s.in.string(v), true
	}
	n := quotedLen(s.b[start:])
	if n < 0 {
		return "", false
	}
	s.i = start + n
	q := s.b[start:s.i]
	if v, ok := unescape(q[1 : n-1]); ok {
		return v, true
	}
	// A surrogate escape or invalid UTF-8: encoding/json knows best.
	var v string
	return v, json.Unmarshal(q, &v) == nil
}

// quotedLen returns the length of the JSON string at the start of b, its
// quotes included, or -1 if b does not start with a whole one. Nothing
// but the quotes is checked.
func quotedLen(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// unescapes maps the byte after a backslash to the byte it stands for, for
// the escapes of JSON but \u.
var unescapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescape decodes v, the text of a string between its quotes. It reports
// false for anything it cannot vouch for: invalid UTF-8 (which
// encoding/json replaces), a surrogate escape, or invalid JSON.
func unescape(v []byte) (string, bool) {
	var out strings.Builder
	out.Grow(len(v))
	from := 0 // v[from:i] is yet to be written
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case plainASCII[c]:
			i++
			continue
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(v[i:])
			if r == utf8.RuneError && n == 1 {
				return "", false
			}
			i += n
			continue
		case c != '\\' || i+1 == len(v):
			return "", false // a control character
		}
		out.Write(v[from:i])
		if e := unescapes[v[i+1]]; e != 0 {
			out.WriteByte(e)
			i += 2
		} else {
			r, ok := hex4(v[i+1:])
			if !ok || utf16.IsSurrogate(r) {
				return "", false
			}
			out.WriteRune(r)
			i += 6
		}
		from = i
	}
	out.Write(v[from:])
	return out.String(), true
}

// hex4 reads the rune of u and four hexadecimal digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 5 || b[0] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[1:5] {
		switch {
		case isDigit(c):
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// raw reads any valid JSON value and returns a copy of its text.
func (s *scanner) raw() (json.RawMessage, bool) {
	s.skip()
	start, depth := s.i, 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		if depth == 0 && (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			break
		}
		switch c {
		case '"':
			n := quotedLen(s.b[s.i:])
			if n < 0 {
				return nil, false
			}
			s.i += n
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		s.i++
	}
	v := s.b[start:s.i]
	if len(v) == 0 || !json.Valid(v) {
		return nil, false
	}
	return bytes.Clone(v), true
}

// list reads null (nil) or an array of strings. An array of plain
// strings takes two allocations: the slice, and one string that all its
// elements share.
func (s *scanner) list() ([]string, bool) {
	if s.word("null") {
		return nil, true
	}
	if !s.byte('[') {
		return nil, false
	}
	start, n := s.i, 0
	if s.array(func() bool { _, ok := s.str(); n++; return ok }) {
		if n == 0 {
			return []string{}, true
		}
		all, out := s.in.string(s.b[start:s.i]), make([]string, 0, n)
		s.i = start
		s.array(func() bool {
			v, _ := s.str()
			end := s.i - 1 - start // the closing quote
			out = append(out, all[end-len(v):end])
			return true
		})
		return out, true
	}
	s.i = start
	var out []string
	ok := s.array(func() bool {
		v, ok := s.quoted()
		out = append(out, v)
		return ok
	})
	return out, ok
}

// array reads the elements of an array whose '[' has been read, each with
// read, and its ']'.
func (s *scanner) array(read func() bool) bool {
	if s.byte(']') {
		return true
	}
	for {
		if !read() {
			return false
		}
		if s.byte(']') {
			return true
		}
		if !s.byte(',') {
			return false
		}
	}
}

// objects reads null (nil) or an array of objects, each read with the
// table of a fresh T, as json.Unmarshal fills a slice: an empty array is
// an empty slice that is not nil. A null element is left to
// encoding/json.
func objects[T any, PT interface {
	*T
	fielder
}](s *scanner) ([]T, bool) {
	if s.word("null") {
		return nil, true
	}
	if !s.byte('[') {
		return nil, false
	}
	out := []T{}
	ok := s.array(func() bool {
		var v T
		t := PT(&v).fields()
		if !s.object(&t) {
			return false
		}
		out = append(out, v)
		return true
	})
	return out, ok
}
