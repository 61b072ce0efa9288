package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"

	"github.com/rein-agent/rein/internal/gitignore"
)

// dependencies are the names of the dependency and build directories a
// snapshot leaves out when they are ignored (outside a git repository,
// always): what a package manager or a build makes again.
var dependencies = map[string]bool{
	"node_modules": true, "bower_components": true, "jspm_packages": true, ".pnpm-store": true,
	".yarn": true, ".next": true, ".nuxt": true, ".svelte-kit": true, ".turbo": true, ".parcel-cache": true,
	"target": true, "vendor": true, "dist": true, "build": true, "_build": true, ".cache": true,
	".venv": true, "venv": true, "__pycache__": true, ".tox": true, ".nox": true, ".eggs": true,
	".mypy_cache": true, ".pytest_cache": true, ".ruff_cache": true,
	".gradle": true, ".m2": true, ".dart_tool": true, ".stack-work": true, ".terraform": true, ".direnv": true,
	"Pods": true, "DerivedData": true, "CMakeFiles": true, "coverage": true, "htmlcov": true, ".nyc_output": true,
}

// Reasons a snapshot leaves something out.
const (
	reasonDependency        = "ignored dependency directory"
	reasonDependencyNoRepo  = "dependency directory"
	reasonSpecial           = "special file"
	reasonUnreadable        = "unreadable"
	reasonBudgetDirectory   = "over the %s budget for ignored files"
	reasonIgnoredOverMaxFmt = "ignored file over %s"
)

// walker is one Take's walk of the workspace: the directories are listed
// and lstatted in order by one goroutine, which decides what is recorded;
// the files whose content must be read go to a few hashing goroutines.
type walker struct {
	s        *Store
	ctx      context.Context
	tracked  *tracked
	racyFrom int64 // a base entry modified at or after this (ns) is read again
	left     int64 // what is left of the budget for ignored files
	snap     Snapshot

	jobs    chan *entryJob
	wg      sync.WaitGroup
	mu      sync.Mutex // guards the fields below, which the hashers set
	err     error
	late    []Left // files the hashers dropped
	created int
	wrote   int64
}

// entryJob is a file or link whose content a hasher stores into e.
type entryJob struct {
	abs string
	rel string
	e   *entry
}

func (s *Store) newWalker(ctx context.Context) *walker {
	w := &walker{s: s, ctx: ctx, left: s.budget, racyFrom: racyFrom(s.baseTaken)}
	if s.top != "" {
		w.tracked = s.loadTracked(s.gitDir, s.prefix)
	}
	return w
}

// run walks Root and returns the new root tree, its hashes not yet set
// (see Store.finish).
func (w *walker) run() (*tree, error) {
	n := runtime.GOMAXPROCS(0) + 2
	w.jobs = make(chan *entryJob, 512)
	for range n {
		w.wg.Add(1)
		go w.hasher()
	}
	limit := w.s.root
	if w.s.top != "" {
		limit = w.s.top
	}
	root, err := w.dir(w.s.root, "", w.s.base, gitignore.Above(w.s.root, limit), false, false)
	close(w.jobs)
	w.wg.Wait()
	if err == nil {
		err = w.err
	}
	if err == nil {
		err = w.ctx.Err() // the hashers skip what is left once ctx is done
	}
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fmt.Errorf("checkpoint: cannot read %s", w.s.root)
	}
	for _, l := range w.late {
		w.leave(l.Path, l.Reason, 0)
	}
	w.snap.New += w.created
	w.snap.NewBytes += w.wrote
	return root, nil
}

func (w *walker) leave(rel, reason string, size int64) {
	if len(w.snap.Left) < maxLeft {
		w.snap.Left = append(w.snap.Left, Left{Path: rel, Reason: reason})
	}
	w.snap.LeftCount++
	w.snap.LeftBytes += size
}

