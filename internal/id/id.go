// Package id makes rein's identifiers: sessions, runs, events, intents and
// invocations.
//
// An id is a prefix, an underscore and 26 characters of Crockford base32
// holding a 48-bit millisecond timestamp and 80 random bits (the ULID
// layout), so ids sort by creation time and never collide in practice.
package id

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"time"
)

const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// New returns a fresh id "prefix_XXXXXXXXXXXXXXXXXXXXXXXXXX" stamped with
// the current time. It is safe for concurrent use.
func New(prefix string) string { return At(prefix, time.Now()) }

// At returns a fresh id stamped with t.
func At(prefix string, t time.Time) string {
	var raw [16]byte
	ms := uint64(t.UnixMilli())
	binary.BigEndian.PutUint64(raw[:8], ms<<16)
	// crypto/rand.Read never returns an error (Go 1.24 and later).
	rand.Read(raw[6:])
	buf := make([]byte, 0, len(prefix)+1+26)
	if prefix != "" {
		buf = append(buf, prefix...)
		buf = append(buf, '_')
	}
	return string(encode(buf, raw))
}

// encode appends the 128 bits of raw as 26 base32 characters, most
// significant first (the top two bits of the first character are zero).
func encode(dst []byte, raw [16]byte) []byte {
	hi := binary.BigEndian.Uint64(raw[:8])
	lo := binary.BigEndian.Uint64(raw[8:])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = alphabet[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return append(dst, out[:]...)
}

// MaxName is the longest tool name the model APIs accept.
const MaxName = 64

// nameByte reports whether c may stand in a name: an ASCII letter, a
// digit, '_' or '-', which can neither walk out of a directory nor need
// quoting, and which every model API accepts in a tool's name and a
// call's id.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// ValidName reports whether s is 1 to limit bytes that may stand in a
// name (nameByte): the shape rein asks of a session's id, a tool's name
// and a rule's. It is a loop, not a regular expression:
// `[A-Za-z0-9_-]{1,128}` compiles to a program of 100 KB.
func ValidName(s string, limit int) bool {
	if len(s) == 0 || len(s) > limit {
		return false
	}
	for i := range len(s) {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// SafeName returns s with each character that may not stand in a name
// (nameByte) made '_', one for each character, however many bytes it
// takes.
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && nameByte(byte(r)) {
			return r
		}
		return '_'
	}, s)
}
