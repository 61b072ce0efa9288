package eventlog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// redacted is what a secret is replaced by in a line.
const redacted = "[REDACTED]"

// MinSecret is the length below which a value is not taken for a secret:
// redacting "x" or "ollama" (the keys local servers are given) would cut
// ordinary words and names out of the log, and break it.
const MinSecret = 8

// Redactor cuts secrets out of what rein records and shows: every
// occurrence of a secret of at least [MinSecret] bytes becomes
// "[REDACTED]". The file store cuts them out of each line it writes, in
// their JSON encoding; [Redactor.String] cuts them out of plain text (an
// error message, a warning), and a [StreamRedactor] out of text that
// arrives in pieces (the deltas of a model's answer), a secret split
// across pieces included. All three replace the same occurrences, so what
// is shown says what the log says.
//
// A Redactor never changes once made, and is safe for concurrent use. A
// nil *Redactor, like one made from no secrets, cuts nothing.
type Redactor struct {
	plain   []string // longest first, without repeats
	encoded [][]byte // plain as encoded in a JSON string, in the same order
}

// NewRedactor returns a redactor of secrets, ignoring those shorter than
// [MinSecret]. It keeps no reference to the slice.
func NewRedactor(secrets []string) *Redactor {
	secrets = slices.DeleteFunc(slices.Clone(secrets), func(s string) bool { return len(s) < MinSecret })
	// Longest first, so that a secret that holds a shorter one is cut out
	// whole.
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	r := &Redactor{plain: slices.Compact(secrets)}
	for _, secret := range r.plain {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		// Encoding a string cannot fail.
		_ = enc.Encode(secret)
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		r.encoded = append(r.encoded, b[1:len(b)-1])
	}
	return r
}

// empty reports whether r cuts nothing.
func (r *Redactor) empty() bool { return r == nil || len(r.plain) == 0 }

// String returns s with every secret replaced by "[REDACTED]". When s
// holds none it returns s itself, without allocating.
func (r *Redactor) String(s string) string {
	s, _ = r.cut(s)
	return s
}

// cut is String, and reports whether it replaced anything.
func (r *Redactor) cut(s string) (string, bool) {
	if r.empty() {
		return s, false
	}
	cut := false
	for _, secret := range r.plain {
		if strings.Contains(s, secret) {
			s, cut = strings.ReplaceAll(s, secret, redacted), true
		}
	}
	return s, cut
}

// held returns the length of the longest tail of s that is the start of a
// secret (but not a whole one): the bytes a stream must hold back, since
// the next piece may complete the secret.
func (r *Redactor) held(s string) int {
	longest := 0
	for _, secret := range r.plain {
		// Only a tail longer than the longest found so far matters, and a
		// tail as long as the secret would be the secret itself.
		for i := len(s) - min(len(secret)-1, len(s)); i < len(s)-longest; i++ {
			k := strings.IndexByte(s[i:len(s)-longest], secret[0])
			if k < 0 {
				break
			}
			i += k
			if strings.HasPrefix(secret, s[i:]) {
				longest = len(s) - i
				break
			}
		}
	}
	return longest
}

// errUnredactable is why a line is refused when replacing a secret in it
// would break its JSON: the secret matched outside a string, which only a
// secret that looks like JSON syntax (true, 1,) can do.
var errUnredactable = errors.New("a secret matches outside a JSON string and cannot be redacted; refusing to write it")

// line replaces every occurrence of the encoded secrets in the encoded
// line b, from its byte from on, by [redacted], and reports whether it
// replaced any. An occurrence that starts right after an escaping
// backslash is left alone: the text there is not the secret (in "\nab",
// the secret "nab" does not occur). If a replacement would leave b not
// valid JSON, line fails.
func (r *Redactor) line(b []byte, from int) ([]byte, bool, error) {
	if r.empty() {
		return b, false, nil
	}
	changed := false
	for _, secret := range r.encoded {
		if !bytes.Contains(b[from:], secret) {
			continue
		}
		var out []byte
		last := 0
		for i := from; ; {
			k := bytes.Index(b[i:], secret)
			if k < 0 {
				break
			}
			k += i
			i = k + 1
			if escaped(b, k) {
				continue
			}
			out = append(append(out, b[last:k]...), redacted...)
			last = k + len(secret)
			i = last
		}
		if out != nil {
			b, changed = append(out, b[last:]...), true
		}
	}
	if changed && !json.Valid(b) {
		return nil, false, errUnredactable
	}
	return b, changed, nil
}

// escaped reports whether b[k] follows an odd number of backslashes: the
// last of them escapes it.
func escaped(b []byte, k int) bool {
	n := 0
	for ; k > 0 && b[k-1] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// StreamRedactor cuts secrets out of a text that arrives in pieces, such
// as the deltas of one block of a model's answer: Write takes the next
// piece and returns what may be shown now, holding back a tail that could
// be the start of a secret (at most the longest secret's length minus
// one byte) until the next piece says whether it is; Flush, at the end of
// the text, returns what is still held. What Write and Flush return, put
// together, is the whole text with every secret in it replaced by
// "[REDACTED]", as [Redactor.String] replaces them; only where two
// different secrets overlap in the text (the end of one is the start of
// the other) may the two cut a different one of them out whole.
//
// The zero value, like the stream of a nil or empty Redactor, cuts
// nothing. A StreamRedactor is not safe for concurrent use.
type StreamRedactor struct {
	r       *Redactor
	pending []byte // held back: the start of a secret, perhaps
	cut     bool   // a secret was cut out since the stream started
}

// Stream returns a stream redactor of r's secrets.
func (r *Redactor) Stream() StreamRedactor { return StreamRedactor{r: r} }

// Write adds text to the stream and returns what of the stream may be
// shown now: when text neither holds a secret nor ends like the start of
// one, and nothing is held back, that is text itself, and Write does not
// allocate.
func (s *StreamRedactor) Write(text string) string {
	r := s.r
	if r.empty() {
		return text
	}
	buf := text
	if len(s.pending) > 0 {
		buf = string(s.pending) + text
	}
	// Hold back the longest tail that may start a secret, as it is: a
	// shorter secret it holds may be the start of a longer one. A secret
	// that starts before the cut and ends after it is shown, cut out.
	cut := len(buf) - r.held(buf)
	if cut < len(buf) {
		cut = r.across(buf, cut)
	}
	out, cutOut := r.cut(buf[:cut])
	s.cut = s.cut || cutOut
	s.pending = append(s.pending[:0], buf[cut:]...)
	return out
}

// across returns cut, or, when a secret occurs in s from before cut to
// after it, the end of that occurrence (and of any such after it).
func (r *Redactor) across(s string, cut int) int {
	for moved := true; moved; {
		moved = false
		for _, secret := range r.plain {
			from := max(0, cut-len(secret)+1)
			if k := strings.Index(s[from:], secret); k >= 0 && from+k < cut {
				cut, moved = from+k+len(secret), true
			}
		}
	}
	return cut
}

// Flush ends the text: it returns what Write held back, secrets cut out
// of it, and starts the stream afresh.
func (s *StreamRedactor) Flush() string {
	out := s.r.String(string(s.pending))
	s.pending, s.cut = s.pending[:0], false
	return out
}

// Held returns how many bytes of the text written so far Write is holding
// back.
func (s *StreamRedactor) Held() int { return len(s.pending) }

// Cut reports whether a secret was cut out of the text since the stream
// started (or was last flushed): until then, what Write returned, put
// together, is the text itself without its last Held bytes.
func (s *StreamRedactor) Cut() bool { return s.cut }
