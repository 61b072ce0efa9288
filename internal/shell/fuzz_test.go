package shell

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary scripts (seeds in testdata/fuzz/FuzzParse) to
// Parse. Nothing may panic; the limits hold (nothing deeper than
// MaxNesting, no more words than the source could hold); an error comes
// with something opaque; and every command's roles, files and parent
// match its words.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"find . -exec rm {} +", "ls | xargs -I{} mv {} d", "env -S 'rm -rf x' y", "git -c alias.z='!rm x' z",
		"go test -exec 'sh -c \"rm x\"' -o x ./...", "sed -i -e 's/a/b/w out' -e '1e rm' f", "awk '{print > \"x\"}' f",
		"tar xzf a.tgz -C d --to-command='rm x'", "sudo -s timeout 1 nice env A=1 xargs -0 rm", "trap 'rm x' EXIT",
		"cat < /dev/tcp/h/1 > /dev/fd/../x", "python3 -c x; node -e y; perl -E z", "cp -l a b; rm -rf .",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(src)
		if s == nil {
			t.Fatalf("Parse(%q) returned no Script", src)
		}
		if err != nil && len(s.Opaque) == 0 {
			t.Fatalf("Parse(%q) = %v, but nothing is opaque", src, err)
		}
		checkScript(t, src, s)
	})
}

// checkScript checks the invariants of what Parse made of src.
func checkScript(t *testing.T, src string, s *Script) {
	t.Helper()
	for i, c := range s.Commands {
		if c.Depth > MaxNesting {
			t.Fatalf("%q: a command at depth %d", src, c.Depth)
		}
		if len(c.Roles) != len(c.Words) || c.NAssign > len(c.Words) {
			t.Fatalf("%q: %d roles, %d words, %d assignments", src, len(c.Roles), len(c.Words), c.NAssign)
		}
		if p := c.Program(); p >= 0 && p < c.NAssign {
			t.Fatalf("%q: the program is an assignment", src)
		}
		if c.Parent >= i || c.Parent < -1 || c.Parent >= 0 && c.At > len(s.Commands[c.Parent].Words) {
			t.Fatalf("%q: command %d has parent %d at %d", src, i, c.Parent, c.At)
		}
		for _, f := range c.Files {
			if f.Word < 0 || f.Word >= len(c.Words) || f.Role != RoleRead && f.Role != RoleWrite {
				t.Fatalf("%q: command %q has file %+v", src, c.Text, f)
			}
		}
		if c.Pinned && len(c.Opaque) == 0 || c.Unplaced && len(c.Opaque) == 0 {
			t.Fatalf("%q: command %q is pinned or unplaced, with nothing opaque", src, c.Text)
		}
	}
	if n := len(s.Words) + len(s.Commands) + len(s.Redirects); n > (MaxNesting+1)*(len(src)+1) {
		t.Fatalf("%q: %d items from %d bytes", src, n, len(src))
	}
	words := 0
	for _, c := range s.Commands {
		words += len(c.Words) + len(c.Files)
	}
	if words > (maxRuns+2)*(MaxNesting+1)*(len(src)+1) {
		t.Fatalf("%q: %d words and files from %d bytes", src, words, len(src))
	}
}

// nest builds a script of kind nested n deep around filler: the shapes
// that made parsers recurse once per level (brackets, substitutions,
// backquotes, parameter expansions, blocks, here-documents, nested
// scripts, wrappers).
func nest(kind uint8, n int, filler string) string {
	if filler == "" {
		filler = "ls"
	}
	shapes := []struct{ open, mid, close string }{
		{"(", filler, ")"},
		{"$(", filler, ")"},
		{"echo ${a:-", filler, "}"},
		{"if true; then ", filler, "; fi"},
		{"{ ", filler, "; }"},
		{"[[ -n ", "x", " ]] && "},
		{"echo \"$(", filler, ")\""},
		{"a=(", filler, ")"},
		{"sudo timeout 1 ", filler, ""},
		{"cat <<E\n$(", filler, ")\nE\n"},
		{"while true; do ", filler, "; done"},
		{"case x in x) ", filler, ";; esac"},
		{"$((", "1", "))"},
		{"<(", filler, ")"},
		{"find . -exec ", filler, " \\;"},
		{"xargs ", filler, ""},
	}
	if int(kind) == len(shapes) {
		// Backquotes nest by escaping: each level doubles the backslashes.
		return strings.Repeat("echo `", n) + filler + strings.Repeat("`", n)
	}
	if int(kind) > len(shapes) {
		// A script run by sh -c inside another, quoted at each level.
		s := filler
		for range min(n, 12) {
			q, _ := Quote(s)
			s = "bash -c " + q
		}
		return s
	}
	sh := shapes[kind]
	return strings.Repeat(sh.open, n) + sh.mid + strings.Repeat(sh.close, n)
}

// FuzzNesting feeds Parse scripts nested as deep as the fuzzer likes, of
// every shape that once cost a parser its stack (seeds in
// testdata/fuzz/FuzzNesting): nothing may panic or overflow, what is too
// deep or too long is opaque, and what Parse returns stays linear in the
// input.
func FuzzNesting(f *testing.F) {
	for kind := range uint8(18) {
		for _, n := range []uint16{1, 50, 1100, 5000, 40000} {
			f.Add(kind, n, "ls")
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, n uint16, filler string) {
		src := nest(kind%18, int(n), filler)
		s, _ := Parse(src)
		if s == nil {
			t.Fatal("no Script")
		}
		if len(src) > MaxSource && len(s.Opaque) == 0 {
			t.Fatalf("a script of %d bytes is not opaque", len(src))
		}
		checkScript(t, src, s)
	})
}
