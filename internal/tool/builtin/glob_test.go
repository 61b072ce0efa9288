package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rein-agent/rein/internal/workspace"
)

// searchTouch sets the modification times of files (slash paths below the
// workspace root) to base plus their index seconds: the last is newest.
func searchTouch(t *testing.T, ws *workspace.Workspace, files ...string) {
	t.Helper()
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, f := range files {
		at := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(ws.Root(), filepath.FromSlash(f)), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	ws := searchWorkspace(t, map[string]string{
		".gitignore":               "vendor/\n*.gen.go\n",
		"main.go":                  "",
		"main_test.go":             "",
		"a.gen.go":                 "",
		"internal/x/x.go":          "",
		"internal/x/x_test.go":     "",
		"internal/y/y_test.go":     "",
		"vendor/dep/dep_test.go":   "",
		"docs/a.md":                "",
		"docs/b.txt":               "",
		".github/workflows/ci.yml": "",
	})
	// Oldest first.
	searchTouch(t, ws, "internal/y/y_test.go", "main_test.go", "internal/x/x_test.go", "main.go", "internal/x/x.go", "docs/a.md", "docs/b.txt", ".github/workflows/ci.yml")
	tests := []searchCase{{
		name:  "recursive, newest first, ignored files left out",
		input: `{"pattern": "**/*_test.go"}`,
		want:  "internal/x/x_test.go\nmain_test.go\ninternal/y/y_test.go\n",
	}, {
		name:  "a single star stays in the directory",
		input: `{"pattern": "*.go"}`,
		want:  "main.go\nmain_test.go\n",
	}, {
		name:  "leading directories of the pattern",
		input: `{"pattern": "internal/x/*.go"}`,
		want:  "internal/x/x.go\ninternal/x/x_test.go\n",
	}, {
		name:  "from a path",
		input: `{"pattern": "*.{md,txt}", "path": "docs"}`,
		want:  "docs/b.txt\ndocs/a.md\n",
	}, {
		name:  "hidden directories are searched",
		input: `{"pattern": "**/*.yml"}`,
		want:  ".github/workflows/ci.yml\n",
	}, {
		name:  "an absolute pattern inside the workspace",
		input: fmt.Sprintf(`{"pattern": %q}`, filepath.ToSlash(filepath.Join(ws.Root(), "docs", "*.md"))),
		want:  "docs/a.md\n",
	}, {
		name:  "no match",
		input: `{"pattern": "**/*.rs"}`,
		want:  "No files match **/*.rs in the workspace root.\n",
	}, {
		name:  "a pattern directory that does not exist",
		input: `{"pattern": "nowhere/*.go"}`,
		want:  "No files match nowhere/*.go in nowhere.\n",
	}}
	runSearchCases(t, SearchTools(ws)[0], tests)
}

func TestGlobErrors(t *testing.T) {
	ws := searchWorkspace(t, map[string]string{"main.go": ""})
	runSearchCases(t, SearchTools(ws)[0], []searchCase{
		{name: "bad pattern", input: `{"pattern": "[a-"}`, wantErr: []string{"not a valid glob pattern"}},
		{name: "path is a file", input: `{"pattern": "*", "path": "main.go"}`, wantErr: []string{"main.go is a file"}},
		{name: "path does not exist", input: `{"pattern": "*", "path": "nowhere"}`, wantErr: []string{"nowhere does not exist"}},
	})
}

func TestGlobCap(t *testing.T) {
	files := map[string]string{}
	var names []string
	for i := range globLimit + 7 {
		name := fmt.Sprintf("d/f%04d.txt", i)
		files[name] = ""
		names = append(names, name)
	}
	ws := searchWorkspace(t, files)
	searchTouch(t, ws, names...)
	got, err := runSearchTool(t, SearchTools(ws)[0], `{"pattern": "**/*.txt"}`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != globLimit+1 {
		t.Fatalf("glob printed %d lines, want %d paths and a last line", len(lines), globLimit)
	}
	if want := fmt.Sprintf("d/f%04d.txt", globLimit+6); lines[0] != want {
		t.Errorf("first line %q, want the newest file %q", lines[0], want)
	}
	if want := "... 7 more files not shown"; !strings.HasPrefix(lines[globLimit], want) {
		t.Errorf("last line %q, want it to start %q", lines[globLimit], want)
	}
}
