package transcript

import "testing"

// Wrap breaks at spaces only: never inside a path, a flag or an id.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"allow edit_file(docs/**) · a flag (--allow, --deny)", 20, "allow\nedit_file(docs/**) ·\na flag (--allow,\n--deny)"},
		{"see /tmp/rein-ui-0123/artifacts/i1.txt now", 40, "see /tmp/rein-ui-0123/artifacts/i1.txt\nnow"},
		{"ses_01M985TA9ZQ3J8K4W2X7V6B5N1", 10, "ses_01M985\nTA9ZQ3J8K4\nW2X7V6B5N1"},
		{"short", 10, "short"},
		{"two\nlines here", 6, "two\nlines\nhere"},
	} {
		if got := Wrap(tc.in, tc.width); got != tc.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}
