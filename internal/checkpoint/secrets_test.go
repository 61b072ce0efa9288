package checkpoint

import (
	"bytes"
	"strings"
	"testing"
)

// The scanner finds a secret wherever it lies, split across writes of any
// size included.
func TestScannerFindsSplitSecrets(t *testing.T) {
	secret := "sk-test-0123456789"
	text := strings.Repeat("filler ", 300) + secret + strings.Repeat(" more", 300)
	for _, chunk := range []int{1, 3, 7, 16, 4096} {
		s := newScanner(secretBytes([]string{secret, "short"}))
		for b := []byte(text); len(b) > 0; {
			n := min(chunk, len(b))
			s.Write(b[:n])
			b = b[n:]
		}
		if !s.found {
			t.Errorf("writes of %d bytes: the secret was not found", chunk)
		}
	}
	s := newScanner(secretBytes([]string{secret}))
	s.Write(bytes.Repeat([]byte("sk-test-01234567"), 100))
	if s.found {
		t.Error("a near miss was taken for the secret")
	}
	if got := len(secretBytes([]string{"short", secret, secret})); got != 1 {
		t.Errorf("secretBytes kept %d values, want the one long enough, once", got)
	}
}
