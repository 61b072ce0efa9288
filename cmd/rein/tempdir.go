package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/rein-agent/rein/internal/sandbox"
)

// tempPrefix begins the name of a session's private temporary directory:
// rein-tmp-NS-PID-START-RANDOM, where NS-PID-START is the process that
// made it (see owner) and RANDOM is os.MkdirTemp's. A rein that dies
// without removing its own (kill -9) leaves it behind; the next session
// to start removes it.
const tempPrefix = sandbox.SessionTempPrefix

// owner is the process a temporary directory was made by: its PID
// namespace (the inode of /proc/self/ns/pid), its pid and its start time
// (clock ticks after boot, /proc/PID/stat's 22nd field), which together
// tell it from a later process given the same pid. Where the system has
// no /proc, ns and start are 0 and only the pid is known.
type owner struct {
	ns    uint64
	pid   int
	start uint64
}

// String is the owner as the directory's name spells it.
func (o owner) String() string {
	return fmt.Sprintf("%d-%d-%d", o.ns, o.pid, o.start)
}

// ownerOf reads the owner from a temporary directory's name; ok is false
// for a name rein did not make this way (one of an older rein, or not
// rein's at all), which is left alone.
func ownerOf(name string) (o owner, ok bool) {
	fields := strings.Split(strings.TrimPrefix(name, tempPrefix), "-")
	if !strings.HasPrefix(name, tempPrefix) || len(fields) != 4 {
		return owner{}, false
	}
	var nums [4]uint64
	for i, f := range fields {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return owner{}, false
		}
		nums[i] = n
	}
	if nums[1] == 0 || nums[1] > 1<<22 { // Linux's PID_MAX_LIMIT
		return owner{}, false
	}
	return owner{ns: nums[0], pid: int(nums[1]), start: nums[2]}, true
}

// makeTempDir creates a session's private temporary directory in
// os.TempDir, mode 0700, named for this process.
func makeTempDir() (string, error) {
	return os.MkdirTemp("", tempPrefix+self().String()+"-")
}

// self is this process as an owner, read once, when first asked: rein
// version and the sandbox's helpers never ask.
var self = sync.OnceValue(thisProcess)

// removeStale removes, from dir, the temporary directories of rein
// processes that no longer exist, and returns how many it removed. It
// reads dir once (a glob) and, for each owner of a directory of rein's,
// the stat of its pid; it leaves alone what is not surely stale: a
// directory of a live process (the same pid and start time), of another
// PID namespace (another container's rein, whose processes it cannot
// see), of another user, a symbolic link, anything not named as rein
// names them. A directory it cannot remove whole is left as it is: the
// next start tries again. Safe to run beside other reins doing the same.
func removeStale(dir string) int {
	names, err := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	if err != nil {
		return 0 // a bad pattern: cannot happen with this one
	}
	uid := os.Getuid()
	removed := 0
	gone := map[owner]bool{} // a rein that ran many sessions left many
	for _, path := range names {
		o, ok := ownerOf(filepath.Base(path))
		if !ok {
			continue
		}
		g, seen := gone[o]
		if !seen {
			g = o.gone()
			gone[o] = g
		}
		if !g {
			continue
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
			continue
		}
		if removeTree(path) == nil {
			removed++
		}
	}
	return removed
}

// removeTree removes path and everything under it, as os.RemoveAll does,
// making the directories in it writable when a first try is refused (a
// command may leave read-only directories behind: Go's module cache makes
// them so). Symbolic links are removed, never followed.
func removeTree(path string) error {
	err := os.RemoveAll(path)
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	// A directory an error comes up in is skipped; the second RemoveAll
	// says what remains.
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}
