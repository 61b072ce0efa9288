package checkpoint

import (
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A snapshot, any change to the workspace, and a Restore of the plan give
// the workspace back byte for byte: content, modes, links, directories.
func TestRestoreUndoesChanges(t *testing.T) {
	tests := []struct {
		name   string
		modify func(t *testing.T, root string)
	}{
		{"content changed", func(t *testing.T, root string) { write(t, root, "a.txt", "changed", 0o644) }},
		{"file deleted", func(t *testing.T, root string) { rm(t, root, "a.txt") }},
		{"file created", func(t *testing.T, root string) { write(t, root, "new/deep/n.txt", "new", 0o644) }},
		{"made executable", func(t *testing.T, root string) { chmod(t, root, "a.txt", 0o755) }},
		{"executable bit removed", func(t *testing.T, root string) { chmod(t, root, "bin/run.sh", 0o644) }},
		{"file replaced by a directory", func(t *testing.T, root string) {
			rm(t, root, "a.txt")
			write(t, root, "a.txt/inner", "x", 0o644)
		}},
		{"directory replaced by a file", func(t *testing.T, root string) {
			rmAll(t, root, "src")
			write(t, root, "src", "now a file", 0o644)
		}},
		{"directory deleted", func(t *testing.T, root string) { rmAll(t, root, "src") }},
		{"file added to a directory", func(t *testing.T, root string) {
			write(t, root, "src/lib/extra.go", "package lib", 0o644)
		}},
		{"symlink retargeted", func(t *testing.T, root string) {
			rm(t, root, "link")
			symlink(t, root, "link", "src/lib/b.go")
		}},
		{"file replaced by a symlink", func(t *testing.T, root string) {
			rm(t, root, "a.txt")
			symlink(t, root, "a.txt", "/etc/passwd")
		}},
		{"symlink replaced by a file", func(t *testing.T, root string) {
			rm(t, root, "link")
			write(t, root, "link", "plain", 0o600)
		}},
		{"symlink to a directory replaced by one", func(t *testing.T, root string) {
			rm(t, root, "dirlink")
			write(t, root, "dirlink/x", "x", 0o644)
		}},
		{"empty file filled", func(t *testing.T, root string) { write(t, root, "empty", "now full", 0o644) }},
		{"large file changed", func(t *testing.T, root string) {
			write(t, root, "big.bin", strings.Repeat("y", 3<<20), 0o644)
		}},
		{"all at once", func(t *testing.T, root string) {
			write(t, root, "a.txt", "changed", 0o700)
			rmAll(t, root, "src/lib")
			write(t, root, "src/new.go", "package x", 0o644)
			rm(t, root, "link")
			symlink(t, root, "link", "a.txt")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := workspaceDir(t)
			write(t, root, "a.txt", "alpha\n", 0o644)
			write(t, root, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755)
			write(t, root, "src/main.go", "package main\n", 0o644)
			write(t, root, "src/lib/b.go", "package lib\n", 0o600)
			write(t, root, "empty", "", 0o644)
			write(t, root, "big.bin", strings.Repeat("x", 3<<20), 0o644)
			symlink(t, root, "link", "a.txt")
			symlink(t, root, "dirlink", "src")
			s := newStore(t, root, Options{})
			want := manifest(t, root)
			first := take(t, s)

			tt.modify(t, root)
			last := take(t, s)
			if last.ID == first.ID {
				t.Fatalf("the change made no new snapshot")
			}
			plan, err := s.Plan(first.ID, last.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Changes) == 0 || len(plan.Conflicts) != 0 {
				t.Fatalf("Plan = %+v, want changes and no conflicts", plan)
			}
			if err := s.Restore(first.ID, plan.Changes); err != nil {
				t.Fatalf("Restore: %v", err)
			}
			sameTree(t, want, manifest(t, root))
			// Again, and forward: a Restore done twice is done once.
			for range 2 {
				if err := s.Restore(last.ID, plan.Changes); err != nil {
					t.Fatalf("Restore forward: %v", err)
				}
			}
			for range 2 {
				if err := s.Restore(first.ID, plan.Changes); err != nil {
					t.Fatalf("Restore back: %v", err)
				}
			}
			sameTree(t, want, manifest(t, root))

			// The next Take sees the restored workspace as the first.
			again := take(t, s)
			if d, err := s.Diff(first.ID, again.ID); err != nil || len(d) != 0 {
				t.Errorf("Diff(first, after restore) = %v, %v; want nothing", d, err)
			}
		})
	}
}

func rm(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}

func rmAll(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}

func chmod(t *testing.T, root, rel string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(filepath.Join(root, rel), mode); err != nil {
		t.Fatal(err)
	}
}

// Diff names each kind of change, mode-only included, sorted by path.
func TestDiff(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a", "a", 0o644)
	write(t, root, "d/b", "b", 0o644)
	write(t, root, "d/c", "c", 0o644)
	write(t, root, "x", "x", 0o644)
	s := newStore(t, root, Options{})
	first := take(t, s)
	write(t, root, "a", "A", 0o644)
	chmod(t, root, "x", 0o755)
	rm(t, root, "d/b")
	write(t, root, "d.txt", "new", 0o644)
	second := take(t, s)
	got, err := s.Diff(first.ID, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, c := range got {
		summary = append(summary, c.Path+" "+string(c.Op))
	}
	want := []string{"a changed", "d.txt created", "d/b deleted", "x changed"}
	if !slices.Equal(summary, want) {
		t.Errorf("Diff = %v, want %v", summary, want)
	}
	if got[3].From.Mode != 0o644 || got[3].To.Mode != 0o755 || got[3].From.Hash != got[3].To.Hash {
		t.Errorf("mode change = %+v", got[3])
	}
	all, err := s.Diff("", first.ID)
	if err != nil || len(all) != 4 || all[0].Op != Created {
		t.Errorf(`Diff("", first) = %v, %v; want its four files created`, all, err)
	}
	r, e, err := s.Open(first.ID, "d/b")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(data) != "b" || e.Kind != "file" || e.Size != 1 {
		t.Errorf("Open(d/b) = %q, %+v, %v", data, e, err)
	}
	if _, _, err := s.Open(second.ID, "d/b"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a deleted file: %v, want not exist", err)
	}
}

// What is left out is said: dependency directories, ignored files over the
// size limit and over the budget, special files; ignored files within the
// budget are recorded.
func TestLeftOut(t *testing.T) {
	root := workspaceDir(t)
	git(t, root, "init", "-q")
	write(t, root, ".gitignore", "*.log\nnode_modules/\nout/\n", 0o644)
	write(t, root, "main.go", "package main", 0o644)
	write(t, root, "node_modules/x/index.js", "x", 0o644)
	write(t, root, "vendor/mod/a.go", "tracked-ish vendor: not ignored", 0o644)
	write(t, root, "a.log", strings.Repeat("a", 300), 0o644)
	write(t, root, "b.log", strings.Repeat("b", 200), 0o644)
	write(t, root, "c.log", strings.Repeat("c", 10), 0o644)
	write(t, root, "huge.log", strings.Repeat("h", 2000), 0o644)
	write(t, root, "out/c.txt", "c", 0o644)
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, root, Options{IgnoredBudget: 500, IgnoredMaxFile: 1000})
	snap := take(t, s)
	wantLeft := []Left{
		{"c.log", "over the 500 bytes budget for ignored files"},
		{"fifo", "special file"},
		{"huge.log", "ignored file over 1000 bytes"},
		{"node_modules", "ignored dependency directory"},
		{"out", "over the 500 bytes budget for ignored files"},
	}
	if !slices.Equal(snap.Left, wantLeft) || snap.LeftCount != 5 || snap.LeftBytes != 2010 {
		t.Errorf("Left = %v (%d, %d bytes), want %v (5, 2010 bytes)", snap.Left, snap.LeftCount, snap.LeftBytes, wantLeft)
	}
	changes, err := s.Diff("", snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
	}
	if want := []string{".gitignore", "a.log", "b.log", "main.go", "vendor/mod/a.go"}; !slices.Equal(paths, want) {
		t.Errorf("recorded %v, want %v", paths, want)
	}
	if snap.Files != 5 {
		t.Errorf("Files = %d, want 5", snap.Files)
	}
}

// The left-out reasons with the default limits read as the issue says.
func TestLeftOutDefaults(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, ".gitignore", "*.bin\n", 0o644)
	if err := os.WriteFile(filepath.Join(root, "big.bin"), make([]byte, 5<<20+1), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, root, "node_modules/x.js", "x", 0o644)
	write(t, root, "target/debug/x", "x", 0o644)
	s := newStore(t, root, Options{})
	snap := take(t, s)
	want := []Left{{"big.bin", "ignored file over 5 MB"}, {"node_modules", "dependency directory"}, {"target", "dependency directory"}}
	if !slices.Equal(snap.Left, want) {
		t.Errorf("Left = %v, want %v", snap.Left, want)
	}
}

