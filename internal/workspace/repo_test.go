package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// A repository is found from any of its directories, through a worktree's
// .git file too; outside one there is none.
func TestRepository(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	worktree := filepath.Join(top, "wt")
	for _, d := range []string{filepath.Join(repo, ".git"), filepath.Join(repo, "a", "b"), filepath.Join(worktree, "pkg"), filepath.Join(top, "plain")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(worktree, ".git"), []byte("gitdir: ../repo/.git/worktrees/wt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, want string
		ok        bool
	}{
		{repo, repo, true},
		{filepath.Join(repo, "a", "b"), repo, true},
		{filepath.Join(repo, "a", "b", ".."), repo, true},
		{filepath.Join(worktree, "pkg"), worktree, true},
		{filepath.Join(top, "plain"), "", false},
	} {
		if _, outer := Repository(top); outer && !tc.ok {
			continue // a temporary directory inside a repository finds it
		}
		if got, ok := Repository(tc.dir); ok != tc.ok || got != tc.want {
			t.Errorf("Repository(%s) = %q, %v; want %q, %v", tc.dir, got, ok, tc.want, tc.ok)
		}
	}
}
