package permission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// expandGlob expands as bash does (no dotglob, nullglob or globstar),
// within a budget of directory entries.
func TestExpandGlob(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"docs", "doc2", "src/a", "src/b", ".hidden"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"docs/.env", "src/a/x.go", "src/b/y.go", "src/b/y.txt", "README.md", ".hidden/k"} {
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		pattern     string
		dirs        []string
		matches     []string
		lastLiteral bool
	}{
		{"doc?/.env", []string{"."}, []string{"doc2/.env", "docs/.env"}, true},
		{"src/*/*.go", []string{"src", "src/a", "src/b"}, []string{"src/a/x.go", "src/b/y.go"}, false},
		{"*", []string{"."}, []string{"README.md", "doc2", "docs", "src"}, false},
		{".*", []string{"."}, []string{".", "..", ".hidden"}, false},
		{"[!s]*", []string{"."}, []string{"README.md", "doc2", "docs"}, false},
		{"nothing*/x", []string{"."}, nil, false},
		{"src/a/x.go", nil, []string{"src/a/x.go"}, true},
	} {
		budget := 100
		g, ok := expandGlob(root, tc.pattern, &budget)
		if !ok {
			t.Errorf("expandGlob(%q) not ok", tc.pattern)
			continue
		}
		want := globbed{dirs: tc.dirs, matches: tc.matches, lastLiteral: tc.lastLiteral}
		if d := cmp.Diff(want, g, cmp.AllowUnexported(globbed{})); d != "" {
			t.Errorf("expandGlob(%q) mismatch (-want +got):\n%s", tc.pattern, d)
		}
	}
	// Absolute patterns expand from /.
	budget := 1000
	if g, ok := expandGlob(root, root+"/doc?", &budget); !ok || len(g.matches) != 2 || g.matches[0] != root+"/doc2" {
		t.Errorf("absolute: %+v %v", g, ok)
	}
	// Past the budget, or with a brace or a bad bracket, it is not known.
	for _, pattern := range []string{"src/*/*", "{a,b}*", "[*"} {
		budget := 3
		if _, ok := expandGlob(root, pattern, &budget); ok {
			t.Errorf("expandGlob(%q) with a budget of 3 is ok", pattern)
		}
	}
}
