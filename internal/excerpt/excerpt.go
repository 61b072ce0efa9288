// Package excerpt cuts text for people to read: an error message, a preview
// line, a quoted command. Every cut falls on a character boundary, so a cut
// never leaves half of a UTF-8 character behind for a terminal or a JSON
// encoder to mangle.
//
// It cuts by bytes, which is what bounds memory and a line on a screen
// well enough; a caller that needs the head and the tail of a long output
// with a marker between them (the tool runtime's capture) does another job.
package excerpt

import "unicode/utf8"

// Marker is what [Text] puts where it cut.
const Marker = "…"

// Prefix returns the longest prefix of s that is at most n bytes long and
// does not end inside a UTF-8 character: s itself when it is short enough.
// Bytes that are not UTF-8 count as characters of their own. A negative n
// is 0.
func Prefix[T ~string | ~[]byte](s T, n int) T {
	n = max(n, 0)
	if len(s) <= n {
		return s
	}
	// A character is at most utf8.UTFMax bytes: look no further back.
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i]
		}
	}
	// s[n] continues a character that started more than UTFMax bytes
	// back: not UTF-8 there, so any cut is as good as another.
	return s[:n]
}

// Text returns s cut to at most n bytes on a character boundary, followed
// by [Marker] when anything was cut; s itself when it is short enough.
func Text(s string, n int) string {
	if len(s) <= max(n, 0) {
		return s
	}
	return Prefix(s, n) + Marker
}

// Bytes is [Text] for a byte slice, as a string.
func Bytes(b []byte, n int) string {
	if len(b) <= max(n, 0) {
		return string(b)
	}
	return string(Prefix(b, n)) + Marker
}
