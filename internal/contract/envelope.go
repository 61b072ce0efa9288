package contract

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// Envelope carries one event with its place in a session. It is written as
// one JSON line:
//
//	{"seq":N,"id":"…","time":"…","session":"…","run":"…","turn":N,"type":"…","cause":"…","data":{…}}
//
// Seq is dense and increasing over a session's durable events, starting at
// 1; deltas have Seq 0 and are never stored. Type always equals
// Data.EventType(). An Envelope is a value; its Data must not be modified
// once the envelope has been appended to a log.
type Envelope struct {
	Seq     uint64
	ID      string
	Time    time.Time
	Session string
	Run     string
	Turn    int
	Cause   string
	Data    Event
}

// Type returns the event type, or "" when Data is nil.
func (e Envelope) Type() string {
	if e.Data == nil {
		return ""
	}
	return e.Data.EventType()
}

// Durable reports whether the envelope belongs in the durable log.
func (e Envelope) Durable() bool { return e.Data != nil && !IsDelta(e.Type()) }

// ErrNoData is the reason an envelope without an event is refused.
var ErrNoData = errors.New("envelope has no data")

// Follows reports why e cannot be stored right after the event numbered
// last, in a store of durable events numbered 1, 2, 3 and so on; nil when
// it can.
func (e Envelope) Follows(last uint64) error {
	switch {
	case e.Data == nil:
		return ErrNoData
	case !e.Durable():
		return fmt.Errorf("%s is a delta, which is never stored", e.Type())
	case e.Seq != last+1:
		return fmt.Errorf("%s has seq %d, want %d", e.Type(), e.Seq, last+1)
	}
	return nil
}

// wireEnvelope is the JSON shape of an Envelope. Field order is the order
// of DESIGN.md section 3.
type wireEnvelope struct {
	Seq     uint64          `json:"seq,omitempty"`
	ID      string          `json:"id"`
	Time    time.Time       `json:"time"`
	Session string          `json:"session"`
	Run     string          `json:"run,omitempty"`
	Turn    int             `json:"turn"`
	Type    string          `json:"type"`
	Cause   string          `json:"cause,omitempty"`
	Data    json.RawMessage `json:"data"`
}

