package composer

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIgnoreRules(t *testing.T) {
	type check struct {
		path string
		dir  bool
		want bool
	}
	tests := []struct {
		name   string
		files  []ignoreFile
		checks []check
	}{
		{
			name:  "a name matches at any depth",
			files: []ignoreFile{parseIgnore("", "*.log\nnode_modules\n")},
			checks: []check{
				{"a.log", false, true}, {"x/y/b.log", false, true}, {"a.logs", false, false},
				{"node_modules", true, true}, {"web/node_modules", true, true}, {"node_modules.txt", false, false},
			},
		},
		{
			name:  "negation re-includes",
			files: []ignoreFile{parseIgnore("", "*.env\n!keep.env\n")},
			checks: []check{
				{"secret.env", false, true}, {"keep.env", false, false}, {"sub/keep.env", false, false}, {"sub/other.env", false, true},
			},
		},
		{
			name:   "the last matching rule wins",
			files:  []ignoreFile{parseIgnore("", "!a.txt\n*.txt\n")},
			checks: []check{{"a.txt", false, true}},
		},
		{
			name:   "a trailing slash matches directories only",
			files:  []ignoreFile{parseIgnore("", "build/\n")},
			checks: []check{{"build", true, true}, {"build", false, false}, {"src/build", true, true}},
		},
		{
			name:   "a leading slash anchors to the file's directory",
			files:  []ignoreFile{parseIgnore("", "/todo.txt\n")},
			checks: []check{{"todo.txt", false, true}, {"docs/todo.txt", false, false}},
		},
		{
			name:   "a middle slash anchors too",
			files:  []ignoreFile{parseIgnore("", "docs/*.md\n")},
			checks: []check{{"docs/a.md", false, true}, {"x/docs/a.md", false, false}, {"docs/sub/a.md", false, false}},
		},
		{
			name:  "double stars",
			files: []ignoreFile{parseIgnore("", "**/gen\na/**/z.go\nlogs/**\n")},
			checks: []check{
				{"gen", true, true}, {"x/y/gen", true, true},
				{"a/z.go", false, true}, {"a/b/c/z.go", false, true}, {"b/a/z.go", false, false},
				{"logs/x/y.txt", false, true},
			},
		},
		{
			name:  "comments, blanks, escapes and trailing spaces",
			files: []ignoreFile{parseIgnore("", "# a comment\n\n\\#hash\n\\!bang\ntrailing   \nspace\\ \n{a,b}\n")},
			checks: []check{
				{"# a comment", false, false}, {"#hash", false, true}, {"!bang", false, true},
				{"trailing", false, true}, {"space ", false, true}, {"{a,b}", false, true}, {"a", false, false},
			},
		},
		{
			name: "a nested file is relative to its directory and wins",
			files: []ignoreFile{
				parseIgnore("", "*.txt\n"),
				parseIgnore("sub", "!keep.txt\n/local\n"),
			},
			checks: []check{
				{"a.txt", false, true}, {"sub/a.txt", false, true}, {"sub/keep.txt", false, false},
				{"keep.txt", false, true}, {"sub/local", false, true}, {"sub/x/local", false, false}, {"local", false, false},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ig := ignorer(tt.files)
			for _, c := range tt.checks {
				if got := ig.ignored(c.path, c.dir); got != c.want {
					t.Errorf("ignored(%q, dir %v) = %v, want %v", c.path, c.dir, got, c.want)
				}
			}
		})
	}
}

func TestWalkHonoursGitignore(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		".gitignore":             "build/\n*.env\n!keep.env\n/top.txt\n",
		".git/config":            "",
		".git/info/exclude":      "excluded.txt\n",
		"main.go":                "package main\n",
		"top.txt":                "",
		"docs/top.txt":           "",
		"secret.env":             "",
		"keep.env":               "",
		"excluded.txt":           "",
		"build/out.bin":          "",
		"empty/":                 "",
		"sub/.gitignore":         "local.txt\n!*.env\n",
		"sub/local.txt":          "",
		"sub/other.txt":          "",
		"sub/deep/local.txt":     "",
		"sub/dev.env":            "",
		"other/local.txt":        "",
		"internal/app/app.go":    "",
		"internal/app/a_test.go": "",
	})
	got, err := Walk(root, MaxFiles)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		".gitignore", "docs/", "docs/top.txt", "empty/", "internal/", "internal/app/", "internal/app/a_test.go", "internal/app/app.go",
		"keep.env", "main.go", "other/", "other/local.txt",
		"sub/", "sub/.gitignore", "sub/deep/", "sub/dev.env", "sub/other.txt",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Walk() mismatch (-want +got):\n%s", d)
	}
}

func TestWalkStopsAtTheLimit(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d", i)] = ""
	}
	tree(t, root, files)
	got, err := Walk(root, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 || got[0] != "f00" {
		t.Errorf("Walk(limit 10) = %q", got)
	}
}

func TestWalkOfAMissingRootFails(t *testing.T) {
	if _, err := Walk(filepath.Join(t.TempDir(), "gone"), MaxFiles); err == nil {
		t.Error("Walk(missing root): no error")
	}
}

// BenchmarkWalk walks a tree of 20,000 files (200 directories of 100), a
// .gitignore at the root and in every tenth directory.
func BenchmarkWalk(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.o\n/build/\n!keep.o\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for d := range 200 {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d/20), fmt.Sprintf("dir%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if d%10 == 0 {
			if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("tmp*\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		got, err := Walk(root, MaxFiles)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != MaxFiles {
			b.Fatalf("Walk() found %d entries, want the cap %d", len(got), MaxFiles)
		}
	}
}

// BenchmarkMatch matches a query typed a character at a time (seven
// keystrokes) against 20,000 paths, as Update does while the @ menu is
// open.
func BenchmarkMatch(b *testing.B) {
	entries := make([]string, 0, MaxFiles)
	for d := range 200 {
		for f := range 100 {
			entries = append(entries, fmt.Sprintf("pkg%03d/dir%03d/file%03d.go", d/20, d, f))
		}
	}
	var f files
	f.set(filesMsg{entries: entries})
	for b.Loop() {
		f.prevQuery, f.prevIdx = "", nil
		for _, q := range []string{"d", "di", "dir", "dir1", "dir12", "dir12f", "dir12fi"} {
			if len(f.match(q)) == 0 {
				b.Fatalf("no match for %q", q)
			}
		}
	}
}
