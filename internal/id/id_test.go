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

func TestWord(t *testing.T) {
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
		if got := Word(c.s, 64); got != c.want {
			t.Errorf("Word(%q, 64) = %v, want %v", c.s, got, c.want)
		}
	}
}