// A tracked file that an ignore pattern matches is recorded as a file git
// sees (the index is read: versions 2, 3 and 4, in a worktree too), even
// with no budget for ignored files; an untracked one is not.
func TestTrackedButIgnored(t *testing.T) {
	for _, version := range []string{"2", "3", "4", "worktree", "subdirectory"} {
		t.Run(version, func(t *testing.T) {
			repo := workspaceDir(t)
			git(t, repo, "init", "-q")
			write(t, repo, "sub/config.local", "tracked", 0o644)
			write(t, repo, "sub/keep/gen.out", "tracked too", 0o644)
			write(t, repo, "sub/main.go", "package main", 0o644)
			git(t, repo, "add", "-A")
			root := repo
			switch version {
			case "3", "4":
				git(t, repo, "update-index", "--index-version", version)
			case "worktree":
				git(t, repo, "commit", "-qm", "x")
				root = filepath.Join(workspaceDir(t), "wt")
				git(t, repo, "worktree", "add", "-q", root)
			case "subdirectory":
				root = filepath.Join(repo, "sub")
			}
			write(t, repo, ".gitignore", "*.local\nkeep/\n*.out\n", 0o644)
			if version == "worktree" {
				write(t, root, ".gitignore", "*.local\nkeep/\n*.out\n", 0o644)
			}
			sub := filepath.Join(root, "sub")
			prefix := "sub/"
			if version == "subdirectory" {
				sub, prefix = root, ""
			}
			write(t, sub, "other.local", "untracked, ignored", 0o644)
			write(t, sub, "keep/new.out", "untracked, ignored", 0o644)
			s := newStore(t, root, Options{IgnoredBudget: -1})
			snap := take(t, s)
			changes, err := s.Diff("", snap.ID)
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, c := range changes {
				if c.Path != ".gitignore" {
					paths = append(paths, c.Path)
				}
			}
			want := []string{prefix + "config.local", prefix + "keep/gen.out", prefix + "main.go"}
			if !slices.Equal(paths, want) {
				t.Errorf("recorded %v, want %v", paths, want)
			}
		})
	}
}

