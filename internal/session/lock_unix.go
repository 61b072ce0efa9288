//go:build unix

package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockName is the lock file's name in a session directory.
const lockName = "lock"

// lock takes the session directory's write lock: an exclusive flock on
// dir/lock, which holds the owner's pid for the message a second writer
// gets. The kernel releases the lock when the process ends, however it
// ends, so a crash never leaves a session locked.
func lock(dir string) (unlock func() error, err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: lock %s: %w", dir, err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	for try := 0; errors.Is(err, syscall.EWOULDBLOCK) && try < 5; try++ {
		// A reader testing the lock (locked) holds it for microseconds.
		time.Sleep(2 * time.Millisecond)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		owner := readOwner(f)
		_ = f.Close() // the lock error is the one that matters
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: session %s is being written by another rein process%s; wait for it to end, or fork the session (`rein fork %s`)",
				ErrLocked, filepath.Base(dir), owner, filepath.Base(dir))
		}
		return nil, fmt.Errorf("session: lock %s: %w", dir, err)
	}
	// The pid is for people only; a failure to write it changes nothing.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f.Close, nil
}

// readOwner returns " (pid N)" from a lock file, or "".
func readOwner(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0) // best effort: the pid only decorates a message
	pid := strings.TrimSpace(string(b[:n]))
	if _, err := strconv.Atoi(pid); err != nil {
		return ""
	}
	return " (pid " + pid + ")"
}

// locked reports whether a process holds dir's write lock. It writes
// nothing: a missing lock file means no writer, and the test lock is taken
// shared on a read-only descriptor and dropped at once.
func locked(dir string) bool {
	f, err := openRead(filepath.Join(dir, lockName))
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // closing unlocks anyway
	return false
}

// writable reports, as an error naming dir, whether this process may make
// entries in the directory dir.
func writable(dir string) error {
	if err := syscall.Access(dir, 0x2|0x1); err != nil { // W_OK|X_OK
		return fmt.Errorf("session: %s is not a directory rein may write in: %w", dir, err)
	}
	return nil
}
