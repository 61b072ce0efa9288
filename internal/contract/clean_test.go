package contract

import (
	"testing"
	"unicode/utf8"
)

// The fast path is taken exactly for text already clean (an escaped
// backslash before "ud800" included) but for a surrogate pair, which is
// read on the slow path and kept; the full cases, against a strict JSON
// parser, are eventlog's (TestCleanLine, FuzzWriterLinesAreStrictJSON).
func TestCleanJSONFastPath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		fast bool
	}{
		{`{"command":"go test ./..."}`, true},
		{`"\\ud800"`, true},
		{`"\n\"\\"`, true},
		{`"\ud800"`, false},
		{`"\udc00"`, false},
		{`"\ud83d\ude00"`, false},
		{"\"\xff\"", false},
	} {
		if fast := utf8.Valid([]byte(tc.in)) && !hasSurrogateEscape([]byte(tc.in)); fast != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.in, fast, tc.fast)
		}
	}
	clean := []byte(`{"command":"go test ./..."}`)
	if n := testing.AllocsPerRun(100, func() { CleanJSON(clean) }); n != 0 {
		t.Errorf("CleanJSON of clean text allocates %v times", n)
	}
}