// Outside a git repository, .gitignore files still ignore, and dependency
// directories are left out whether ignored or not.
func TestNotARepository(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, ".gitignore", "secret.txt\n", 0o644)
	write(t, root, "a.txt", "a", 0o644)
	write(t, root, "secret.txt", "s", 0o644)
	write(t, root, ".venv/lib/x.py", "x", 0o644)
	s := newStore(t, root, Options{IgnoredBudget: -1})
	snap := take(t, s)
	if snap.Files != 2 || len(snap.Left) != 2 || snap.Left[0].Path != ".venv" || snap.Left[1].Path != "secret.txt" {
		t.Errorf("snapshot = %+v, want .gitignore and a.txt, .venv and secret.txt left out", snap)
	}
	write(t, root, "a.txt", "changed", 0o644)
	second := take(t, s)
	plan, err := s.Plan(snap.ID, second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restore(snap.ID, plan.Changes); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "a" {
		t.Errorf("a.txt = %q after restore", data)
	}
}

// A file someone changed after the last snapshot is a conflict: edited
// (same size and time, too), deleted, or created where last had none.
func TestConflicts(t *testing.T) {
	tests := []struct {
		name  string
		after func(t *testing.T, root string)
		want  []string
	}{
		{"none", func(*testing.T, string) {}, nil},
		{"edited", func(t *testing.T, root string) { write(t, root, "a.txt", "edited by hand", 0o644) }, []string{"a.txt"}},
		{"edited keeping size and time", func(t *testing.T, root string) {
			p := filepath.Join(root, "a.txt")
			fi, _ := os.Stat(p)
			write(t, root, "a.txt", "AGENT", 0o644)
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, []string{"a.txt"}},
		{"deleted", func(t *testing.T, root string) { rm(t, root, "a.txt") }, []string{"a.txt"}},
		{"created where last had none", func(t *testing.T, root string) { write(t, root, "gone.txt", "back", 0o644) }, []string{"gone.txt"}},
		{"parent replaced by a link", func(t *testing.T, root string) {
			rmAll(t, root, "d")
			symlink(t, root, "d", t.TempDir())
		}, []string{"d", "d/f"}}, // the link is in the way of d/f
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := workspaceDir(t)
			write(t, root, "a.txt", "alpha", 0o644)
			write(t, root, "gone.txt", "g", 0o644)
			write(t, root, "d/f", "f", 0o644)
			s := newStore(t, root, Options{})
			first := take(t, s)
			write(t, root, "a.txt", "agent", 0o644)
			rm(t, root, "gone.txt")
			write(t, root, "d/f", "agent's f", 0o644)
			last := take(t, s)
			tt.after(t, root)
			plan, err := s.Plan(first.ID, last.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plan.Conflicts, tt.want) {
				t.Errorf("Conflicts = %v, want %v", plan.Conflicts, tt.want)
			}
			if len(plan.Changes) != 3 {
				t.Errorf("Changes = %v, want a.txt, d/f and gone.txt", plan.Changes)
			}
		})
	}
}

