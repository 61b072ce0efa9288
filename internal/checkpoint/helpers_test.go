package checkpoint

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// node is one path of a workspace as a test compares it.
type node struct {
	Kind string
	Mode fs.FileMode
	Data string // a file's content, a link's target
}

// manifest returns every path below root but .git, with what it is.
func manifest(t *testing.T, root string) map[string]node {
	t.Helper()
	m := map[string]node{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = node{Kind: "symlink", Data: target}
		case fi.IsDir():
			m[rel] = node{Kind: "dir", Mode: fi.Mode().Perm()}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = node{Kind: "file", Mode: fi.Mode().Perm(), Data: string(data)}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// write makes the file rel below root with data and mode, and the
// directories it needs.
func write(t *testing.T, root, rel, data string, mode fs.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, root, rel, target string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// age sets the times of every file below root to one in 2020, so that no
// file is racily clean for the next snapshot.
func age(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
			return os.Chtimes(p, old, old)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newStore opens a store of root in a directory of its own.
func newStore(t *testing.T, root string, o Options) *Store {
	t.Helper()
	o.Root = root
	if o.Dir == "" {
		o.Dir = filepath.Join(t.TempDir(), "checkpoints")
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func take(t *testing.T, s *Store) Snapshot {
	t.Helper()
	snap, err := s.Take(t.Context())
	if err != nil {
		t.Fatalf("Take: %v", err)
	}
	return snap
}

// workspace returns a new directory, its links resolved.
func workspaceDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sameTree(t *testing.T, want, got map[string]node) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("workspace mismatch (-want +got):\n%s", d)
	}
}

// git runs git in dir, skipping the test when git is not installed.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
