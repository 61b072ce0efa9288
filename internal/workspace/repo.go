package workspace

import (
	"os"
	"path/filepath"
)

// Repository returns the root of the git repository that holds dir: the
// nearest of dir and its parents with a .git entry (the directory of a
// repository, or the file of a worktree or a submodule), as git's
// toplevel; ok is false outside any. It runs no git and reads no file,
// only the entries' existence. dir is made absolute and clean first.
func Repository(dir string) (root string, ok bool) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// Within reports whether path p is root or lies below it, both taken as
// they are (clean and absolute), without following links.
func Within(root, p string) bool { return within(root, p) }
