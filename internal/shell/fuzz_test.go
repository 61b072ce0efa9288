package shell

import (
	"testing"
)

// FuzzParse feeds arbitrary scripts (seeds in testdata/fuzz/FuzzParse) to
// Parse. Nothing may panic; the limits hold (nothing deeper than
// MaxNesting, no more words than the source could hold); an error comes
// with something opaque; and every command's roles match its words.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if s == nil {
			t.Fatalf("Parse(%q) returned no Script", src)
		}
		if err != nil && len(s.Opaque) == 0 {
			t.Fatalf("Parse(%q) = %v, but nothing is opaque", src, err)
		}
		for _, c := range s.Commands {
			if c.Depth > MaxNesting {
				t.Fatalf("%q: a command at depth %d", src, c.Depth)
			}
			if len(c.Roles) != len(c.Words) || c.NAssign > len(c.Words) {
				t.Fatalf("%q: %d roles, %d words, %d assignments", src, len(c.Roles), len(c.Words), c.NAssign)
			}
			if p := c.Program(); p >= 0 && p < c.NAssign {
				t.Fatalf("%q: the program is an assignment", src)
			}
		}
		if n := len(s.Words) + len(s.Commands) + len(s.Redirects); n > (MaxNesting+1)*(len(src)+1) {
			t.Fatalf("%q: %d items from %d bytes", src, n, len(src))
		}
	})
}