// MarshalJSON writes the envelope in its wire shape, as one line without a
// trailing newline. Unlike json.Marshal it leaves '<', '>' and '&' as they
// are, so that a logged "go test && go vet" reads as such; call it directly
// (json.Marshal of an Envelope would escape them again).
func (e Envelope) MarshalJSON() ([]byte, error) {
	if e.Data == nil {
		return nil, errors.New("contract: marshal envelope: no data")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.Data); err != nil {
		return nil, fmt.Errorf("contract: marshal %s data: %w", e.Type(), err)
	}
	data := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var out bytes.Buffer
	out.Grow(len(data) + 256)
	enc = json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	err := enc.Encode(wireEnvelope{
		Seq: e.Seq, ID: e.ID, Time: e.Time, Session: e.Session, Run: e.Run,
		Turn: e.Turn, Type: e.Type(), Cause: e.Cause, Data: data,
	})
	if err != nil {
		return nil, fmt.Errorf("contract: marshal %s envelope: %w", e.Type(), err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads an envelope. An event type this version does not know
// becomes an [*Unknown] that keeps its data verbatim; a known type whose
// data does not decode is an error. The envelope never refers to b's
// memory: b may be reused once UnmarshalJSON returns.
//
// Lines as MarshalJSON writes them take a fast path that reads the
// envelope without reflection (see decodeFast); anything unusual goes
// through encoding/json, which decides. The result is the same either way.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	if env, ok := decodeFast(nil, b); ok {
		*e = env
		return nil
	}
	env, err := decodeSlow(b)
	if err != nil {
		return err
	}
	*e = env
	return nil
}

// decodeSlow decodes an envelope with encoding/json. It is the reference
// that decodeFast must agree with.
func decodeSlow(b []byte) (Envelope, error) {
	var w wireEnvelope
	if err := json.Unmarshal(b, &w); err != nil {
		return Envelope{}, fmt.Errorf("contract: decode envelope: %w", err)
	}
	if w.Type == "" {
		return Envelope{}, errors.New("contract: decode envelope: no type")
	}
	ev := newEvent(w.Type)
	switch {
	case ev == nil:
		ev = unknown(w.Type, w.Data)
	case !isNull(w.Data):
		if err := json.Unmarshal(w.Data, ev); err != nil {
			return Envelope{}, fmt.Errorf("contract: decode %s data: %w", w.Type, err)
		}
	}
	return Envelope{
		Seq: w.Seq, ID: w.ID, Time: w.Time, Session: w.Session, Run: w.Run,
		Turn: w.Turn, Cause: w.Cause, Data: ev,
	}, nil
}

// isNull reports whether the data of an envelope is null or missing.
func isNull(data []byte) bool { return len(data) == 0 || bytes.Equal(data, []byte("null")) }

// unknown returns the event of a type this version does not know, keeping
// a copy of its data unless that is null or missing.
func unknown(typ string, data []byte) *Unknown {
	if isNull(data) {
		return &Unknown{Type: typ}
	}
	return &Unknown{Type: typ, Data: bytes.Clone(data)}
}

// The keys of the wire envelope, as bits of the set decodeFast has seen.
const (
	keySeq = 1 << iota
	keyID
	keyTime
	keySession
	keyRun
	keyTurn
	keyType
	keyCause
	keyData
)

// decodeFast decodes the envelope lines MarshalJSON writes without
// reflection, making their strings with in (which may be nil): an object of the wire envelope's keys, spelled exactly, each
// at most once, data last (the other keys in any order), with JSON
// whitespace anywhere between tokens; strings without escapes or control
// characters, in valid UTF-8; seq and turn plain decimal integers in
// range; a time in the RFC 3339 shape MarshalJSON writes. The data is the
// text from its first byte to the object's closing brace, which must be
// the last one of the line: it is decoded by decodeData, which gives what
// json.Unmarshal gives as decodeSlow does, and checks that it is one whole
// JSON value (for a type this version does not know, json.Valid checks
// it).
//
// It reports false on anything else, and whenever it might disagree with
// decodeSlow (an error included): the caller then falls back to
// decodeSlow, so the fast path never changes a result. The differential
// fuzz test FuzzEnvelopeFast holds it to that.
func decodeFast(in *interner, b []byte) (Envelope, bool) {
	env, typ, data, ok := scanEnvelope(in, b)
	if !ok || len(typ) == 0 {
		return Envelope{}, false
	}
	// Known types make no copy of typ: the conversion does not escape.
	env.Data = newEvent(string(typ))
	switch {
	case env.Data == nil:
		if !isNull(data) && !json.Valid(data) {
			return Envelope{}, false
		}
		env.Data = unknown(string(typ), data)
	case !isNull(data):
		if env.Data = decodeData(in, env.Data, data); env.Data == nil {
			return Envelope{}, false
		}
	}
	return env, true
}

// scanEnvelope reads the envelope line b for decodeFast: every field but
// the data, and the text of the type and of the data (nil if missing).
// Its strings are made with in, which may be nil.
func scanEnvelope(in *interner, b []byte) (env Envelope, typ, data []byte, ok bool) {
	s := scanner{b: b, in: in}
	if !s.byte('{') {
		return Envelope{}, nil, nil, false
	}
	seen := 0
	for data == nil {
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return Envelope{}, nil, nil, false
		}
		k := keyBit(key)
		if k == 0 || seen&k != 0 {
			return Envelope{}, nil, nil, false
		}
		seen |= k
		switch k {
		case keySeq:
			env.Seq, ok = s.uint(math.MaxUint64)
		case keyTurn:
			var turn uint64
			turn, ok = s.uint(math.MaxInt)
			env.Turn = int(turn)
		case keyTime:
			env.Time, ok = parseTime(s.str())
		case keyType:
			typ, ok = s.str()
		case keyData:
			data, ok = s.rest()
		case keyID:
			// An id is new on every line: it is not looked for among
			// the strings made before.
			var v []byte
			v, ok = s.str()
			env.ID = string(v)
		case keySession:
			env.Session, ok = s.text()
		case keyRun:
			env.Run, ok = s.text()
		case keyCause:
			var v []byte
			v, ok = s.str()
			env.Cause = s.in.cause(v)
		}
		if !ok {
			return Envelope{}, nil, nil, false
		}
		if data == nil && !s.byte(',') {
			// The end of an envelope without data.
			return env, typ, nil, s.byte('}') && s.end()
		}
	}
	return env, typ, data, true
}

// keyBit returns the bit of an envelope key spelled exactly, or 0.
func keyBit(key []byte) int {
	switch string(key) {
	case "seq":
		return keySeq
	case "id":
		return keyID
	case "time":
		return keyTime
	case "session":
		return keySession
	case "run":
		return keyRun
	case "turn":
		return keyTurn
	case "type":
		return keyType
	case "cause":
		return keyCause
	case "data":
		return keyData
	}
	return 0
}

// parseTime parses the text of a JSON time string as time.Time's
// UnmarshalJSON would, for the shape of RFC 3339 it can vouch for (ok
// false, meaning the string was not read, passes through):
// "2006-01-02T15:04:05", an optional fraction of at least one digit, and
// "Z" or a numeric offset whose hours and minutes are in range. In that
// shape time.Parse and UnmarshalJSON both succeed through the same RFC 3339
// parser or both fail; see time/format_rfc3339.go.
func parseTime(v []byte, ok bool) (time.Time, bool) {
	const shape = "dddd-dd-ddTdd:dd:dd"
	if !ok || len(v) < len(shape)+1 {
		return time.Time{}, false
	}
	for i := range len(shape) {
		if c := v[i]; shape[i] == 'd' && !isDigit(c) || shape[i] != 'd' && c != shape[i] {
			return time.Time{}, false
		}
	}
	rest := v[len(shape):]
	if rest[0] == '.' {
		n := 1
		for n < len(rest) && isDigit(rest[n]) {
			n++
		}
		if n == 1 {
			return time.Time{}, false
		}
		rest = rest[n:]
	}
	switch {
	case len(rest) == 1 && rest[0] == 'Z':
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
		isDigit(rest[1]) && isDigit(rest[2]) && isDigit(rest[4]) && isDigit(rest[5]) &&
		(rest[1]-'0')*10+rest[2]-'0' < 24 && rest[4] < '6':
	default:
		return time.Time{}, false
	}
	if len(rest) == 1 {
		return parseUTC(v)
	}
	t, err := time.Parse(time.RFC3339Nano, string(v))
	return t, err == nil
}

