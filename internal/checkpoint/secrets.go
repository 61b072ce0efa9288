package checkpoint

import (
	"bytes"
	"slices"
)

// reasonSecret is why a file holding one of Options.Secrets is left out.
const reasonSecret = "holds a credential of rein's environment, which is never copied"

// errSecret is what putFile returns for a file that holds a secret: it
// is left out, and no object of it is kept.
type secretError struct{}

func (secretError) Error() string { return "the file holds a secret" }

var errSecret error = secretError{}

// scanner looks for any of secrets in what is written to it, across the
// writes: it keeps the last bytes of each write that a secret may
// continue in the next.
type scanner struct {
	secrets [][]byte
	longest int
	tail    []byte
	found   bool
}

func newScanner(secrets [][]byte) *scanner {
	s := &scanner{secrets: secrets}
	for _, b := range secrets {
		s.longest = max(s.longest, len(b))
	}
	return s
}

// Write never fails: it only looks.
func (s *scanner) Write(p []byte) (int, error) {
	if s.found || len(s.secrets) == 0 {
		return len(p), nil
	}
	if len(s.tail) > 0 {
		// A secret split across the two writes starts in the tail.
		joined := append(s.tail, p[:min(len(p), s.longest-1)]...)
		if s.any(joined) {
			s.found = true
			return len(p), nil
		}
	}
	if s.any(p) {
		s.found = true
		return len(p), nil
	}
	// The last longest-1 bytes seen, across writes shorter than that.
	keep := s.longest - 1
	if len(p) >= keep {
		s.tail = append(s.tail[:0], p[len(p)-keep:]...)
		return len(p), nil
	}
	s.tail = append(s.tail, p...)
	s.tail = s.tail[max(0, len(s.tail)-keep):]
	return len(p), nil
}

func (s *scanner) any(b []byte) bool {
	for _, x := range s.secrets {
		if bytes.Contains(b, x) {
			return true
		}
	}
	return false
}

// secretBytes returns the secrets worth looking for: 8 bytes or more (a
// shorter value would leave out files for nothing), once each.
func secretBytes(secrets []string) [][]byte {
	var out [][]byte
	for _, s := range secrets {
		if len(s) >= 8 && !slices.ContainsFunc(out, func(b []byte) bool { return string(b) == s }) {
			out = append(out, []byte(s))
		}
	}
	return out
}