// Restore never writes outside Root: a symbolic link put in place of a
// directory after the last snapshot is refused, and so are paths with "..",
// absolute ones and .git.
func TestRestoreStaysInside(t *testing.T) {
	root := workspaceDir(t)
	outside := workspaceDir(t)
	write(t, root, "d/f", "original", 0o644)
	s := newStore(t, root, Options{})
	first := take(t, s)
	write(t, root, "d/f", "agent", 0o644)
	last := take(t, s)
	rmAll(t, root, "d")
	symlink(t, root, "d", outside)
	plan, err := s.Plan(first.ID, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Changes) != 1 || plan.Changes[0].InTheWay != "d" {
		t.Fatalf("Plan = %+v, want d/f with d in the way", plan)
	}
	unlisted := slices.Clone(plan.Changes)
	unlisted[0].InTheWay = ""
	err = s.Restore(first.ID, unlisted)
	if !errors.Is(err, ErrOutside) {
		t.Errorf("Restore through a link = %v, want ErrOutside", err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "d")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link d was touched by a Restore that refused: %v", err)
	}
	for _, p := range []string{"../x", "/etc/passwd", ".git/config", "d/../../x", ""} {
		if err := s.Restore(first.ID, []Change{{Path: p, Op: Changed}}); !errors.Is(err, ErrOutside) {
			t.Errorf("Restore(%q) = %v, want ErrOutside", p, err)
		}
	}
	if got := manifest(t, outside); len(got) != 0 {
		t.Errorf("Restore wrote outside the workspace: %v", got)
	}
	// Forced, with the plan that found the link in the way: the link goes
	// (not what it leads to) and d/f is written inside.
	if err := s.Restore(first.ID, plan.Changes); err != nil {
		t.Fatalf("Restore of the plan: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(root, "d", "f")); err != nil || string(data) != "original" {
		t.Errorf("d/f = %q, %v; want original", data, err)
	}
	if got := manifest(t, outside); len(got) != 0 {
		t.Errorf("Restore wrote outside the workspace: %v", got)
	}
}

// An incremental Take reads only the files whose lstat changed, writes only
// their content and the trees on their paths, and nothing when nothing
// changed.
func TestIncrementalReadsOnlyChanged(t *testing.T) {
	root := workspaceDir(t)
	for i := range 50 {
		write(t, root, filepath.Join("d"+string(rune('a'+i%5)), "f"+string(rune('a'+i/5))), strings.Repeat("x", i), 0o644)
	}
	age(t, root)
	s := newStore(t, root, Options{})
	first := take(t, s)
	if got := s.reads.Load(); got != 50 {
		t.Fatalf("first Take read %d files, want 50", got)
	}
	if first.New < 50 || first.NewBytes == 0 {
		t.Errorf("first Take: New %d, NewBytes %d", first.New, first.NewBytes)
	}
	same := take(t, s)
	if same.ID != first.ID || same.New != 0 || same.NewBytes != 0 || s.reads.Load() != 50 {
		t.Errorf("unchanged Take = %+v after %d reads, want the same id, nothing new, no read", same, s.reads.Load())
	}
	write(t, root, "db/fc", "changed content", 0o644)
	age(t, root)
	second := take(t, s)
	if got := s.reads.Load() - 50; got != 1 {
		t.Errorf("second Take read %d files, want 1", got)
	}
	// The content, its directory's tree and the root's.
	if second.New != 3 || second.NewBytes != int64(len("changed content"))+treeBytes(t, s, second.ID)+treeBytes(t, s, dirHash(t, s, second.ID, "db")) {
		t.Errorf("second Take: New %d, NewBytes %d; want 3 objects", second.New, second.NewBytes)
	}
}

func treeBytes(t *testing.T, s *Store, h string) int64 {
	t.Helper()
	data, err := s.obj.read(h, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(data))
}

// packedAt returns the pack and offset of the packed object h.
func packedAt(t *testing.T, s *Store, h string) (string, int64) {
	t.Helper()
	var sum [32]byte
	copy(sum[:], mustHex(t, h))
	l, ok := s.obj.index[sum]
	if !ok {
		t.Fatalf("object %s is not packed", h)
	}
	return l.pack, l.off
}

func mustHex(t *testing.T, h string) []byte {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// overwrite writes data at off in the file p.
func overwrite(t *testing.T, p string, off int64, data []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, off); err != nil {
		t.Fatal(err)
	}
}

func dirHash(t *testing.T, s *Store, id, dir string) string {
	t.Helper()
	root, err := s.snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	return root.find(dir).hash
}

// A file changed in the same tick of the clock as the snapshot before
// (same size, same time, same inode) is read again and caught.
func TestRacilyCleanCaught(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a.txt", "one", 0o644)
	p := filepath.Join(root, "a.txt")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(t, root, Options{})
	first := take(t, s)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("two"), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	second := take(t, s)
	changes, err := s.Diff(first.ID, second.ID)
	if err != nil || len(changes) != 1 || changes[0].Path != "a.txt" {
		t.Errorf("Diff = %v, %v; want a.txt changed", changes, err)
	}
}

// Base makes a stored snapshot the stat cache of another Store on the same
// directory; an unknown id leaves the base as it was.
func TestBase(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a", "a", 0o644)
	write(t, root, "b/c", "c", 0o644)
	age(t, root)
	dir := filepath.Join(t.TempDir(), "cp")
	first := take(t, newStore(t, root, Options{Dir: dir}))
	time.Sleep(10 * time.Millisecond)

	s := newStore(t, root, Options{Dir: dir})
	if err := s.Base(first.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Base(strings.Repeat("0", 64)); !errors.Is(err, ErrUnknownSnapshot) {
		t.Errorf("Base(unknown) = %v, want ErrUnknownSnapshot", err)
	}
	again := take(t, s)
	if again.ID != first.ID || s.reads.Load() != 0 {
		t.Errorf("Take after Base: id %s (want %s), %d files read (want 0)", again.ID, first.ID, s.reads.Load())
	}
}

// Keep removes what the kept snapshots do not reach, and a kept snapshot
// is still restored; a Link'd store restores the same snapshots.
func TestKeepAndLink(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a", "version 1", 0o644)
	write(t, root, "b", "b", 0o644)
	s := newStore(t, root, Options{})
	v1 := take(t, s)
	want := manifest(t, root)
	write(t, root, "a", "version 2", 0o644)
	write(t, root, "c", "made by v2, kept by v3", 0o644)
	v2 := take(t, s)
	write(t, root, "a", "version 3", 0o644)
	v3 := take(t, s)

	fork := filepath.Join(t.TempDir(), "fork")
	if err := Link(s.dir, fork); err != nil {
		t.Fatal(err)
	}
	removed, err := s.Keep([]string{v1.ID})
	if err != nil {
		t.Fatal(err)
	}
	if removed != 2 { // v2's root tree and its "version 2" (v3 is the base)
		t.Errorf("Keep removed %d objects, want 2", removed)
	}
	// v2's pack was written again with c alone, which v3 holds.
	if r, _, err := s.Open(v3.ID, "c"); err != nil {
		t.Errorf("Open(v3, c) after Keep: %v", err)
	} else {
		r.Close()
	}
	if _, err := s.Diff(v2.ID, v3.ID); !errors.Is(err, ErrUnknownSnapshot) {
		t.Errorf("Diff of a removed snapshot = %v, want ErrUnknownSnapshot", err)
	}
	if _, err := s.Keep([]string{v2.ID}); !errors.Is(err, ErrUnknownSnapshot) {
		t.Errorf("Keep of a removed snapshot = %v, want ErrUnknownSnapshot", err)
	}
	for name, store := range map[string]*Store{"kept": s, "linked": newStore(t, root, Options{Dir: fork})} {
		t.Run(name, func(t *testing.T) {
			write(t, root, "a", "version 3", 0o644)
			plan, err := store.Plan(v1.ID, v3.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Restore(v1.ID, plan.Changes); err != nil {
				t.Fatal(err)
			}
			sameTree(t, want, manifest(t, root))
		})
	}
}

// A corrupt or missing object is an error that names it: packed or loose,
// content or tree.
func TestCorruptObject(t *testing.T) {
	root := workspaceDir(t)
	big := strings.Repeat("B", 2<<20) // over smallFile: a loose object
	write(t, root, "a", "original", 0o644)
	write(t, root, "big", big, 0o644)
	write(t, root, "d/b", "b", 0o644)
	s := newStore(t, root, Options{})
	first := take(t, s)
	write(t, root, "a", "changed", 0o644)
	write(t, root, "big", "small now", 0o644)
	rmAll(t, root, "d")
	last := take(t, s)
	plan, err := s.Plan(first.ID, last.ID)
	if err != nil {
		t.Fatal(err)
	}
	blob := sha256hex([]byte("original"))
	pack, off := packedAt(t, s, blob)
	overwrite(t, pack, off, []byte("tampered"))
	loose := sha256hex([]byte(big))
	if err := os.Remove(s.obj.path(loose)); err != nil {
		t.Fatal(err)
	}
	err = s.Restore(first.ID, plan.Changes)
	if err == nil || !strings.Contains(err.Error(), "object "+blob+" is corrupt") || !strings.Contains(err.Error(), "object "+loose+" is missing") {
		t.Errorf("Restore with a corrupt and a missing object = %v, want an error naming each", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a")); string(data) != "changed" {
		t.Errorf("a corrupt object overwrote a with %q", data)
	}
	sub := dirHash(t, s, first.ID, "d")
	pack, off = packedAt(t, s, sub)
	overwrite(t, pack, off+int64(len(treeHeader)), []byte("X"))
	s2 := newStore(t, root, Options{Dir: s.dir}) // no cached trees
	if _, err := s2.Diff(first.ID, last.ID); err == nil || !strings.Contains(err.Error(), "object "+sub+" is corrupt") {
		t.Errorf("Diff with a corrupt tree = %v, want an error naming %s", err, sub)
	}
}

// The store's own directory inside the workspace is never recorded.
func TestStoreInsideWorkspace(t *testing.T) {
	root := workspaceDir(t)
	write(t, root, "a", "a", 0o644)
	s := newStore(t, root, Options{Dir: filepath.Join(root, ".rein", "checkpoints")})
	take(t, s)
	snap := take(t, s)
	if snap.Files != 1 {
		t.Errorf("Files = %d, want 1 (the store itself left out)", snap.Files)
	}
}

// A file that holds one of Options.Secrets is left out and no object of
// the store holds its bytes, small or large.
func TestSecretsLeftOut(t *testing.T) {
	secret := "sk-live-abcdefgh12345678"
	root := workspaceDir(t)
	write(t, root, "a.txt", "plain", 0o644)
	write(t, root, "env.sh", "export KEY="+secret+"\n", 0o644)
	write(t, root, "big.log", strings.Repeat("x", 3<<20)+secret, 0o644)
	s := newStore(t, root, Options{Secrets: []string{secret}})
	snap := take(t, s)
	if snap.Files != 1 || snap.LeftCount != 2 || snap.Left[0].Reason != reasonSecret {
		t.Errorf("snapshot = %+v, want a.txt alone, env.sh and big.log left out", snap)
	}
	err := filepath.WalkDir(s.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), secret) {
			t.Errorf("%s holds the secret", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