// parseUTC parses v, a time in the shape parseTime checked that ends in
// "Z", as time.Parse does (its RFC 3339 parser): the same ranges (a day
// in its month), the fraction's first nine digits, the location UTC.
// It makes no string of v and takes a tenth of the time.
func parseUTC(v []byte) (time.Time, bool) {
	num := func(b []byte) int {
		n := 0
		for _, c := range b {
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(v[0:4]), num(v[5:7]), num(v[8:10])
	hour, minute, sec := num(v[11:13]), num(v[14:16]), num(v[17:19])
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := v[19 : len(v)-1]; len(frac) > 0 { // ".ddd", checked by parseTime
		digits := frac[1:min(len(frac), 10)]
		nsec = num(digits)
		for range 9 - len(digits) {
			nsec *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn returns the number of days of month (1 to 12) in year.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanner reads the tokens of an envelope line for decodeFast, and those of
// its data for scanData (data.go). Each method skips the JSON whitespace
// before its token, and reports false when the token is not there or not
// of the plain kind the fast path takes.
type scanner struct {
	b  []byte
	i  int
	in *interner // makes the strings; nil makes each anew
}

// skip skips JSON whitespace.
func (s *scanner) skip() {
	b, i := s.b, s.i
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	s.i = i
}

// isSpace reports whether c is JSON whitespace. Most bytes are above the
// space, which one comparison tells.
func isSpace(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r') }

// trimSpace returns b without the JSON whitespace at its end.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// byte consumes c if it comes next.
func (s *scanner) byte(c byte) bool {
	s.skip()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.skip()
	return s.i == len(s.b)
}

// str reads a string without escapes or control characters and returns
// its text, which is valid UTF-8.
func (s *scanner) str() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	b, start, i := s.b, s.i, s.i
	for i+8 <= len(b) && plain8(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) && plainASCII[b[i]] {
		i++
	}
	s.i = i
	if i < len(b) && b[i] == '"' {
		s.i++
		return b[start:i], true
	}
	// Not plain ASCII: valid UTF-8 is fine, escapes and control
	// characters are not.
	n := bytes.IndexByte(s.b[s.i:], '"')
	if n < 0 {
		return nil, false
	}
	v := s.b[start : s.i+n]
	s.i += n + 1
	for _, c := range v {
		if c < 0x20 || c == '\\' {
			return nil, false
		}
	}
	return v, utf8.Valid(v)
}

// text reads a string as str does and returns a copy of its text.
func (s *scanner) text() (string, bool) {
	v, ok := s.str()
	return s.in.string(v), ok
}

// plainASCII tells the bytes a string may hold on the fast path without a
// closer look: printable ASCII but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plain8 reports whether the eight bytes of w are all plainASCII: none
// below 0x20, none from 0x80 on, no quote, no backslash. Each test is the
// classic one for "some byte is less than n" (a byte that is borrows from
// its top bit; a byte that is not never borrows, so there is no false
// alarm when none is).
func plain8(w uint64) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	less := func(x uint64, n uint64) uint64 { return (x - ones*n) &^ x }
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	return (w|less(w, 0x20)|less(quote, 1)|less(backslash, 1))&tops == 0
}

// uint reads a plain decimal integer no greater than limit: no sign, no
// fraction, no exponent, no leading zero.
func (s *scanner) uint(limit uint64) (uint64, bool) {
	s.skip()
	start := s.i
	var n uint64
	for ; s.i < len(s.b) && isDigit(s.b[s.i]); s.i++ {
		d := uint64(s.b[s.i] - '0')
		if n > (limit-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	digits := s.i - start
	if digits == 0 || digits > 1 && s.b[start] == '0' {
		return 0, false
	}
	if s.i < len(s.b) {
		if c := s.b[s.i]; c == '.' || c == 'e' || c == 'E' {
			return 0, false
		}
	}
	return n, true
}

// rest returns the text from the next token to the last closing brace of
// the line, without the whitespace before that brace, and moves to the
// end of the line. Only whitespace may follow the brace. The text is not
// empty; nothing else is checked.
func (s *scanner) rest() ([]byte, bool) {
	s.skip()
	end := len(trimSpace(s.b)) - 1
	if end < s.i || s.b[end] != '}' {
		return nil, false
	}
	v := trimSpace(s.b[s.i:end])
	s.i = len(s.b)
	return v, len(v) > 0
}
