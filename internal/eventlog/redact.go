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

// encodeSecrets returns the secrets of MinSecret bytes or more as they
// appear inside a JSON string the writer encodes: escaped as
// contract.Envelope.MarshalJSON escapes (HTML characters left alone),
// without the quotes; without repeats, longest first, so that a secret
// that holds a shorter one is cut out whole.
func encodeSecrets(secrets []string) [][]byte {
	secrets = slices.Clone(secrets)
	slices.SortFunc(secrets, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	secrets = slices.Compact(secrets)
	var out [][]byte
	for _, secret := range secrets {
		if len(secret) < MinSecret {
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		// Encoding a string cannot fail.
		_ = enc.Encode(secret)
		b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		out = append(out, b[1:len(b)-1])
	}
	return out
}

// errUnredactable is why a line is refused when replacing a secret in it
// would break its JSON: the secret matched outside a string, which only a
// secret that looks like JSON syntax (true, 1,) can do.
var errUnredactable = errors.New("a secret matches outside a JSON string and cannot be redacted; refusing to write it")

// redact replaces every occurrence of the encoded secrets in the encoded
// line b by [redacted]. An occurrence that starts right after an escaping
// backslash is left alone: the text there is not the secret (in "\nab",
// the secret "nab" does not occur). If a replacement would leave b not
// valid JSON, redact fails.
func redact(b []byte, secrets [][]byte) ([]byte, error) {
	changed := false
	for _, secret := range secrets {
		if !bytes.Contains(b, secret) {
			continue
		}
		var out []byte
		last := 0
		for i := 0; ; {
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
		return nil, errUnredactable
	}
	return b, nil
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