// dir lists the directory abs (rel below Root; "" for Root) and returns
// its new tree, against prev, the base's tree of the same directory (nil
// when none). sets are the ignore rules in force where it is; ignored
// says it is itself ignored (so is everything in it that is not tracked);
// noIndex that it is in a repository nested below Root's, which the index
// does not describe. A directory that cannot be listed gives a nil tree.
//
// dir is long because it is the one decision of what a snapshot holds,
// entry by entry, and reads best as one switch.
func (w *walker) dir(abs, rel string, prev *tree, sets []*gitignore.Set, ignored, noIndex bool) (*tree, error) {
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	names, err := readNames(abs)
	if err != nil {
		return nil, nil
	}
	hasGit := slices.Contains(names, ".git")
	if hasGit && abs != w.s.top && abs != w.s.root {
		noIndex = true
	}
	sets = gitignore.Enter(sets, abs, hasGit, slices.Contains(names, ".gitignore"))
	infos := statAll(abs, names)
	t := &tree{prev: prev, entries: make([]entry, 0, len(names))}
	for i, name := range names {
		// Each entry may be matched against many ignore patterns: a Take
		// stops between any two when cancelled.
		if err := w.ctx.Err(); err != nil {
			return nil, err
		}
		if name == ".git" {
			continue
		}
		childAbs := abs + string(os.PathSeparator) + name
		if childAbs == w.s.dir {
			continue
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		fi := &infos[i]
		if !fi.ok {
			continue // gone since it was listed
		}
		mode := fi.mode
		p := prev.find(name)
		switch {
		case mode.IsDir():
			ign := ignored || gitignore.Ignored(sets, childAbs, name, true)
			keep := !noIndex && w.tracked.dir(childRel)
			if dependencies[name] && !keep && (ign || w.s.top == "") {
				reason := reasonDependency
				if w.s.top == "" {
					reason = reasonDependencyNoRepo
				}
				w.leave(childRel, reason, 0)
				t.entries = append(t.entries, tombstone(name, leftDependency))
				continue
			}
			if ign && !keep && w.left <= 0 {
				w.leave(childRel, fmt.Sprintf(reasonBudgetDirectory, human(w.s.budget)), 0)
				t.entries = append(t.entries, tombstone(name, leftBudget))
				continue
			}
			var prevSub *tree
			if p != nil && p.kind == kindDir {
				// An unreadable base tree only costs reading the files again.
				prevSub, _ = w.s.subtree(p)
			}
			sub, err := w.dir(childAbs, childRel, prevSub, sets, ign, noIndex)
			if err != nil {
				return nil, err
			}
			if sub == nil {
				w.leave(childRel, reasonUnreadable, 0)
				t.entries = append(t.entries, tombstone(name, leftUnreadable))
				continue
			}
			t.entries = append(t.entries, entry{name: name, kind: kindDir, mode: mode.Perm(), sub: sub})
		case mode.IsRegular() || mode&fs.ModeSymlink != 0:
			ign := ignored || gitignore.Ignored(sets, childAbs, name, false)
			if ign && !noIndex && w.tracked.file(childRel) {
				ign = false
			}
			size := fi.size
			if ign {
				if mode.IsRegular() && size > w.s.maxFile {
					w.leave(childRel, fmt.Sprintf(reasonIgnoredOverMaxFmt, human(w.s.maxFile)), size)
					t.entries = append(t.entries, tombstone(name, leftSize))
					continue
				}
				if size > w.left {
					w.leave(childRel, fmt.Sprintf(reasonBudgetDirectory, human(w.s.budget)), size)
					t.entries = append(t.entries, tombstone(name, leftBudget))
					continue
				}
				w.left -= size
			}
			e := entry{name: name, kind: kindFile, mode: mode.Perm(), size: size, mtime: fi.mtime, ino: fi.ino}
			if mode&fs.ModeSymlink != 0 {
				e.kind = kindLink
			}
			if p != nil && p.kind == e.kind && p.mode == e.mode && p.size == e.size && p.mtime == e.mtime &&
				p.ino == e.ino && p.mtime < w.racyFrom {
				e.hash = p.hash
			}
			t.entries = append(t.entries, e)
		default:
			w.leave(childRel, reasonSpecial, 0)
			t.entries = append(t.entries, tombstone(name, leftSpecial))
		}
	}
	for i := range t.entries {
		e := &t.entries[i]
		if (e.kind == kindFile || e.kind == kindLink) && e.hash == "" {
			job := &entryJob{abs: abs + string(os.PathSeparator) + e.name, rel: e.name, e: e}
			if rel != "" {
				job.rel = rel + "/" + e.name
			}
			select {
			case w.jobs <- job:
			case <-w.ctx.Done():
				return nil, w.ctx.Err()
			}
		}
	}
	return t, nil
}

// stat is what a Take needs of a file's lstat.
type stat struct {
	ok    bool        // false: gone since it was listed
	mode  fs.FileMode // type and permission bits
	size  int64
	mtime int64 // ns since the epoch
	ino   uint64
}

// statAll lstats the names of the directory abs: on a few goroutines for
// a large directory, as lstat is most of what an incremental Take costs.
func statAll(abs string, names []string) []stat {
	infos := make([]stat, len(names))
	stat := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			infos[i] = lstat(abs + string(os.PathSeparator) + names[i])
		}
	}
	n := min(runtime.GOMAXPROCS(0), len(names)/16)
	if n <= 1 {
		stat(0, len(names))
		return infos
	}
	var wg sync.WaitGroup
	chunk := (len(names) + n - 1) / n
	for lo := chunk; lo < len(names); lo += chunk {
		wg.Go(func() { stat(lo, min(lo+chunk, len(names))) })
	}
	stat(0, chunk)
	wg.Wait()
	return infos
}

