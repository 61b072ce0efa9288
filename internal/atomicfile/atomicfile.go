// Package atomicfile is rein's one durable write: a file's content is
// replaced whole or not at all, and the replacement survives a crash.
//
// [Write] writes a temporary file in the same directory, fsyncs it, gives
// it the mode of the file it replaces (or the caller's, for a new file),
// renames it over the file and fsyncs the directory. [SyncDir] is that last
// step on its own, for code that creates entries by other means (a log's
// first open, a fork's rename). [MkdirAll] makes the directories a file is
// written into when they are missing, durably too.
//
// github.com/google/renameio/v2 does the first half of this, but it keeps
// only the permission bits, does not fsync the directory, may put the
// temporary file in os.TempDir, and does not build on Windows.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
)

// ErrNotDurable is wrapped by the error of a [Write] that replaced the
// file but could not fsync its directory: the new content is there for
// every reader, but may not survive a crash.
var ErrNotDurable = errors.New("written, but its directory could not be synced, so the change may not survive a crash")

// keptBits are the mode bits of a replaced file that its replacement
// keeps: its permissions and the sticky bit, not setuid or setgid, which a
// write to a file clears (a program rewritten by rein must not keep
// running as its owner).
const keptBits = fs.ModePerm | fs.ModeSticky

// Write replaces the file at path with data, or creates it with mode perm
// (less the umask, as os.WriteFile does). A file it replaces keeps its
// permission bits and sticky bit; setuid and setgid are cleared, as a
// write clears them. Readers see the old content or the new, never a part;
// after a crash the file holds one or the other. A symbolic link at path
// is replaced, not followed: a caller that means the link's target
// resolves it first. The directory must exist. When writing fails, the
// file is unchanged and no temporary file is left; when only the last
// step fails (the directory's fsync), the file already holds data and the
// error wraps [ErrNotDurable].
func Write(path string, data []byte, perm fs.FileMode) error {
	keep, replace, err := modeOf(path)
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	f, err := createTemp(dir, filepath.Base(path), perm)
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	err = fill(f, data, replace, keep)
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		// The temporary file is ours and useless now; failing to remove
		// it leaves litter, not a wrong file, so the first error wins.
		_ = os.Remove(f.Name())
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err := SyncDir(dir); err != nil {
		return fmt.Errorf("atomicfile: %s: %w (%w)", path, ErrNotDurable, err)
	}
	return nil
}

// modeOf returns the mode bits a replacement of path keeps, and whether
// there is a file to replace.
func modeOf(path string) (fs.FileMode, bool, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	case !fi.Mode().IsRegular():
		return 0, false, nil
	}
	return fi.Mode() & keptBits, true, nil
}

// createTemp creates a new hidden file in dir named after base, opened
// with perm so that a new file gets perm less the umask.
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+".rein-"+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm&fs.ModePerm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("create a temporary file in %s: too many name collisions", dir)
}

// fill writes data to f, gives it mode when chmod says, syncs and closes it.
func fill(f *os.File, data []byte, chmod bool, mode fs.FileMode) error {
	_, err := f.Write(data)
	if err == nil && chmod {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// MkdirAll creates dir and the missing directories above it with perm
// (less the umask), as os.MkdirAll does, and fsyncs the directory that
// holds each one it created, so that a file [Write] puts into dir does not
// vanish with a directory after a crash. A dir that exists is left as it
// is. When a directory cannot be created, the error is os.MkdirAll's and
// the directories made before it stay; when only an fsync fails, every
// directory is there and the error wraps [ErrNotDurable].
func MkdirAll(dir string, perm fs.FileMode) error {
	// The missing ones, deepest first: each is made durable in the one
	// above it, which is either missing too or the existing ancestor.
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	for _, d := range missing {
		if err := SyncDir(filepath.Dir(d)); err != nil {
			return fmt.Errorf("atomicfile: %s: %w (%w)", d, ErrNotDurable, err)
		}
	}
	return nil
}

// SyncDir fsyncs the directory dir, making the entries created, renamed or
// removed in it durable. Windows cannot, and does not need to: there it
// does nothing; nor does it fail on a file system that cannot sync a
// directory (EINVAL or "not supported" from some FUSE, 9p and network
// mounts), where there is nothing more to do.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, errors.ErrUnsupported) {
		err = nil
	}
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
