package excerpt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: cutting at 2 would halve it
		{"héllo", 3, "hé…"},
		{"日本語", 4, "日…"},
		{"日本語", 2, "…"},
		{"a🙂b", 4, "a…"},
		{"a🙂b", 5, "a🙂…"},
		{"abc", 0, "…"},
		{"abc", -1, "…"},
		{"\xff\xfe\xfd\xfc", 2, "\xff\xfe…"}, // not UTF-8: each byte its own
	} {
		if got := Text(tc.s, tc.n); got != tc.want {
			t.Errorf("Text(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if got := Bytes([]byte(tc.s), tc.n); got != tc.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestPrefixOfALongRunOfContinuationBytes(t *testing.T) {
	s := "a" + strings.Repeat("\x80", 10)
	if got := Prefix(s, 8); got != s[:8] {
		t.Errorf("Prefix(%q, 8) = %q, want the first 8 bytes", s, got)
	}
}

func FuzzPrefix(f *testing.F) {
	for _, s := range []string{"", "abc", "héllo", "日本語", "a🙂b", "\xff\x80\x80"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := Prefix(s, n)
		if len(got) > max(n, 0) && got != s {
			t.Fatalf("Prefix(%q, %d) = %q: longer than %d", s, n, got, n)
		}
		if !strings.HasPrefix(s, got) {
			t.Fatalf("Prefix(%q, %d) = %q: not a prefix", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Prefix(%q, %d) = %q: cut a character", s, n, got)
		}
		if n >= utf8.UTFMax && len(s) > n && len(got) <= n-utf8.UTFMax {
			t.Fatalf("Prefix(%q, %d) = %q: cut more than a character", s, n, got)
		}
	})
}
