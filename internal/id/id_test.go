package id

import (
	"strings"
	"testing"
	"time"
)

func TestNewIsUniqueAndSorted(t *testing.T) {
	seen := map[string]bool{}
	base := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	prev := ""
	for i := range 1000 {
		s := At("evt", base.Add(time.Duration(i)*time.Millisecond))
		if !strings.HasPrefix(s, "evt_") || len(s) != 4+26 {
			t.Fatalf("At() = %q, want evt_ and 26 characters", s)
		}
		if seen[s] {
			t.Fatalf("duplicate id %q", s)
		}
		seen[s] = true
		if s[:14] < prev[:min(len(prev), 14)] {
			t.Fatalf("ids not time-ordered: %q after %q", s, prev)
		}
		prev = s
	}
}

func TestNoPrefix(t *testing.T) {
	if s := New(""); len(s) != 26 || strings.Contains(s, "_") {
		t.Errorf("New(\"\") = %q, want 26 characters and no underscore", s)
	}
}

func TestValidName(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"ses_01M8NN0F0QP40ZTK2V43TFR6X5", true},
		{"read-file_2", true},
		{"Z", true},
		{long, true},
		{long + "a", false}, // over the limit
		{"", false},
		{"..", false},
		{"a/b", false},
		{"a b", false},
		{"é", false}, // ASCII only
		{"a\x00", false},
		{"a*", false},
	} {
		if got := ValidName(c.s, 64); got != c.want {
			t.Errorf("ValidName(%q, 64) = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"call_01-AB": "call_01-AB",
		"a.b/c d":    "a_b_c_d",
		"é":          "_", // one character, one '_', however many bytes
		"toolu:01":   "toolu_01",
		"":           "",
	} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
		if got := SafeName(in); got != "" && !ValidName(got, len(got)) {
			t.Errorf("SafeName(%q) = %q, not a valid name", in, got)
		}
	}
}
