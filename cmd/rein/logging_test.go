package main

import (
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// A warning is one printable line, whatever its message and values quote
// (a log's line, a file's path, a provider's error).
func TestWarningsArePrintableLines(t *testing.T) {
	var b strings.Builder
	log := slog.New(&lineHandler{w: &b, mu: new(sync.Mutex)}).With("session", "ses_\x1b]0;t\x07")
	log.Warn("the log \x1b]52;c;aGk=\x07 has a torn line\r\nfake: ok", "path", "/tmp/a\u202etxt", "err", errors.New("bad\tbyte \xff"))
	want := `rein: warning: the log \x1b]52;c;aGk=\x07 has a torn line\r\nfake: ok (session=ses_\x1b]0;t\x07, path=/tmp/a<U+202E>txt, err=bad\tbyte \xff)` + "\n"
	if b.String() != want {
		t.Errorf("warning\n%q, want\n%q", b.String(), want)
	}
}
