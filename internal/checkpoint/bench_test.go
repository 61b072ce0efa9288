package checkpoint

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The benchmarks run on a generated repository of 10,000 files and about
// 200 MB (20 directories of 10 of 50 files; 20 files of 2 MB, the rest
// 0 to 32 KB), with a real .git/index when git is installed, and on a
// project of 20 small files. The files are in the page cache, as a
// session's workspace is. Each reports newB/op, the bytes a snapshot
// wrote to the store: its disk use.

// bigRepo writes the 10,000-file repository into a new directory.
func bigRepo(b *testing.B) string {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.NewChaCha8([32]byte{1})
	pick := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 2<<20)
	n := 0
	for i := range 20 {
		for j := range 10 {
			dir := filepath.Join(root, fmt.Sprintf("pkg%02d", i), fmt.Sprintf("sub%d", j))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := range 50 {
				size := pick.IntN(32 << 10)
				if n%500 == 0 {
					size = 2 << 20
				}
				n++
				rng.Read(buf[:size])
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", k)), buf[:size], 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	ageAll(b, root)
	if _, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return root
}

func smallRepo(b *testing.B) string {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		p := filepath.Join(root, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package d\n\n// file %d\nfunc F%d() int { return %d }\n", i, i, i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ageAll(b, root)
	return root
}

// ageAll sets every file's time to one in 2020: files a snapshot finds
// modified within the second before it are read again (racily clean),
// which a workspace edited long ago does not pay.
func ageAll(b *testing.B, root string) {
	b.Helper()
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

// cpuTime returns the CPU time this process has used, user and system: a
// figure that, unlike ns/op, does not grow when other processes share the
// machine's cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchStore(b *testing.B, root, dir string) *Store {
	b.Helper()
	s, err := Open(Options{Root: root, Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// first measures a session's first snapshot of root: each iteration a new
// store.
func first(b *testing.B, root string) {
	base := b.TempDir()
	var newBytes int64
	var files int
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		dir := filepath.Join(base, fmt.Sprint(i))
		if i > 0 {
			os.RemoveAll(filepath.Join(base, fmt.Sprint(i-1)))
		}
		s := benchStore(b, root, dir)
		b.StartTimer()
		c := cpuTime()
		snap, err := s.Take(b.Context())
		cpu += cpuTime() - c
		if err != nil {
			b.Fatal(err)
		}
		newBytes += snap.NewBytes
		files = snap.Files
	}
	b.ReportMetric(float64(newBytes)/float64(b.N), "newB/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(files), "files")
}

// incremental measures a snapshot after changed files were rewritten
// (each to new content of the same size and a new time).
func incremental(b *testing.B, root string, changed int) {
	s := benchStore(b, root, filepath.Join(b.TempDir(), "cp"))
	if _, err := s.Take(b.Context()); err != nil {
		b.Fatal(err)
	}
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) != ".git" && !contains(p, "/.git/") {
			files = append(files, p)
		}
		return nil
	})
	pick := rand.New(rand.NewPCG(3, 4))
	var newBytes int64
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		for range changed {
			p := files[pick.IntN(len(files))]
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			data = append(data[:0:0], data...)
			if len(data) == 0 {
				data = []byte{0}
			}
			data[0] ^= byte(i + 1)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		c := cpuTime()
		snap, err := s.Take(b.Context())
		cpu += cpuTime() - c
		if err != nil {
			b.Fatal(err)
		}
		newBytes += snap.NewBytes
	}
	b.ReportMetric(float64(newBytes)/float64(b.N), "newB/op")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func contains(s, sub string) bool {
	return len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

func BenchmarkFirst(b *testing.B) { first(b, bigRepo(b)) }

func BenchmarkIncremental(b *testing.B) { incremental(b, bigRepo(b), 5) }

func BenchmarkSmall(b *testing.B) {
	root := smallRepo(b)
	b.Run("first", func(b *testing.B) { first(b, root) })
	b.Run("incremental", func(b *testing.B) { incremental(b, root, 1) })
}

// BenchmarkRestore measures Plan and Restore of a snapshot on the big
// repository after 5 files were changed, 5 deleted and 5 created.
func BenchmarkRestore(b *testing.B) {
	root := bigRepo(b)
	s := benchStore(b, root, filepath.Join(b.TempDir(), "cp"))
	before, err := s.Take(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		p := filepath.Join(root, "pkg03", fmt.Sprintf("sub%d", i), "f007.go")
		if err := os.WriteFile(p, []byte("changed"), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Remove(filepath.Join(root, "pkg05", fmt.Sprintf("sub%d", i), "f011.go")); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "pkg07", fmt.Sprintf("new%d.go", i)), []byte("new"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	after, err := s.Take(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		plan, err := s.Plan(before.ID, after.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(plan.Changes) != 15 || len(plan.Conflicts) != 0 {
			b.Fatalf("plan: %d changes, conflicts %v", len(plan.Changes), plan.Conflicts)
		}
		if err := s.Restore(before.ID, plan.Changes); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		back, err := s.Plan(after.ID, before.ID)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Restore(after.ID, back.Changes); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkDiff measures Diff between two snapshots of the big repository
// that differ in 5 files, with no tree cached: only the differing trees
// are read.
func BenchmarkDiff(b *testing.B) {
	root := bigRepo(b)
	dir := filepath.Join(b.TempDir(), "cp")
	s := benchStore(b, root, dir)
	before, err := s.Take(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 5 {
		p := filepath.Join(root, fmt.Sprintf("pkg%02d", i*3), "sub1", "f001.go")
		if err := os.WriteFile(p, []byte("changed"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	after, err := s.Take(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		fresh := benchStore(b, root, dir)
		changes, err := fresh.Diff(before.ID, after.ID)
		if err != nil || len(changes) != 5 {
			b.Fatalf("Diff = %d changes, %v", len(changes), err)
		}
	}
}

// BenchmarkWalkBaseline is the floor the others stand on: a plain
// filepath.WalkDir of the big repository with an lstat of each entry, the
// least any snapshot that looks at every file costs on this machine now.
func BenchmarkWalkBaseline(b *testing.B) {
	root := bigRepo(b)
	b.ResetTimer()
	for range b.N {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			_, err = os.Lstat(p)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
