//go:build unix

package config

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// lockBeside takes an exclusive lock on the file path+".lock", made when
// missing (readable by the person only), waiting while another process
// (or another call in this one) holds it; unlock releases it. It
// serialises the read-modify-write of a file that several reins may
// change at once: each reads what the one before wrote. The kernel
// releases the lock when the process ends, however it ends. The lock
// file stays: removing it would let a waiter lock a file another no
// longer finds.
func lockBeside(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("config: lock %s: %w", path, err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close() // the lock's error is the one to report
		return nil, fmt.Errorf("config: lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}