// readNames returns the names in the directory abs, sorted.
func readNames(abs string) ([]string, error) {
	f, err := openNoPoll(abs, syscall.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only: a close error loses nothing
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// hasher stores the content of the files it is given until the jobs end.
// A file that is gone or no longer a file or link is dropped (its entry's
// kind zeroed), one that cannot be read or holds a secret left out (its
// entry made a tombstone); a failure
// to write the store ends the Take.
func (w *walker) hasher() {
	defer w.wg.Done()
	var buf []byte // made with the first file: most Takes read none
	for job := range w.jobs {
		if w.ctx.Err() != nil {
			continue
		}
		e := job.e
		w.s.reads.Add(1)
		var (
			h       string
			size    int64
			created bool
			err     error
		)
		if e.kind == kindLink {
			var target string
			target, err = os.Readlink(job.abs)
			if err == nil {
				size = int64(len(target))
				h, created, err = w.s.obj.put([]byte(target))
			}
		} else {
			if buf == nil {
				buf = make([]byte, smallFile)
			}
			h, size, created, err = w.s.obj.putFile(job.abs, buf)
		}
		w.mu.Lock()
		switch {
		case err == nil:
			e.hash, e.size = h, size
			if created {
				w.created++
				w.wrote += size
			}
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotRegular) || errors.Is(err, syscall.ELOOP) ||
			errors.Is(err, syscall.EINVAL): // a link that is one no more
			e.kind = 0
		case errors.Is(err, fs.ErrPermission):
			*e = tombstone(e.name, leftUnreadable)
			w.late = append(w.late, Left{Path: job.rel, Reason: reasonUnreadable})
		case errors.Is(err, errSecret):
			*e = tombstone(e.name, leftSecret)
			w.late = append(w.late, Left{Path: job.rel, Reason: reasonSecret})
		default:
			if w.err == nil {
				w.err = err
			}
		}
		w.mu.Unlock()
	}
}

// openNoPoll opens name for reading with the extra flags, as os.Open does
// but without trying to register the file with the runtime's poller (on
// Linux os.Open tries epoll and undoes it for a regular file or a
// directory, system calls a Take that opens thousands goes without), and
// without updating its access time where the file is ours (noatime).
func openNoPoll(name string, flags int) (*os.File, error) {
	extra := noatime
	for {
		fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|flags|extra, 0)
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		switch {
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.EPERM) && extra != 0:
			extra = 0 // not the file's owner
		default:
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
	}
}

// human says n bytes in MB or KB when it is a whole number of them.
func human(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KB", n>>10)
	case n == math.MaxInt64:
		return "unlimited"
	}
	return fmt.Sprintf("%d bytes", n)
}
