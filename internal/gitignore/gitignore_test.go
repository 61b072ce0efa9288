package gitignore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIgnored(t *testing.T) {
	root := "/r"
	tests := []struct {
		name  string
		sets  []*Set
		path  string // relative to root
		isDir bool
		want  bool
	}{
		{"plain name at any depth", []*Set{Parse([]byte("*.log\n"), root)}, "a/b/x.log", false, true},
		{"not matching", []*Set{Parse([]byte("*.log\n"), root)}, "a/x.txt", false, false},
		{"negation", []*Set{Parse([]byte("*.env\n!keep.env\n"), root)}, "keep.env", false, false},
		{"directory only, a file", []*Set{Parse([]byte("build/\n"), root)}, "build", false, false},
		{"directory only, a directory", []*Set{Parse([]byte("build/\n"), root)}, "build", true, true},
		{"anchored", []*Set{Parse([]byte("/todo.txt\n"), root)}, "sub/todo.txt", false, false},
		{"anchored at the root", []*Set{Parse([]byte("/todo.txt\n"), root)}, "todo.txt", false, true},
		{"double star", []*Set{Parse([]byte("a/**/z.go\n"), root)}, "a/b/c/z.go", false, true},
		{"trailing double star is what is inside", []*Set{Parse([]byte("logs/**\n"), root)}, "logs", true, false},
		{"class negated with !", []*Set{Parse([]byte("[!a]*.txt\n"), root)}, "b.txt", false, true},
		{"inner set wins", []*Set{Parse([]byte("*.txt\n"), root), Parse([]byte("!keep.txt\n"), root+"/sub")}, "sub/keep.txt", false, false},
		{"comments and blanks", []*Set{Parse([]byte("# c\n\n  \nx  \n"), root)}, "x", false, true},
		{"nil set", []*Set{nil}, "x", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			abs := filepath.Join(root, filepath.FromSlash(tt.path))
			if got := Ignored(tt.sets, abs, filepath.Base(abs), tt.isDir); got != tt.want {
				t.Errorf("Ignored(%s) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

func TestAboveAndEnter(t *testing.T) {
	top := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(top, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "*.tmp\n")
	write(".git/info/exclude", "secret\n")
	write("a/.gitignore", "!keep.tmp\n")
	write("a/b/x", "")
	sets := Above(filepath.Join(top, "a", "b"), top)
	if len(sets) != 3 {
		t.Fatalf("Above = %d sets, want info/exclude and two .gitignore files", len(sets))
	}
	for _, c := range []struct {
		rel  string
		want bool
	}{{"a/b/y.tmp", true}, {"a/b/keep.tmp", false}, {"a/b/secret", true}} {
		abs := filepath.Join(top, filepath.FromSlash(c.rel))
		if got := Ignored(sets, abs, filepath.Base(abs), false); got != c.want {
			t.Errorf("Ignored(%s) = %v, want %v", c.rel, got, c.want)
		}
	}
	// A nested repository: the rules above it stop applying.
	inner := Enter(sets, filepath.Join(top, "a", "b"), true, false)
	if abs := filepath.Join(top, "a", "b", "y.tmp"); Ignored(inner, abs, "y.tmp", false) {
		t.Errorf("a nested repository's file is ignored by the outer repository's rules")
	}
	// A worktree's .git file leads to its gitdir and the common dir.
	wt := t.TempDir()
	common := filepath.Join(top, ".git")
	gd := filepath.Join(common, "worktrees", "w")
	if err := os.MkdirAll(gd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gd, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := GitDir(wt); got != gd {
		t.Errorf("GitDir = %s, want %s", got, gd)
	}
	if got, want := InfoExclude(wt), filepath.Join(common, "info", "exclude"); got != want {
		t.Errorf("InfoExclude = %s, want %s", got, want)
	}
}

// A pattern of many "**" is matched in time polynomial in its length and
// the path's: consecutive ones are one, and the (segment, part) pairs that
// failed are not tried again.
func TestDoubleStarsArePolynomial(t *testing.T) {
	deep := strings.Repeat("d/", 16) + "file"
	tests := []struct {
		name, pattern string
		want          bool
	}{
		{"consecutive", strings.Repeat("**/", 13) + "nomatch", false},
		{"separated by names", "a/" + strings.Repeat("**/d/", 12) + "nomatch", false},
		{"separated, matching", strings.Repeat("**/d/", 12) + "**/file", true},
		{"consecutive, matching", strings.Repeat("**/", 13) + "file", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules := parse([]byte(tt.pattern + "\n"))
			if len(rules) != 1 {
				t.Fatalf("parse(%q) = %d rules", tt.pattern, len(rules))
			}
			parts := strings.Split(deep, "/")
			m := matcher{segs: rules[0].segs, parts: parts}
			if got := m.match(0, 0); got != tt.want {
				t.Errorf("match = %v, want %v", got, tt.want)
			}
			// Each pair once, each trying every split of what is left.
			if bound := (len(m.segs) + 1) * (len(parts) + 1) * (len(parts) + 1); m.steps > bound {
				t.Errorf("%d steps, want at most %d", m.steps, bound)
			}
			abs := filepath.Join("/r", filepath.FromSlash(deep))
			if got := Ignored([]*Set{Parse([]byte(tt.pattern+"\n"), "/r")}, abs, "file", false); got != tt.want {
				t.Errorf("Ignored = %v, want %v", got, tt.want)
			}
		})
	}
}
