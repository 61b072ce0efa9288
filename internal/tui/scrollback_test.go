package tui

import (
	"strings"
	"testing"
)

// The scrollback kept for a reprint is bounded in lines and in bytes; the
// oldest go first, and the reprint says how many.
func TestScrollbackIsBounded(t *testing.T) {
	var s scrollback
	for i := range maxScrollback + 5 {
		s.add("line " + strings.Repeat("x", i%7))
	}
	if len(s.lines) > maxScrollback || s.dropped == 0 || len(s.lines)+s.dropped != maxScrollback+5 {
		t.Errorf("kept %d, dropped %d of %d lines", len(s.lines), s.dropped, maxScrollback+5)
	}
	if !strings.HasPrefix(s.wrapped(80), "(") || !strings.Contains(s.wrapped(80), "earlier lines are not shown again") {
		t.Errorf("the reprint does not say lines were dropped")
	}
	var big scrollback
	long := strings.Repeat("y", 256<<10) // a Ctrl-O of a 256 KiB line
	for range 40 {
		big.add(long)
	}
	if big.bytes > maxScrollbackBytes || big.bytes != big.sizeOf(len(big.lines)) {
		t.Errorf("kept %d bytes (counted %d), want at most %d", big.sizeOf(len(big.lines)), big.bytes, maxScrollbackBytes)
	}
}
